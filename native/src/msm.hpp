// Multi-scalar multiplication Σ kᵢ·Pᵢ over affine bases: Pippenger's bucket method with signed
// window digits (buckets hold magnitudes 1..2^(c-1); a negative digit adds the negated point).
//
// Buckets are affine and filled in batches: the additions of a batch share one field inversion
// (Montgomery's trick), so an addition costs about six multiplications instead of a Jacobian
// mixed addition's eleven. Without a table, entries are sorted by bucket and each bucket's points
// summed in rounds of pairwise additions (bucket_sum); with one, a point whose bucket is already
// in the batch waits for the next batch (bucket_adder.hpp).
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
#include <memory>
#include <vector>

#include "bucket_adder.hpp"
#include "curve.hpp"
#include "hd/digits.hpp"
#include "msm_x8.hpp"
#include "simd.hpp"
#include "parallel.hpp"
#include "scratch.hpp"

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
 * out[k] = in[2k] + in[2k+1] for k < pairs (affine, with the point at infinity as (0, 0)), one
 * field inversion per run of pairs (batch_chords). Pairs that need more than the chord rule (an
 * operand at infinity, equal x: a doubling or opposite points) take a slow path; they are rare
 * (equal bases, or a sum that cancels). `src(k)`/`dst(k)` give the operands and the target of
 * pair k; den, prefix and special are scratch of at least min(pairs, 1024) elements.
 */
template <class F, class Src, class Dst>
void add_pairs(size_t pairs, Src src, Dst dst, F* den, F* prefix, uint8_t* special) {
  using A = Affine<F>;
  using J = Jacobian<F>;
  constexpr size_t RUN = 1024;
  for (size_t base = 0; base < pairs; base += RUN) {
    const size_t k = std::min(RUN, pairs - base);
    auto chord = [&](size_t e) {
      const A* pq = src(base + e);
      return Chord<F>{&pq[0], &pq[1], &dst(base + e), false};
    };
    if (!batch_chords<F>(k, chord, den, prefix, special)) continue;
    for (size_t e = 0; e < k; e++) {
      if (!special[e]) continue;
      const A* pq = src(base + e);
      const A& p = pq[0];
      const A& q = pq[1];
      A& r = dst(base + e);
      if (p.is_infinity()) {
        r = q;
      } else if (q.is_infinity()) {
        r = p;
      } else if (p.y == q.y) {
        J d = J::from_affine(p);
        J::dbl(d, d);
        r = d.to_affine();
      } else {
        r = A::infinity();
      }
    }
  }
}

/**
 * Σ m·B_m for magnitudes m in [lo, hi], where B_m collects ±P for every entry whose digit has
 * magnitude m. Entries come in `groups` runs of `per_group` (the windows of a fixed-base table, or
 * one run); `point(g, i)` gives entry i of run g, `digits[g·per_group + i]` its digit.
 *
 * The entries are sorted by bucket (a counting sort, in chunks that bound the scratch memory), and
 * each bucket's list is summed in rounds of independent pairwise additions: every round is one
 * batch of affine additions sharing inversions, with no bucket ever waiting on another.
 */
