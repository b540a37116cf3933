// Points in gnark-crypto's compressed encoding (the proving keys of Light's prover): x big-endian
// (G2: x.c1 then x.c0), the top two bits of the first byte a flag — 10 the smaller y, 11 the larger
// (lexicographically: above (p−1)/2; G2 by y.c1, or y.c0 where y.c1 = 0), 01 the point at infinity.
// Decompressing takes a square root per point (G2: one in Fq2, from two in Fq), so a key's tens of
// thousands of points are done here, on threads, once at import.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "curve.hpp"
#include "parallel.hpp"

namespace zk {

namespace decompress_detail {

/** (p + 1) / 4: p ≡ 3 (mod 4), so a^((p+1)/4) is a square root of a square a. */
constexpr u64 SQRT_EXP[4] = {0x4f082305b61f3f52ULL, 0x65e05aa45a1c72a3ULL, 0x6e14116da0605617ULL,
                             0x0c19139cb84c680aULL};
/** (p − 1) / 2: the larger of y and −y is the one above it. */
constexpr u64 HALF[4] = {0x9e10460b6c3e7ea3ULL, 0xcbc0b548b438e546ULL, 0xdc2822db40c0ac2eULL,
                         0x183227397098d014ULL};

inline bool above_half(const Fq& y) {
  u64 c[4];
  y.to_canonical(c);
  for (int i = 3; i >= 0; i--) {
    if (c[i] != HALF[i]) return c[i] > HALF[i];
  }
  return false;
}

/** a^((p+1)/4) by 4-bit windows: 248 squarings and about 75 products, not 256 and 128. */
inline Fq sqrt_candidate(const Fq& a) {
  Fq table[16];
  table[0] = Fq::one();
  table[1] = a;
  for (int i = 2; i < 16; i++) table[i] = table[i - 1] * a;
  Fq r = Fq::one();
  bool started = false;
  for (int nibble = 63; nibble >= 0; nibble--) {
    if (started)
      for (int k = 0; k < 4; k++) r = r.squared();
    const unsigned d = (unsigned)(SQRT_EXP[nibble / 16] >> ((nibble % 16) * 4)) & 15;
    if (d) {
      r = started ? r * table[d] : table[d];
      started = true;
    }
  }
  return r;
}

inline bool sqrt_fq(Fq& out, const Fq& a) {
  out = sqrt_candidate(a);
  return out.squared() == a;
}

/**
 * A square root in Fq2 (u² = −1) by norms: x0² = δ = (a0 + |a|)/2 and x1 = a1 / (2·x0). When δ is
 * not a square, t = δ^((p+1)/4) has t² = −δ (p ≡ 3 mod 4), and (a1/(2t), t) is the root: the
 * other choice of sign, (a0 − |a|)/2 = −a1²/(4δ), without a third exponentiation.
 */
inline bool sqrt_fq2(Fq2& out, const Fq2& a) {
  if (a.c1.is_zero()) {
    Fq r;
    if (sqrt_fq(r, a.c0)) {
      out = {r, Fq::zero()};
      return true;
    }
    // a0 a non-square: its root is purely imaginary, (r·u)² = −r².
    if (!sqrt_fq(r, -a.c0)) return false;
    out = {Fq::zero(), r};
    return true;
  }
  Fq norm;
  if (!sqrt_fq(norm, a.c0.squared() + a.c1.squared())) return false;
  static const Fq half = Fq::from_u64(2).inverse();
  const Fq delta = (a.c0 + norm) * half;
  const Fq t = sqrt_candidate(delta);
  if (t.is_zero()) return false;
  if (t.squared() == delta)
    out = {t, a.c1 * (t + t).inverse()};
  else
    out = {a.c1 * (t + t).inverse(), t};
  Fq2 check;
  Fq2::sqr(check, out);
  return check == a;
}

inline bool read_be(Fq& out, const uint8_t* p, bool strip_flags) {
  u64 v[4];
  for (int limb = 0; limb < 4; limb++) {
    u64 x = 0;
    for (int j = 0; j < 8; j++) x = (x << 8) | p[(3 - limb) * 8 + j];
    v[limb] = x;
  }
  if (strip_flags) v[3] &= 0x3fffffffffffffffULL;
  if (!Fq::is_canonical(v)) return false;
  out = Fq::from_canonical(v);
  return true;
}

/** Empty when decompressed; otherwise what is wrong with the point. */
inline const char* decompress_g1(G1Affine& out, const uint8_t* p) {
  const uint8_t flag = p[0] & 0xc0;
  if (flag == 0x40) {
    out = G1Affine::infinity();
    return nullptr;
  }
  if (flag != 0x80 && flag != 0xc0) return "not a compressed point";
  Fq x, y;
  if (!read_be(x, p, true)) return "x is not below p";
  if (!sqrt_fq(y, x.squared() * x + g1_b())) return "not on the curve";
  if (above_half(y) != (flag == 0xc0)) y = -y;
  out = {x, y};
  return nullptr;
}

inline const char* decompress_g2(G2Affine& out, const uint8_t* p) {
  const uint8_t flag = p[0] & 0xc0;
  if (flag == 0x40) {
    out = G2Affine::infinity();
    return nullptr;
  }
  if (flag != 0x80 && flag != 0xc0) return "not a compressed point";
  Fq2 x, y, x3;
  if (!read_be(x.c1, p, true) || !read_be(x.c0, p + 32, false)) return "x is not below p";
  Fq2::sqr(x3, x);
  Fq2::mul(x3, x3, x);
  Fq2::add(x3, x3, g2_b());
  if (!sqrt_fq2(y, x3)) return "not on the curve";
  const bool larger = y.c1.is_zero() ? above_half(y.c0) : above_half(y.c1);
  if (larger != (flag == 0xc0)) Fq2::neg(y, y);
  out = {x, y};
  return nullptr;
}

}  // namespace decompress_detail

/**
 * Decompresses `count` points of `group` (1: 32 bytes each, 2: 64) into `out` (affine, Montgomery
 * form: a zkey's encoding); throws naming the first bad point. G2 points are not checked to be in
 * the subgroup here (a key's test proof is the check of the whole key).
 */
template <class P>
void decompress_points(P* out, const uint8_t* in, size_t count, int threads) {
  constexpr bool g2 = sizeof(P) == sizeof(G2Affine);
  constexpr size_t size = g2 ? 64 : 32;
  std::vector<std::pair<size_t, const char*>> bad((size_t)std::max(1, threads), {SIZE_MAX, nullptr});
  parallel_for((size_t)std::max(1, threads), threads, [&](size_t part) {
    const size_t from = count * part / threads, to = count * (part + 1) / threads;
    for (size_t i = from; i < to; i++) {
      const char* why;
      if constexpr (g2)
        why = decompress_detail::decompress_g2(out[i], in + i * size);
      else
        why = decompress_detail::decompress_g1(out[i], in + i * size);
      if (why) {
        bad[part] = {i, why};
        return;
      }
    }
  });
  for (const auto& b : bad)
    if (b.second)
      throw std::runtime_error("point " + std::to_string(b.first) + ": " + b.second);
}

}  // namespace zk
