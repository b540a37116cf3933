#include "accel.hpp"

#include <dlfcn.h>

#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>

#include "hd/cuda_api.h"
#include "hd/host_exec.hpp"
#include "hd/residency.hpp"

namespace zk {

using namespace zk::hd;

static_assert(sizeof(G1Affine) == sizeof(G1AffineHD) && sizeof(G2Affine) == sizeof(G2AffineHD), "layouts");
static_assert(sizeof(G1) == sizeof(G1HD) && sizeof(G2) == sizeof(G2HD), "layouts");
static_assert(sizeof(Fr) == sizeof(FrHD) && sizeof(Scalar) == sizeof(ScalarHD), "layouts");

namespace {

/** A key's host-side view for uploading: its QAP as rows (built once per key, dropped with it). */
struct HostKeyView {
  std::vector<u32> rows_a, rows_b, cols;
  std::vector<FrHD> vals;
  KeyView view{};
};

std::shared_ptr<HostKeyView> make_view(const ZKey& key) {
  auto h = std::make_shared<HostKeyView>();
  const size_t n = key.domain_size, total = key.coefs.size();
  h->rows_a.assign(n + 1, 0);
  h->rows_b.assign(n + 1, 0);
  h->cols.resize(total);
  h->vals.resize(total);
  // Coefficients are sorted by matrix then constraint (parse_zkey): rows are runs.
  for (size_t i = 0; i < total; i++) {
    const Coef& c = key.coefs[i];
    (c.matrix == 0 ? h->rows_a : h->rows_b)[c.constraint + 1]++;
    h->cols[i] = c.signal;
    std::memcpy(&h->vals[i], &c.value, sizeof(FrHD));
  }
  h->rows_b[0] = (u32)key.coefs_a;
  for (size_t i = 0; i < n; i++) {
    h->rows_a[i + 1] += h->rows_a[i];
    h->rows_b[i + 1] += h->rows_b[i];
  }
  KeyView& v = h->view;
  v.id = key.id;
  v.n_vars = key.n_vars;
  v.n_public = key.n_public;
  v.domain = key.domain_size;
  v.log_domain = (u32)key.log_domain;
  v.n_c = (u32)key.c.size();
  v.a = reinterpret_cast<const G1AffineHD*>(key.a.data());
  v.b1 = reinterpret_cast<const G1AffineHD*>(key.b1.data());
  v.c = reinterpret_cast<const G1AffineHD*>(key.c.data());
  v.h = reinterpret_cast<const G1AffineHD*>(key.h.data());
  v.b2 = reinterpret_cast<const G2AffineHD*>(key.b2.data());
  v.rows_a = h->rows_a.data();
  v.rows_b = h->rows_b.data();
  v.cols = h->cols.data();
  v.vals = h->vals.data();
  v.n_coefs = (u32)total;
  v.tw_fwd = reinterpret_cast<const FrHD*>(key.domain->fwd.data());
  v.tw_inv = reinterpret_cast<const FrHD*>(key.domain->inv.data());
  v.coset = reinterpret_cast<const FrHD*>(key.coset_powers.data());
  return h;
}

/** Horner over the window sums with the CPU's (faster) point arithmetic. */
template <class CJ, class F>
CJ combine(const WindowSums<F>& s, size_t p) {
  static_assert(sizeof(CJ) == sizeof(JacobianHD<F>), "layouts");
  const size_t W = (size_t)s.windows;
  auto at = [&](size_t w) {
    CJ r;
    std::memcpy((void*)&r, &s.sums[p * (W + 1) + w], sizeof r);
    return r;
  };
  CJ acc = at(W - 1);
  for (size_t w = W - 1; w-- > 0;) {
    for (int i = 0; i < s.c; i++) CJ::dbl(acc, acc);
    CJ::add(acc, acc, at(w));
  }
  CJ::add(acc, acc, at(W));
  return acc;
}

struct SumsCore final : BatchCore {
  CoreSums sums;
  CoreResult take(size_t p) const override {
    return {combine<G1>(sums.a, p), combine<G1>(sums.b1, p), combine<G1>(sums.c, p), combine<G1>(sums.h, p),
            combine<G2>(sums.b2, p)};
  }
};

std::vector<ScalarHD> gather(const Scalar* const* witnesses, size_t count, size_t n) {
  std::vector<ScalarHD> w(count * n);
  for (size_t p = 0; p < count; p++) std::memcpy(&w[p * n], witnesses[p], n * sizeof(ScalarHD));
  return w;
}

/** The shared part of both accelerators: the plain Compute calls through the batch machinery. */
struct AccelBase : AccelCompute {
  int threads() const override { return 1; }
  std::unique_ptr<Compute> part(int) override { return nullptr; }
  void ntt(Fr* data, const Domain& d, bool inverse) override {
    ntt_unscaled(data, d, inverse);
    if (inverse)
      for (size_t i = 0; i < d.n; i++) data[i] = data[i] * d.n_inv;
  }
  void ntt_unscaled(Fr* data, const Domain& d, bool inverse) override {
    run_ntt(reinterpret_cast<FrHD*>(data), (u32)d.log_n,
            reinterpret_cast<const FrHD*>(inverse ? d.inv.data() : d.fwd.data()));
  }
  G1 msm_g1(const G1Affine* bases, const FixedBaseTable<Fq>*, const Scalar* scalars, size_t n) override {
    return combine<G1>(run_msm_g1(reinterpret_cast<const G1AffineHD*>(bases),
                                  reinterpret_cast<const ScalarHD*>(scalars), n),
                       0);
  }
  G2 msm_g2(const G2Affine* bases, const FixedBaseTable<Fq2>*, const Scalar* scalars, size_t n) override {
    return combine<G2>(run_msm_g2(reinterpret_cast<const G2AffineHD*>(bases),
                                  reinterpret_cast<const ScalarHD*>(scalars), n),
                       0);
  }
  std::shared_ptr<BatchCore> prove_core_batch(const ZKey& key, const Scalar* const* witnesses, size_t count) override {
    auto core = std::make_shared<SumsCore>();
    const std::vector<ScalarHD> w = gather(witnesses, count, key.n_vars);
    run_core(key, w.data(), (u32)count, core->sums);
    return core;
  }
  /** The key's upload view, kept until the key is released. */
  const KeyView& view_of(const ZKey& key) {
    std::lock_guard<std::mutex> lock(views_mutex);
    auto& v = views[key.id];
    if (!v) v = make_view(key);
    return v->view;
  }
  void drop_view(uint64_t id) {
    std::lock_guard<std::mutex> lock(views_mutex);
    views.erase(id);
  }

