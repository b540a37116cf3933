// libzkgate_cuda.so: the proof pipeline (../hd/pipeline.hpp) on an NVIDIA GPU. The executor maps
// the pipeline's steps onto one CUDA stream per context: stream-ordered allocations (the driver's
// pool makes per-batch scratch cheap), one thread per element for launches, CUB's radix sort for
// the bucket keys. Keys stay resident per context within its byte budget.
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "../hd/cuda_api.h"
#include "../hd/residency.hpp"

using namespace zk::hd;

namespace {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw CudaError(std::string(what) + ": " + cudaGetErrorString(e));
}

template <class Fn>
__global__ void run_each(size_t n, Fn f) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) f(i);
}

struct DeviceExec {
  int device = 0;
  cudaStream_t stream = nullptr;

  template <class T>
  struct Buf {
    T* p = nullptr;
    size_t n = 0;
    cudaStream_t stream = nullptr;
    Buf() = default;
    Buf(const Buf&) = delete;
    Buf& operator=(const Buf&) = delete;
    Buf(Buf&& o) noexcept : p(o.p), n(o.n), stream(o.stream) { o.p = nullptr; }
    Buf& operator=(Buf&& o) noexcept {
      if (this != &o) {
        release();
        p = o.p;
        n = o.n;
        stream = o.stream;
        o.p = nullptr;
      }
      return *this;
    }
    ~Buf() { release(); }
    void release() {
      if (p) cudaFreeAsync(p, stream);
      p = nullptr;
    }
    T* data() { return p; }
    const T* data() const { return p; }
    size_t size() const { return n; }
  };

  template <class T>
  Buf<T> alloc(size_t n) {
    Buf<T> b;
    b.n = n;
    b.stream = stream;
    if (n) check(cudaMallocAsync((void**)&b.p, n * sizeof(T), stream), "device memory");
    return b;
  }
  template <class T>
  void upload(T* dst, const T* src, size_t n) {
    check(cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyHostToDevice, stream), "copy to device");
  }
  template <class T>
  void download(T* dst, const T* src, size_t n) {
    check(cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyDeviceToHost, stream), "copy from device");
  }
  template <class T>
  void fill_zero(T* p, size_t n) {
    check(cudaMemsetAsync(p, 0, n * sizeof(T), stream), "memset");
  }
  template <class Fn>
  void launch(size_t n, Fn f) {
    if (n == 0) return;
    const unsigned block = 128;
    const size_t blocks = (n + block - 1) / block;
    run_each<<<(unsigned)blocks, block, 0, stream>>>(n, f);
    check(cudaGetLastError(), "kernel launch");
  }
  void sort_pairs(const u32* keys_in, const u32* vals_in, u32* keys_out, u32* vals_out, size_t n, int bits) {
    size_t temp = 0;
    check(cub::DeviceRadixSort::SortPairs(nullptr, temp, keys_in, keys_out, vals_in, vals_out, n, 0, bits, stream),
          "radix sort (size)");
    auto scratch = alloc<unsigned char>(temp);
    check(cub::DeviceRadixSort::SortPairs(scratch.data(), temp, keys_in, keys_out, vals_in, vals_out, n, 0, bits,
                                          stream),
          "radix sort");
  }
  void sync() { check(cudaStreamSynchronize(stream), "stream"); }
};

struct Context {
  DeviceExec x;
  Residency<DeviceExec> keys;
  std::mutex run;  // one pass at a time per context (its stream orders the work anyway)
  Context(int dev, uint64_t budget) : keys(budget) { x.device = dev; }
};

void say(char* err, size_t len, const std::string& msg) {
  if (err && len) {
    std::snprintf(err, len, "%s", msg.c_str());
  }
}

template <class Fn>
int guarded(Context* c, char* err, size_t len, Fn fn) {
  try {
    if (c) check(cudaSetDevice(c->x.device), "select device");
    fn();
    return 0;
  } catch (const std::exception& e) {
    say(err, len, e.what());
    return -1;
  }
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int zkc_api_version(void) { return ZKC_API_VERSION; }

__attribute__((visibility("default"))) int zkc_device_count(char* err, size_t len) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    say(err, len, std::string("no usable CUDA device: ") + cudaGetErrorString(e));
    return -1;
  }
  return n;
}

