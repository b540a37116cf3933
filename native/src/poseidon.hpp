// Poseidon over the BN254 scalar field with circomlib's parameters (x^5 S-box, 8 full rounds, the
// partial rounds of each width), as the circuits and Light's programs hash. The constants are data
// handed in once from circomlibjs, per width t = 2..17, in the "optimized" form of the Poseidon
// paper (appendix B): round constants C folded forward, the partial rounds' sparse matrices S (one
// row and one column each: 2t - 1 products instead of t²), the MDS matrix M and the pre-partial
// matrix P. Order of a hash: add C; 3 full rounds (S-box, add C, multiply by M); a full round with
// P; the partial rounds (S-box and C on state[0], then the sparse mix); 3 full rounds; a last S-box
// and M. Out: state[0].
#pragma once
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "field.hpp"
#include "simd.hpp"

namespace zk {

struct PoseidonWidth {
  int t = 0;
  int full = 0;
  int partial = 0;
  std::vector<Fr> c;  // t × full + partial
  std::vector<Fr> s;  // (2t - 1) × partial
  std::vector<Fr> m;  // t × t, row-major as given (used transposed: out[i] = Σ_j m[j][i] · in[j])
  std::vector<Fr> p;  // t × t, likewise
};

/** One arithmetic a hash runs on: its elements E, its constants' stored form K. */
struct ScalarArith {
  using E = Fr;
  using K = Fr;
  static ZK_INLINE E k(const K& c) { return c; }
  static ZK_INLINE E add(const E& a, const E& b) { return a + b; }
  static ZK_INLINE E mul(const E& a, const E& b) { return a * b; }
};

#ifdef ZK_HAVE_X8
/**
 * Eight hashes at once, one per lane. Every element is kept below 2p: mul returns below 2p, and a
 * sum of two (below 4p) is brought back by a conditional 2p, so no bound is ever in question.
 */
struct LaneArith {
  using E = x8::F8<FrParams>;
  using K = x8::Limbs;
  static ZK_INLINE E k(const K& c) { return E::broadcast(c); }
  static ZK_INLINE E add(const E& a, const E& b) {
    E r = E::add(a, b);
    E::reduce_by(r, E::P2);
    return r;
  }
  static ZK_INLINE E mul(const E& a, const E& b) { return E::mul(a, b); }
};
#endif

/** A width's constants in one arithmetic's form. */
template <class K>
struct PoseidonConsts {
  int t = 0, full = 0, partial = 0;
  std::vector<K> c, s, m, p;
};

/**
 * The permutation, written once for both arithmetics: s holds t elements (s[0] the capacity),
 * and s[0] is the hash after it.
 */
template <class A>
void poseidon_permute(typename A::E* s, const PoseidonConsts<typename A::K>& w) {
  using E = typename A::E;
  const int t = w.t;
  const auto* c = w.c.data();
  for (int i = 0; i < t; i++) s[i] = A::add(s[i], A::k(c[i]));
  auto pow5 = [](const E& x) {
    E x2 = A::mul(x, x);
    return A::mul(x, A::mul(x2, x2));
  };
  // S-box on every cell, add the round constants (none in the last round), mix with m.
  auto full_round = [&](const typename A::K* rc, const typename A::K* m) {
    for (int i = 0; i < t; i++) s[i] = pow5(s[i]);
    if (rc)
      for (int i = 0; i < t; i++) s[i] = A::add(s[i], A::k(rc[i]));
    E out[17];
    for (int i = 0; i < t; i++) {
      E acc = A::mul(A::k(m[i]), s[0]);
      for (int j = 1; j < t; j++) acc = A::add(acc, A::mul(A::k(m[j * t + i]), s[j]));
      out[i] = acc;
    }
    for (int i = 0; i < t; i++) s[i] = out[i];
  };
  const int half = w.full / 2;
  for (int r = 0; r < half - 1; r++) full_round(c + (r + 1) * t, w.m.data());
  full_round(c + half * t, w.p.data());
  const auto* cp = c + (half + 1) * t;
  const auto* sp = w.s.data();
  for (int r = 0; r < w.partial; r++) {
    const auto* row = sp + (2 * t - 1) * r;
    s[0] = A::add(pow5(s[0]), A::k(cp[r]));
    E s0 = A::mul(A::k(row[0]), s[0]);
    for (int j = 1; j < t; j++) s0 = A::add(s0, A::mul(A::k(row[j]), s[j]));
    for (int q = 1; q < t; q++) s[q] = A::add(s[q], A::mul(s[0], A::k(row[t + q - 1])));
    s[0] = s0;
  }
  const auto* cf = c + (half + 1) * t + w.partial;
  for (int r = 0; r < half - 1; r++) full_round(cf + r * t, w.m.data());
  full_round(nullptr, w.m.data());
}

/** A 32-byte value as four little-endian limbs, from little- or big-endian bytes, and back. */
inline void poseidon_load(const uint8_t* p, bool big_endian, u64 x[4]) {
  std::memcpy(x, p, 32);
  if (big_endian)
    for (int i = 0; i < 2; i++) {
      const u64 lo = __builtin_bswap64(x[i]), hi = __builtin_bswap64(x[3 - i]);
      x[i] = hi;
      x[3 - i] = lo;
    }
}
inline void poseidon_store(u64 x[4], bool big_endian, uint8_t* p) {
  poseidon_load(reinterpret_cast<const uint8_t*>(x), big_endian, x);
  std::memcpy(p, x, 32);
}

class Poseidon {
 public:
  static constexpr int MAX_T = 17;