  virtual void run_ntt(FrHD* data, u32 log_n, const FrHD* tw) = 0;
  virtual WindowSums<FqHD> run_msm_g1(const G1AffineHD* bases, const ScalarHD* scalars, size_t n) = 0;
  virtual WindowSums<Fq2HD> run_msm_g2(const G2AffineHD* bases, const ScalarHD* scalars, size_t n) = 0;
  virtual void run_core(const ZKey& key, const ScalarHD* w, u32 count, CoreSums& out) = 0;

  std::mutex views_mutex;
  std::map<uint64_t, std::shared_ptr<HostKeyView>> views;
};

struct EmulatedCompute final : AccelBase {
  HostExec x;
  Residency<HostExec> keys;
  std::mutex run;
  EmulatedCompute(int threads, uint64_t budget) : keys(budget) { x.threads = threads < 1 ? 1 : threads; }
  const char* name() const override { return "emulate"; }
  uint64_t resident_bytes() const override { return keys.used(); }
  void forget(uint64_t id) override {
    keys.forget(id);
    drop_view(id);
  }
  void run_ntt(FrHD* data, u32 log_n, const FrHD* tw) override { ntt_batch(x, data, 1, log_n, tw); }
  WindowSums<FqHD> run_msm_g1(const G1AffineHD* b, const ScalarHD* s, size_t n) override {
    return msm_batch(x, b, n, s, n, 1);
  }
  WindowSums<Fq2HD> run_msm_g2(const G2AffineHD* b, const ScalarHD* s, size_t n) override {
    return msm_batch(x, b, n, s, n, 1);
  }
  void run_core(const ZKey& key, const ScalarHD* w, u32 count, CoreSums& out) override {
    std::lock_guard<std::mutex> lock(run);
    out = hd::prove_core_batch(x, keys.get(x, view_of(key)), w, count);
  }
};

// ---- libzkgate_cuda.so ----

struct CudaLib {
  void* handle = nullptr;
  std::string path;
  zkc_device_count_fn device_count = nullptr;
  zkc_device_info_fn device_info = nullptr;
  zkc_open_fn open = nullptr;
  zkc_close_fn close = nullptr;
  zkc_forget_fn forget = nullptr;
  zkc_resident_bytes_fn resident_bytes = nullptr;
  zkc_prove_core_fn prove_core = nullptr;
  zkc_msm_g1_fn msm_g1 = nullptr;
  zkc_msm_g2_fn msm_g2 = nullptr;
  zkc_ntt_fn ntt = nullptr;
};

/** Beside this library or program (native/build/), or where ZKGATE_CUDA_LIB says. */
std::string library_path() {
  if (const char* env = std::getenv("ZKGATE_CUDA_LIB")) return env;
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&library_path), &info) && info.dli_fname) {
    std::string self = info.dli_fname;
    const size_t slash = self.rfind('/');
    return (slash == std::string::npos ? std::string(".") : self.substr(0, slash)) + "/libzkgate_cuda.so";
  }
  return "libzkgate_cuda.so";
}

