// G1 (over Fq) and G2 (over Fq2) of BN254, y² = x³ + b: affine points as zkeys store them (the
// point at infinity is (0, 0)) and Jacobian points (X/Z², Y/Z³; Z = 0 is infinity) for arithmetic.
// The formulas are the a = 0 ones of the Explicit-Formulas Database.
#pragma once
#include "field.hpp"

namespace zk {

template <class F>
struct Affine {
  F x, y;
  bool is_infinity() const { return x.is_zero() && y.is_zero(); }
  static Affine infinity() { return {F::zero(), F::zero()}; }
  Affine negated() const {
    Affine r = *this;
    if (!is_infinity()) F::neg(r.y, y);
    return r;
  }
};

template <class F>
struct Jacobian {
  F X, Y, Z;

  static Jacobian infinity() { return {F::one(), F::one(), F::zero()}; }
  bool is_infinity() const { return Z.is_zero(); }
  static Jacobian from_affine(const Affine<F>& a) {
    if (a.is_infinity()) return infinity();
    return {a.x, a.y, F::one()};
  }

  // dbl-2009-l
  static void dbl(Jacobian& r, const Jacobian& p) {
    if (p.is_infinity()) {
      r = p;
      return;
    }
    F A, B, C, D, E, Fv, t;
    F::sqr(A, p.X);
    F::sqr(B, p.Y);
    F::sqr(C, B);
    F::add(t, p.X, B);
    F::sqr(t, t);
    F::sub(t, t, A);
    F::sub(t, t, C);
    F::dbl(D, t);
    F::dbl(E, A);
    F::add(E, E, A);
    F::sqr(Fv, E);
    F Z3;
    F::mul(Z3, p.Y, p.Z);
    F::dbl(Z3, Z3);
    F X3;
    F::dbl(t, D);
    F::sub(X3, Fv, t);
    F Y3;
    F::sub(t, D, X3);
    F::mul(Y3, E, t);
    F::dbl(C, C);
    F::dbl(C, C);
    F::dbl(C, C);
    F::sub(Y3, Y3, C);
    r.X = X3;
    r.Y = Y3;
    r.Z = Z3;
  }

  // madd-2007-bl: p + q with q affine.
  static void add_mixed(Jacobian& r, const Jacobian& p, const Affine<F>& q) {
    if (q.is_infinity()) {
      r = p;
      return;
    }
    if (p.is_infinity()) {
      r = from_affine(q);
      return;
    }
    F Z1Z1, U2, S2, H, HH, I, J, rr, V, t;
    F::sqr(Z1Z1, p.Z);
    F::mul(U2, q.x, Z1Z1);
    F::mul(t, p.Z, Z1Z1);
    F::mul(S2, q.y, t);
    F::sub(H, U2, p.X);
    F::sub(rr, S2, p.Y);
    if (H.is_zero()) {
      if (rr.is_zero()) {
        dbl(r, p);
      } else {
        r = infinity();
      }
      return;
    }
    F::sqr(HH, H);
    F::dbl(I, HH);
    F::dbl(I, I);
    F::mul(J, H, I);
    F::dbl(rr, rr);
    F::mul(V, p.X, I);
    F X3, Y3, Z3;
    F::sqr(X3, rr);
    F::sub(X3, X3, J);
    F::sub(X3, X3, V);
    F::sub(X3, X3, V);
    F::sub(t, V, X3);
    F::mul(Y3, rr, t);
    F::mul(t, p.Y, J);
    F::dbl(t, t);
    F::sub(Y3, Y3, t);
    F::add(Z3, p.Z, H);
    F::sqr(Z3, Z3);
    F::sub(Z3, Z3, Z1Z1);
    F::sub(Z3, Z3, HH);
    r.X = X3;
    r.Y = Y3;
    r.Z = Z3;
  }