  void set(PoseidonWidth w) {
    std::lock_guard<std::mutex> lock(mutex_);
    const int t = w.t;
    if (t < 2 || t > MAX_T || w.full != 8) throw std::runtime_error("poseidon width or rounds out of range");
    if ((int)w.c.size() != t * w.full + w.partial || (int)w.s.size() != (2 * t - 1) * w.partial ||
        (int)w.m.size() != t * t || (int)w.p.size() != t * t)
      throw std::runtime_error("poseidon constants have the wrong size");
    scalar_[t] = {t, w.full, w.partial, std::move(w.c), std::move(w.s), std::move(w.m), std::move(w.p)};
#ifdef ZK_HAVE_X8
    // The lanes' Montgomery form is x·2^260: the scalar form (x·2^256) doubled four times.
    auto lanes = [](const std::vector<Fr>& v) {
      std::vector<x8::Limbs> out;
      out.reserve(v.size());
      for (Fr x : v) {
        for (int i = 0; i < 4; i++) x = x + x;
        out.push_back(x8::limbs52(x.v));
      }
      return out;
    };
    const auto& sc = scalar_[t];
    lanes_[t] = {t, sc.full, sc.partial, lanes(sc.c), lanes(sc.s), lanes(sc.m), lanes(sc.p)};
#endif
  }

  bool ready(int t) const { return t >= 2 && t <= MAX_T && scalar_[t].t == t; }

  /** Hash of n = t - 1 inputs (Montgomery form). */
  Fr hash(const Fr* in, int n) const {
    const int t = n + 1;
    if (!ready(t)) throw std::runtime_error("poseidon constants for this width are not set");
    Fr s[MAX_T];
    s[0] = Fr::zero();
    for (int i = 0; i < n; i++) s[i + 1] = in[i];
    poseidon_permute<ScalarArith>(s, scalar_[t]);
    return s[0];
  }

  /**
   * Hashes of k consecutive groups of `arity` canonical 32-byte inputs (checked below r), little-
   * or big-endian, into k outputs in the same byte order: eight groups at a time in the lanes of
   * AVX-512 IFMA where the build has it (x8_tables()), the rest one by one.
   */
  void hash_bytes(const uint8_t* in, int arity, size_t k, uint8_t* out, bool big_endian) const {
    const int t = arity + 1;
    if (!ready(t)) throw std::runtime_error("poseidon constants for this width are not set");
    std::vector<u64> x(4 * k * arity);
    for (size_t i = 0; i < k * arity; i++) {
      poseidon_load(in + 32 * i, big_endian, &x[4 * i]);
      if (!Fr::is_canonical(&x[4 * i])) throw std::runtime_error("field element out of range");
    }
    size_t g = 0;
#ifdef ZK_HAVE_X8
    if (x8_tables())
      for (; g + 8 <= k; g += 8) hash8(&x[4 * arity * g], arity, out + 32 * g, big_endian);
#endif
    for (; g < k; g++) {
      Fr e[MAX_T];
      for (int i = 0; i < arity; i++) e[i] = Fr::from_canonical(&x[4 * (arity * g + i)]);
      u64 h[4];
      hash(e, arity).to_canonical(h);
      poseidon_store(h, big_endian, out + 32 * g);
    }
  }

 private:
#ifdef ZK_HAVE_X8
  using F8 = x8::F8<FrParams>;

  /** Eight groups (canonical limbs), lane j the j-th: into the lanes' Montgomery form, and back out. */
  void hash8(const u64* in, int arity, uint8_t* out, bool big_endian) const {
    static const x8::Limbs R2 = [] {
      // 2^520 mod r: multiplying by it takes x to x·2^260, the lanes' Montgomery form.
      Fr x{{FrParams::R2[0], FrParams::R2[1], FrParams::R2[2], FrParams::R2[3]}};
      for (int i = 0; i < 8; i++) x = x + x;
      return x8::limbs52(x.v);
    }();
    static const x8::Limbs ONE = {1, 0, 0, 0, 0};
    F8 s[MAX_T];
    s[0] = F8::zero();
    for (int i = 0; i < arity; i++) {
      alignas(64) u64 l[5][8];
      for (int j = 0; j < 8; j++) {
        u64 v[4];
        std::memcpy(v, in + 4 * (arity * j + i), 32);
        const x8::Limbs x = x8::limbs52(v);
        for (int q = 0; q < 5; q++) l[q][j] = x[q];
      }
      F8 x;
      for (int q = 0; q < 5; q++) x.l[q] = _mm512_load_si512(l[q]);
      s[i + 1] = F8::mul(x, F8::broadcast(R2));
    }
    poseidon_permute<LaneArith>(s, lanes_[arity + 1]);
    const F8 h = F8::canonical<2>(F8::mul(s[0], F8::broadcast(ONE)));
    x8::V w[4];
    x8::pack(h, w[0], w[1], w[2], w[3]);
    alignas(64) u64 l[4][8];
    for (int q = 0; q < 4; q++) _mm512_store_si512(l[q], w[q]);
    for (int j = 0; j < 8; j++) {
      u64 v[4] = {l[0][j], l[1][j], l[2][j], l[3][j]};
      poseidon_store(v, big_endian, out + 32 * j);
    }
  }
  PoseidonConsts<x8::Limbs> lanes_[MAX_T + 1];
#endif

  std::mutex mutex_;
  PoseidonConsts<Fr> scalar_[MAX_T + 1];
};

inline Poseidon& poseidon() {
  static Poseidon p;
  return p;
}

}  // namespace zk
