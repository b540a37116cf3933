// The native prover core's self-test, built without Node and run under AddressSanitizer + UBSan
// (`node native/build.mjs --sanitize`): field, curve, MSM and NTT properties and edge cases, then,
// when given a zkey and a witness file, one proof written as hex for the caller to verify.
//   selftest-sanitized [zkey witness.bin]
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

#include "../src/groth16.hpp"

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
}

static G1Affine g1_generator() { return {Fq::from_u64(1), Fq::from_u64(2)}; }
static G2Affine g2_generator() {
  auto f = [](const char* hex) {
    u64 x[4] = {0, 0, 0, 0};
    for (int i = 0; i < 64; i++) {
      char ch = hex[i];
      u64 d = ch <= '9' ? ch - '0' : ch - 'a' + 10;
      int bit = (63 - i) * 4;
      x[bit / 64] |= d << (bit % 64);
    }
    return Fq::from_canonical(x);
  };
  return {{f("1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed"),
           f("198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2")},
          {f("12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa"),
           f("090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b")}};
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
static void test_msm(const Affine<F>& g) {
  using J = Jacobian<F>;
  for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(37), size_t(700)}) {
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
      }
    }
    J naive = J::infinity();
    for (size_t i = 0; i < n; i++) J::add(naive, naive, J::from_affine(bases[i]).times(scalars[i].v));
    J one_thread = msm(bases.data(), scalars.data(), n, 1);
    J two_threads = msm(bases.data(), scalars.data(), n, 2);
    CHECK((same<J, Affine<F>>(naive, one_thread)));
    CHECK((same<J, Affine<F>>(naive, two_threads)));
    FixedBaseTable<F> table;
    table.build(bases.data(), n, 2);
    CHECK((same<J, Affine<F>>(naive, msm_fixed(table, scalars.data(), n, 1))));
    CHECK((same<J, Affine<F>>(naive, msm_fixed(table, scalars.data(), n, 2))));
    CHECK((same<J, Affine<F>>(naive, msm_fixed(table, scalars.data(), n, 3))));
  }
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

static std::vector<uint8_t> read_file(const char* path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

int main(int argc, char** argv) {
  test_fields();
  test_group(g1_generator(), g1_b());
  test_group(g2_generator(), g2_b());
  test_msm(g1_generator());
  test_msm(g2_generator());
  test_ntt();
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
    for (const Proof* p : {&before, &after}) {
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
