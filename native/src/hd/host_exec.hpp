// The pipeline's executor on CPU threads: memory is host memory, a launch is a parallel loop, the
// sort a comparison sort. It exists so the GPU pipeline's every step runs (and is tested) where
// there is no GPU; it is not meant to be fast.
#pragma once
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "../parallel.hpp"
#include "pipeline.hpp"

namespace zk::hd {

struct HostExec {
  int threads = 1;

  template <class T>
  struct Buf {
    std::vector<T> v;
    T* data() { return v.data(); }
    const T* data() const { return v.data(); }
    size_t size() const { return v.size(); }
  };

  template <class T>
  Buf<T> alloc(size_t n) {
    Buf<T> b;
    b.v.resize(n);
    return b;
  }
  template <class T>
  void upload(T* dst, const T* src, size_t n) {
    if (n) std::memcpy((void*)dst, (const void*)src, n * sizeof(T));
  }
  template <class T>
  void download(T* dst, const T* src, size_t n) {
    if (n) std::memcpy((void*)dst, (const void*)src, n * sizeof(T));
  }
  template <class T>
  void fill_zero(T* p, size_t n) {
    if (n) std::memset((void*)p, 0, n * sizeof(T));
  }
  template <class Fn>
  void launch(size_t n, Fn f) {
    const size_t chunk = 256;
    zk::parallel_for((n + chunk - 1) / chunk, threads, [&](size_t c) {
      const size_t end = std::min(n, (c + 1) * chunk);
      for (size_t i = c * chunk; i < end; i++) f(i);
    });
  }
  void sort_pairs(const u32* keys_in, const u32* vals_in, u32* keys_out, u32* vals_out, size_t n, int /*bits*/) {
    std::vector<u32> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](u32 a, u32 b) { return keys_in[a] < keys_in[b]; });
    for (size_t i = 0; i < n; i++) {
      keys_out[i] = keys_in[order[i]];
      vals_out[i] = vals_in[order[i]];
    }
  }
  void sync() {}
};

}  // namespace zk::hd
