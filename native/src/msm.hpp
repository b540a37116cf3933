// Multi-scalar multiplication Σ kᵢ·Pᵢ over affine bases, Pippenger's bucket method with signed
// window digits (buckets for 1..2^(c-1), negative digits add the negated point). Zero scalars are
// skipped and scalars equal to one are added directly: the witnesses of these circuits are full of
// both (bit decompositions, selectors). Windows are spread over threads.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "curve.hpp"
#include "parallel.hpp"

namespace zk {

/** Scalars are canonical integers below r, four little-endian limbs each. */
struct Scalar {
  u64 v[4];
  bool is_zero() const { return (v[0] | v[1] | v[2] | v[3]) == 0; }
  bool is_one() const { return v[0] == 1 && (v[1] | v[2] | v[3]) == 0; }
};

/** The window width minimising the bucket additions plus the bucket sums for n points. */
inline int msm_window(size_t n) {
  int best = 1;
  double best_cost = 1e300;
  for (int c = 2; c <= 16; c++) {
    double windows = std::ceil(255.0 / c);
    double cost = windows * ((double)n + 2.0 * std::ldexp(1.0, c - 1) * 1.4);
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

template <class F>
Jacobian<F> msm(const Affine<F>* bases, const Scalar* scalars, size_t n, int threads) {
  using J = Jacobian<F>;
  std::vector<uint32_t> big;
  big.reserve(n);
  J ones = J::infinity();
  for (size_t i = 0; i < n; i++) {
    if (scalars[i].is_zero()) continue;
    if (scalars[i].is_one()) {
      J::add_mixed(ones, ones, bases[i]);
      continue;
    }
    big.push_back((uint32_t)i);
  }
  const size_t m = big.size();
  if (m == 0) return ones;
  const int c = msm_window(m);
  const int windows = (255 + c - 1) / c;
  const int64_t half = int64_t(1) << (c - 1);
  const u64 mask = (u64(1) << c) - 1;
  // Signed digits, window-major so each window's pass reads its digits in order.
  std::vector<int32_t> digits((size_t)windows * m);
  parallel_for((m + 4095) / 4096, threads, [&](size_t chunk) {
    size_t end = std::min(m, (chunk + 1) * 4096);
    for (size_t j = chunk * 4096; j < end; j++) {
      const u64* k = scalars[big[j]].v;
      int64_t carry = 0;
      for (int w = 0; w < windows; w++) {
        int bit = w * c;
        int limb = bit / 64, off = bit % 64;
        u64 raw = limb < 4 ? (k[limb] >> off) : 0;
        if (off + c > 64 && limb + 1 < 4) raw |= k[limb + 1] << (64 - off);
        int64_t d = (int64_t)(raw & mask) + carry;
        carry = 0;
        if (d > half) {
          d -= int64_t(1) << c;
          carry = 1;
        }
        digits[(size_t)w * m + j] = (int32_t)d;
      }
    }
  });
  std::vector<J> sums(windows, J::infinity());
  parallel_for((size_t)windows, threads, [&](size_t w) {
    std::vector<J> buckets((size_t)half, J::infinity());
    const int32_t* d = &digits[w * m];
    for (size_t j = 0; j < m; j++) {
      int32_t v = d[j];
      if (v > 0) {
        J::add_mixed(buckets[v - 1], buckets[v - 1], bases[big[j]]);
      } else if (v < 0) {
        J::add_mixed(buckets[-v - 1], buckets[-v - 1], bases[big[j]].negated());
      }
    }
    J running = J::infinity(), sum = J::infinity();
    for (int64_t b = half - 1; b >= 0; b--) {
      J::add(running, running, buckets[b]);
      J::add(sum, sum, running);
    }
    sums[w] = sum;
  });
  J acc = sums[windows - 1];
  for (int w = windows - 2; w >= 0; w--) {
    for (int i = 0; i < c; i++) J::dbl(acc, acc);
    J::add(acc, acc, sums[w]);
  }
  J::add(acc, acc, ones);
  return acc;
}

}  // namespace zk