  // add-2007-bl
  static void add(Jacobian& r, const Jacobian& p, const Jacobian& q) {
    if (p.is_infinity()) {
      r = q;
      return;
    }
    if (q.is_infinity()) {
      r = p;
      return;
    }
    F Z1Z1, Z2Z2, U1, U2, S1, S2, H, I, J, rr, V, t;
    F::sqr(Z1Z1, p.Z);
    F::sqr(Z2Z2, q.Z);
    F::mul(U1, p.X, Z2Z2);
    F::mul(U2, q.X, Z1Z1);
    F::mul(t, q.Z, Z2Z2);
    F::mul(S1, p.Y, t);
    F::mul(t, p.Z, Z1Z1);
    F::mul(S2, q.Y, t);
    F::sub(H, U2, U1);
    F::sub(rr, S2, S1);
    if (H.is_zero()) {
      if (rr.is_zero()) {
        dbl(r, p);
      } else {
        r = infinity();
      }
      return;
    }
    F::dbl(I, H);
    F::sqr(I, I);
    F::mul(J, H, I);
    F::dbl(rr, rr);
    F::mul(V, U1, I);
    F X3, Y3, Z3;
    F::sqr(X3, rr);
    F::sub(X3, X3, J);
    F::sub(X3, X3, V);
    F::sub(X3, X3, V);
    F::sub(t, V, X3);
    F::mul(Y3, rr, t);
    F::mul(t, S1, J);
    F::dbl(t, t);
    F::sub(Y3, Y3, t);
    F::add(Z3, p.Z, q.Z);
    F::sqr(Z3, Z3);
    F::sub(Z3, Z3, Z1Z1);
    F::sub(Z3, Z3, Z2Z2);
    F::mul(Z3, Z3, H);
    r.X = X3;
    r.Y = Y3;
    r.Z = Z3;
  }

  Jacobian negated() const {
    Jacobian r = *this;
    F::neg(r.Y, Y);
    return r;
  }

  Affine<F> to_affine() const {
    if (is_infinity()) return Affine<F>::infinity();
    F zi = Z.inverse();
    F zi2 = zi.squared();
    return {X * zi2, Y * (zi2 * zi)};
  }

  /** k·P for a canonical scalar (little-endian limbs), double-and-add from the top bit. */
  Jacobian times(const u64 k[4]) const {
    Jacobian r = infinity();
    for (int i = 255; i >= 0; i--) {
      dbl(r, r);
      if ((k[i / 64] >> (i % 64)) & 1) add(r, r, *this);
    }
    return r;
  }
};

using G1 = Jacobian<Fq>;
using G1Affine = Affine<Fq>;
using G2 = Jacobian<Fq2>;
using G2Affine = Affine<Fq2>;

/** b of G1 (3) and of the twist (3 / (9 + u)), for on-curve checks of points read from keys. */
inline Fq g1_b() { return Fq::from_u64(3); }
inline Fq2 g2_b() {
  Fq2 nine_u{Fq::from_u64(9), Fq::one()};
  Fq2 three{Fq::from_u64(3), Fq::zero()};
  return three * nine_u.inverse();
}

inline Fq fq_from_hex(const char* hex) {
  u64 x[4] = {0, 0, 0, 0};
  for (int i = 0; i < 64; i++) {
    char ch = hex[i];
    u64 d = ch <= '9' ? ch - '0' : ch - 'a' + 10;
    int bit = (63 - i) * 4;
    x[bit / 64] |= d << (bit % 64);
  }
  return Fq::from_canonical(x);
}

inline G1Affine g1_generator() { return {Fq::from_u64(1), Fq::from_u64(2)}; }
inline G2Affine g2_generator() {
  return {{fq_from_hex("1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed"),
           fq_from_hex("198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2")},
          {fq_from_hex("12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa"),
           fq_from_hex("090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b")}};
}

template <class F>
inline bool on_curve(const Affine<F>& p, const F& b) {
  if (p.is_infinity()) return true;
  return p.y.squared() == p.x.squared() * p.x + b;
}

}  // namespace zk
