// k·G for many scalars k and one base G (a dev setup's bulk: every A, B, C and H point of a key).
// A table of 16-bit digits, T[j][d] = d·2^(16j)·G in affine (1 M points, built once per base),
// makes each product at most 16 mixed additions; results go back to affine in runs, one field
// inversion per run. Output is the zkey encoding: coordinates as their Montgomery limbs, the point
// at infinity as zeros.
#pragma once
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "curve.hpp"
#include "msm.hpp"
#include "parallel.hpp"

namespace zk {

template <class F>
class FixedBaseMul {
 public:
  static constexpr int W = 16;
  static constexpr int WINDOWS = 256 / W;
  static constexpr size_t DIGITS = (size_t)1 << W;

  FixedBaseMul(const Affine<F>& g, int threads) : table_(WINDOWS * DIGITS) {
    // Row j: multiples of step = 2^(16j)·G, built in Jacobian and normalised per row.
    Jacobian<F> step = Jacobian<F>::from_affine(g);
    std::vector<Jacobian<F>> rows(WINDOWS * DIGITS);
    for (int j = 0; j < WINDOWS; j++) {
      Jacobian<F>* row = &rows[j * DIGITS];
      row[0] = Jacobian<F>::infinity();
      row[1] = step;
      for (size_t d = 2; d < DIGITS; d++) Jacobian<F>::add(row[d], row[d - 1], step);
      Jacobian<F>::add(step, row[DIGITS - 1], step);  // 2^16 · step
    }
    parallel_for(WINDOWS, threads, [&](size_t j) { normalise(&rows[j * DIGITS], &table_[j * DIGITS], DIGITS); });
  }

  /** out[i] = scalars[i] · G (canonical little-endian scalars), `bytes` per point in zkey encoding. */
  void run(const Scalar* scalars, size_t n, uint8_t* out, int threads) const {
    constexpr size_t RUN = 512;
    const size_t runs = (n + RUN - 1) / RUN;
    parallel_for(runs, threads, [&](size_t r) {
      const size_t begin = r * RUN, end = std::min(n, begin + RUN);
      Jacobian<F> acc[RUN];
      Affine<F> aff[RUN];
      for (size_t i = begin; i < end; i++) {
        Jacobian<F>& a = acc[i - begin];
        a = Jacobian<F>::infinity();
        const Scalar& k = scalars[i];
        for (int j = 0; j < WINDOWS; j++) {
          const size_t d = (size_t)(k.v[j / 4] >> (16 * (j % 4))) & (DIGITS - 1);
          if (d == 0) continue;
          const Affine<F>& t = table_[j * DIGITS + d];
          if (a.is_infinity())
            a = Jacobian<F>::from_affine(t);
          else
            Jacobian<F>::add_mixed(a, a, t);
        }
      }
      normalise(acc, aff, end - begin);
      for (size_t i = begin; i < end; i++) std::memcpy(out + i * sizeof(Affine<F>), &aff[i - begin], sizeof(Affine<F>));
    });
  }

 private:
  std::vector<Affine<F>> table_;

  /** Jacobian to affine with one inversion (Montgomery's trick); infinity stays (0, 0). */
  static void normalise(const Jacobian<F>* in, Affine<F>* out, size_t n) {
    std::vector<F> prefix(n);
    F acc = F::one();
    for (size_t i = 0; i < n; i++) {
      prefix[i] = acc;
      if (!in[i].is_infinity()) acc = acc * in[i].Z;
    }
    F inv = acc.inverse();
    for (size_t i = n; i-- > 0;) {
      if (in[i].is_infinity()) {
        out[i] = Affine<F>::infinity();
        continue;
      }
      const F zi = inv * prefix[i];
      inv = inv * in[i].Z;
      const F zi2 = zi.squared();
      out[i] = {in[i].X * zi2, in[i].Y * (zi2 * zi)};
    }
  }
};

}  // namespace zk
