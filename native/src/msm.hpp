// Multi-scalar multiplication Σ kᵢ·Pᵢ over affine bases: Pippenger's bucket method with signed
// window digits (buckets hold magnitudes 1..2^(c-1); a negative digit adds the negated point).
//
// Buckets are affine and filled in batches: the additions of a batch share one field inversion
// (Montgomery's trick), so an addition costs about six multiplications instead of a Jacobian
// mixed addition's eleven. A point meeting a bucket already in the batch goes to that bucket's
// Jacobian overflow instead of waiting.
//
// Two ways to use it:
//  - `msm`: any bases; each window has its own buckets, windows are spread over threads and
//    combined by doubling;
//  - `FixedBaseTable` + `msm_fixed`: for bases that live long (a proving key's), every base is
//    stored pre-multiplied by 2^(c·j) for each window j, so all windows share one set of buckets:
//    no per-window bucket sums, no doublings, and a wider window pays off. Threads split the
//    bucket range.
// Zero scalars are skipped and scalars equal to one are added directly: witnesses have many.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <vector>

#include "curve.hpp"
#include "hd/digits.hpp"
#include "parallel.hpp"

namespace zk {

/** Scalars are canonical integers below r, four little-endian limbs each. */
struct Scalar {
  u64 v[4];
  bool is_zero() const { return (v[0] | v[1] | v[2] | v[3]) == 0; }
  bool is_one() const { return v[0] == 1 && (v[1] | v[2] | v[3]) == 0; }
};

constexpr int SCALAR_BITS = 254;

inline int window_count(int c) { return (SCALAR_BITS + 1 + c - 1) / c; }

/** Signed base-2^c digits of k (windows × int32), each in [-2^(c-1), 2^(c-1)]. */
inline void signed_digits(const Scalar& s, int c, int windows, int32_t* out, size_t stride) {
  hd::for_each_signed_digit(s.v, c, windows, [&](int w, int64_t d) { out[(size_t)w * stride] = (int32_t)d; });
}

/**
 * Σ m·B_m for magnitudes m in [lo, hi], where B_m collects ±P for every entry whose digit has
 * magnitude m. Entries come in `groups` runs of `per_group` (the windows of a fixed-base table, or
 * one run); `point(g, i)` gives entry i of run g, `digits[g·per_group + i]` its digit.
 */
template <class F, class PointOf>
Jacobian<F> bucket_sum(size_t groups, size_t per_group, const int32_t* digits, PointOf point, int64_t lo,
                       int64_t hi) {
  using A = Affine<F>;
  using J = Jacobian<F>;
  const size_t nb = (size_t)(hi - lo + 1);
  std::vector<A> bucket(nb);
  std::vector<uint8_t> full(nb, 0), in_batch(nb, 0);
  std::vector<J> overflow;  // allocated only if many entries pile onto the same buckets
  const size_t batch_max = std::max<size_t>(16, std::min<size_t>(1024, nb / 2));
  // A pending addition: bucket b plus the point at q, negated when neg (no copy of the point).
  struct Pending {
    uint32_t b;
    bool neg;
    const A* q;
  };
  std::vector<Pending> batch, deferred, retry;
  std::vector<F> den(batch_max), prefix(batch_max);
  batch.reserve(batch_max);

  auto flush = [&]() {
    const size_t k = batch.size();
    if (k == 0) return;
    F acc = F::one();
    for (size_t e = 0; e < k; e++) {
      const A& p = bucket[batch[e].b];
      const A& q = *batch[e].q;
      if (p.x == q.x) {
        F::dbl(den[e], p.y);  // doubling: λ = 3x² / 2y
      } else {
        F::sub(den[e], q.x, p.x);
      }
      prefix[e] = acc;
      F::mul(acc, acc, den[e]);
    }
    F inv = acc.inverse();
    for (size_t e = k; e-- > 0;) {
      F inv_e;
      F::mul(inv_e, inv, prefix[e]);
      F::mul(inv, inv, den[e]);
      A& p = bucket[batch[e].b];
      const A& q = *batch[e].q;
      F lambda, t;
      if (p.x == q.x) {  // same x in a batch means the same point (opposite ones never get here)
        F::sqr(t, p.x);
        F::add(lambda, t, t);
        F::add(lambda, lambda, t);
        F::mul(lambda, lambda, inv_e);
      } else {
        // λ = (±q.y − p.y) / (q.x − p.x)
        if (batch[e].neg) {
          F::add(t, q.y, p.y);
          F::neg(t, t);
        } else {
          F::sub(t, q.y, p.y);
        }
        F::mul(lambda, t, inv_e);
      }
      F x3;
      F::sqr(x3, lambda);
      F::sub(x3, x3, p.x);
      F::sub(x3, x3, q.x);
      F::sub(t, p.x, x3);
      F::mul(t, lambda, t);
      F::sub(p.y, t, p.y);
      p.x = x3;
      in_batch[batch[e].b] = 0;
    }
    batch.clear();
  };

  // Puts one addition in place: straight into an empty bucket, cancelled against its negation, or
  // into the batch. False when its bucket is already in the batch (it must wait).
  auto place = [&](const Pending& d) -> bool {
    if (in_batch[d.b]) return false;
    if (!full[d.b]) {
      bucket[d.b] = d.neg ? d.q->negated() : *d.q;
      full[d.b] = 1;
      return true;
    }
    const A& p = bucket[d.b];
    if (p.x == d.q->x) {
      // Same x: the bucket holds ±q. Opposite points cancel; equal ones double (batched).
      F y = d.q->y;
      if (d.neg) F::neg(y, y);
      if (p.y != y) {
        full[d.b] = 0;
        return true;
      }
    }
    in_batch[d.b] = 1;
    batch.push_back(d);
    return true;
  };
  // A waiting addition goes to the next batch, or, when too many wait, to its bucket's Jacobian
  // overflow.
  auto defer = [&](const Pending& d) {
    if (deferred.size() < batch_max) {
      deferred.push_back(d);
      return;
    }
    if (overflow.empty()) overflow.assign(nb, J::infinity());
    J::add_mixed(overflow[d.b], overflow[d.b], d.neg ? d.q->negated() : *d.q);
  };
  // Runs the batch, then gives the waiting additions their turn (leaving room, so this never
  // flushes again from inside).
  auto flush_and_retry = [&]() {
    flush();
    retry.swap(deferred);
    deferred.clear();
    for (const Pending& d : retry)
      if (batch.size() + 1 >= batch_max || !place(d)) deferred.push_back(d);
    retry.clear();
  };

  for (size_t g = 0; g < groups; g++) {
    const int32_t* dg = digits + g * per_group;
    for (size_t i = 0; i < per_group; i++) {
      int32_t d = dg[i];
      if (d == 0) continue;
      int64_t m = d < 0 ? -(int64_t)d : d;
      if (m < lo || m > hi) continue;
      const A& src = point(g, i);
      if (src.is_infinity()) continue;
      const Pending e{(uint32_t)(m - lo), d < 0, &src};
      if (!place(e))
        defer(e);
      else if (batch.size() == batch_max)
        flush_and_retry();
    }
  }
  // Drain: batches until nothing waits.
  while (!batch.empty() || !deferred.empty()) flush_and_retry();

  // Σ (m − lo + 1)·B_m by running sums from the top, plus (lo − 1)·Σ B_m.
  J running = J::infinity(), sum = J::infinity();
  for (size_t b = nb; b-- > 0;) {
    if (full[b]) J::add_mixed(running, running, bucket[b]);
    if (!overflow.empty()) J::add(running, running, overflow[b]);
    J::add(sum, sum, running);
  }
  if (lo > 1) {
    u64 k[4] = {(u64)(lo - 1), 0, 0, 0};
    J::add(sum, sum, running.times(k));
  }
  return sum;
}

/** Splits scalars into zero (skipped), one (summed directly) and the rest (indices returned). */
template <class F>
std::vector<uint32_t> split_scalars(const Affine<F>* bases, const Scalar* scalars, size_t n, Jacobian<F>& ones) {
  std::vector<uint32_t> big;
  big.reserve(n);
  ones = Jacobian<F>::infinity();
  for (size_t i = 0; i < n; i++) {
    if (scalars[i].is_zero()) continue;
    if (scalars[i].is_one()) {
      Jacobian<F>::add_mixed(ones, ones, bases[i]);
      continue;
    }
    big.push_back((uint32_t)i);
  }
  return big;
}

/** Window width for plain Pippenger: bucket additions plus per-window bucket sums. */
inline int msm_window(size_t n) {
  int best = 2;
  double best_cost = 1e300;
  for (int c = 2; c <= 16; c++) {
    double cost = window_count(c) * ((double)n * 0.45 + std::ldexp(1.0, c - 1) * 2.0);
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
  J ones;
  std::vector<uint32_t> big = split_scalars(bases, scalars, n, ones);
  const size_t m = big.size();
  if (m == 0) return ones;
  const int c = msm_window(m);
  const int windows = window_count(c);
  std::vector<int32_t> digits((size_t)windows * m);
  parallel_for((m + 4095) / 4096, threads, [&](size_t chunk) {
    size_t end = std::min(m, (chunk + 1) * 4096);
    for (size_t j = chunk * 4096; j < end; j++) signed_digits(scalars[big[j]], c, windows, &digits[j], m);
  });
  std::vector<J> sums(windows);
  parallel_for((size_t)windows, threads, [&](size_t w) {
    sums[w] = bucket_sum<F>(
        1, m, &digits[w * m], [&](size_t, size_t i) -> const Affine<F>& { return bases[big[i]]; }, 1,
        int64_t(1) << (c - 1));
  });
  J acc = sums[windows - 1];
  for (int w = windows - 2; w >= 0; w--) {
    for (int i = 0; i < c; i++) J::dbl(acc, acc);
    J::add(acc, acc, sums[w]);
  }
  J::add(acc, acc, ones);
  return acc;
}

/** Bases pre-multiplied by 2^(c·j) for every window j: windows × n affine points, window-major. */
template <class F>
struct FixedBaseTable {
  int c = 0, windows = 0;
  size_t n = 0;
  std::vector<Affine<F>> points;

  size_t bytes() const { return points.size() * sizeof(Affine<F>); }

  /** Window width for a table of n bases: bucket additions plus one bucket sum. */
  static int window_for(size_t n) {
    int best = 2;
    double best_cost = 1e300;
    for (int c = 4; c <= 18; c++) {
      double cost = window_count(c) * (double)n * 0.45 + std::ldexp(1.0, c - 1) * 2.0;
      if (cost < best_cost) {
        best_cost = cost;
        best = c;
      }
    }
    return best;
  }

  static size_t bytes_for(size_t n) {
    return (size_t)window_count(window_for(n)) * n * sizeof(Affine<F>);
  }

  /** Builds the table; returns false (table unusable) when `cancel` was set meanwhile. */
  bool build(const Affine<F>* bases, size_t count, int threads, const std::atomic<bool>* cancel = nullptr) {
    using J = Jacobian<F>;
    n = count;
    c = window_for(n);
    windows = window_count(c);
    points.assign((size_t)windows * n, Affine<F>::infinity());
    // Each chunk of bases walks its own doublings; affine conversions are batched per window.
    const size_t chunk = 1024;
    parallel_for((n + chunk - 1) / chunk, threads, [&](size_t ch) {
      size_t lo = ch * chunk, hi = std::min(n, lo + chunk);
      std::vector<J> cur(hi - lo);
      for (size_t i = lo; i < hi; i++) cur[i - lo] = J::from_affine(bases[i]);
      std::vector<F> zs(hi - lo), prefix(hi - lo);
      for (int w = 0; w < windows; w++) {
        if (cancel && cancel->load(std::memory_order_relaxed)) return;
        if (w > 0)
          for (auto& p : cur)
            for (int k = 0; k < c; k++) J::dbl(p, p);
        // Batch-normalise this window's points (one inversion for the chunk).
        F acc = F::one();
        for (size_t i = 0; i < cur.size(); i++) {
          prefix[i] = acc;
          zs[i] = cur[i].is_infinity() ? F::one() : cur[i].Z;
          F::mul(acc, acc, zs[i]);
        }
        F inv = acc.inverse();
        for (size_t i = cur.size(); i-- > 0;) {
          F zi;
          F::mul(zi, inv, prefix[i]);
          F::mul(inv, inv, zs[i]);
          Affine<F>& out = points[(size_t)w * n + lo + i];
          if (cur[i].is_infinity()) {
            out = Affine<F>::infinity();
            continue;
          }
          F zi2 = zi.squared();
          out.x = cur[i].X * zi2;
          out.y = cur[i].Y * (zi2 * zi);
        }
      }
    });
    return !(cancel && cancel->load());
  }
};

template <class F>
Jacobian<F> msm_fixed(const FixedBaseTable<F>& table, const Scalar* scalars, size_t n, int threads) {
  using J = Jacobian<F>;
  const Affine<F>* bases = table.points.data();  // window 0 holds the bases themselves
  J ones;
  std::vector<uint32_t> big = split_scalars(bases, scalars, n, ones);
  const size_t m = big.size();
  if (m == 0) return ones;
  const int c = table.c, windows = table.windows;
  // Entries are (window, scalar) pairs, window-major: entry e = w·m + j.
  std::vector<int32_t> digits((size_t)windows * m);
  parallel_for((m + 4095) / 4096, threads, [&](size_t chunk) {
    size_t end = std::min(m, (chunk + 1) * 4096);
    for (size_t j = chunk * 4096; j < end; j++) signed_digits(scalars[big[j]], c, windows, &digits[j], m);
  });
  const int64_t half = int64_t(1) << (c - 1);
  const size_t parts = threads > 1 ? (size_t)threads : 1;
  std::vector<J> sums(parts, J::infinity());
  parallel_for(parts, threads, [&](size_t t) {
    int64_t lo = 1 + half * (int64_t)t / (int64_t)parts, hi = half * (int64_t)(t + 1) / (int64_t)parts;
    if (lo > hi) return;
    sums[t] = bucket_sum<F>(
        (size_t)windows, m, digits.data(),
        [&](size_t w, size_t i) -> const Affine<F>& { return table.points[w * table.n + big[i]]; }, lo, hi);
  });
  J acc = ones;
  for (auto& s : sums) J::add(acc, acc, s);
  return acc;
}

}  // namespace zk