const CudaLib* cuda_lib(std::string& why) {
  static std::once_flag once;
  static CudaLib lib;
  static std::string failure;
  std::call_once(once, [] {
    lib.path = library_path();
    lib.handle = dlopen(lib.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib.handle) {
      const char* e = dlerror();
      failure = "the CUDA library is not available (" + std::string(e ? e : lib.path) +
                "; it is built when nvcc is present, see native/build/status.json)";
      return;
    }
    auto version = reinterpret_cast<zkc_api_version_fn>(dlsym(lib.handle, "zkc_api_version"));
    if (!version || version() != ZKC_API_VERSION) {
      failure = lib.path + " is from another version of zkgate (rebuild: npm run build)";
      return;
    }
#define ZK_SYM(field, name)                                                            \
  lib.field = reinterpret_cast<decltype(lib.field)>(dlsym(lib.handle, name));          \
  if (!lib.field) {                                                                    \
    failure = lib.path + " lacks " name;                                               \
    return;                                                                            \
  }
    ZK_SYM(device_count, "zkc_device_count");
    ZK_SYM(device_info, "zkc_device_info");
    ZK_SYM(open, "zkc_open");
    ZK_SYM(close, "zkc_close");
    ZK_SYM(forget, "zkc_forget");
    ZK_SYM(resident_bytes, "zkc_resident_bytes");
    ZK_SYM(prove_core, "zkc_prove_core");
    ZK_SYM(msm_g1, "zkc_msm_g1");
    ZK_SYM(msm_g2, "zkc_msm_g2");
    ZK_SYM(ntt, "zkc_ntt");
#undef ZK_SYM
  });
  if (!failure.empty()) {
    why = failure;
    return nullptr;
  }
  return &lib;
}

struct CudaCompute final : AccelBase {
  const CudaLib* lib;
  void* ctx;
  int device;
  CudaCompute(const CudaLib* l, void* c, int d) : lib(l), ctx(c), device(d) {}
  ~CudaCompute() override { lib->close(ctx); }
  const char* name() const override { return "cuda"; }
  uint64_t resident_bytes() const override { return lib->resident_bytes(ctx); }
  void forget(uint64_t id) override {
    lib->forget(ctx, id);
    drop_view(id);
  }
  template <class Fn>
  void call(Fn fn) {
    char err[512] = {0};
    if (fn(err, sizeof err) != 0) throw std::runtime_error("CUDA device " + std::to_string(device) + ": " + err);
  }
  void run_ntt(FrHD* data, u32 log_n, const FrHD* tw) override {
    call([&](char* e, size_t l) { return lib->ntt(ctx, data, 1, log_n, tw, e, l); });
  }
  WindowSums<FqHD> run_msm_g1(const G1AffineHD* b, const ScalarHD* s, size_t n) override {
    WindowSums<FqHD> out;
    call([&](char* e, size_t l) { return lib->msm_g1(ctx, b, s, n, &out, e, l); });
    return out;
  }
  WindowSums<Fq2HD> run_msm_g2(const G2AffineHD* b, const ScalarHD* s, size_t n) override {
    WindowSums<Fq2HD> out;
    call([&](char* e, size_t l) { return lib->msm_g2(ctx, b, s, n, &out, e, l); });
    return out;
  }
  void run_core(const ZKey& key, const ScalarHD* w, u32 count, CoreSums& out) override {
    const KeyView& v = view_of(key);
    call([&](char* e, size_t l) { return lib->prove_core(ctx, &v, w, count, &out, e, l); });
  }
};

}  // namespace

CudaStatus cuda_status() {
  CudaStatus s;
  std::string why;
  const CudaLib* lib = cuda_lib(why);
  s.library = library_path();
  if (!lib) {
    s.reason = why;
    return s;
  }
  char err[512] = {0};
  const int n = lib->device_count(err, sizeof err);
  if (n < 0) {
    s.reason = err;
    return s;
  }
  if (n == 0) {
    s.reason = "no CUDA device is visible";
    return s;
  }
  for (int d = 0; d < n; d++) {
    zkc_device info;
    if (lib->device_info(d, &info, err, sizeof err) != 0) {
      s.reason = "device " + std::to_string(d) + ": " + err;
      return s;
    }
    DeviceInfo di;
    di.index = info.index;
    di.name = info.name;
    di.sms = info.sms;
    di.cc_major = info.cc_major;
    di.cc_minor = info.cc_minor;
    di.l2_bytes = info.l2_bytes;
    di.max_threads_per_block = info.max_threads_per_block;
    di.total_bytes = info.total_bytes;
    di.free_bytes = info.free_bytes;
    s.devices.push_back(di);
  }
  s.ok = true;
  return s;
}

