// G1 and G2 points for host and device, laid out as the CPU core's (affine x, y with (0, 0) for
// infinity; Jacobian X, Y, Z with Z = 0 for infinity) so results copy back unchanged. Formulas:
// the a = 0 ones of the Explicit-Formulas Database (dbl-2009-l, madd-2007-bl, add-2007-bl).
#pragma once
#include "field_hd.hpp"

namespace zk::hd {

template <class F>
struct AffineHD {
  F x, y;
  ZK_HD bool is_infinity() const { return x.is_zero() && y.is_zero(); }
};

template <class F>
struct JacobianHD {
  F X, Y, Z;

  ZK_HD static JacobianHD infinity() { return JacobianHD{F::one(), F::one(), F::zero()}; }
  ZK_HD bool is_infinity() const { return Z.is_zero(); }

  // On the device each point operation is one call (ZK_HD_CALL) that makes no other: the calls are
  // wrappers of the inline formulas below, and an addition's doubling case (P + P) inlines the
  // doubling. On an H200 the MSM's segment sums faulted ("invalid local write" in add, kernels at 255
  // registers) where a sum met P + P and add called dbl (replayed on the host executor: every failing
  // run's sums did, no passing run's); test/native/cuda-device-code.test.ts keeps them leaf calls.
  ZK_HD_CALL static void dbl(JacobianHD& r, const JacobianHD& p) { dbl_inline(r, p); }
  ZK_HD_CALL static void add_mixed(JacobianHD& r, const JacobianHD& p, const AffineHD<F>& q, bool negate = false) {
    add_mixed_inline(r, p, q, negate);
  }
  ZK_HD_CALL static void add(JacobianHD& r, const JacobianHD& p, const JacobianHD& q) { add_inline(r, p, q); }

  /** 2p; r may be p. */
  ZK_HD static void dbl_inline(JacobianHD& r, const JacobianHD& p) {
    if (p.is_infinity()) {
      r = p;
      return;
    }
    F A, B, C, D, E, Fv, t, X3, Y3, Z3;
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
    F::mul(Z3, p.Y, p.Z);
    F::dbl(Z3, Z3);
    F::dbl(t, D);
    F::sub(X3, Fv, t);
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

  /** p + q with q affine, negated first when `negate`; r may be p. */
  ZK_HD static void add_mixed_inline(JacobianHD& r, const JacobianHD& p, const AffineHD<F>& q, bool negate) {
    if (q.is_infinity()) {
      r = p;
      return;
    }
    F qy = q.y;
    if (negate) F::neg(qy, q.y);
    if (p.is_infinity()) {
      r = JacobianHD{q.x, qy, F::one()};
      return;
    }
    F Z1Z1, U2, S2, H, HH, I, J, rr, V, t, X3, Y3, Z3;
    F::sqr(Z1Z1, p.Z);
    F::mul(U2, q.x, Z1Z1);
    F::mul(t, p.Z, Z1Z1);
    F::mul(S2, qy, t);
    F::sub(H, U2, p.X);
    F::sub(rr, S2, p.Y);
    if (H.is_zero()) {
      if (rr.is_zero()) {
        dbl_inline(r, p);
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

  /** p + q; r may be p or q. */
  ZK_HD static void add_inline(JacobianHD& r, const JacobianHD& p, const JacobianHD& q) {
    if (p.is_infinity()) {
      r = q;
      return;
    }
    if (q.is_infinity()) {
      r = p;
      return;
    }
    F Z1Z1, Z2Z2, U1, U2, S1, S2, H, I, J, rr, V, t, X3, Y3, Z3;
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
        dbl_inline(r, p);
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
};

using G1AffineHD = AffineHD<FqHD>;
using G2AffineHD = AffineHD<Fq2HD>;
using G1HD = JacobianHD<FqHD>;
using G2HD = JacobianHD<Fq2HD>;

}  // namespace zk::hd
