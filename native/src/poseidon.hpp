// Poseidon over the BN254 scalar field with circomlib's parameters (x^5 S-box, 8 full rounds, the
// partial rounds of each width), as the circuits and Light's programs hash. The constants are data
// handed in once from circomlibjs, per width t = 2..17, in the "optimized" form of the Poseidon
// paper (appendix B): round constants C folded forward, the partial rounds' sparse matrices S (one
// row and one column each: 2t - 1 products instead of t²), the MDS matrix M and the pre-partial
// matrix P. Order of a hash: add C; 3 full rounds (S-box, add C, multiply by M); a full round with
// P; the partial rounds (S-box and C on state[0], then the sparse mix); 3 full rounds; a last S-box
// and M. Out: state[0].
#pragma once
#include <mutex>
#include <stdexcept>
#include <vector>

#include "field.hpp"

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
    widths_[t] = std::move(w);
  }

  bool ready(int t) const { return t >= 2 && t <= MAX_T && widths_[t].t == t; }

  /** Hash of n = t - 1 inputs. */
  Fr hash(const Fr* in, int n) const {
    const int t = n + 1;
    if (!ready(t)) throw std::runtime_error("poseidon constants for this width are not set");
    const PoseidonWidth& w = widths_[t];
    const Fr* c = w.c.data();
    Fr s[MAX_T];
    s[0] = c[0];
    for (int i = 0; i < n; i++) s[i + 1] = in[i] + c[i + 1];
    const int half = w.full / 2;
    for (int r = 0; r < half - 1; r++) full_round(s, t, c + (r + 1) * t, w.m.data());
    full_round(s, t, c + half * t, w.p.data());
    const Fr* cp = c + (half + 1) * t;
    const Fr* sp = w.s.data();
    for (int r = 0; r < w.partial; r++) {
      const Fr* row = sp + (2 * t - 1) * r;
      s[0] = pow5(s[0]) + cp[r];
      Fr s0 = row[0] * s[0];
      for (int j = 1; j < t; j++) s0 = s0 + row[j] * s[j];
      for (int q = 1; q < t; q++) s[q] = s[q] + s[0] * row[t + q - 1];
      s[0] = s0;
    }
    const Fr* cf = c + (half + 1) * t + w.partial;
    for (int r = 0; r < half - 1; r++) full_round(s, t, cf + r * t, w.m.data());
    full_round(s, t, nullptr, w.m.data());
    return s[0];
  }

 private:
  /** S-box on every cell, add the round constants (none in the last round), mix with `m`. */
  static void full_round(Fr* s, int t, const Fr* c, const Fr* m) {
    for (int i = 0; i < t; i++) s[i] = pow5(s[i]);
    if (c)
      for (int i = 0; i < t; i++) s[i] = s[i] + c[i];
    mix(s, t, m);
  }

  static Fr pow5(const Fr& x) {
    Fr x2 = x.squared();
    return x * x2.squared();
  }
  /** out[i] = Σ_j m[j][i] · s[j] (the matrices are stored as circomlib writes them). */
  static void mix(Fr* s, int t, const Fr* m) {
    Fr out[MAX_T];
    for (int i = 0; i < t; i++) {
      Fr acc = m[i] * s[0];
      for (int j = 1; j < t; j++) acc = acc + m[j * t + i] * s[j];
      out[i] = acc;
    }
    for (int i = 0; i < t; i++) s[i] = out[i];
  }

  std::mutex mutex_;
  PoseidonWidth widths_[MAX_T + 1];
};

inline Poseidon& poseidon() {
  static Poseidon p;
  return p;
}

}  // namespace zk
