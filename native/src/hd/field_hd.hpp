// BN254's fields for host and device: the CPU core's representation (4 × 64-bit little-endian
// limbs, Montgomery form with R = 2^256), so points and scalars move between the two by plain
// copies, with arithmetic written once in portable word operations (no x86 assembly, no 128-bit
// integers on the device). The constants are scalars, not arrays, so device code can use them.
#pragma once
#include "hd.hpp"

namespace zk::hd {

struct FqHDParams {
  static constexpr u64 P0 = 0x3c208c16d87cfd47ULL, P1 = 0x97816a916871ca8dULL, P2 = 0xb85045b68181585dULL,
                       P3 = 0x30644e72e131a029ULL;
  static constexpr u64 R0 = 0xd35d438dc58f0d9dULL, R1 = 0x0a78eb28f5c70b3dULL, R2 = 0x666ea36f7879462cULL,
                       R3 = 0x0e0a77c19a07df2fULL;
  static constexpr u64 RR0 = 0xf32cfc5b538afa89ULL, RR1 = 0xb5e71911d44501fbULL, RR2 = 0x47ab1eff0a417ff6ULL,
                       RR3 = 0x06d89f71cab8351fULL;
  static constexpr u64 INV = 0x87d20782e4866389ULL;
};

struct FrHDParams {
  static constexpr u64 P0 = 0x43e1f593f0000001ULL, P1 = 0x2833e84879b97091ULL, P2 = 0xb85045b68181585dULL,
                       P3 = 0x30644e72e131a029ULL;
  static constexpr u64 R0 = 0xac96341c4ffffffbULL, R1 = 0x36fc76959f60cd29ULL, R2 = 0x666ea36f7879462eULL,
                       R3 = 0x0e0a77c19a07df2fULL;
  static constexpr u64 RR0 = 0x1bb8e645ae216da7ULL, RR1 = 0x53fe3ab1e35c59e3ULL, RR2 = 0x8c49833d53bb8085ULL,
                       RR3 = 0x0216d0b17f4e44a5ULL;
  static constexpr u64 INV = 0xc2e1f593efffffffULL;
};

template <class P>
struct FieldHD {
  u64 v[4];

  ZK_HD static FieldHD zero() { return FieldHD{{0, 0, 0, 0}}; }
  ZK_HD static FieldHD one() { return FieldHD{{P::R0, P::R1, P::R2, P::R3}}; }
  ZK_HD bool is_zero() const { return (v[0] | v[1] | v[2] | v[3]) == 0; }
  ZK_HD bool eq(const FieldHD& o) const {
    return ((v[0] ^ o.v[0]) | (v[1] ^ o.v[1]) | (v[2] ^ o.v[2]) | (v[3] ^ o.v[3])) == 0;
  }

  /** s − p when s ≥ p, else s (s < 2p). */
  ZK_HD static void reduce_once(FieldHD& out, u64 s0, u64 s1, u64 s2, u64 s3) {
    u64 br = 0;
    u64 d0 = subb(s0, P::P0, br), d1 = subb(s1, P::P1, br), d2 = subb(s2, P::P2, br), d3 = subb(s3, P::P3, br);
    const u64 keep = 0 - br;  // all ones when s < p
    out.v[0] = (s0 & keep) | (d0 & ~keep);
    out.v[1] = (s1 & keep) | (d1 & ~keep);
    out.v[2] = (s2 & keep) | (d2 & ~keep);
    out.v[3] = (s3 & keep) | (d3 & ~keep);
  }

  // Both operands are below p < 2^254, so the sum never carries out of the top limb.
  ZK_HD static void add(FieldHD& out, const FieldHD& a, const FieldHD& b) {
    u64 c = 0;
    u64 s0 = addc(a.v[0], b.v[0], c), s1 = addc(a.v[1], b.v[1], c), s2 = addc(a.v[2], b.v[2], c),
        s3 = addc(a.v[3], b.v[3], c);
    reduce_once(out, s0, s1, s2, s3);
  }

  ZK_HD static void sub(FieldHD& out, const FieldHD& a, const FieldHD& b) {
    u64 br = 0;
    u64 d0 = subb(a.v[0], b.v[0], br), d1 = subb(a.v[1], b.v[1], br), d2 = subb(a.v[2], b.v[2], br),
        d3 = subb(a.v[3], b.v[3], br);
    const u64 mask = 0 - br;  // add p back on borrow
    u64 c = 0;
    out.v[0] = addc(d0, P::P0 & mask, c);
    out.v[1] = addc(d1, P::P1 & mask, c);
    out.v[2] = addc(d2, P::P2 & mask, c);
    out.v[3] = addc(d3, P::P3 & mask, c);
  }

  ZK_HD static void neg(FieldHD& out, const FieldHD& a) {
    if (a.is_zero()) {
      out = a;
      return;
    }
    sub(out, FieldHD{{P::P0, P::P1, P::P2, P::P3}}, a);
  }

