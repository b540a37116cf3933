// A gnark-style constraint system and its solver: the witness of a key imported from Light's
// proving-system files (src/zk/light/) comes from the circuit's inputs alone. Wires are
// [1 | public | secret | internal]; each constraint ⟨L,w⟩·⟨R,w⟩ = ⟨O,w⟩ is visited in index
// order, and solves the one wire of it not yet known (or checks it when none is), with gnark's
// rule: an unknown in L or R beside a zero factor is 0. Wires computed outside the constraints
// (bit decompositions, inverses) come from hints, run when a constraint first needs one of their
// outputs. The layout of the key section holding it is zkgate's own (src/zk/light/r1cs-section.ts).
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "field.hpp"
#include "msm.hpp"

namespace zk {

/** gnark's hint IDs (FNV-1a of the Go function's name), as the files record them. */
constexpr uint32_t HINT_NBITS = 0x84902ccbu;
constexpr uint32_t HINT_INV_ZERO = 0x80defd9du;
/** A term's wire id meaning "the coefficient alone" (hint inputs only). */
constexpr uint32_t CONSTANT_WIRE = 0xffffffffu;

struct R1csTerm {
  uint32_t coeff, wire;
};

struct R1csHint {
  uint32_t id;
  /** Each input is a linear expression: [input_start[i], input_start[i + 1]) of `terms`. */
  std::vector<uint32_t> input_start;
  std::vector<R1csTerm> terms;
  std::vector<uint32_t> outputs;
};

struct R1csSystem {
  uint32_t n_constraints = 0, n_wires = 0, n_public = 0, n_secret = 0;
  std::vector<Fr> coeffs;  // Montgomery form
  /** Constraint i's L, R and O are rows 3i, 3i + 1, 3i + 2: [row_start[k], row_start[k + 1]) of terms. */
  std::vector<uint32_t> row_start;
  std::vector<R1csTerm> terms;
  std::vector<R1csHint> hints;
  /** The hint computing each wire, or −1. */
  std::vector<int32_t> hint_of_wire;
};

/**
 * Parses the key section of a key with `n_wires` wires (checked first: nothing is sized from the
 * section's own counts before they are checked against its bytes); throws std::runtime_error
 * naming what is inconsistent.
 */
std::unique_ptr<R1csSystem> parse_r1cs_section(const uint8_t* data, size_t len, uint32_t n_wires);

/** A constraint the inputs do not satisfy (its index, as gnark counts). */
struct UnsatisfiedConstraint : std::runtime_error {
  uint32_t index;
  UnsatisfiedConstraint(uint32_t i, const std::string& what) : std::runtime_error(what), index(i) {}
};

/** The full witness and ⟨L,w⟩, ⟨R,w⟩ per constraint (canonical scalars), for prove's Evals. */
struct R1csSolution {
  std::vector<Scalar> witness, a, b;
};

/**
 * Solves for the public inputs (without the constant wire) then the secret ones, canonical;
 * throws UnsatisfiedConstraint, or std::runtime_error for a wrong count or a system it cannot solve.
 */
R1csSolution solve_r1cs(const R1csSystem& cs, const Scalar* inputs, size_t n_inputs);

}  // namespace zk
