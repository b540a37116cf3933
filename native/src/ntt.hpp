// Number-theoretic transforms over Fr with snarkjs's (ffjavascript's) roots of unity: ω of order
// 2^28 is 5^((r-1)/2^28) (5 being the first quadratic non-residue), and ω of order 2^k is it
// squared 28 − k times. Forward: evaluations at ω^i in natural order; inverse: coefficients.
#pragma once
#include <vector>

#include "field.hpp"
#include "parallel.hpp"

namespace zk {

constexpr int FR_TWO_ADICITY = 28;

/** ω of order 2^k (k ≤ 28). */
inline Fr root_of_unity(int k) {
  // t = (r - 1) / 2^28
  u64 t[4];
  const u64* p = FrParams::P;
  u64 rm1[4] = {p[0] - 1, p[1], p[2], p[3]};
  for (int i = 0; i < 4; i++) {
    u64 hi = i < 3 ? rm1[i + 1] : 0;
    t[i] = (rm1[i] >> FR_TWO_ADICITY) | (hi << (64 - FR_TWO_ADICITY));
  }
  Fr w = Fr::from_u64(5).pow(t);
  for (int i = FR_TWO_ADICITY; i > k; i--) w = w.squared();
  return w;
}

/** Twiddles of one domain size, kept with a key. */
struct Domain {
  int log_n = 0;
  size_t n = 0;
  std::vector<Fr> roots;      // ω^i, i < n/2
  std::vector<Fr> inv_roots;  // ω^-i
  Fr n_inv;

  explicit Domain(int log) : log_n(log), n(size_t(1) << log) {
    Fr w = root_of_unity(log), wi = w.inverse();
    roots.resize(n / 2 > 0 ? n / 2 : 1);
    inv_roots.resize(roots.size());
    Fr a = Fr::one(), b = Fr::one();
    for (size_t i = 0; i < roots.size(); i++) {
      roots[i] = a;
      inv_roots[i] = b;
      a = a * w;
      b = b * wi;
    }
    n_inv = Fr::from_u64(n).inverse();
  }
};

inline void bit_reverse(Fr* a, int log_n) {
  size_t n = size_t(1) << log_n;
  for (size_t i = 0, j = 0; i < n; i++) {
    if (i < j) std::swap(a[i], a[j]);
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j |= bit;
  }
}

/** In place: forward (coefficients → evaluations) or inverse. */
inline void ntt(Fr* a, const Domain& d, bool inverse, int threads) {
  const size_t n = d.n;
  if (n <= 1) return;
  bit_reverse(a, d.log_n);
  const std::vector<Fr>& tw = inverse ? d.inv_roots : d.roots;
  for (size_t len = 2; len <= n; len <<= 1) {
    size_t half = len >> 1, step = n / len;
    size_t blocks = n / len;
    // Split the work into chunks of butterflies whatever the stage shape.
    size_t chunks = threads > 1 && n >= 4096 ? (size_t)threads * 4 : 1;
    parallel_for(chunks, threads, [&](size_t ch) {
      size_t total = blocks * half;
      size_t lo = total * ch / chunks, hi = total * (ch + 1) / chunks;
      for (size_t idx = lo; idx < hi; idx++) {
        size_t blk = idx / half, j = idx % half;
        size_t i0 = blk * len + j, i1 = i0 + half;
        Fr t = a[i1] * tw[j * step];
        Fr u = a[i0];
        Fr::add(a[i0], u, t);
        Fr::sub(a[i1], u, t);
      }
    });
  }
  if (inverse) {
    parallel_for(threads > 1 && n >= 4096 ? (size_t)threads : 1, threads, [&](size_t ch) {
      size_t lo = n * ch / (threads > 1 && n >= 4096 ? threads : 1);
      size_t hi = n * (ch + 1) / (threads > 1 && n >= 4096 ? threads : 1);
      for (size_t i = lo; i < hi; i++) a[i] = a[i] * d.n_inv;
    });
  }
}

}  // namespace zk