__attribute__((visibility("default"))) int zkc_device_info(int dev, zkc_device* out, char* err, size_t len) {
  return guarded(nullptr, err, len, [&] {
    cudaDeviceProp p;
    check(cudaGetDeviceProperties(&p, dev), "device properties");
    check(cudaSetDevice(dev), "select device");
    size_t free_b = 0, total_b = 0;
    check(cudaMemGetInfo(&free_b, &total_b), "device memory");
    std::memset(out, 0, sizeof *out);
    out->index = dev;
    std::snprintf(out->name, sizeof out->name, "%s", p.name);
    out->sms = p.multiProcessorCount;
    out->cc_major = p.major;
    out->cc_minor = p.minor;
    out->total_bytes = total_b;
    out->free_bytes = free_b;
    out->l2_bytes = p.l2CacheSize;
    out->max_threads_per_block = p.maxThreadsPerBlock;
  });
}

__attribute__((visibility("default"))) void* zkc_open(int dev, uint64_t budget, char* err, size_t len) {
  Context* c = nullptr;
  int rc = guarded(nullptr, err, len, [&] {
    check(cudaSetDevice(dev), "select device");
    auto ctx = std::make_unique<Context>(dev, budget);
    check(cudaStreamCreateWithFlags(&ctx->x.stream, cudaStreamNonBlocking), "stream");
    // Keep freed scratch in the pool between batches instead of returning it to the driver.
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess) {
      uint64_t keep = UINT64_MAX;
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    c = ctx.release();
  });
  return rc == 0 ? c : nullptr;
}

__attribute__((visibility("default"))) void zkc_close(void* ctx) {
  auto* c = static_cast<Context*>(ctx);
  if (!c) return;
  cudaSetDevice(c->x.device);
  {
    // No check(): after a kernel fault the stream reports it again here, and an exception out of this
    // C function would end the process (seen on an H200: "terminate called … CudaError"); the call that
    // met the fault has reported it already.
    std::lock_guard<std::mutex> lock(c->run);
    cudaStreamSynchronize(c->x.stream);
  }
  cudaStream_t s = c->x.stream;
  delete c;
  cudaStreamDestroy(s);
}

__attribute__((visibility("default"))) void zkc_forget(void* ctx, uint64_t id) {
  auto* c = static_cast<Context*>(ctx);
  cudaSetDevice(c->x.device);
  std::lock_guard<std::mutex> lock(c->run);
  c->keys.forget(id);
}

__attribute__((visibility("default"))) uint64_t zkc_resident_bytes(void* ctx) {
  return static_cast<Context*>(ctx)->keys.used();
}

__attribute__((visibility("default"))) int zkc_prove_core(void* ctx, const KeyView* key, const ScalarHD* witnesses,
                                                          uint32_t B, CoreSums* out, char* err, size_t len) {
  auto* c = static_cast<Context*>(ctx);
  return guarded(c, err, len, [&] {
    std::lock_guard<std::mutex> lock(c->run);
    const KeyResident<DeviceExec>& k = c->keys.get(c->x, *key);
    *out = prove_core_batch(c->x, k, witnesses, B);
  });
}

__attribute__((visibility("default"))) int zkc_msm_g1(void* ctx, const G1AffineHD* bases, const ScalarHD* scalars,
                                                      uint64_t n, WindowSums<FqHD>* out, char* err, size_t len) {
  auto* c = static_cast<Context*>(ctx);
  return guarded(c, err, len, [&] {
    std::lock_guard<std::mutex> lock(c->run);
    auto b = upload(c->x, bases, n);
    auto s = upload(c->x, scalars, n);
    *out = msm_batch(c->x, b.data(), n, s.data(), n, 1);
  });
}

__attribute__((visibility("default"))) int zkc_msm_g2(void* ctx, const G2AffineHD* bases, const ScalarHD* scalars,
                                                      uint64_t n, WindowSums<Fq2HD>* out, char* err, size_t len) {
  auto* c = static_cast<Context*>(ctx);
  return guarded(c, err, len, [&] {
    std::lock_guard<std::mutex> lock(c->run);
    auto b = upload(c->x, bases, n);
    auto s = upload(c->x, scalars, n);
    *out = msm_batch(c->x, b.data(), n, s.data(), n, 1);
  });
}

__attribute__((visibility("default"))) int zkc_ntt(void* ctx, FrHD* data, uint32_t count, uint32_t log_n,
                                                   const FrHD* twiddles, char* err, size_t len) {
  auto* c = static_cast<Context*>(ctx);
  return guarded(c, err, len, [&] {
    std::lock_guard<std::mutex> lock(c->run);
    const size_t n = size_t(1) << log_n;
    auto d = upload(c->x, data, n * count);
    auto tw = upload(c->x, twiddles, n > 1 ? n - 1 : 1);
    ntt_batch(c->x, d.data(), count, log_n, tw.data());
    c->x.download(data, d.data(), n * count);
    c->x.sync();
  });
}
}