template <class F, class PointOf>
Jacobian<F> bucket_sum(size_t groups, size_t per_group, const int32_t* digits, PointOf point, int64_t lo,
                       int64_t hi) {
  using A = Affine<F>;
  using J = Jacobian<F>;
  const size_t nb = (size_t)(hi - lo + 1);
  std::vector<A> bucket(nb);
  std::vector<uint8_t> full(nb, 0);
  std::vector<uint32_t> count(nb), start(nb), fill(nb);
  const size_t total = groups * per_group;
  const size_t chunk = std::max<size_t>(size_t(1) << 16, nb * 8);
  Scratch<A> a_buf, b_buf;
  A* a = nullptr;
  A* b = nullptr;
  std::vector<uint32_t> active, pair_src, pair_dst;
  std::vector<F> den(1024), prefix(1024);
  std::vector<uint8_t> special(1024);
  constexpr size_t SEGMENT = 16384;

  // The bucket (0-based) of entry e's digit, or −1. Only the digit is read: the counting pass
  // never touches the points (a base at infinity is an all-zero point, which the additions
  // take as such).
  auto bucket_of = [&](size_t e) -> int64_t {
    const int32_t d = digits[e];
    const int64_t m = d < 0 ? -(int64_t)d : d;
    return m < lo || m > hi ? -1 : m - lo;
  };

  for (size_t from = 0; from < total; from += chunk) {
    const size_t to = std::min(total, from + chunk);
    // Counting sort: a bucket's list is its sum so far, then the chunk's points.
    for (size_t k = 0; k < nb; k++) count[k] = full[k];
    for (size_t e = from; e < to; e++) {
      const int64_t m = bucket_of(e);
      if (m >= 0) count[m]++;
    }
    size_t at = 0;
    for (size_t k = 0; k < nb; k++) {
      start[k] = fill[k] = (uint32_t)at;
      at += count[k];
    }
    a = a_buf.reserve(at);
    b = b_buf.reserve(at);
    for (size_t k = 0; k < nb; k++)
      if (full[k]) a[fill[k]++] = bucket[k];
    // Entry e is point i of group g; walked without a division per entry.
    size_t g = from / per_group, i = from % per_group;
    for (size_t e = from; e < to; e++) {
      const int64_t m = bucket_of(e);
      if (m >= 0) {
        A& slot = a[fill[m]++];
        slot = point(g, i);
        if (digits[e] < 0) F::neg(slot.y, slot.y);  // infinity (0, 0) stays itself
      }
      if (++i == per_group) {
        i = 0;
        g++;
      }
    }
    // Buckets in segments of about SEGMENT points, so that a segment's rounds stay in cache.
    for (size_t k0 = 0; k0 < nb;) {
      size_t k1 = k0, points = 0;
      active.clear();
      while (k1 < nb && (points < SEGMENT || k1 == k0)) {
        points += count[k1];
        if (count[k1] >= 2) {
          active.push_back((uint32_t)k1);
        } else if (count[k1] == 1) {
          bucket[k1] = a[start[k1]];
          full[k1] = !bucket[k1].is_infinity();
        }
        k1++;
      }
      k0 = k1;
      // Rounds: each active bucket's list of c points becomes ⌈c/2⌉ (pairs summed, an odd one
      // carried), a → b, until every list is one point.
      A* src = a;
      A* dst = b;
      while (!active.empty()) {
        preempt_point();
        pair_src.clear();
        pair_dst.clear();
        for (uint32_t k : active) {
          const uint32_t s = start[k], c = count[k];
          for (uint32_t j = 0; j + 1 < c; j += 2) {
            pair_src.push_back(s + j);
            pair_dst.push_back(s + j / 2);
          }
          if (c & 1) dst[s + c / 2] = src[s + c - 1];
        }
        add_pairs<F>(
            pair_src.size(), [&](size_t i) { return &src[pair_src[i]]; },
            [&](size_t i) -> A& { return dst[pair_dst[i]]; }, den.data(), prefix.data(), special.data());
        size_t kept = 0;
        for (uint32_t k : active) {
          count[k] = (count[k] + 1) / 2;
          if (count[k] >= 2) {
            active[kept++] = k;
          } else {
            bucket[k] = dst[start[k]];
            full[k] = !bucket[k].is_infinity();
          }
        }
        active.resize(kept);
        std::swap(src, dst);
      }
    }
  }

  // Σ (m − lo + 1)·B_m by running sums from the top, plus (lo − 1)·Σ B_m.
  J running = J::infinity(), sum = J::infinity();
  for (size_t k = nb; k-- > 0;) {
    if (full[k]) J::add_mixed(running, running, bucket[k]);
    J::add(sum, sum, running);
  }
  if (lo > 1) {
    u64 kk[4] = {(u64)(lo - 1), 0, 0, 0};
    J::add(sum, sum, running.times(kk));
  }
  return sum;
}

/**
 * Splits scalars into zero or with a base at infinity (skipped), one (summed directly) and the
 * rest (indices returned).
 */
