// The H scalars' transforms, eight field elements at a time (field_x8.hpp over Fr): the three
// polynomials A, B, C are each interpolated (an inverse transform, decimation in frequency:
// natural order in, bit-reversed out), moved to the coset (times g^k / n, in bit-reversed
// order), and evaluated there (a forward transform, decimation in time: bit-reversed in, natural
// out), so no bit reversal is ever done. Values stay in the eight-lane form between the steps and
// below 2r throughout; the stages of half-size 1, 2 and 4 pair lanes of one register.
#pragma once
#include "field_x8.hpp"

#ifdef ZK_HAVE_X8
#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "msm.hpp"
#include "ntt.hpp"
#include "parallel.hpp"
#include "scratch.hpp"

namespace zk::x8 {

using FrE = F8<FrParams>;

/** x·2^256 (an Fr's Montgomery form) → x·2^260 (the eight-lane form): times 16 mod r. */
inline Fr fr_to_lanes_form(const Fr& v) {
  Fr t = v;
  for (int i = 0; i < 4; i++) Fr::add(t, t, t);
  return t;
}

/** Eight Fr values (each in the eight-lane form, canonical) as one register set. */
inline FrE fr_lanes(const Fr (&v)[8]) {
  alignas(64) u64 w[4][8];
  for (int k = 0; k < 8; k++)
    for (int i = 0; i < 4; i++) w[i][k] = v[k].v[i];
  return unpack<FrE>(_mm512_load_si512(w[0]), _mm512_load_si512(w[1]), _mm512_load_si512(w[2]),
                     _mm512_load_si512(w[3]));
}

/**
 * One domain's constants in the eight-lane form: per stage of half-size h ≥ 8 the twiddles of
 * positions j..j+7 as one vector (stage h at index h/8 − 1 + j/8), per lane the twiddles of the
 * stages h = 1, 2, 4, and the coset factors g^k / n in bit-reversed order. Shared by the keys of
 * one domain size.
 */
struct DomainX8 {
  int log_n = 0;
  size_t n = 0;
  AlignedBuffer<FrE> fwd, inv, coset;  // n/8 − 1, n/8 − 1, n/8 vectors
  FrE small_fwd[3], small_inv[3];      // h = 1, 2, 4: lane l's twiddle ω_{2h}^(l mod h)
  size_t bytes = 0;

  DomainX8(const Domain& d, const std::vector<Fr>& coset_powers) : log_n(d.log_n), n(d.n) {
    const size_t blocks = n / 8;
    fwd.reserve(blocks > 1 ? blocks - 1 : 1);
    inv.reserve(blocks > 1 ? blocks - 1 : 1);
    coset.reserve(blocks);
    bytes = (3 * blocks) * sizeof(FrE);
    for (size_t h = 8; h < n; h <<= 1)
      for (size_t j = 0; j < h; j += 8) {
        Fr f[8], iv[8];
        for (int l = 0; l < 8; l++) {
          f[l] = fr_to_lanes_form(d.fwd[h - 1 + j + l]);
          iv[l] = fr_to_lanes_form(d.inv[h - 1 + j + l]);
        }
        fwd.data()[h / 8 - 1 + j / 8] = fr_lanes(f);
        inv.data()[h / 8 - 1 + j / 8] = fr_lanes(iv);
      }
    for (int s = 0; s < 3; s++) {
      const size_t h = size_t(1) << s;
      Fr f[8], iv[8];
      for (int l = 0; l < 8; l++) {
        const size_t j = (size_t)l % h;
        f[l] = fr_to_lanes_form(h < n ? d.fwd[h - 1 + j] : Fr::one());
        iv[l] = fr_to_lanes_form(h < n ? d.inv[h - 1 + j] : Fr::one());
      }
      small_fwd[s] = fr_lanes(f);
      small_inv[s] = fr_lanes(iv);
    }
    for (size_t b = 0; b < blocks; b++) {
      Fr c[8];
      for (int l = 0; l < 8; l++) c[l] = fr_to_lanes_form(coset_powers[bit_reversed(8 * b + (size_t)l)]);
      coset.data()[b] = fr_lanes(c);
    }
  }

