// The native prover core's self-test, built without Node and run under AddressSanitizer + UBSan
// (`node native/build.mjs --sanitize`): field, curve, MSM and NTT properties and edge cases, then,
// when given a zkey and a witness file, one proof written as hex for the caller to verify.
//   selftest-sanitized [zkey witness.bin]
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

#include <thread>

#include "../src/engine.hpp"
#include "../src/hd/host_exec.hpp"
#include "../src/point_decompress.hpp"
#include "../src/r1cs_solver.hpp"

using namespace zk;

static int failures = 0;
#define CHECK(cond)                                                \
  do {                                                             \
    if (!(cond)) {                                                 \
      std::fprintf(stderr, "FAIL %s:%d %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                  \
    }                                                              \
  } while (0)

static u64 rng_state = 0x9e3779b97f4a7c15ULL;
static u64 next_u64() {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}
template <class P>
static Field<P> random_field() {
  u64 x[4];
  do {
    for (auto& l : x) l = next_u64();
    x[3] &= 0x3fffffffffffffffULL;
  } while (!Field<P>::is_canonical(x));
  return Field<P>::from_canonical(x);
}
static Scalar random_scalar() {
  Scalar s;
  random_field<FrParams>().to_canonical(s.v);
  return s;
}
static Scalar scalar_u64(u64 v) { return Scalar{{v, 0, 0, 0}}; }
static Scalar r_minus_1() { return Scalar{{FrParams::P[0] - 1, FrParams::P[1], FrParams::P[2], FrParams::P[3]}}; }

template <class J, class A>
static bool same(const J& p, const J& q) {
  A a = p.to_affine(), b = q.to_affine();
  return a.x == b.x && a.y == b.y;
}

static void test_fields() {
  for (int i = 0; i < 200; i++) {
    Fq a = random_field<FqParams>(), b = random_field<FqParams>();
    CHECK((a * b) * b.inverse() == a);
    CHECK((a + b) - b == a);
    CHECK(a * (b + Fq::one()) == a * b + a);
    u64 c[4];
    a.to_canonical(c);
    CHECK(Fq::from_canonical(c) == a);
    Fr x = random_field<FrParams>(), y = random_field<FrParams>();
    CHECK((x * y) * y.inverse() == x);
    CHECK(x - x == Fr::zero());
  }
  // p − 1 squared is 1; −1 + 1 = 0; zero has no inverse but stays zero.
  u64 pm1[4] = {FqParams::P[0] - 1, FqParams::P[1], FqParams::P[2], FqParams::P[3]};
  Fq m1 = Fq::from_canonical(pm1);
  CHECK(m1 * m1 == Fq::one());
  CHECK(m1 + Fq::one() == Fq::zero());
  CHECK(Fq::zero().inverse() == Fq::zero());
  CHECK(-Fq::zero() == Fq::zero());
  Fq2 u{random_field<FqParams>(), random_field<FqParams>()};
  CHECK(u * u.inverse() == Fq2::one());
  CHECK(u.squared() == u * u);
  // Fq2's product (lazily reduced on x86-64) against Karatsuba over reduced Fq products, with
  // components at the field's edges (both signs of a0·b0 − a1·b1, the largest sums) and random.
  // (Montgomery limbs: p − 1 and 1 as stored, besides −1, 1 and 0 as values.)
  const Fq raw_max{{FqParams::P[0] - 1, FqParams::P[1], FqParams::P[2], FqParams::P[3]}}, raw_one{{1, 0, 0, 0}};
  const Fq edge[6] = {Fq::zero(), Fq::one(), m1, raw_max, raw_one, random_field<FqParams>()};
  auto karatsuba = [](const Fq2& a, const Fq2& b) {
    const Fq v0 = a.c0 * b.c0, v1 = a.c1 * b.c1;
    return Fq2{v0 - v1, (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1};
  };
  for (int i = 0; i < 1296 + 2000; i++) {
    const bool at_edges = i < 1296;
    const Fq2 a{at_edges ? edge[i % 6] : random_field<FqParams>(), at_edges ? edge[i / 6 % 6] : random_field<FqParams>()};
    const Fq2 b{at_edges ? edge[i / 36 % 6] : random_field<FqParams>(), at_edges ? edge[i / 216] : random_field<FqParams>()};
    const Fq2 ab = a * b;
    CHECK(ab == karatsuba(a, b));
    CHECK(Fq::is_canonical(ab.c0.v) && Fq::is_canonical(ab.c1.v));
  }
}

template <class F>
static void test_group(const Affine<F>& g, const F& b) {
  using J = Jacobian<F>;
  CHECK(on_curve(g, b));
  J p = J::from_affine(g);
  J d1, d2, t;
  J::dbl(d1, p);
  J::add(d2, p, p);  // doubling inside a full addition
  CHECK((same<J, Affine<F>>(d1, d2)));
  J::add_mixed(t, p, g);  // and inside a mixed one
  CHECK((same<J, Affine<F>>(d1, t)));
  CHECK(on_curve(d1.to_affine(), b));
  J::add_mixed(t, p, g.negated());
  CHECK(t.is_infinity());
  J::add_mixed(t, J::infinity(), g);
  CHECK((same<J, Affine<F>>(t, p)));
  J::add_mixed(t, p, Affine<F>::infinity());
  CHECK((same<J, Affine<F>>(t, p)));
  Scalar r{{FrParams::P[0], FrParams::P[1], FrParams::P[2], FrParams::P[3]}};
  CHECK(p.times(r.v).is_infinity());
  Scalar rm1 = r_minus_1();
  CHECK((same<J, Affine<F>>(p.times(rm1.v), p.negated())));
  CHECK(p.times(Scalar{{0, 0, 0, 0}}.v).is_infinity());
  CHECK(J::infinity().to_affine().is_infinity());
}

template <class F>
static void test_msm(const Affine<F>& g, bool large) {
  using J = Jacobian<F>;
  // 5000 bases: a fixed-base table's entries then exceed one sorting chunk (65536), so buckets
  // carry sums from one chunk to the next.
  for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(37), size_t(700), size_t(large ? 5000 : 0)}) {
    std::vector<Affine<F>> bases(n);
    std::vector<Scalar> scalars(n);
    J acc = J::from_affine(g);
    for (size_t i = 0; i < n; i++) {
      Scalar k = random_scalar();
      acc = acc.times(k.v);
      bases[i] = acc.to_affine();
      scalars[i] = random_scalar();
      switch (i % 9) {
        case 0: scalars[i] = scalar_u64(0); break;
        case 1: scalars[i] = scalar_u64(1); break;
        case 2: scalars[i] = r_minus_1(); break;
        case 3: bases[i] = Affine<F>::infinity(); break;
        case 4: if (i > 5) bases[i] = bases[i - 5]; break;  // repeated bases meet in buckets
        case 5: scalars[i] = scalar_u64(2); break;
        // −P with P's scalar: the two meet in every bucket and cancel (sums at infinity).
        case 6: if (i > 1 && !bases[i - 1].is_infinity()) { bases[i] = bases[i - 1].negated(); scalars[i] = scalars[i - 1]; } break;
      }
    }
    J naive = J::infinity();
    for (size_t i = 0; i < n; i++) J::add(naive, naive, J::from_affine(bases[i]).times(scalars[i].v));
    J one_thread = msm(bases.data(), scalars.data(), n, 1);
    J two_threads = msm(bases.data(), scalars.data(), n, 2);
    CHECK((same<J, Affine<F>>(naive, one_thread)));
    CHECK((same<J, Affine<F>>(naive, two_threads)));
    // Tables in both forms where the CPU has the eight-lane path (field_x8.hpp); elsewhere the
    // packed form is the plain one, built and checked once.
#ifdef ZK_HAVE_X8
    for (bool packed : {false, true}) {
#else
    for (bool packed : {false}) {
#endif
      set_x8_tables(packed);
      FixedBaseTable<F> table;
      table.build(bases.data(), n, 2);
      CHECK(table.packed == (packed && x8_tables()));
      for (int threads : {1, 2, 3}) {
        const bool ok = same<J, Affine<F>>(naive, msm_fixed(table, bases.data(), scalars.data(), n, threads));
        if (!ok) std::fprintf(stderr, "msm_fixed: n %zu, %s table, %d threads\n", n, table.packed ? "packed" : "plain", threads);
        CHECK(ok);
      }
    }
    set_x8_tables(true);
  }
}

#ifdef ZK_HAVE_X8
// The eight-lane arithmetic equals the scalar one, value by value, at the edges of its bounds too.
static void test_field_x8() {
  using namespace zk::x8;
  using E = F8<FqParams>;
  auto lanes = [](const Fq (&v)[8]) {
    Fq packed[8];
    for (int k = 0; k < 8; k++) packed[k] = to_packed(v[k]);
    return G1Rows::insert(packed);
  };
  auto values = [](const E& e) {
    Fq packed[8], out[8];
    G1Rows::extract(E::canonical<8>(e), packed);
    for (int k = 0; k < 8; k++) out[k] = from_packed(packed[k]);
    return std::vector<Fq>(out, out + 8);
  };
  u64 pm1[4] = {FqParams::P[0] - 1, FqParams::P[1], FqParams::P[2], FqParams::P[3]};
  for (int round = 0; round < 100; round++) {
    Fq a[8], b[8];
    for (int k = 0; k < 8; k++) {
      a[k] = random_field<FqParams>();
      b[k] = random_field<FqParams>();
    }
    if (round == 0)
      for (int k = 0; k < 8; k++) {
        a[k] = k % 2 ? Fq::from_canonical(pm1) : Fq::zero();
        b[k] = k % 3 ? Fq::from_canonical(pm1) : Fq::one();
      }
    const E x = lanes(a), y = lanes(b);
    // Worst cases of the bounds: sub<4> of a canonical from 4p − 1 style values, then mul.
    const E big = E::sub<4>(E::sub<4>(x, y), y);  // a − 2b + 8p, below 9p: reduce once
    E big_r = big;
    E::reduce_by(big_r, E::P4);
    std::vector<Fq> prod = values(E::mul(x, y)), sum = values(E::add(x, y)), diff = values(E::sub<1>(x, y)),
                    chain = values(E::mul(big_r, E::sub<4>(x, y))), neg = values(E::neg_where(x, 0x55));
    for (int k = 0; k < 8; k++) {
      CHECK(prod[k] == a[k] * b[k]);
      CHECK(sum[k] == a[k] + b[k]);
      CHECK(diff[k] == a[k] - b[k]);
      CHECK(chain[k] == (a[k] - b[k] - b[k]) * (a[k] - b[k]));
      CHECK(neg[k] == (k % 2 == 0 ? -a[k] : a[k]));
    }
    // Fq2 through its lanes.
    Fq c[8], d[8];
    for (int k = 0; k < 8; k++) {
      c[k] = random_field<FqParams>();
      d[k] = random_field<FqParams>();
    }
    const Fq2x8 u{x, lanes(c)}, v{y, lanes(d)};
    const Fq2x8 uv = Fq2x8::mul(u, v), uu = Fq2x8::sqr(u), w = Fq2x8::mul(Fq2x8::sub<4>(u, v), uv);
    std::vector<Fq> uv0 = values(uv.c0), uv1 = values(uv.c1), uu0 = values(uu.c0), uu1 = values(uu.c1),
                    w0 = values(w.c0), w1 = values(w.c1);
    for (int k = 0; k < 8; k++) {
      const Fq2 s{a[k], c[k]}, t{b[k], d[k]};
      const Fq2 st = s * t, ss = s * s, wt = (s - t) * st;
      CHECK(uv0[k] == st.c0 && uv1[k] == st.c1);
      CHECK(uu0[k] == ss.c0 && uu1[k] == ss.c1);
      CHECK(w0[k] == wt.c0 && w1[k] == wt.c1);
    }
  }
  // Packed inversion of eight values, and the forms' round trip.
  Fq v[8], want[8];
  for (int k = 0; k < 8; k++) {
    Fq x = random_field<FqParams>();
    want[k] = x.inverse();
    v[k] = to_packed(x);
    CHECK(from_packed(to_packed(x)) == x);
  }
  invert_packed8(v);
  for (int k = 0; k < 8; k++) CHECK(from_packed(v[k]) == want[k]);
  Fq2 v2[8], want2[8];
  for (int k = 0; k < 8; k++) {
    Fq2 x{random_field<FqParams>(), random_field<FqParams>()};
    want2[k] = x.inverse();
    v2[k] = to_packed(x);
  }
  invert_packed8(v2);
  for (int k = 0; k < 8; k++) CHECK(from_packed(v2[k]) == want2[k]);
}
#endif

// A bucket adder against Jacobian sums, bucket by bucket: crowds (many points, few buckets: pair
// sums), the same point many times (doublings), points and their negations (cancellations,
// emptied buckets, pair sums at infinity), and, with `infinities`, points at infinity. `to_row`
// stores a point as the adder reads it; `add(adder, b, row, neg)` and `read(adder, b)` (the bucket
// in zkey form) hide the adder's interface.
template <class F, class Adder, class ToRow, class Add, class Read>
static void check_bucket_adder(const Affine<F>& g, bool infinities, ToRow to_row, Add add, Read read) {
  using A = Affine<F>;
  using J = Jacobian<F>;
  for (int round = 0; round < 12; round++) {
    const size_t buckets = round % 3 == 0 ? 1 : round % 3 == 1 ? 5 : 300;
    const size_t pool = round % 4 == 0 ? 3 : round % 4 == 1 ? 12 : 4000;
    const size_t entries = round < 6 ? 700 : 6000;
    std::vector<A> plain(pool);
    // Distinct points of unknown logarithm: a random start, then a random step added each time
    // (one addition a point; a scalar multiplication each made the G2 rounds most of the
    // sanitized self-test's time).
    const J step = J::from_affine(g).times(random_scalar().v);
    J acc = J::from_affine(g).times(random_scalar().v);
    for (size_t i = 0; i < pool; i++) {
      if (i % 2 == 1 && round % 2 == 0) {
        plain[i] = plain[i - 1].negated();
      } else if (infinities && i % 97 == 5) {
        plain[i] = A::infinity();
      } else {
        J::add(acc, acc, step);
        plain[i] = acc.to_affine();
      }
    }
    AlignedBuffer<A> rows;
    A* stored = rows.reserve(pool);
    for (size_t i = 0; i < pool; i++) stored[i] = to_row(plain[i]);
    Adder adder(buckets);
    std::vector<J> want(buckets, J::infinity());
    for (size_t e = 0; e < entries; e++) {
      const uint32_t b = (uint32_t)(next_u64() % buckets);
      const size_t i = next_u64() % pool;
      const bool neg = next_u64() & 1;
      add(adder, b, &stored[i], neg);
      J::add_mixed(want[b], want[b], neg ? plain[i].negated() : plain[i]);
    }
    adder.flush();
    for (size_t b = 0; b < buckets; b++) {
      CHECK(adder.full(b) == !want[b].is_infinity());
      if (adder.full(b) && !want[b].is_infinity()) {
        const A got = read(adder, b), w = want[b].to_affine();
        CHECK(got.x == w.x && got.y == w.y);
      }
    }
  }
}

template <class F>
static void test_bucket_adder(const Affine<F>& g) {
  using A = Affine<F>;
  check_bucket_adder<F, AffineBucketAdder<F>>(
      g, true, [](const A& p) { return p; },
      [](AffineBucketAdder<F>& ad, uint32_t b, const A* row, bool neg) { ad.add(b, row, neg); },
      [](const AffineBucketAdder<F>& ad, size_t b) { return ad.bucket(b); });
#ifdef ZK_HAVE_X8
  // Table rows at infinity never reach it (msm_fixed skips bases at infinity).
  check_bucket_adder<F, x8::BucketAdder<F>>(
      g, false, [](const A& p) { return x8::point_to_packed(p); },
      [](x8::BucketAdder<F>& ad, uint32_t b, const A* row, bool neg) {
        ad.add(b, reinterpret_cast<const u64*>(row), neg);
      },
      [](const x8::BucketAdder<F>& ad, size_t b) { return ad.bucket(b); });
#endif
}

static void test_ntt() {
  for (int log : {0, 1, 4, 10}) {
    size_t n = size_t(1) << log;
    Domain d(log);
    std::vector<Fr> a(n), b;
    for (auto& x : a) x = random_field<FrParams>();
    b = a;
    ntt(b.data(), d, false, 2);
    if (log == 4) {
      Fr w = root_of_unity(log);
      for (size_t i = 0; i < n; i++) {
        Fr acc = Fr::zero(), wi = Fr::one(), wij = Fr::one();
        for (size_t k = 0; k < i; k++) wi = wi * w;
        for (size_t j = 0; j < n; j++) {
          acc = acc + a[j] * wij;
          wij = wij * wi;
        }
        CHECK(acc == b[i]);
      }
    }
    ntt(b.data(), d, true, 1);
    CHECK(a == b);
  }
  Fr w = root_of_unity(FR_TWO_ADICITY);
  for (int i = 0; i < FR_TWO_ADICITY - 1; i++) w = w.squared();
  CHECK(w == -Fr::one());
}

// The device point operations' doubling cases (P + P through add and add_mixed, P + (−P)), with the
// output aliasing an input as the MSM's sums call them, equal the CPU core's doubling.
template <class J, class A, class HJ, class HA>
static void check_hd_doubling_cases(const J& p) {
  J want, got;
  J::dbl(want, p);
  const A pa = p.to_affine();
  HJ h, r;
  HA ha;
  std::memcpy((void*)&h, &p, sizeof h);
  std::memcpy((void*)&ha, &pa, sizeof ha);
  auto equals_want = [&](const HJ& x) {
    std::memcpy((void*)&got, &x, sizeof got);
    return same<J, A>(want, got);
  };
  HJ::dbl(r, h);
  CHECK(equals_want(r));
  r = h;
  HJ::dbl(r, r);
  CHECK(equals_want(r));
  r = h;
  HJ::add(r, r, h);
  CHECK(equals_want(r));
  r = h;
  HJ::add(r, h, r);
  CHECK(equals_want(r));
  r = h;
  HJ::add(r, r, r);
  CHECK(equals_want(r));
  r = h;
  HJ::add_mixed(r, r, ha);
  CHECK(equals_want(r));
  r = h;
  HJ::add_mixed(r, r, ha, true);
  CHECK(r.is_infinity());
}

// The GPU path's arithmetic compiled for the host equals the CPU core's.
static void test_hd_arithmetic() {
  using namespace zk::hd;
  for (int i = 0; i < 300; i++) {
    Fq a = random_field<FqParams>(), b = random_field<FqParams>();
    FqHD x, y, r;
    std::memcpy(&x, &a, 32);
    std::memcpy(&y, &b, 32);
    Fq want = a * b;
    FqHD::mul(r, x, y);
    CHECK(std::memcmp(&r, &want, 32) == 0);
    want = a + b;
    FqHD::add(r, x, y);
    CHECK(std::memcmp(&r, &want, 32) == 0);
    want = a - b;
    FqHD::sub(r, x, y);
    CHECK(std::memcmp(&r, &want, 32) == 0);
    Fr c = random_field<FrParams>(), d = random_field<FrParams>();
    FrHD u, v, t;
    std::memcpy(&u, &c, 32);
    std::memcpy(&v, &d, 32);
    Fr wr = c * d;
    FrHD::mul(t, u, v);
    CHECK(std::memcmp(&t, &wr, 32) == 0);
  }
  // Edge values: p − 1 squared, zero, one.
  u64 pm1[4] = {FqParams::P[0] - 1, FqParams::P[1], FqParams::P[2], FqParams::P[3]};
  Fq m1 = Fq::from_canonical(pm1);
  FqHD h, sq;
  std::memcpy(&h, &m1, 32);
  FqHD::mul(sq, h, h);
  CHECK(sq.eq(FqHD::one()));
  FqHD::add(sq, h, FqHD::one());
  CHECK(sq.is_zero());
  // Points: doubling, mixed and full additions, negation, infinity.
  G1 p = G1::from_affine(g1_generator()).times(random_scalar().v);
  G1Affine q = G1::from_affine(g1_generator()).times(random_scalar().v).to_affine();
  G1HD ph, rh;
  std::memcpy(&ph, &p, sizeof p);
  G1AffineHD qh;
  std::memcpy(&qh, &q, sizeof q);
  G1 want;
  G1::add_mixed(want, p, q);
  G1HD::add_mixed(rh, ph, qh);
  G1 got;
  std::memcpy(&got, &rh, sizeof got);
  CHECK((same<G1, G1Affine>(want, got)));
  G1HD::add_mixed(rh, ph, qh, true);
  G1::add_mixed(want, p, q.negated());
  std::memcpy(&got, &rh, sizeof got);
  CHECK((same<G1, G1Affine>(want, got)));
  G1HD::dbl(rh, ph);
  G1::dbl(want, p);
  std::memcpy(&got, &rh, sizeof got);
  CHECK((same<G1, G1Affine>(want, got)));
  check_hd_doubling_cases<G1, G1Affine, G1HD, G1AffineHD>(p);
  check_hd_doubling_cases<G2, G2Affine, G2HD, G2AffineHD>(G2::from_affine(g2_generator()).times(random_scalar().v));
}

// The GPU pipeline on host threads: MSMs and whole batched proofs equal the CPU's.
static void test_emulated_pipeline() {
  auto emu = open_emulated(2, 0);
  for (size_t n : {size_t(1), size_t(2), size_t(37), size_t(700)}) {
    auto key = synthetic_key((uint32_t)n + 2, 1, 4, 1, n);
    std::vector<Scalar> s = synthetic_witness(*key, n + 5);
    if (n > 3) s[3] = r_minus_1();
    CHECK((same<G1, G1Affine>(msm(key->a.data(), s.data(), n, 1), emu->msm_g1(key->a.data(), nullptr, s.data(), n))));
    CHECK((same<G2, G2Affine>(msm(key->b2.data(), s.data(), n, 1), emu->msm_g2(key->b2.data(), nullptr, s.data(), n))));
  }
  {
    // NTT round trip through the pipeline's transform.
    Domain d(6);
    std::vector<Fr> a(64), b;
    for (auto& x : a) x = random_field<FrParams>();
    b = a;
    std::vector<Fr> c = a;
    ntt(c.data(), d, false, 1);
    emu->ntt(b.data(), d, false);
    CHECK(b == c);
    emu->ntt(b.data(), d, true);
    CHECK(b == a);
  }
  CHECK(accel_self_check(*emu).empty());
}

// The engine's batcher: concurrent callers share passes; a bad witness fails alone.
static void test_engine_batching() {
  EngineOptions o;
  o.backend = "emulate";
  o.threads = 1;
  o.batch_max = 4;
  o.batch_wait_us = 200000;
  Engine engine(o);
  auto key = synthetic_key(200, 2, 256, 2, 5);
  CpuCompute cpu(1);
  const int callers = 6;
  std::vector<std::vector<Scalar>> w(callers);
  std::vector<Scalar> r(callers), s(callers);
  for (int i = 0; i < callers; i++) {
    w[i] = synthetic_witness(*key, 100 + i);
    r[i] = random_scalar();
    s[i] = random_scalar();
  }
  w[2][7].v[3] = ~0ULL;  // out of range: this one must fail, alone
  std::vector<Proof> got(callers);
  std::vector<std::string> err(callers);
  std::vector<std::thread> threads;
  for (int i = 0; i < callers; i++)
    threads.emplace_back([&, i] {
      try {
        got[i] = engine.prove(*key, w[i].data(), w[i].size(), r[i], s[i]);
      } catch (const std::exception& e) {
        err[i] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < callers; i++) {
    if (i == 2) {
      CHECK(err[i].find("out of range") != std::string::npos);
      continue;
    }
    CHECK(err[i].empty());
    Proof want = finish_proof(*key, prove_core(*key, w[i].data(), cpu), r[i], s[i]);
    CHECK(std::memcmp(&want, &got[i], sizeof want) == 0);
  }
  EngineStats st = engine.stats();
  CHECK(st.proofs == 5);
  CHECK(st.batches < 5);
  CHECK(st.largest_batch >= 2 && st.largest_batch <= 4);
}

// A proof's core with the eight-lane path (tables and transforms) equals the scalar path's.
static void test_core_paths() {
  for (uint32_t domain : {8u, 16u, 64u, 1024u}) {
    auto key = synthetic_key(domain - 3, 2, domain, 3, domain);
    std::vector<Scalar> w = synthetic_witness(*key, domain);
    CoreResult got[2];
    for (int x8 = 0; x8 < 2; x8++) {
      set_x8_tables(x8 == 1);
      auto k = synthetic_key(domain - 3, 2, domain, 3, domain);
      build_tables(*k, size_t(1) << 30, 2);
      CpuCompute cpu(2);
      got[x8] = prove_core(*k, w.data(), cpu);
    }
    set_x8_tables(true);
    CHECK((same<G1, G1Affine>(got[0].a, got[1].a)));
    CHECK((same<G1, G1Affine>(got[0].b1, got[1].b1)));
    CHECK((same<G1, G1Affine>(got[0].c, got[1].c)));
    CHECK((same<G1, G1Affine>(got[0].h, got[1].h)));
    CHECK((same<G2, G2Affine>(got[0].b2, got[1].b2)));
  }
}

// gnark's compressed points (Light's key files): x big-endian with the flag in the top two bits.
template <class F>
static void compress_be(const Affine<F>& p, uint8_t* out);
template <>
void compress_be<Fq>(const G1Affine& p, uint8_t* out) {
  u64 x[4];
  p.x.to_canonical(x);
  for (int i = 0; i < 32; i++) out[i] = (uint8_t)(x[3 - i / 8] >> (56 - 8 * (i % 8)));
  out[0] |= decompress_detail::above_half(p.y) ? 0xc0 : 0x80;
}
template <>
void compress_be<Fq2>(const G2Affine& p, uint8_t* out) {
  u64 x1[4], x0[4];
  p.x.c1.to_canonical(x1);
  p.x.c0.to_canonical(x0);
  for (int i = 0; i < 32; i++) {
    out[i] = (uint8_t)(x1[3 - i / 8] >> (56 - 8 * (i % 8)));
    out[32 + i] = (uint8_t)(x0[3 - i / 8] >> (56 - 8 * (i % 8)));
  }
  const bool larger = p.y.c1.is_zero() ? decompress_detail::above_half(p.y.c0) : decompress_detail::above_half(p.y.c1);
  out[0] |= larger ? 0xc0 : 0x80;
}

template <class F>
static void test_decompress(const Affine<F>& g) {
  constexpr size_t size = sizeof(F) == sizeof(Fq) ? 32 : 64;
  const size_t n = 64;
  std::vector<Affine<F>> pts(n);
  std::vector<uint8_t> bytes(n * size, 0);
  for (size_t i = 0; i < n; i++) {
    pts[i] = i == 0 ? g : Jacobian<F>::from_affine(g).times(random_scalar().v).to_affine();
    if (i == 1) {
      pts[i] = Affine<F>::infinity();
      bytes[i * size] = 0x40;
    } else {
      compress_be<F>(pts[i], bytes.data() + i * size);
    }
  }
  std::vector<Affine<F>> back(n);
  decompress_points(back.data(), bytes.data(), n, 2);
  for (size_t i = 0; i < n; i++) CHECK(back[i].x == pts[i].x && back[i].y == pts[i].y);
  // Not compressed (flag 00): refused, naming the point.
  std::vector<uint8_t> b(bytes);
  b[5 * size] &= 0x3f;
  bool threw = false;
  try {
    decompress_points(back.data(), b.data(), n, 2);
  } catch (const std::runtime_error& e) {
    threw = std::string(e.what()) == "point 5: not a compressed point";
  }
  CHECK(threw);
  // An x with no point on the curve (x³ + b not a square): some small x is one.
  if (size == 32) {
    bool refused = false;
    for (uint8_t x = 1; x < 40 && !refused; x++) {
      uint8_t one[32] = {0x80};
      one[31] = x;
      G1Affine out;
      const char* why = decompress_detail::decompress_g1(out, one);
      refused = why != nullptr && std::string(why) == "not on the curve";
    }
    CHECK(refused);
  }
}

// The solver on a small gnark-style system: wires [1, x | y | z, b0, b1]; z = x·y; NBits(y, 2)
// gives b0, b1; b0·(1 − b0) = 0; (b0 + 2·b1)·1 = y.
static std::vector<uint8_t> small_r1cs_section() {
  std::vector<uint8_t> out;
  auto u32 = [&](uint32_t v) {
    for (int i = 0; i < 4; i++) out.push_back((uint8_t)(v >> (8 * i)));
  };
  u32(1);  // version
  u32(3);  // constraints
  u32(6);  // wires
  u32(2);  // public, with the constant wire
  u32(1);  // secret
  const u64 coeffs[4][4] = {{0, 0, 0, 0}, {1, 0, 0, 0}, {2, 0, 0, 0},
                            {FrParams::P[0] - 1, FrParams::P[1], FrParams::P[2], FrParams::P[3]}};
  u32(4);
  for (const auto& c : coeffs)
    for (u64 limb : c)
      for (int i = 0; i < 8; i++) out.push_back((uint8_t)(limb >> (8 * i)));
  // (coefficient, wire) per term; rows L, R, O of each constraint.
  const std::vector<std::vector<std::pair<uint32_t, uint32_t>>> rows = {
      {{1, 1}}, {{1, 2}}, {{1, 3}},                  // x · y = z
      {{1, 4}}, {{1, 0}, {3, 4}}, {{0, 0}},          // b0 · (1 − b0) = 0
      {{1, 4}, {2, 5}}, {{1, 0}}, {{1, 2}},          // (b0 + 2·b1) · 1 = y
  };
  uint32_t terms = 0;
  for (const auto& r : rows) terms += (uint32_t)r.size();
  u32(terms);
  uint32_t at = 0;
  u32(0);
  for (const auto& r : rows) u32(at += (uint32_t)r.size());
  for (const auto& r : rows)
    for (auto [c, w] : r) {
      u32(c);
      u32(w);
    }
  u32(1);  // hints: NBits of y into b0, b1
  u32(HINT_NBITS);
  u32(1);
  u32(0);
  u32(1);
  u32(1);
  u32(1);
  u32(2);
  u32(2);
  u32(4);
  u32(5);
  return out;
}

static void test_r1cs_solver() {
  const std::vector<uint8_t> section = small_r1cs_section();
  auto cs = parse_r1cs_section(section.data(), section.size(), 6);
  Scalar in[2] = {scalar_u64(3), scalar_u64(2)};
  R1csSolution sol = solve_r1cs(*cs, in, 2);
  const u64 want[6] = {1, 3, 2, 6, 0, 1};
  for (int i = 0; i < 6; i++) CHECK(sol.witness[i].v[0] == want[i] && !sol.witness[i].v[1]);
  CHECK(sol.a.size() == 3 && sol.a[0].v[0] == 3 && sol.b[0].v[0] == 2 && sol.a[2].v[0] == 2);
  // y = 5 does not fit two bits: the last constraint fails, by its index.
  Scalar bad[2] = {scalar_u64(3), scalar_u64(5)};
  uint32_t failed = 99;
  try {
    solve_r1cs(*cs, bad, 2);
  } catch (const UnsatisfiedConstraint& e) {
    failed = e.index;
  }
  CHECK(failed == 2);
  // Every truncation of the section is refused (and read within its bounds).
  for (size_t cut = 0; cut < section.size(); cut++) {
    bool threw = false;
    try {
      parse_r1cs_section(section.data(), cut, 6);
    } catch (const std::runtime_error&) {
      threw = true;
    }
    CHECK(threw);
  }
  bool wrong_wires = false;
  try {
    parse_r1cs_section(section.data(), section.size(), 7);
  } catch (const std::runtime_error&) {
    wrong_wires = true;
  }
  CHECK(wrong_wires);
}

// Rerandomized blinding: the unblinded proof (snarkjs' blinding with r = s = 0) moved by u and v,
// with or without the B1 MSM in the core; u = 0 refused; the engine's CPU path the same.
static void test_rerandomized() {
  auto key = synthetic_key(200, 2, 256, 2, 5);
  build_tables(*key, size_t(1) << 30, 2);
  CpuCompute cpu(2);
  const std::vector<Scalar> w = synthetic_witness(*key, 77);
  const CoreResult full = prove_core(*key, w.data(), cpu);
  const CoreResult lean = prove_core(*key, w.data(), cpu, nullptr, false);
  CHECK(lean.b1.is_infinity());
  CHECK((same<G1, G1Affine>(full.a, lean.a)) && (same<G1, G1Affine>(full.c, lean.c)));
  CHECK((same<G1, G1Affine>(full.h, lean.h)) && (same<G2, G2Affine>(full.b2, lean.b2)));
  const Scalar zero = scalar_u64(0), u = random_scalar(), v = random_scalar();
  const Proof p0 = finish_proof(*key, full, zero, zero);
  const std::optional<Proof> p = finish_rerandomized(*key, lean, u, v);
  CHECK(p.has_value());
  Scalar u_inv;
  Fr::from_canonical(u.v).inverse().to_canonical(u_inv.v);
  const G1 a0 = G1::from_affine(p0.a);
  G2 b = G2::from_affine(p0.b);
  G2::add(b, b, G2::from_affine(key->delta2).times(v.v));
  G1 c = G1::from_affine(p0.c);
  G1::add(c, c, a0.times(v.v));
  CHECK((same<G1, G1Affine>(a0.times(u_inv.v), G1::from_affine(p->a))));
  CHECK((same<G2, G2Affine>(b.times(u.v), G2::from_affine(p->b))));
  CHECK((same<G1, G1Affine>(c, G1::from_affine(p->c))));
  const Proof via_prove = prove(*key, w.data(), w.size(), u, v, cpu, nullptr, Blinding::rerandomized);
  CHECK(std::memcmp(&via_prove, &*p, sizeof via_prove) == 0);
  CHECK(!finish_rerandomized(*key, lean, zero, v).has_value());
  bool refused = false;
  try {
    prove(*key, w.data(), w.size(), zero, v, cpu, nullptr, Blinding::rerandomized);
  } catch (const std::runtime_error& e) {
    refused = std::string(e.what()).find("u ≠ 0") != std::string::npos;
  }
  CHECK(refused);
  EngineOptions o;
  o.threads = 2;
  Engine engine(o);
  const Proof via_engine = engine.prove(*key, w.data(), w.size(), u, v, Blinding::rerandomized);
  CHECK(std::memcmp(&via_engine, &*p, sizeof via_engine) == 0);
}

static std::vector<uint8_t> read_file(const char* path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

int main(int argc, char** argv) {
  test_fields();
#ifdef ZK_HAVE_X8
  test_field_x8();
  std::printf("eight-lane arithmetic (AVX-512 IFMA) tested\n");
#else
  std::printf("no eight-lane arithmetic on this CPU (AVX-512 IFMA): the scalar path only\n");
#endif
  test_group(g1_generator(), g1_b());
  test_group(g2_generator(), g2_b());
  test_bucket_adder(g1_generator());
  test_bucket_adder(g2_generator());
  test_msm(g1_generator(), true);
  test_msm(g2_generator(), false);
  test_ntt();
  test_hd_arithmetic();
  test_emulated_pipeline();
  test_engine_batching();
  test_core_paths();
  test_rerandomized();
  test_decompress(g1_generator());
  test_decompress(g2_generator());
  test_r1cs_solver();
  if (argc == 3) {
    std::vector<uint8_t> zkey = read_file(argv[1]), wit = read_file(argv[2]);
    std::vector<Scalar> w(wit.size() / 32);
    std::memcpy(w.data(), wit.data(), w.size() * 32);
    CpuCompute cpu(2);
    {
      // A key dropped while its tables are still being built: the builder stops and is joined.
      auto dropped = parse_zkey(zkey.data(), zkey.size());
      build_tables_in_background(*dropped, size_t(1) << 30, 2);
    }
    auto key = parse_zkey(zkey.data(), zkey.size());
    build_tables_in_background(*key, size_t(1) << 30, 2);
    // One proof while the tables are being built (without them), one after (with them).
    Proof before = prove(*key, w.data(), w.size(), random_scalar(), random_scalar(), cpu);
    CHECK(key->wait_tables());
    Proof after = prove(*key, w.data(), w.size(), random_scalar(), random_scalar(), cpu);
    Proof rerandomized = prove(*key, w.data(), w.size(), random_scalar(), random_scalar(), cpu, nullptr,
                               Blinding::rerandomized);
    for (const Proof* p : {&before, &after, &rerandomized}) {
      const Fq* coords[8] = {&p->a.x, &p->a.y, &p->b.x.c0, &p->b.x.c1, &p->b.y.c0, &p->b.y.c1, &p->c.x, &p->c.y};
      std::printf("proof ");
      for (const Fq* c : coords) {
        u64 x[4];
        c->to_canonical(x);
        for (int i = 3; i >= 0; i--) std::printf("%016llx", (unsigned long long)x[i]);
        std::printf(" ");
      }
      std::printf("\n");
    }
  }
  if (failures) {
    std::fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  std::printf("selftest ok\n");
  return 0;
}
