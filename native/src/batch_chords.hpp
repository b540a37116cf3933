// Affine additions r = p + q in batches that share one field inversion (Montgomery's trick): the
// step every affine bucket method of the 64-bit path runs (AffineBucketAdder, add_pairs).
//
// Written for the multiplier, not just for the count of multiplications: a chord step is a chain
// of three dependent products (λ, λ², λ·(x₁ − x₃)) and each product's carry chains are about a
// hundred instructions, so one step at a time leaves the core waiting on latency (measured on Zen
// 3: about 470 cycles per addition, for six products that take about 46 cycles each when
// independent). Here the inverses are worked out in a pass of their own (two independent products
// per step), and the chord steps run four at a time, their statements interleaved, so that each
// product has independent neighbours in flight (two at a time measured 0.80× the one-by-one time
// for G2 and 0.87–0.95× for G1; four at a time 0.95× and 0.97× of that).
#pragma once
#include <cstddef>
#include <cstdint>

#include "curve.hpp"

namespace zk {

/** One addition of a batch: *r = *p + (neg ? −*q : *q). r may be p (adding into p). */
template <class F>
struct Chord {
  const Affine<F>* p;
  const Affine<F>* q;
  Affine<F>* r;
  bool neg;
};

/** Whether the chord rule does not apply: an operand at infinity, or equal x (a doubling or a cancellation). */
template <class F>
ZK_INLINE bool chord_special(const Chord<F>& c) {
  return c.p->x == c.q->x || c.p->is_infinity() || c.q->is_infinity();
}

namespace detail {
/** Asks for a point's cache lines ahead of its use. */
template <class F>
ZK_INLINE void prefetch_point(const Affine<F>* a) {
  for (size_t off = 0; off < sizeof(Affine<F>); off += 64) __builtin_prefetch((const char*)a + off);
}
template <class F, class ChordOf>
ZK_INLINE void prefetch_chord(ChordOf& chord, size_t e, size_t k) {
  if (e >= k) return;
  const Chord<F> c = chord(e);
  prefetch_point(c.p);
  prefetch_point(c.q);
}

template <class F>
ZK_INLINE void chord_slope_numerator(F& t, const Chord<F>& c) {
  // q.y' − p.y, with q.y' = −q.y for a negated q.
  if (c.neg) {
    F::add(t, c.q->y, c.p->y);
    F::neg(t, t);
  } else {
    F::sub(t, c.q->y, c.p->y);
  }
}
}  // namespace detail

/** The chord steps of N additions with their inverses inv[i], statement by statement over all N. */
template <class F, size_t N>
ZK_INLINE void chord_steps(const Chord<F>* c, const F* inv) {
  F t[N], l[N], x[N];
  for (size_t i = 0; i < N; i++) detail::chord_slope_numerator(t[i], c[i]);
  for (size_t i = 0; i < N; i++) F::mul(l[i], t[i], inv[i]);
  for (size_t i = 0; i < N; i++) F::sqr(x[i], l[i]);
  for (size_t i = 0; i < N; i++) {
    F::sub(x[i], x[i], c[i].p->x);
    F::sub(x[i], x[i], c[i].q->x);
    F::sub(t[i], c[i].p->x, x[i]);
  }
  for (size_t i = 0; i < N; i++) F::mul(t[i], l[i], t[i]);
  for (size_t i = 0; i < N; i++) {
    F::sub(c[i].r->y, t[i], c[i].p->y);  // p.y read before r.y (which may be it) is written
    c[i].r->x = x[i];
  }
}

/**
 * Runs the k additions `chord(e)` (e < k) that the chord rule covers and returns whether any did
 * not: those are left untouched for the caller (`special[e]` is 1 for them), who adds them some
 * slower way afterwards. The additions' targets must be distinct and not operands of another
 * addition of the batch. den, prefix and special are scratch of k elements.
 */
template <class F, class ChordOf>
bool batch_chords(size_t k, ChordOf chord, F* den, F* prefix, uint8_t* special) {
  if (k == 0) return false;
  F acc = F::one();
  bool any_special = false;
  // A bucket is a random slot, often outside L1 and L2 (2^14 of them take 1 MiB in G1): its lines
  // are asked for a few additions ahead (0.85× for G1 and 0.83× for G2 with 2^14 buckets, 0.95×
  // and 1.0× with 2^12; further ahead, or again before the chord steps, measured alike). (Running
  // G2's products over Fq norms, 1/d = conj(d)/N(d), seven Fq products instead of nine, was
  // faster alone but 1.07× slower here.)
  constexpr size_t AHEAD = 8;
  for (size_t e = 0; e < AHEAD; e++) detail::prefetch_chord<F>(chord, e, k);
  for (size_t e = 0; e < k; e++) {
    detail::prefetch_chord<F>(chord, e + AHEAD, k);
    const Chord<F> c = chord(e);
    prefix[e] = acc;
    special[e] = chord_special(c);
    if (special[e]) {
      any_special = true;
      den[e] = F::one();  // kept out of the product
      continue;
    }
    F::sub(den[e], c.q->x, c.p->x);
    F::mul(acc, acc, den[e]);
  }
  // den[e] becomes 1 / (q.x − p.x): the product of the others' differences over the product of all.
  // (Two interleaved running products measured alike: within 2 %.)
  F inv = acc.inverse();
  for (size_t e = k; e-- > 0;) {
    const F d = den[e];
    F::mul(den[e], inv, prefix[e]);
    F::mul(inv, inv, d);
  }
  // λ = (q.y' − p.y)/(q.x − p.x), x₃ = λ² − p.x − q.x, y₃ = λ·(p.x − x₃) − p.y; LANES steps at a
  // time, each statement over all of them before the next.
  constexpr size_t LANES = 4;
  size_t e = 0;
  for (; e + LANES <= k; e += LANES) {
    bool any = false;
    for (size_t i = 0; i < LANES; i++) any |= special[e + i] != 0;
    if (any) {
      for (size_t i = 0; i < LANES; i++)
        if (!special[e + i]) {
          const Chord<F> c = chord(e + i);
          chord_steps<F, 1>(&c, &den[e + i]);
        }
      continue;
    }
    Chord<F> c[LANES];
    for (size_t i = 0; i < LANES; i++) c[i] = chord(e + i);
    chord_steps<F, LANES>(c, &den[e]);
  }
  for (; e < k; e++)
    if (!special[e]) {
      const Chord<F> c = chord(e);
      chord_steps<F, 1>(&c, &den[e]);
    }
  return any_special;
}

}  // namespace zk
