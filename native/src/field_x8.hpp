// BN254 field elements eight at a time, in the lanes of AVX-512 registers, multiplied with the
// IFMA instructions (52 × 52-bit multiply-accumulate). Where the CPU has them this is several times
// the throughput of the 64-bit scalar multiplication (field.hpp): the MSMs' batched affine
// additions and the NTTs run on it.
//
// Representation: five 52-bit limbs per element ("radix 2^52"), Montgomery form with R = 2^260,
// one register per limb holding that limb of all eight lanes. Stored points use a packed form of
// the same value (four 64-bit little-endian limbs of x·2^260 mod p, canonical), so a G1 point is
// one 64-byte row, like the zkey's own form (x·2^256) but not interchangeable with it.
//
// Bounds, so that no reduction runs where none is needed: limbs are "normalised" (each below
// 2^52; IFMA reads only the low 52 bits) after every operation here. mul accepts values below 8p
// (64p < 2^260 = R) and returns values below 2p; sub<k>(a, b) returns a − b + k·p (b at most
// k·p); canonical<k>(a) brings a value below k·p (k = 2, 4 or 8) into [0, p).
#pragma once
#if defined(__AVX512F__) && defined(__AVX512IFMA__)
#define ZK_HAVE_X8 1
#include <immintrin.h>

#include <array>

#include "field.hpp"

namespace zk::x8 {

using V = __m512i;
constexpr u64 M52 = (u64(1) << 52) - 1;
using Limbs = std::array<u64, 5>;

/** The 52-bit limbs of a 256-bit integer below 2^260 (little-endian 64-bit limbs). */
constexpr Limbs limbs52(const u64 (&x)[4]) {
  Limbs out{};
  for (int i = 0; i < 5; i++) {
    const int bit = 52 * i, limb = bit / 64, off = bit % 64;
    u64 v = limb < 4 ? x[limb] >> off : 0;
    if (off > 12 && limb + 1 < 4) v |= x[limb + 1] << (64 - off);
    out[i] = v & M52;
  }
  return out;
}

/** k·P as 52-bit limbs (k small: the product stays below 2^260). */
template <class Params>
constexpr Limbs multiple52(u64 k) {
  u64 x[4] = {0, 0, 0, 0};
  u128 carry = 0;
  for (int i = 0; i < 4; i++) {
    carry += (u128)Params::P[i] * k;
    x[i] = (u64)carry;
    carry >>= 64;
  }
  return limbs52(x);
}

/** −p⁻¹ mod 2^52 (Newton's iteration doubles the correct low bits each step). */
template <class Params>
constexpr u64 minus_inverse52() {
  const u64 p0 = Params::P[0];
  u64 inv = 1;
  for (int i = 0; i < 7; i++) inv *= 2 - p0 * inv;
  return (0 - inv) & M52;
}

ZK_INLINE V splat(u64 v) { return _mm512_set1_epi64((long long)v); }

/** Eight elements of the field with modulus Params::P. */
template <class Params>
struct F8 {
  V l[5];

  static constexpr Limbs P = multiple52<Params>(1);
  static constexpr Limbs P2 = multiple52<Params>(2);
  static constexpr Limbs P4 = multiple52<Params>(4);
  static constexpr u64 INV = minus_inverse52<Params>();

  static ZK_INLINE F8 zero() {
    F8 r;
    for (auto& x : r.l) x = _mm512_setzero_si512();
    return r;
  }
  /** All lanes the same value (52-bit limbs of its Montgomery form, x·2^260 mod p). */
  static ZK_INLINE F8 broadcast(const Limbs& v) {
    F8 r;
    for (int i = 0; i < 5; i++) r.l[i] = splat(v[i]);
    return r;
  }

