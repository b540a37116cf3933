// The dev setup's pass over a circuit's constraints (src/zk/setup/dev-setup.ts): the QAP
// polynomials of every wire evaluated at tau, u_i(tau) = Σ_c A[c][i]·L_c(tau) and likewise v (B)
// and w (C), from the R1CS constraints and the Lagrange basis at tau; and the zkey's coefficient
// section (the A and B entries, each value stored as snarkjs stores it: coef·R² mod r). In
// TypeScript's bigints this pass took most of a large key's setup (65 s of 94 for the forester's
// address append); here it is one multiply-add per term.
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>
#include "field.hpp"

namespace zk {

struct QapAtTau {
  /** u, v, w per wire, canonical little-endian, 32 bytes each. */
  std::vector<uint8_t> u, v, w;
  /** The coefficient section's entries: matrix u32, constraint u32, signal u32, 32-byte value. */
  std::vector<uint8_t> coefs;
  uint32_t count = 0;
};

/**
 * `constraints` is the R1CS constraints section (n8 = 32): per constraint, for A, B, C in turn, a
 * u32 term count, then (u32 signal, 32-byte coefficient) per term. `lagrange` holds L_c(tau) for
 * c in 0..nConstraints+nPublic, canonical little-endian. The one and public wires get snarkjs'
 * extra rows: A[nConstraints + s][s] = 1 for s in 0..nPublic.
 */
inline QapAtTau qap_at_tau(const uint8_t* constraints, size_t length, uint32_t n_constraints, uint32_t n_vars,
                           uint32_t n_public, const uint8_t* lagrange, size_t lagrange_length) {
  if (lagrange_length != (size_t(n_constraints) + n_public + 1) * 32)
    throw std::runtime_error("qapAtTau: the Lagrange values do not match the constraint and public counts");
  auto read_field = [](const uint8_t* p) {
    u64 x[4];
    std::memcpy(x, p, 32);
    if (!Fr::is_canonical(x)) throw std::runtime_error("qapAtTau: a value is not below r");
    return Fr::from_canonical(x);
  };
  auto write_canonical = [](const Fr& f, uint8_t* p) {
    u64 x[4];
    f.to_canonical(x);
    std::memcpy(p, x, 32);
  };
  std::vector<Fr> acc[3] = {std::vector<Fr>(n_vars, Fr::zero()), std::vector<Fr>(n_vars, Fr::zero()),
                            std::vector<Fr>(n_vars, Fr::zero())};
  QapAtTau out;
  out.coefs.reserve(size_t(n_constraints) * 44 * 4);
  auto push_coef = [&](uint32_t matrix, uint32_t c, uint32_t s, const Fr& coef_mont) {
    // coef·R² = the Montgomery form of the Montgomery form: what snarkjs' zkey holds.
    const Fr stored = Fr::from_canonical(coef_mont.v);
    const size_t at = out.coefs.size();
    out.coefs.resize(at + 44);
    std::memcpy(&out.coefs[at], &matrix, 4);
    std::memcpy(&out.coefs[at + 4], &c, 4);
    std::memcpy(&out.coefs[at + 8], &s, 4);
    std::memcpy(&out.coefs[at + 12], stored.v, 32);
    out.count++;
  };
  size_t pos = 0;
  auto need = [&](size_t n) {
    if (pos + n > length) throw std::runtime_error("qapAtTau: the constraints section is truncated");
  };
  for (uint32_t c = 0; c < n_constraints; c++) {
    const Fr lc = read_field(lagrange + size_t(c) * 32);
    for (uint32_t matrix = 0; matrix < 3; matrix++) {
      need(4);
      uint32_t terms;
      std::memcpy(&terms, constraints + pos, 4);
      pos += 4;
      for (uint32_t t = 0; t < terms; t++) {
        need(36);
        uint32_t s;
        std::memcpy(&s, constraints + pos, 4);
        if (s >= n_vars) throw std::runtime_error("qapAtTau: a term names a wire beyond the circuit's");
        const Fr coef = read_field(constraints + pos + 4);
        pos += 36;
        Fr term;
        Fr::mul(term, coef, lc);
        Fr::add(acc[matrix][s], acc[matrix][s], term);
        if (matrix < 2) push_coef(matrix, c, s, coef);
      }
    }
  }
  for (uint32_t s = 0; s <= n_public; s++) {
    Fr::add(acc[0][s], acc[0][s], read_field(lagrange + (size_t(n_constraints) + s) * 32));
    push_coef(0, n_constraints + s, s, Fr::one());
  }
  for (int m = 0; m < 3; m++) {
    std::vector<uint8_t>& dst = m == 0 ? out.u : m == 1 ? out.v : out.w;
    dst.resize(size_t(n_vars) * 32);
    for (uint32_t i = 0; i < n_vars; i++) write_canonical(acc[m][i], &dst[size_t(i) * 32]);
  }
  return out;
}

}  // namespace zk