std::unique_ptr<AccelCompute> open_cuda(int device, uint64_t budget_bytes) {
  std::string why;
  const CudaLib* lib = cuda_lib(why);
  if (!lib) throw std::runtime_error(why);
  char err[512] = {0};
  if (budget_bytes == 0) {
    zkc_device info;
    if (lib->device_info(device, &info, err, sizeof err) != 0)
      throw std::runtime_error("CUDA device " + std::to_string(device) + ": " + err);
    budget_bytes = info.free_bytes / 10 * 9;
  }
  void* ctx = lib->open(device, budget_bytes, err, sizeof err);
  if (!ctx) throw std::runtime_error("CUDA device " + std::to_string(device) + ": " + err);
  return std::make_unique<CudaCompute>(lib, ctx, device);
}

std::unique_ptr<AccelCompute> open_emulated(int threads, uint64_t budget_bytes) {
  return std::make_unique<EmulatedCompute>(threads, budget_bytes ? budget_bytes : uint64_t(4) << 30);
}

namespace {
struct Rng {
  u64 s;
  /** Distinct seeds give distinct streams (seed | 1 made 2k and 2k + 1 the same); never the zero state. */
  static Rng from(u64 seed) {
    u64 z = seed + 0x9e3779b97f4a7c15ULL;  // splitmix64's finalizer
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return Rng{z ? z : 1};
  }
  u64 next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  Scalar scalar() {
    for (;;) {
      Scalar k{{next(), next(), next(), next() & 0x3fffffffffffffffULL}};
      if (Fr::is_canonical(k.v)) return k;
    }
  }
};

/** k·P, (k+1)·P, … as affine points (one batched inversion): cheap, valid, distinct bases. */
template <class F>
std::vector<Affine<F>> point_run(const Affine<F>& base, const Scalar& k, size_t n) {
  using J = Jacobian<F>;
  std::vector<J> js(n);
  J p = J::from_affine(base).times(k.v);
  for (size_t i = 0; i < n; i++) {
    js[i] = p;
    J::add_mixed(p, p, base);
  }
  std::vector<F> prefix(n);
  F acc = F::one();
  for (size_t i = 0; i < n; i++) {
    prefix[i] = acc;
    acc = acc * js[i].Z;
  }
  F inv = acc.inverse();
  std::vector<Affine<F>> out(n);
  for (size_t i = n; i-- > 0;) {
    F zi = inv * prefix[i];
    inv = inv * js[i].Z;
    F zi2 = zi.squared();
    out[i] = {js[i].X * zi2, js[i].Y * (zi2 * zi)};
  }
  return out;
}
}  // namespace

std::unique_ptr<ZKey> synthetic_key(uint32_t n_vars, uint32_t n_public, uint32_t domain, uint32_t per_row,
                                    uint64_t seed) {
  if (n_vars < n_public + 2 || domain == 0 || (domain & (domain - 1)))
    throw std::runtime_error("synthetic key: need n_vars > n_public + 1 and a power-of-two domain");
  Rng rng = Rng::from(seed);
  auto key = std::make_unique<ZKey>();
  key->n_vars = n_vars;
  key->n_public = n_public;
  key->domain_size = domain;
  while ((1u << key->log_domain) < domain) key->log_domain++;
  const G1Affine g1 = g1_generator();
  const G2Affine g2 = g2_generator();
  auto one_g1 = [&] { return point_run(g1, rng.scalar(), 1)[0]; };
  auto one_g2 = [&] { return point_run(g2, rng.scalar(), 1)[0]; };
  key->alpha1 = one_g1();
  key->beta1 = one_g1();
  key->delta1 = one_g1();
  key->beta2 = one_g2();
  key->gamma2 = one_g2();
  key->delta2 = one_g2();
  key->a = point_run(g1, rng.scalar(), n_vars);
  key->b1 = point_run(g1, rng.scalar(), n_vars);
  key->c = point_run(g1, rng.scalar(), n_vars - n_public - 1);
  key->h = point_run(g1, rng.scalar(), domain);
  key->b2 = point_run(g2, rng.scalar(), n_vars);
  // Rows of the domain's first n_vars (or all) constraints, per_row coefficients each in A and B.
  const uint32_t rows = std::min(domain, n_vars);
  for (uint32_t m = 0; m < 2; m++)
    for (uint32_t row = 0; row < rows; row++)
      for (uint32_t j = 0; j < per_row; j++) {
        Coef c;
        c.matrix = m;
        c.constraint = row;
        c.signal = (uint32_t)(rng.next() % n_vars);
        Scalar v = rng.scalar();
        std::memcpy(c.value.v, v.v, 32);
        key->coefs.push_back(c);
      }
  key->coefs_a = (size_t)rows * per_row;
  prepare_domain(*key);
  key->bytes = (size_t)n_vars * (64 * 3 + 128) + (size_t)domain * 64 + key->coefs.size() * sizeof(Coef);
  return key;
}

