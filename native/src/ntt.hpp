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

/** Twiddles of one domain size, kept with a key: per stage, contiguous (stage of half-size h at h − 1). */
struct Domain {
  int log_n = 0;
  size_t n = 0;
  std::vector<Fr> fwd, inv;
  Fr n_inv;

  explicit Domain(int log) : log_n(log), n(size_t(1) << log) {
    Fr w = root_of_unity(log), wi = w.inverse();
    std::vector<Fr> pw(n / 2 > 0 ? n / 2 : 1), pwi(pw.size());
    Fr a = Fr::one(), b = Fr::one();
    for (size_t i = 0; i < pw.size(); i++) {
      pw[i] = a;
      pwi[i] = b;
      a = a * w;
      b = b * wi;
    }
    fwd.resize(n > 1 ? n - 1 : 1);
    inv.resize(fwd.size());
    for (size_t half = 1; half < n; half <<= 1) {
      size_t step = n / (2 * half);
      for (size_t j = 0; j < half; j++) {
        fwd[half - 1 + j] = pw[j * step];
        inv[half - 1 + j] = pwi[j * step];
      }
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

/** Butterflies of one stage (half-size h) over blocks [blk_lo, blk_hi) and positions [j_lo, j_hi). */
inline void ntt_stage(Fr* a, const Fr* tw, size_t half, size_t blk_lo, size_t blk_hi, size_t j_lo, size_t j_hi) {
  const size_t len = half * 2;
  preempt_point();
  for (size_t blk = blk_lo; blk < blk_hi; blk++) {
    Fr* x = a + blk * len;
    for (size_t j = j_lo; j < j_hi; j++) {
      Fr t, u = x[j];
      Fr::mul(t, x[j + half], tw[j]);
      Fr::add(x[j], u, t);
      Fr::sub(x[j + half], u, t);
    }
  }
}

/**
 * In place: forward (coefficients → evaluations) or inverse (scaled by 1/n unless `scale` is
 * false). With T = 2^k threads, each thread runs the early stages on its own n/T block, then the
 * last k stages are split by position: k + 1 joins per transform.
 */
inline void ntt(Fr* a, const Domain& d, bool inverse, int threads, bool scale = true) {
  const size_t n = d.n;
  if (n <= 1) return;
  bit_reverse(a, d.log_n);
  const Fr* tw = inverse ? d.inv.data() : d.fwd.data();
  size_t parts = 1;
  while (parts * 2 <= (size_t)threads && parts * 2 <= n / 1024) parts *= 2;
  const size_t block = n / parts;
  parallel_for(parts, (int)parts, [&](size_t p) {
    Fr* x = a + p * block;
    for (size_t half = 1; half < block; half <<= 1) ntt_stage(x, tw + half - 1, half, 0, block / (2 * half), 0, half);
  });
  for (size_t half = block; half < n; half <<= 1) {
    size_t blocks = n / (2 * half);
    parallel_for(parts, (int)parts, [&](size_t p) {
      ntt_stage(a, tw + half - 1, half, 0, blocks, half * p / parts, half * (p + 1) / parts);
    });
  }
  if (inverse && scale) {
    parallel_for(parts, (int)parts, [&](size_t p) {
      for (size_t i = n * p / parts; i < n * (p + 1) / parts; i++) a[i] = a[i] * d.n_inv;
    });
  }
}

}  // namespace zk
