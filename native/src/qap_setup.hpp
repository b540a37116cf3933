// The dev setup's pass over a circuit's constraints (src/zk/setup/qap.ts): the QAP polynomials of
// every wire evaluated at tau, u_i(tau) = Σ_c A[c][i]·L_c(tau) and likewise v (B) and w (C), from
// R1CS constraints and the Lagrange basis at tau; and the zkey's coefficient section (the A and B
// entries, each value stored as snarkjs stores it: coef·R² mod r). In TypeScript's bigints this
// pass took most of a large key's setup (65 s of 94 for a circom address append, 42 s of 64 for
// the structured one); here it is one multiply-add per term. It runs over a run of constraints at
// a time, adding into the caller's sums, so that a circuit emitted in pieces (the structured
// setup) never needs all of its constraints in memory at once.
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>
#include "field.hpp"

namespace zk {

/**
 * Adds constraints first .. first + n_constraints − 1 into `sums` (u, v, w: n_vars canonical
 * little-endian values of 32 bytes each, updated in place). `constraints` is their R1CS section
 * bytes (n8 = 32): per constraint, for A, B, C in turn, a u32 term count, then (u32 wire, 32-byte
 * coefficient) per term. `lagrange` holds L_c(tau) for those constraints, canonical little-endian.
 * With `coefs`, the A and B entries are appended to it (matrix u32, constraint u32, wire u32,
 * 32-byte value); returns how many. Throws, leaving `sums` partly added, on input that does not
 * fit: callers discard the sums then.
 */
inline uint32_t qap_accumulate(const uint8_t* constraints, size_t length, uint32_t first, uint32_t n_constraints,
                               const uint8_t* lagrange, size_t lagrange_length, uint8_t* const sums[3],
                               uint32_t n_vars, std::vector<uint8_t>* coefs) {
  if (lagrange_length != size_t(n_constraints) * 32)
    throw std::runtime_error("qapAccumulate: one Lagrange value per constraint is needed");
  auto read_canonical = [](const uint8_t* p) {
    Fr x;
    std::memcpy(x.v, p, 32);
    if (!Fr::is_canonical(x.v)) throw std::runtime_error("qapAccumulate: a value is not below r");
    return x;
  };
  const Fr one = Fr::one();
  uint32_t count = 0;
  size_t pos = 0;
  auto need = [&](size_t n) {
    if (pos + n > length) throw std::runtime_error("qapAccumulate: the constraints are truncated");
  };
  for (uint32_t c = 0; c < n_constraints; c++) {
    // L_c stays canonical: the Montgomery product of coef·R (Montgomery form) and L_c is coef·L_c,
    // canonical, so the sums are kept and returned canonical with no conversion.
    const Fr lc = read_canonical(lagrange + size_t(c) * 32);
    for (uint32_t matrix = 0; matrix < 3; matrix++) {
      need(4);
      uint32_t terms;
      std::memcpy(&terms, constraints + pos, 4);
      pos += 4;
      for (uint32_t t = 0; t < terms; t++) {
        need(36);
        uint32_t s;
        std::memcpy(&s, constraints + pos, 4);
        if (s >= n_vars) throw std::runtime_error("qapAccumulate: a term names a wire beyond the circuit's");
        const Fr coef = Fr::from_canonical(read_canonical(constraints + pos + 4).v);
        pos += 36;
        Fr term;
        if (std::memcmp(coef.v, one.v, 32) == 0)
          term = lc;
        else
          Fr::mul(term, coef, lc);
        Fr sum;
        std::memcpy(sum.v, sums[matrix] + size_t(s) * 32, 32);
        Fr::add(sum, sum, term);
        std::memcpy(sums[matrix] + size_t(s) * 32, sum.v, 32);
        if (matrix < 2 && coefs) {
          // coef·R² = the Montgomery form of the Montgomery form: what snarkjs' zkey holds.
          const Fr stored = Fr::from_canonical(coef.v);
          const uint32_t row = first + c;
          const size_t at = coefs->size();
          coefs->resize(at + 44);
          std::memcpy(&(*coefs)[at], &matrix, 4);
          std::memcpy(&(*coefs)[at + 4], &row, 4);
          std::memcpy(&(*coefs)[at + 8], &s, 4);
          std::memcpy(&(*coefs)[at + 12], stored.v, 32);
          count++;
        }
      }
    }
  }
  if (pos != length) throw std::runtime_error("qapAccumulate: bytes left after the constraints");
  return count;
}

}  // namespace zk