  size_t bit_reversed(size_t i) const {
    size_t r = 0;
    for (int k = 0; k < log_n; k++) r |= ((i >> k) & 1) << (log_n - 1 - k);
    return r;
  }
};

/** x reduced once: below 2r when it was below 4r. */
ZK_INLINE FrE below_2r(FrE x) {
  FrE::reduce_by(x, FrE::P2);
  return x;
}

/** One stage of half-size h ≥ 8 over n/8 blocks: decimation in frequency (inverse) or in time. */
template <bool DIF>
inline void stage_wide(FrE* x, size_t blocks, size_t h, const FrE* tw) {
  const size_t hb = h / 8;  // the partner block's distance
  for (size_t s = 0; s < blocks; s += 2 * hb)
    for (size_t j = 0; j < hb; j++) {
      FrE& u = x[s + j];
      FrE& v = x[s + j + hb];
      const FrE& w = tw[hb - 1 + j];
      if (DIF) {
        const FrE sum = below_2r(FrE::add(u, v));
        v = FrE::mul(FrE::sub<2>(u, v), w);
        u = sum;
      } else {
        const FrE t = FrE::mul(v, w);
        const FrE a = u;
        u = below_2r(FrE::add(a, t));
        v = below_2r(FrE::sub<2>(a, t));
      }
    }
}

/** The stages of half-size 1, 2, 4 within each block: lane l pairs with lane l xor h. */
template <bool DIF>
inline void stage_lanes(FrE* x, size_t blocks, int s, const FrE& w) {
  const size_t h = size_t(1) << s;
  const V swap = _mm512_set_epi64((long long)(7 ^ h), (long long)(6 ^ h), (long long)(5 ^ h), (long long)(4 ^ h),
                                  (long long)(3 ^ h), (long long)(2 ^ h), (long long)(1 ^ h), (long long)(0 ^ h));
  // Lanes whose bit h is set hold a pair's second element.
  const __mmask8 second = (__mmask8)(h == 1 ? 0xaa : h == 2 ? 0xcc : 0xf0);
  for (size_t b = 0; b < blocks; b++) {
    FrE& v = x[b];
    FrE other;
    for (int i = 0; i < 5; i++) other.l[i] = _mm512_permutexvar_epi64(swap, v.l[i]);
    // In every lane: a = the pair's first element, c = its second.
    const FrE a = FrE::blend(v, other, second), c = FrE::blend(other, v, second);
    if (DIF) {
      const FrE sum = below_2r(FrE::add(a, c));
      const FrE diff = FrE::mul(FrE::sub<2>(a, c), w);
      v = FrE::blend(sum, diff, second);
    } else {
      const FrE t = FrE::mul(c, w);
      v = FrE::blend(below_2r(FrE::add(a, t)), below_2r(FrE::sub<2>(a, t)), second);
    }
  }
}

/** Interpolation without the 1/n (natural order in, bit-reversed out). */
inline void inverse_dif(FrE* x, const DomainX8& d) {
  const size_t blocks = d.n / 8;
  for (size_t h = d.n / 2; h >= 8; h >>= 1) stage_wide<true>(x, blocks, h, d.inv.data());
  for (int s = 2; s >= 0; s--)
    if ((size_t(1) << s) < d.n) stage_lanes<true>(x, blocks, s, d.small_inv[s]);
}

/** Evaluation (bit-reversed order in, natural out). */
inline void forward_dit(FrE* x, const DomainX8& d) {
  const size_t blocks = d.n / 8;
  for (int s = 0; s < 3; s++)
    if ((size_t(1) << s) < d.n) stage_lanes<false>(x, blocks, s, d.small_fwd[s]);
  for (size_t h = 8; h < d.n; h <<= 1) stage_wide<false>(x, blocks, h, d.fwd.data());
}

/** An integer below r in every lane (its limbs as they are: no change of form). */
inline FrE fr_integer_lanes(const Fr& raw) {
  Fr v[8];
  for (auto& x : v) x = raw;
  return fr_lanes(v);
}

/** Fr values (Montgomery form, canonical) → blocks in the eight-lane form. */
inline void load_blocks(const Fr* in, FrE* out, size_t blocks) {
  // A Montgomery product (÷ 2^260) with the integer 2^264 mod r turns x·2^256 into x·2^260.
  static const FrE to_form = [] {
    Fr k = Fr::one();  // the integer 2^256 mod r
    for (int i = 0; i < 8; i++) Fr::add(k, k, k);
    return fr_integer_lanes(k);
  }();
  for (size_t b = 0; b < blocks; b++) {
    V r[8];
    for (int k = 0; k < 8; k++)
      r[k] = _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in[8 * b + k].v)));
    transpose8(r);
    out[b] = FrE::mul(unpack<FrE>(r[0], r[1], r[2], r[3]), to_form);
  }
}

