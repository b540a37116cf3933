#include "r1cs_solver.hpp"

#include <cstring>

namespace zk {

namespace {

struct SectionReader {
  const uint8_t* p;
  size_t len, at = 0;
  uint32_t u32(const char* what) {
    if (at + 4 > len) throw std::runtime_error(std::string("constraint system ends early in ") + what);
    uint32_t v;
    std::memcpy(&v, p + at, 4);
    at += 4;
    return v;
  }
  /** `count` items of `size` bytes, checked to be there before anything is allocated for them. */
  const uint8_t* take(size_t count, size_t size, const char* what) {
    if (count > (len - at) / size) throw std::runtime_error(std::string("constraint system ends early in ") + what);
    const uint8_t* at_p = p + at;
    at += count * size;
    return at_p;
  }
};

constexpr uint32_t SECTION_VERSION = 1;

}  // namespace

std::unique_ptr<R1csSystem> parse_r1cs_section(const uint8_t* data, size_t len, uint32_t n_wires) {
  SectionReader r{data, len};
  if (r.u32("its version") != SECTION_VERSION) throw std::runtime_error("constraint system: unknown version");
  auto cs = std::make_unique<R1csSystem>();
  cs->n_constraints = r.u32("the counts");
  cs->n_wires = r.u32("the counts");
  cs->n_public = r.u32("the counts");
  cs->n_secret = r.u32("the counts");
  if (cs->n_wires != n_wires) throw std::runtime_error("constraint system: its wire count differs from the key's");
  if (cs->n_public < 1 || (uint64_t)cs->n_public + cs->n_secret > cs->n_wires)
    throw std::runtime_error("constraint system: more inputs than wires");
  const uint32_t n_coeffs = r.u32("the coefficients");
  const uint8_t* c = r.take(n_coeffs, 32, "the coefficients");
  cs->coeffs.resize(n_coeffs);
  for (uint32_t i = 0; i < n_coeffs; i++) {
    u64 v[4];
    std::memcpy(v, c + (size_t)i * 32, 32);
    if (!Fr::is_canonical(v)) throw std::runtime_error("constraint system: coefficient out of range");
    cs->coeffs[i] = Fr::from_canonical(v);
  }
  auto read_terms = [&](std::vector<R1csTerm>& out, uint32_t n, bool constants, const char* what) {
    const uint8_t* t = r.take(n, 8, what);
    out.resize(n);
    std::memcpy(out.data(), t, (size_t)n * 8);
    for (const R1csTerm& term : out)
      if (term.coeff >= n_coeffs || (term.wire >= cs->n_wires && !(constants && term.wire == CONSTANT_WIRE)))
        throw std::runtime_error(std::string("constraint system: a term of ") + what + " is out of range");
  };
  const uint32_t n_terms = r.u32("the terms");
  const size_t rows = (size_t)cs->n_constraints * 3 + 1;
  const uint8_t* rs = r.take(rows, 4, "the rows");
  cs->row_start.resize(rows);
  std::memcpy(cs->row_start.data(), rs, rows * 4);
  for (size_t i = 0; i < rows; i++)
    if ((i == 0 ? cs->row_start[0] != 0 : cs->row_start[i] < cs->row_start[i - 1]) || cs->row_start[i] > n_terms)
      throw std::runtime_error("constraint system: rows out of order");
  if (cs->row_start[rows - 1] != n_terms) throw std::runtime_error("constraint system: rows do not cover the terms");
  read_terms(cs->terms, n_terms, false, "the constraints");
  const uint32_t n_hints = r.u32("the hints");
  if (n_hints > cs->n_wires) throw std::runtime_error("constraint system: more hints than wires");
  cs->hints.resize(n_hints);
  cs->hint_of_wire.assign(cs->n_wires, -1);
  for (uint32_t h = 0; h < n_hints; h++) {
    R1csHint& hint = cs->hints[h];
    hint.id = r.u32("a hint");
    if (hint.id != HINT_NBITS && hint.id != HINT_INV_ZERO)
      throw std::runtime_error("constraint system: hint " + std::to_string(hint.id) + " is not one zkgate runs");
    const uint32_t n_inputs = r.u32("a hint");
    const uint8_t* is = r.take((size_t)n_inputs + 1, 4, "a hint's inputs");
    hint.input_start.resize((size_t)n_inputs + 1);
    std::memcpy(hint.input_start.data(), is, ((size_t)n_inputs + 1) * 4);
    read_terms(hint.terms, r.u32("a hint's terms"), true, "a hint");
    for (size_t i = 0; i <= n_inputs; i++)
      if ((i == 0 ? hint.input_start[0] != 0 : hint.input_start[i] < hint.input_start[i - 1]) ||
          hint.input_start[i] > hint.terms.size())
        throw std::runtime_error("constraint system: a hint's inputs are out of order");
    if (hint.input_start[n_inputs] != hint.terms.size() || n_inputs != 1)
      throw std::runtime_error("constraint system: a hint has other than one input");
    const uint32_t n_out = r.u32("a hint's outputs");
    const uint8_t* o = r.take(n_out, 4, "a hint's outputs");
    hint.outputs.resize(n_out);
    std::memcpy(hint.outputs.data(), o, (size_t)n_out * 4);
    if (hint.id == HINT_INV_ZERO && n_out != 1) throw std::runtime_error("constraint system: InvZero has one output");
    for (uint32_t w : hint.outputs) {
      if (w < cs->n_public + cs->n_secret || w >= cs->n_wires || cs->hint_of_wire[w] != -1)
        throw std::runtime_error("constraint system: a hint's output is an input or another hint's");
      cs->hint_of_wire[w] = (int32_t)h;
    }
  }
  if (r.at != len) throw std::runtime_error("constraint system: bytes after its end");
  return cs;
}

namespace {

struct Solver {
  const R1csSystem& cs;
  std::vector<Fr> w;
  std::vector<uint8_t> known;