  /** p itself in every lane (not reduced: what a difference that is ≡ 0 looks like). */
  static ZK_INLINE F8 broadcast_p() { return broadcast(P); }
  /** Lanes where a and b have the same limbs (normalised: the same value). */
  static ZK_INLINE __mmask8 equal(const F8& a, const F8& b) {
    __mmask8 m = 0xff;
    for (int i = 0; i < 5; i++) m &= _mm512_cmpeq_epi64_mask(a.l[i], b.l[i]);
    return m;
  }
  /** b where m is set, a elsewhere. */
  static ZK_INLINE F8 blend(const F8& a, const F8& b, __mmask8 m) {
    F8 r;
    for (int i = 0; i < 5; i++) r.l[i] = _mm512_mask_mov_epi64(a.l[i], m, b.l[i]);
    return r;
  }

  /** Carries limbs above 52 bits (or below zero: arithmetic shifts) into the next one. */
  static ZK_INLINE void normalise(V (&t)[5]) {
    const V m = splat(M52);
    for (int i = 0; i < 4; i++) {
      t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srai_epi64(t[i], 52));
      t[i] = _mm512_and_si512(t[i], m);
    }
  }

  /** a·b·2^−260 mod p, below 2p; a, b below 8p. Word-by-word Montgomery (operand scanning). */
  static ZK_INLINE F8 mul(const F8& a, const F8& b) {
    const V zero = _mm512_setzero_si512();
    const V p0 = splat(P[0]), p1 = splat(P[1]), p2 = splat(P[2]), p3 = splat(P[3]), p4 = splat(P[4]);
    const V inv = splat(INV);
    V t0 = zero, t1 = zero, t2 = zero, t3 = zero, t4 = zero, t5 = zero;
    for (int i = 0; i < 5; i++) {
      const V bi = b.l[i];
      t0 = _mm512_madd52lo_epu64(t0, a.l[0], bi);
      t1 = _mm512_madd52hi_epu64(t1, a.l[0], bi);
      t1 = _mm512_madd52lo_epu64(t1, a.l[1], bi);
      t2 = _mm512_madd52hi_epu64(t2, a.l[1], bi);
      t2 = _mm512_madd52lo_epu64(t2, a.l[2], bi);
      t3 = _mm512_madd52hi_epu64(t3, a.l[2], bi);
      t3 = _mm512_madd52lo_epu64(t3, a.l[3], bi);
      t4 = _mm512_madd52hi_epu64(t4, a.l[3], bi);
      t4 = _mm512_madd52lo_epu64(t4, a.l[4], bi);
      t5 = _mm512_madd52hi_epu64(t5, a.l[4], bi);
      // m = t0·(−p⁻¹) mod 2^52 (IFMA reads t0's low 52 bits, which are all that matter).
      const V m = _mm512_madd52lo_epu64(zero, t0, inv);
      t0 = _mm512_madd52lo_epu64(t0, m, p0);
      t1 = _mm512_madd52hi_epu64(t1, m, p0);
      t1 = _mm512_madd52lo_epu64(t1, m, p1);
      t2 = _mm512_madd52hi_epu64(t2, m, p1);
      t2 = _mm512_madd52lo_epu64(t2, m, p2);
      t3 = _mm512_madd52hi_epu64(t3, m, p2);
      t3 = _mm512_madd52lo_epu64(t3, m, p3);
      t4 = _mm512_madd52hi_epu64(t4, m, p3);
      t4 = _mm512_madd52lo_epu64(t4, m, p4);
      t5 = _mm512_madd52hi_epu64(t5, m, p4);
      // t0 ≡ 0 mod 2^52 now: divide by 2^52, keeping its carry.
      t0 = _mm512_add_epi64(t1, _mm512_srli_epi64(t0, 52));
      t1 = t2;
      t2 = t3;
      t3 = t4;
      t4 = t5;
      t5 = zero;
    }
    F8 r{{t0, t1, t2, t3, t4}};
    normalise(r.l);
    return r;
  }

  static ZK_INLINE F8 sqr(const F8& a) { return mul(a, a); }

  /** a + b (no reduction). */
  static ZK_INLINE F8 add(const F8& a, const F8& b) {
    F8 r;
    for (int i = 0; i < 5; i++) r.l[i] = _mm512_add_epi64(a.l[i], b.l[i]);
    normalise(r.l);
    return r;
  }