/**
 * The H scalars (canonical) from A·w and B·w on the domain (Montgomery form, d.n each): C = A·B
 * there, each of A, B, C to the coset, then A·B − C.
 */
inline void h_scalars_x8(const DomainX8& d, const Fr* a_evals, const Fr* b_evals, Scalar* h, int threads) {
  const size_t blocks = d.n / 8;
  Scratch<FrE> buf;
  FrE* arrays = buf.reserve(3 * blocks);
  FrE *A = arrays, *B = arrays + blocks, *C = arrays + 2 * blocks;
  const size_t parts = (size_t)std::max(1, threads);
  parallel_for(parts, threads, [&](size_t p) {
    const size_t lo = blocks * p / parts, hi = blocks * (p + 1) / parts;
    load_blocks(a_evals + 8 * lo, A + lo, hi - lo);
    load_blocks(b_evals + 8 * lo, B + lo, hi - lo);
    for (size_t i = lo; i < hi; i++) C[i] = FrE::mul(A[i], B[i]);
  });
  parallel_for(3, threads, [&](size_t which) {
    FrE* x = arrays + which * blocks;
    inverse_dif(x, d);
    for (size_t i = 0; i < blocks; i++) x[i] = FrE::mul(x[i], d.coset.data()[i]);
    forward_dit(x, d);
  });
  const FrE one = fr_integer_lanes(Fr{{1, 0, 0, 0}});  // ÷ 2^260: back to plain integers
  parallel_for(parts, threads, [&](size_t p) {
    for (size_t i = blocks * p / parts; i < blocks * (p + 1) / parts; i++) {
      const FrE v = FrE::canonical<2>(FrE::mul(FrE::sub<2>(FrE::mul(A[i], B[i]), C[i]), one));
      V r[8];
      pack(v, r[0], r[1], r[2], r[3]);
      r[4] = r[5] = r[6] = r[7] = _mm512_setzero_si512();
      transpose8(r);
      for (int k = 0; k < 8; k++)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(h[8 * i + k].v), _mm512_castsi512_si256(r[k]));
    }
  });
}

/** The process-wide eight-lane constants of a key's domain (shared by keys of the same size). */
inline std::shared_ptr<const DomainX8> domain_x8(const Domain& d, const std::vector<Fr>& coset_powers) {
  static std::mutex mutex;
  static std::vector<std::weak_ptr<const DomainX8>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  for (auto& w : cache)
    if (auto s = w.lock())
      if (s->log_n == d.log_n) return s;
  auto made = std::make_shared<const DomainX8>(d, coset_powers);
  cache.erase(std::remove_if(cache.begin(), cache.end(), [](const auto& w) { return w.expired(); }), cache.end());
  cache.push_back(made);
  return made;
}

}  // namespace zk::x8
#endif
