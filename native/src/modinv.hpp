// Modular inversion by Bernstein–Yang divsteps ("Fast constant-time gcd computation and modular
// inversion", 2019), in its variable-time form: 62 divsteps at a time are worked out on the low 64
// bits of f and g alone, as a 2×2 matrix, which is then applied to the full numbers. Ten-odd
// rounds of that replace Fermat's 254 squarings and ~130 multiplications, each waiting on the
// last: several times faster, which matters where a batch of affine additions shares one inverse.
//
// Values are five signed 62-bit limbs (v = Σ vᵢ·2^(62i), the top limb carrying the sign).
// Variable time: used on values that are no secret of the caller's beyond what the MSM's memory
// accesses already depend on.
#pragma once
#include <cstdint>

namespace zk::modinv {

using u64 = uint64_t;
using i64 = int64_t;
using i128 = __int128;
constexpr u64 M62 = (u64(1) << 62) - 1;

struct S62 {
  i64 v[5];
};

inline S62 from_u256(const u64 x[4]) {
  return {{(i64)(x[0] & M62), (i64)(((x[0] >> 62) | (x[1] << 2)) & M62), (i64)(((x[1] >> 60) | (x[2] << 4)) & M62),
           (i64)(((x[2] >> 58) | (x[3] << 6)) & M62), (i64)(x[3] >> 56)}};
}

/** Back to four 64-bit limbs; v must be normalised (limbs 0..3 in [0, 2^62), top ≥ 0) and below 2^256. */
inline void to_u256(const S62& s, u64 out[4]) {
  const u64 a0 = (u64)s.v[0], a1 = (u64)s.v[1], a2 = (u64)s.v[2], a3 = (u64)s.v[3], a4 = (u64)s.v[4];
  out[0] = a0 | (a1 << 62);
  out[1] = (a1 >> 2) | (a2 << 60);
  out[2] = (a2 >> 4) | (a3 << 58);
  out[3] = (a3 >> 6) | (a4 << 56);
}

/** Carries so that limbs 0..3 are in [0, 2^62); the top limb keeps the sign. */
inline void normalise(S62& s) {
  for (int i = 0; i < 4; i++) {
    s.v[i + 1] += s.v[i] >> 62;  // arithmetic: a negative limb borrows
    s.v[i] &= (i64)M62;
  }
}

inline bool is_zero(const S62& s) { return (s.v[0] | s.v[1] | s.v[2] | s.v[3] | s.v[4]) == 0; }
inline bool is_negative(const S62& s) { return s.v[4] < 0; }

/** a + k·m for k in {−1, 1} (normalised). */
inline void add_multiple(S62& a, const S62& m, i64 k) {
  for (int i = 0; i < 5; i++) a.v[i] += k * m.v[i];
  normalise(a);
}

/** a ≥ m for normalised non-negative values. */
inline bool at_least(const S62& a, const S62& m) {
  for (int i = 4; i >= 0; i--)
    if (a.v[i] != m.v[i]) return a.v[i] > m.v[i];
  return true;
}

struct Matrix {
  i64 u, v, q, r;
};

/**
 * 62 divsteps on the low 64 bits of f (odd) and g, from η; returns the transition matrix (scaled
 * by 2^62: 2^62·f' = u·f + v·g, 2^62·g' = q·f + r·g) and updates η.
 */
inline Matrix divsteps62(i64& eta, u64 f, u64 g) {
  // −f⁻¹ mod 16 for odd f, by (f mod 16) / 2.
  static constexpr uint8_t NEG_INV16[8] = {15, 5, 3, 9, 7, 13, 11, 1};
  i64 u = 1, v = 0, q = 0, r = 1;
  int i = 62;
  for (;;) {
    // Trailing zeros of g: that many divsteps just halve g (f's row doubles to stay exact).
    const int zeros = __builtin_ctzll(g | (u64(1) << i));
    g >>= zeros;
    u = (i64)((u64)u << zeros);  // shifts of negative values, defined through unsigned
    v = (i64)((u64)v << zeros);
    eta -= zeros;
    i -= zeros;
    if (i == 0) break;
    if (eta < 0) {  // swap roles: f ← g, g ← −f
      const u64 tf = f;
      f = g;
      g = (u64)0 - tf;
      i64 t = u;
      u = q;
      q = -t;
      t = v;
      v = r;
      r = -t;
      eta = -eta;
    }
    // Clear up to 4 low bits of g (as many as η + 1 and the steps left allow) with a multiple of f.
    int limit = (int)eta + 1 < i ? (int)eta + 1 : i;
    if (limit > 4) limit = 4;
    const u64 mask = (u64(1) << limit) - 1;
    const u64 w = (g * NEG_INV16[(f & 15) >> 1]) & mask;
    g += w * f;
    q += (i64)w * u;
    r += (i64)w * v;
  }
  return {u, v, q, r};
}

/** (f, g) ← ((u·f + v·g) / 2^62, (q·f + r·g) / 2^62): exact divisions. */
inline void update_fg(S62& f, S62& g, const Matrix& t) {
  i128 cf = (i128)t.u * f.v[0] + (i128)t.v * g.v[0];
  i128 cg = (i128)t.q * f.v[0] + (i128)t.r * g.v[0];
  cf >>= 62;
  cg >>= 62;
  for (int i = 1; i < 5; i++) {
    cf += (i128)t.u * f.v[i] + (i128)t.v * g.v[i];
    cg += (i128)t.q * f.v[i] + (i128)t.r * g.v[i];
    f.v[i - 1] = (i64)((u64)cf & M62);
    g.v[i - 1] = (i64)((u64)cg & M62);
    cf >>= 62;
    cg >>= 62;
  }
  f.v[4] = (i64)cf;
  g.v[4] = (i64)cg;
}

/**
 * (d, e) ← ((u·d + v·e) / 2^62, (q·d + r·e) / 2^62) mod m, with d, e in [0, m) before and after.
 * Each division adds the multiple of m that makes the sum divisible (minv = m⁻¹ mod 2^62).
 */
inline void update_de(S62& d, S62& e, const Matrix& t, const S62& m, u64 minv) {
  i128 cd = (i128)t.u * d.v[0] + (i128)t.v * e.v[0];
  i128 ce = (i128)t.q * d.v[0] + (i128)t.r * e.v[0];
  const i64 md = (i64)((0 - (u64)cd * minv) & M62);
  const i64 me = (i64)((0 - (u64)ce * minv) & M62);
  cd += (i128)md * m.v[0];
  ce += (i128)me * m.v[0];
  cd >>= 62;
  ce >>= 62;
  for (int i = 1; i < 5; i++) {
    cd += (i128)t.u * d.v[i] + (i128)t.v * e.v[i] + (i128)md * m.v[i];
    ce += (i128)t.q * d.v[i] + (i128)t.r * e.v[i] + (i128)me * m.v[i];
    d.v[i - 1] = (i64)((u64)cd & M62);
    e.v[i - 1] = (i64)((u64)ce & M62);
    cd >>= 62;
    ce >>= 62;
  }
  d.v[4] = (i64)cd;
  e.v[4] = (i64)ce;
  // Matrix entries of at most 2^62 keep the results within a few m of [0, m).
  for (S62* x : {&d, &e}) {
    while (is_negative(*x)) add_multiple(*x, m, 1);
    while (at_least(*x, m)) add_multiple(*x, m, -1);
  }
}

/**
 * x⁻¹ mod m (four little-endian limbs; m odd, below 2^254; 0 < x < m), or zero when x is zero.
 * minv = m⁻¹ mod 2^62.
 */
inline void invert(const u64 x[4], const u64 m[4], u64 minv, u64 out[4]) {
  if ((x[0] | x[1] | x[2] | x[3]) == 0) {
    out[0] = out[1] = out[2] = out[3] = 0;
    return;
  }
  const S62 mod = from_u256(m);
  S62 f = mod, g = from_u256(x), d{{0, 0, 0, 0, 0}}, e{{1, 0, 0, 0, 0}};
  i64 eta = -1;
  while (!is_zero(g)) {
    const Matrix t = divsteps62(eta, (u64)f.v[0] | ((u64)f.v[1] << 62), (u64)g.v[0] | ((u64)g.v[1] << 62));
    update_fg(f, g, t);
    update_de(d, e, t, mod, minv);
  }
  // f = ±1 now (x is invertible): d·x ≡ f.
  if (is_negative(f)) {
    for (auto& l : d.v) l = -l;
    normalise(d);
    if (is_negative(d)) add_multiple(d, mod, 1);
  }
  to_u256(d, out);
}

/** m⁻¹ mod 2^62 for odd m (Newton's iteration). */
constexpr u64 inverse_mod_2_62(u64 m0) {
  u64 inv = 1;
  for (int i = 0; i < 7; i++) inv *= 2 - m0 * inv;
  return inv & M62;
}

}  // namespace zk::modinv