template <class F>
std::vector<uint32_t> split_scalars(const Affine<F>* bases, const Scalar* scalars, size_t n, Jacobian<F>& ones) {
  std::vector<uint32_t> big;
  big.reserve(n);
  ones = Jacobian<F>::infinity();
  for (size_t i = 0; i < n; i++) {
    if (scalars[i].is_zero() || bases[i].is_infinity()) continue;
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

/**
 * Bases pre-multiplied by 2^(c·j) for every window j: windows × n affine points, window-major.
 * Points are in the zkey's Montgomery form, or, when `packed`, in the eight-lane path's form
 * (msm_x8.hpp); the point at infinity is zeros either way.
 */
template <class F>
struct FixedBaseTable {
  int c = 0, windows = 0;
  size_t n = 0;
  bool packed = false;
  /** windows × n points: `owned`'s when built here, a mapped file's when loaded (see adopt). */
  const Affine<F>* points = nullptr;
  AlignedBuffer<Affine<F>> owned;  // 64-byte aligned: rows are loaded whole
  std::shared_ptr<const void> mapping;

  size_t bytes() const { return (size_t)windows * n * sizeof(Affine<F>); }

  /** Uses `p` (windows × n points, kept alive by `keep`) as the table of n bases of width c. */
  void adopt(const Affine<F>* p, size_t count, int width, bool packed_form, std::shared_ptr<const void> keep) {
    n = count;
    c = width;
    windows = window_count(c);
    packed = packed_form;
    owned.release();
    mapping = std::move(keep);
    points = p;
  }

  /** A base as this table stores it (what window 0 holds). */
  static Affine<F> stored_form(const Affine<F>& p, bool packed_form) {
#ifdef ZK_HAVE_X8
    if (packed_form) return x8::point_to_packed(p);
#endif
    return p;
  }

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

  /**
   * Builds the table (in the form x8_tables() chooses); returns false (table unusable) when
   * `cancel` was set meanwhile.
   */
  bool build(const Affine<F>* bases, size_t count, int threads, const std::atomic<bool>* cancel = nullptr) {
    using J = Jacobian<F>;
    n = count;
    c = window_for(n);
    windows = window_count(c);
    packed = x8_tables();
    Affine<F>* out_points = owned.reserve(std::max<size_t>(1, (size_t)windows * n));
    for (size_t i = 0; i < (size_t)windows * n; i++) out_points[i] = Affine<F>::infinity();
    points = out_points;
    mapping.reset();
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
          Affine<F>& out = out_points[(size_t)w * n + lo + i];
          if (cur[i].is_infinity()) {
            out = Affine<F>::infinity();
            continue;
          }
          F zi2 = zi.squared();
          out.x = cur[i].X * zi2;
          out.y = cur[i].Y * (zi2 * zi);
          out = stored_form(out, packed);
        }
      }
    });
    return !(cancel && cancel->load());
  }
};

/**
 * Σ (k + lo)·B_k over the buckets k of `buckets` (an affine bucket adder, flushed), with batched
 * affine additions: writing k = a + A·b, X_a = Σ_b B_k and Y_b = Σ_a B_k are two more bucket
 * accumulations (each bucket goes into one X and one Y), and Σ (k + lo)·B_k = Σ a·X_a + A·Σ b·Y_b
 * + lo·Σ X_a, whose sums run over √N points only. About 2N batched additions (six multiplications
 * each) instead of 2N Jacobian ones (eleven and sixteen). `add(sums, j, k)` adds bucket k into
 * bucket j of `sums`, an adder of the same kind.
 */
template <class F, class Adder, class Add>
Jacobian<F> bucket_reduce_batched(const Adder& buckets, int64_t lo, Add add) {
  using J = Jacobian<F>;
  const size_t n = buckets.size();
  int h = 0;
  while ((size_t(1) << (2 * h)) < n) h++;
  const size_t a_count = size_t(1) << h, b_count = (n + a_count - 1) / a_count;
  Adder sums(a_count + b_count);
  for (size_t k = 0; k < n; k++) {
    if (!buckets.full(k)) continue;
    add(sums, (uint32_t)(k % a_count), k);
    add(sums, (uint32_t)(a_count + k / a_count), k);
  }
  sums.flush();
  // Σ w·P_w for w = 0..count−1 by running sums from the top; `total` gets Σ P_w.
  auto weighted = [&](size_t first, size_t count, J& total) {
    J running = J::infinity(), sum = J::infinity();
    for (size_t w = count; w-- > 1;) {
      if (sums.full(first + w)) J::add_mixed(running, running, sums.bucket(first + w));
      J::add(sum, sum, running);
    }
    total = running;
    if (sums.full(first)) J::add_mixed(total, total, sums.bucket(first));
    return sum;
  };
  J total_x, total_y;
  J out = weighted(0, a_count, total_x);
  J ys = weighted(a_count, b_count, total_y);
  for (int i = 0; i < h; i++) J::dbl(ys, ys);
  J::add(out, out, ys);
  u64 lo_limbs[4] = {(u64)lo, 0, 0, 0};
  J::add(out, out, total_x.times(lo_limbs));
  return out;
}