std::vector<Scalar> synthetic_witness(const ZKey& key, uint64_t seed) {
  Rng rng = Rng::from(seed);
  std::vector<Scalar> w(key.n_vars);
  for (size_t i = 0; i < w.size(); i++) {
    switch (rng.next() % 4) {
      case 0: w[i] = Scalar{{0, 0, 0, 0}}; break;
      case 1: w[i] = Scalar{{1, 0, 0, 0}}; break;
      case 2: w[i] = Scalar{{rng.next() >> 20, 0, 0, 0}}; break;
      default: w[i] = rng.scalar();
    }
  }
  w[0] = Scalar{{1, 0, 0, 0}};
  return w;
}

std::string accel_self_check(AccelCompute& accel) {
  try {
    CpuCompute cpu(2);
    {
      // One point times 2: its segment sum adds the point to itself, the doubling case of an addition
      // (the step that faulted on an H200), which the sizes below meet only by chance.
      auto key = synthetic_key(4, 1, 4, 1, 5);
      const Scalar two{{2, 0, 0, 0}};
      const G1Affine want = msm(key->a.data(), &two, 1, 2).to_affine();
      const G1Affine got = accel.msm_g1(key->a.data(), nullptr, &two, 1).to_affine();
      if (!(want.x == got.x && want.y == got.y)) return "G1 MSM of one point times 2 differs";
      const G2Affine want2 = msm(key->b2.data(), &two, 1, 2).to_affine();
      const G2Affine got2 = accel.msm_g2(key->b2.data(), nullptr, &two, 1).to_affine();
      if (!(want2.x == got2.x && want2.y == got2.y)) return "G2 MSM of one point times 2 differs";
    }
    // MSMs of a few sizes, with the scalars circuits produce (0, 1, small, full).
    for (size_t n : {size_t(1), size_t(3), size_t(100), size_t(1000)}) {
      auto key = synthetic_key((uint32_t)std::max<size_t>(n, 2) + 2, 1, 4, 1, 7 + n);
      std::vector<Scalar> s = synthetic_witness(*key, 11 + n);
      const G1Affine want = msm(key->a.data(), s.data(), n, 2).to_affine();
      const G1Affine got = accel.msm_g1(key->a.data(), nullptr, s.data(), n).to_affine();
      if (!(want.x == got.x && want.y == got.y)) return "G1 MSM of " + std::to_string(n) + " points differs";
      const G2Affine want2 = msm(key->b2.data(), s.data(), n, 2).to_affine();
      const G2Affine got2 = accel.msm_g2(key->b2.data(), nullptr, s.data(), n).to_affine();
      if (!(want2.x == got2.x && want2.y == got2.y)) return "G2 MSM of " + std::to_string(n) + " points differs";
    }
    // Two proofs of a synthetic key in one batch, each equal to the CPU's with the same r and s.
    auto key = synthetic_key(300, 2, 512, 3, 42);
    std::vector<Scalar> w0 = synthetic_witness(*key, 1), w1 = synthetic_witness(*key, 2);
    const Scalar* ws[2] = {w0.data(), w1.data()};
    std::shared_ptr<BatchCore> batch = accel.prove_core_batch(*key, ws, 2);
    Rng rng{99};
    for (size_t p = 0; p < 2; p++) {
      const Scalar r = rng.scalar(), s = rng.scalar();
      const Proof want = finish_proof(*key, prove_core(*key, ws[p], cpu), r, s);
      const Proof got = finish_proof(*key, batch->take(p), r, s);
      if (std::memcmp(&want, &got, sizeof want) != 0)
        return std::string(accel.name()) + " proof " + std::to_string(p) + " differs from the CPU's";
    }
    accel.forget(key->id);
    return "";
  } catch (const std::exception& e) {
    return std::string("self-check failed: ") + e.what();
  }
}

}  // namespace zk