  Fr term_value(const R1csTerm& t) const { return cs.coeffs[t.coeff] * w[t.wire]; }

  void run_hint(uint32_t h) {
    const R1csHint& hint = cs.hints[h];
    Fr in = Fr::zero();
    for (uint32_t i = hint.input_start[0]; i < hint.input_start[1]; i++) {
      const R1csTerm& t = hint.terms[i];
      if (t.wire == CONSTANT_WIRE) {
        in = in + cs.coeffs[t.coeff];
        continue;
      }
      if (!known[t.wire]) {
        const int32_t other = cs.hint_of_wire[t.wire];
        if (other < 0 || (uint32_t)other == h) throw std::runtime_error("a hint's input is not solved before it");
        run_hint((uint32_t)other);
      }
      in = in + term_value(t);
    }
    if (hint.id == HINT_INV_ZERO) {
      set(hint.outputs[0], in.inverse());  // zero stays zero
      return;
    }
    // NBits: the input's bits, least significant first.
    u64 v[4];
    in.to_canonical(v);
    for (size_t i = 0; i < hint.outputs.size(); i++) {
      const bool bit = i < 256 && ((v[i / 64] >> (i % 64)) & 1);
      set(hint.outputs[i], bit ? Fr::one() : Fr::zero());
    }
  }

  void set(uint32_t wire, const Fr& value) {
    w[wire] = value;
    known[wire] = 1;
  }

  /** ⟨row, w⟩ without its unknown term, which it reports (at most one per constraint). */
  Fr row(size_t k, const R1csTerm*& unknown, int& unknown_side, int side) {
    Fr acc = Fr::zero();
    for (uint32_t i = cs.row_start[k]; i < cs.row_start[k + 1]; i++) {
      const R1csTerm& t = cs.terms[i];
      if (!known[t.wire] && cs.hint_of_wire[t.wire] >= 0) run_hint((uint32_t)cs.hint_of_wire[t.wire]);
      if (known[t.wire]) {
        acc = acc + term_value(t);
        continue;
      }
      if (unknown && unknown->wire != t.wire)
        throw std::runtime_error("constraint #" + std::to_string(k / 3) + " has more than one unknown wire");
      if (unknown) throw std::runtime_error("constraint #" + std::to_string(k / 3) + " repeats its unknown wire");
      unknown = &t;
      unknown_side = side;
    }
    return acc;
  }
};

}  // namespace

R1csSolution solve_r1cs(const R1csSystem& cs, const Scalar* inputs, size_t n_inputs) {
  const size_t expected = (size_t)cs.n_public - 1 + cs.n_secret;
  if (n_inputs != expected)
    throw std::runtime_error("the circuit takes " + std::to_string(expected) + " inputs, not " +
                             std::to_string(n_inputs));
  Solver s{cs, std::vector<Fr>(cs.n_wires, Fr::zero()), std::vector<uint8_t>(cs.n_wires, 0)};
  s.set(0, Fr::one());
  for (size_t i = 0; i < n_inputs; i++) {
    if (!Fr::is_canonical(inputs[i].v)) throw std::runtime_error("input " + std::to_string(i) + " is not below r");
    s.set((uint32_t)(i + 1), Fr::from_canonical(inputs[i].v));
  }
  R1csSolution out;
  out.a.resize(cs.n_constraints);
  out.b.resize(cs.n_constraints);
  for (uint32_t c = 0; c < cs.n_constraints; c++) {
    const R1csTerm* unknown = nullptr;
    int side = -1;
    Fr a = s.row(3 * (size_t)c, unknown, side, 0);
    Fr b = s.row(3 * (size_t)c + 1, unknown, side, 1);
    Fr o = s.row(3 * (size_t)c + 2, unknown, side, 2);
    if (unknown) {
      // The unknown term's value x, then the wire's: x / its coefficient.
      Fr x = Fr::zero();
      const Fr& factor = side == 0 ? b : a;
      if (side == 2) {
        x = a * b - o;
        o = o + x;
      } else if (!factor.is_zero()) {
        x = o * factor.inverse() - (side == 0 ? a : b);
        (side == 0 ? a : b) = (side == 0 ? a : b) + x;
      }
      const Fr& coeff = cs.coeffs[unknown->coeff];
      if (coeff.is_zero()) throw std::runtime_error("constraint #" + std::to_string(c) + " solves a wire of coefficient 0");
      // gnark gives solved wires the coefficient ±1: no inversion for those.
      s.set(unknown->wire, coeff == Fr::one() ? x : coeff == -Fr::one() ? -x : x * coeff.inverse());
    }
    if (a * b != o) throw UnsatisfiedConstraint(c, "constraint #" + std::to_string(c) + " is not satisfied");
    a.to_canonical(out.a[c].v);
    b.to_canonical(out.b[c].v);
  }
  out.witness.resize(cs.n_wires);
  for (uint32_t i = 0; i < cs.n_wires; i++) {
    if (!s.known[i]) throw std::runtime_error("wire " + std::to_string(i) + " is not solved by any constraint");
    s.w[i].to_canonical(out.witness[i].v);
  }
  return out;
}

}  // namespace zk