/**
 * Window by window, each scalar's signed digit worked out as it is needed (its carry kept from the
 * window below); `add(bucket, row, negative)` gets each entry whose magnitude is in [lo, hi], with
 * its table row (the bucket counted from lo).
 */
template <class F, class Add>
void walk_fixed_digits(const FixedBaseTable<F>& table, const std::vector<uint32_t>& big, const std::vector<Scalar>& ks,
                       int64_t lo, int64_t hi, Add add) {
  const size_t m = big.size();
  const int c = table.c;
  const int64_t half = int64_t(1) << (c - 1);
  std::vector<uint8_t> carry(m, 0);
  const u64 mask = (u64(1) << c) - 1;
  for (int w = 0; w < table.windows; w++) {
    const int bit = w * c, limb = bit / 64, off = bit % 64;
    const bool spans = off + c > 64 && limb + 1 < 4;
    const Affine<F>* row = table.points + (size_t)w * table.n;
    for (size_t j = 0; j < m; j++) {
      // The table streams from memory: ask for rows well before the batch reads them.
      if (j + 24 < m) {
        const char* ahead = reinterpret_cast<const char*>(row + big[j + 24]);
        __builtin_prefetch(ahead);
        if (sizeof(Affine<F>) > 64) __builtin_prefetch(ahead + 64);
      }
      const u64* v = ks[j].v;
      u64 raw = limb < 4 ? v[limb] >> off : 0;
      if (spans) raw |= v[limb + 1] << (64 - off);
      int64_t d = (int64_t)(raw & mask) + carry[j];
      carry[j] = d > half;
      d -= (int64_t)carry[j] << c;
      if (d == 0) continue;
      const int64_t mag = d < 0 ? -d : d;
      if (mag < lo || mag > hi) continue;
      add((uint32_t)(mag - lo), row + big[j], d < 0);
    }
  }
}

/**
 * Σ kᵢ·Pᵢ with the bases' table; `bases` are the key's own (zkey form), for the scalars that skip
 * the buckets.
 */
template <class F>
Jacobian<F> msm_fixed(const FixedBaseTable<F>& table, const Affine<F>* bases, const Scalar* scalars, size_t n,
                      int threads) {
  using J = Jacobian<F>;
  J ones;
  std::vector<uint32_t> big = split_scalars(bases, scalars, n, ones);
  const size_t m = big.size();
  if (m == 0) return ones;
  const int64_t half = int64_t(1) << (table.c - 1);
  const size_t parts = threads > 1 ? (size_t)threads : 1;
  std::vector<J> sums(parts, J::infinity());
  std::vector<Scalar> ks(m);
  for (size_t j = 0; j < m; j++) ks[j] = scalars[big[j]];
  // Every thread walks all entries and takes its range of buckets; points go from the table's
  // rows straight into the buckets.
  parallel_for(parts, threads, [&](size_t t) {
    const int64_t lo = 1 + half * (int64_t)t / (int64_t)parts, hi = half * (int64_t)(t + 1) / (int64_t)parts;
    if (lo > hi) return;
#ifdef ZK_HAVE_X8
    if (table.packed) {
      x8::BucketAdder<F> adder((size_t)(hi - lo + 1));
      walk_fixed_digits(table, big, ks, lo, hi, [&](uint32_t b, const Affine<F>* row, bool neg) {
        adder.add(b, reinterpret_cast<const u64*>(row), neg);
      });
      adder.flush();
      sums[t] = bucket_reduce_batched<F>(adder, lo, [&](x8::BucketAdder<F>& into, uint32_t j, size_t k) {
        into.add(j, adder.row(k), false);
      });
      return;
    }
#endif
    AffineBucketAdder<F> adder((size_t)(hi - lo + 1));
    walk_fixed_digits(table, big, ks, lo, hi,
                      [&](uint32_t b, const Affine<F>* row, bool neg) { adder.add(b, row, neg); });
    adder.flush();
    sums[t] = bucket_reduce_batched<F>(adder, lo, [&](AffineBucketAdder<F>& into, uint32_t j, size_t k) {
      into.add(j, &adder.bucket(k), false);
    });
  });
  J acc = ones;
  for (auto& s : sums) J::add(acc, acc, s);
  return acc;
}

}  // namespace zk
