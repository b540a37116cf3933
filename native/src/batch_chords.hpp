// Affine additions r = p + q in batches that share one field inversion (Montgomery's trick): the
// step every affine bucket method of the 64-bit path runs (AffineBucketAdder, add_pairs).
//
// Written for the multiplier, not just for the count of multiplications: a chord step is a chain
// of three dependent products (λ, λ², λ·(x₁ − x₃)) and each product's carry chains are about a
// hundred instructions, so one step at a time leaves the core waiting on latency (measured on Zen
// 3: about 470 cycles per addition, for six products that take about 46 cycles each when
// independent). Here the inverses are worked out in a pass of their own (two independent products
// per step), and the chord steps run two at a time, their statements interleaved, so that each
// product has an independent neighbour in flight.
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

/**
 * Runs the k additions `chord(e)` (e < k) that the chord rule covers and returns whether any did
 * not: those are left untouched for the caller (`special[e]` is 1 for them), who adds them some
 * slower way afterwards. The additions' targets must be distinct and not operands of another
 * addition of the batch. den, prefix and special are scratch of k elements.
 */
template <class F, class ChordOf>
bool batch_chords(size_t k, ChordOf chord, F* den, F* prefix, uint8_t* special) {
  using A = Affine<F>;
  if (k == 0) return false;
  F acc = F::one();
  bool any_special = false;
  for (size_t e = 0; e < k; e++) {
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
  F inv = acc.inverse();
  for (size_t e = k; e-- > 0;) {
    const F d = den[e];
    F::mul(den[e], inv, prefix[e]);
    F::mul(inv, inv, d);
  }
  // λ = (q.y' − p.y)/(q.x − p.x), x₃ = λ² − p.x − q.x, y₃ = λ·(p.x − x₃) − p.y.
  auto one = [&](const Chord<F>& c, const F& inv_e) {
    F t, lambda, x3;
    detail::chord_slope_numerator(t, c);
    F::mul(lambda, t, inv_e);
    F::sqr(x3, lambda);
    F::sub(x3, x3, c.p->x);
    F::sub(x3, x3, c.q->x);
    F::sub(t, c.p->x, x3);
    F::mul(t, lambda, t);
    A& r = *c.r;
    F::sub(r.y, t, c.p->y);
    r.x = x3;
  };
  size_t e = 0;
  for (; e + 1 < k; e += 2) {
    const Chord<F> c0 = chord(e), c1 = chord(e + 1);
    if (special[e] | special[e + 1]) {
      if (!special[e]) one(c0, den[e]);
      if (!special[e + 1]) one(c1, den[e + 1]);
      continue;
    }
    F t0, t1, l0, l1, x0, x1;
    detail::chord_slope_numerator(t0, c0);
    detail::chord_slope_numerator(t1, c1);
    F::mul(l0, t0, den[e]);
    F::mul(l1, t1, den[e + 1]);
    F::sqr(x0, l0);
    F::sqr(x1, l1);
    F::sub(x0, x0, c0.p->x);
    F::sub(x1, x1, c1.p->x);
    F::sub(x0, x0, c0.q->x);
    F::sub(x1, x1, c1.q->x);
    F::sub(t0, c0.p->x, x0);
    F::sub(t1, c1.p->x, x1);
    F::mul(t0, l0, t0);
    F::mul(t1, l1, t1);
    F::sub(c0.r->y, t0, c0.p->y);
    F::sub(c1.r->y, t1, c1.p->y);
    c0.r->x = x0;
    c1.r->x = x1;
  }
  if (e < k && !special[e]) one(chord(e), den[e]);
  return any_special;
}

}  // namespace zk