  /** a − b + k·p (b at most k·p, so the result is not negative). */
  template <int K>
  static ZK_INLINE F8 sub(const F8& a, const F8& b) {
    static_assert(K == 1 || K == 2 || K == 4, "multiples of p kept: 1, 2, 4");
    const Limbs& kp = K == 1 ? P : K == 2 ? P2 : P4;
    F8 r;
    for (int i = 0; i < 5; i++) r.l[i] = _mm512_sub_epi64(_mm512_add_epi64(a.l[i], splat(kp[i])), b.l[i]);
    normalise(r.l);
    return r;
  }

  /** Subtracts k·p in the lanes where that leaves a non-negative value. */
  static ZK_INLINE void reduce_by(F8& a, const Limbs& kp) {
    V t[5];
    for (int i = 0; i < 5; i++) t[i] = _mm512_sub_epi64(a.l[i], splat(kp[i]));
    normalise(t);
    const __mmask8 keep = _mm512_cmpge_epi64_mask(t[4], _mm512_setzero_si512());
    for (int i = 0; i < 5; i++) a.l[i] = _mm512_mask_mov_epi64(a.l[i], keep, t[i]);
  }

  /** The canonical value, in [0, p), of one below k·p (k = 2, 4 or 8). */
  template <int K>
  static ZK_INLINE F8 canonical(F8 a) {
    static_assert(K == 2 || K == 4 || K == 8, "bounds: 2p, 4p, 8p");
    if (K == 8) reduce_by(a, P4);
    if (K >= 4) reduce_by(a, P2);
    reduce_by(a, P);
    return a;
  }

  /** p − a where `m` is set (a canonical and non-zero there), a elsewhere. */
  static ZK_INLINE F8 neg_where(const F8& a, __mmask8 m) {
    F8 r;
    for (int i = 0; i < 5; i++) r.l[i] = _mm512_mask_sub_epi64(a.l[i], m, splat(P[i]), a.l[i]);
    normalise(r.l);
    return r;
  }
};

/**
 * Fq2 = Fq[u]/(u² + 1), eight at a time: what G2's coordinates need. mul and sqr take components
 * below 4p and return components below 4p.
 */
struct Fq2x8 {
  using B = F8<FqParams>;
  B c0, c1;

  static ZK_INLINE Fq2x8 mul(const Fq2x8& a, const Fq2x8& b) {
    // Karatsuba: (a0 + a1 u)(b0 + b1 u) = a0 b0 − a1 b1 + ((a0 + a1)(b0 + b1) − a0 b0 − a1 b1) u.
    const B v0 = B::mul(a.c0, b.c0), v1 = B::mul(a.c1, b.c1);     // below 2p
    const B s = B::mul(B::add(a.c0, a.c1), B::add(b.c0, b.c1));  // inputs below 8p; s below 2p
    Fq2x8 r;
    r.c0 = B::sub<2>(v0, v1);                                     // below 4p
    r.c1 = B::sub<4>(s, B::add(v0, v1));                          // below 6p
    B::reduce_by(r.c1, B::P2);                                    // below 4p
    return r;
  }
  static ZK_INLINE Fq2x8 sqr(const Fq2x8& a) {
    // (a0 + a1 u)² = (a0 + a1)(a0 − a1) + 2 a0 a1 u.
    Fq2x8 r;
    r.c0 = B::mul(B::add(a.c0, a.c1), B::sub<4>(a.c0, a.c1));
    const B m = B::mul(a.c0, a.c1);
    r.c1 = B::add(m, m);
    return r;
  }
  static ZK_INLINE Fq2x8 add(const Fq2x8& a, const Fq2x8& b) { return {B::add(a.c0, b.c0), B::add(a.c1, b.c1)}; }
  static ZK_INLINE Fq2x8 broadcast_p() { return {B::broadcast_p(), B::broadcast_p()}; }
  static ZK_INLINE __mmask8 equal(const Fq2x8& a, const Fq2x8& b) { return B::equal(a.c0, b.c0) & B::equal(a.c1, b.c1); }
  static ZK_INLINE Fq2x8 blend(const Fq2x8& a, const Fq2x8& b, __mmask8 m) {
    return {B::blend(a.c0, b.c0, m), B::blend(a.c1, b.c1, m)};
  }
  template <int K>
  static ZK_INLINE Fq2x8 sub(const Fq2x8& a, const Fq2x8& b) {
    return {B::sub<K>(a.c0, b.c0), B::sub<K>(a.c1, b.c1)};
  }
  template <int K>
  static ZK_INLINE Fq2x8 canonical(const Fq2x8& a) {
    return {B::canonical<K>(a.c0), B::canonical<K>(a.c1)};
  }
  static ZK_INLINE Fq2x8 neg_where(const Fq2x8& a, __mmask8 m) { return {B::neg_where(a.c0, m), B::neg_where(a.c1, m)}; }
};