  ZK_HD static void dbl(FieldHD& out, const FieldHD& a) { add(out, a, a); }

  // Montgomery multiplication, CIOS: a running total of five limbs suffices because the modulus
  // leaves the top two bits free.
  ZK_HD static void mul(FieldHD& out, const FieldHD& a, const FieldHD& b) {
    u64 t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0, hi, m, lo;
#if defined(__CUDACC__)
#pragma unroll
#endif
    for (int i = 0; i < 4; i++) {
      const u64 bi = b.v[i];
      mac(a.v[0], bi, t0, 0, t0, hi);
      mac(a.v[1], bi, t1, hi, t1, hi);
      mac(a.v[2], bi, t2, hi, t2, hi);
      mac(a.v[3], bi, t3, hi, t3, hi);
      t4 = hi;
      m = t0 * P::INV;
      mac(m, P::P0, t0, 0, lo, hi);
      mac(m, P::P1, t1, hi, t0, hi);
      mac(m, P::P2, t2, hi, t1, hi);
      mac(m, P::P3, t3, hi, t2, hi);
      u64 c = 0;
      t3 = addc(t4, hi, c);
      (void)lo;
    }
    reduce_once(out, t0, t1, t2, t3);
  }

  ZK_HD static void sqr(FieldHD& out, const FieldHD& a) { mul(out, a, a); }

  ZK_HD static FieldHD from_canonical(const u64 x[4]) {
    FieldHD a{{x[0], x[1], x[2], x[3]}}, r2{{P::RR0, P::RR1, P::RR2, P::RR3}}, r;
    mul(r, a, r2);
    return r;
  }
  ZK_HD void to_canonical(u64 out[4]) const {
    FieldHD plain_one{{1, 0, 0, 0}}, r;
    mul(r, *this, plain_one);
    out[0] = r.v[0];
    out[1] = r.v[1];
    out[2] = r.v[2];
    out[3] = r.v[3];
  }

  /** a^(p−2); zero stays zero. Host use (tests, final conversions), slow on purpose-free paths. */
  ZK_HD FieldHD inverse() const {
    const u64 e[4] = {P::P0 - 2, P::P1, P::P2, P::P3};
    FieldHD r = one(), base = *this;
    for (int i = 0; i < 4; i++) {
      u64 w = e[i];
      for (int j = 0; j < 64; j++) {
        if (w & 1) mul(r, r, base);
        sqr(base, base);
        w >>= 1;
      }
    }
    return r;
  }
};

using FqHD = FieldHD<FqHDParams>;
using FrHD = FieldHD<FrHDParams>;

/** Fq2 = Fq[u] / (u² + 1). */
struct Fq2HD {
  FqHD c0, c1;
  ZK_HD static Fq2HD zero() { return Fq2HD{FqHD::zero(), FqHD::zero()}; }
  ZK_HD static Fq2HD one() { return Fq2HD{FqHD::one(), FqHD::zero()}; }
  ZK_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  ZK_HD bool eq(const Fq2HD& o) const { return c0.eq(o.c0) && c1.eq(o.c1); }
  ZK_HD static void add(Fq2HD& r, const Fq2HD& a, const Fq2HD& b) {
    FqHD::add(r.c0, a.c0, b.c0);
    FqHD::add(r.c1, a.c1, b.c1);
  }
  ZK_HD static void sub(Fq2HD& r, const Fq2HD& a, const Fq2HD& b) {
    FqHD::sub(r.c0, a.c0, b.c0);
    FqHD::sub(r.c1, a.c1, b.c1);
  }
  ZK_HD static void neg(Fq2HD& r, const Fq2HD& a) {
    FqHD::neg(r.c0, a.c0);
    FqHD::neg(r.c1, a.c1);
  }
  ZK_HD static void dbl(Fq2HD& r, const Fq2HD& a) { add(r, a, a); }
  // Karatsuba: three base multiplications.
  ZK_HD static void mul(Fq2HD& r, const Fq2HD& a, const Fq2HD& b) {
    FqHD v0, v1, s0, s1, t;
    FqHD::mul(v0, a.c0, b.c0);
    FqHD::mul(v1, a.c1, b.c1);
    FqHD::add(s0, a.c0, a.c1);
    FqHD::add(s1, b.c0, b.c1);
    FqHD::mul(t, s0, s1);
    FqHD::sub(r.c0, v0, v1);
    FqHD::sub(t, t, v0);
    FqHD::sub(r.c1, t, v1);
  }
  // (c0 + c1)(c0 − c1) and 2·c0·c1: two base multiplications.
  ZK_HD static void sqr(Fq2HD& r, const Fq2HD& a) {
    FqHD s, d, m;
    FqHD::add(s, a.c0, a.c1);
    FqHD::sub(d, a.c0, a.c1);
    FqHD::mul(m, a.c0, a.c1);
    FqHD::mul(r.c0, s, d);
    FqHD::add(r.c1, m, m);
  }
};

}  // namespace zk::hd