/** In-register transpose of an 8 × 8 matrix of 64-bit values (rows in, columns out; its own inverse). */
ZK_INLINE void transpose8(V (&r)[8]) {
  const V lo2 = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), hi2 = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  const V lo4 = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0), hi4 = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
  V a[8], b[8];
  for (int k = 0; k < 4; k++) {
    a[2 * k] = _mm512_unpacklo_epi64(r[2 * k], r[2 * k + 1]);
    a[2 * k + 1] = _mm512_unpackhi_epi64(r[2 * k], r[2 * k + 1]);
  }
  // b0: column 0|4 of rows 0-3, b1: 1|5, b2: 2|6, b3: 3|7; b4..b7 the same of rows 4-7.
  for (int h = 0; h < 2; h++) {
    b[4 * h + 0] = _mm512_permutex2var_epi64(a[4 * h + 0], lo2, a[4 * h + 2]);
    b[4 * h + 2] = _mm512_permutex2var_epi64(a[4 * h + 0], hi2, a[4 * h + 2]);
    b[4 * h + 1] = _mm512_permutex2var_epi64(a[4 * h + 1], lo2, a[4 * h + 3]);
    b[4 * h + 3] = _mm512_permutex2var_epi64(a[4 * h + 1], hi2, a[4 * h + 3]);
  }
  for (int j = 0; j < 4; j++) {
    r[j] = _mm512_permutex2var_epi64(b[j], lo4, b[4 + j]);
    r[j + 4] = _mm512_permutex2var_epi64(b[j], hi4, b[4 + j]);
  }
}

/** Five 52-bit limbs from four 64-bit ones (a canonical value), per lane. */
template <class F>
ZK_INLINE F unpack(const V& w0, const V& w1, const V& w2, const V& w3) {
  const V m = splat(M52);
  F r;
  r.l[0] = _mm512_and_si512(w0, m);
  r.l[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w0, 52), _mm512_slli_epi64(w1, 12)), m);
  r.l[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w1, 40), _mm512_slli_epi64(w2, 24)), m);
  r.l[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w2, 28), _mm512_slli_epi64(w3, 36)), m);
  r.l[4] = _mm512_srli_epi64(w3, 16);
  return r;
}

/** Four 64-bit limbs of a canonical value with normalised limbs, per lane. */
template <class F>
ZK_INLINE void pack(const F& a, V& w0, V& w1, V& w2, V& w3) {
  w0 = _mm512_or_si512(a.l[0], _mm512_slli_epi64(a.l[1], 52));
  w1 = _mm512_or_si512(_mm512_srli_epi64(a.l[1], 12), _mm512_slli_epi64(a.l[2], 40));
  w2 = _mm512_or_si512(_mm512_srli_epi64(a.l[2], 24), _mm512_slli_epi64(a.l[3], 28));
  w3 = _mm512_or_si512(_mm512_srli_epi64(a.l[3], 36), _mm512_slli_epi64(a.l[4], 16));
}

}  // namespace zk::x8
#endif
