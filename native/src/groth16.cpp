#include "groth16.hpp"

#include "ntt_x8.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <map>

#include <cerrno>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace zk {

namespace {

struct Reader {
  const uint8_t* p;
  size_t len, at = 0;
  Reader(const uint8_t* d, size_t l) : p(d), len(l) {}
  void need(size_t n) const {
    if (at + n > len || at + n < at) throw std::runtime_error("zkey ends early");
  }
  template <class T>
  T scalar() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, p + at, sizeof(T));
    at += sizeof(T);
    return v;
  }
  uint32_t u32() { return scalar<uint32_t>(); }
  uint64_t u64v() { return scalar<uint64_t>(); }
  void limbs(u64 out[4]) {
    need(32);
    std::memcpy(out, p + at, 32);
    at += 32;
  }
};

template <class Params>
Field<Params> read_mont(Reader& r, const char* what) {
  Field<Params> f;
  r.limbs(f.v);
  if (!Field<Params>::is_canonical(f.v)) throw std::runtime_error(std::string("zkey: ") + what + " out of range");
  return f;
}

G1Affine read_g1(Reader& r, const char* what) {
  G1Affine a{read_mont<FqParams>(r, what), read_mont<FqParams>(r, what)};
  if (!on_curve(a, g1_b())) throw std::runtime_error(std::string("zkey: ") + what + " is not on G1");
  return a;
}

G2Affine read_g2(Reader& r, const char* what, const Fq2& b) {
  G2Affine a;
  a.x.c0 = read_mont<FqParams>(r, what);
  a.x.c1 = read_mont<FqParams>(r, what);
  a.y.c0 = read_mont<FqParams>(r, what);
  a.y.c1 = read_mont<FqParams>(r, what);
  if (!on_curve(a, b)) throw std::runtime_error(std::string("zkey: ") + what + " is not on G2");
  return a;
}

bool equals_modulus(Reader& r, const u64 P[4]) {
  u64 v[4];
  r.limbs(v);
  return v[0] == P[0] && v[1] == P[1] && v[2] == P[2] && v[3] == P[3];
}

}  // namespace

void prepare_domain(ZKey& key) {
  key.domain = std::make_unique<Domain>(key.log_domain);
  if (!key.gnark_quotient) key.coset_shift = root_of_unity(key.log_domain + 1);
  key.coset_powers.resize(key.domain_size);
  Fr g = key.domain->n_inv;
  for (size_t i = 0; i < key.domain_size; i++) {
    key.coset_powers[i] = g;
    g = g * key.coset_shift;
  }
  if (key.gnark_quotient) {
    // g^−i / (n·(gⁿ − 1)): Z is gⁿ − 1 all over the coset; g^−i undoes the shift of coefficient i.
    const Fr n = Fr::from_u64(key.domain_size);
    const Fr gn_minus_1 = g * n - Fr::one();  // g is gⁿ/n here
    Fr u = (n * gn_minus_1).inverse();
    const Fr g_inv = key.coset_shift.inverse();
    key.unshift.resize(key.domain_size);
    for (size_t i = 0; i < key.domain_size; i++) {
      key.unshift[i] = u;
      u = u * g_inv;
    }
    return;  // the eight-lane H computes snarkjs's quotient only
  }
#ifdef ZK_HAVE_X8
  if (key.domain_size >= 8) key.domain_x8 = x8::domain_x8(*key.domain, key.coset_powers);
#endif
}

std::unique_ptr<ZKey> parse_zkey(const uint8_t* data, size_t len) {
  Reader r(data, len);
  r.need(4);
  if (std::memcmp(data, "zkey", 4) != 0) throw std::runtime_error("not a zkey file");
  r.at = 4;
  r.u32();  // version
  uint32_t n_sections = r.u32();
  std::map<uint32_t, std::pair<size_t, size_t>> sections;
  for (uint32_t i = 0; i < n_sections; i++) {
    uint32_t type = r.u32();
    uint64_t size = r.u64v();
    r.need(size);
    sections[type] = {r.at, size};
    r.at += size;
  }
  auto section = [&](uint32_t type) {
    auto it = sections.find(type);
    if (it == sections.end()) throw std::runtime_error("zkey: section " + std::to_string(type) + " missing");
    return Reader(data + it->second.first, it->second.second);
  };
  auto key = std::make_unique<ZKey>();
  key->bytes = len;
  {
    Reader s = section(1);
    if (s.u32() != 1) throw std::runtime_error("zkey is not groth16");
  }
  const Fq2 b2 = g2_b();
  {
    Reader s = section(2);
    if (s.u32() != 32 || !equals_modulus(s, FqParams::P)) throw std::runtime_error("zkey: not a BN254 key (q)");
    if (s.u32() != 32 || !equals_modulus(s, FrParams::P)) throw std::runtime_error("zkey: not a BN254 key (r)");
    key->n_vars = s.u32();
    key->n_public = s.u32();
    key->domain_size = s.u32();
    if (key->domain_size == 0 || (key->domain_size & (key->domain_size - 1)))
      throw std::runtime_error("zkey: domain size is not a power of two");
    while ((1u << key->log_domain) < key->domain_size) key->log_domain++;
    if (key->log_domain >= FR_TWO_ADICITY) throw std::runtime_error("zkey: domain too large");
    if (key->n_public + 1 > key->n_vars) throw std::runtime_error("zkey: more public inputs than variables");
    key->alpha1 = read_g1(s, "alpha1");
    key->beta1 = read_g1(s, "beta1");
    key->beta2 = read_g2(s, "beta2", b2);
    key->gamma2 = read_g2(s, "gamma2", b2);
    key->delta1 = read_g1(s, "delta1");
    key->delta2 = read_g2(s, "delta2", b2);
  }
  {
    Reader s = section(4);
    uint32_t n = s.u32();
    s.need((size_t)n * 44);
    key->coefs.resize(n);
    for (uint32_t i = 0; i < n; i++) {
      Coef& c = key->coefs[i];
      c.matrix = s.u32();
      c.constraint = s.u32();
      c.signal = s.u32();
      s.limbs(c.value.v);
      if (c.matrix > 1 || c.constraint >= key->domain_size || c.signal >= key->n_vars ||
          !Fr::is_canonical(c.value.v))
        throw std::runtime_error("zkey: coefficient " + std::to_string(i) + " out of range");
    }
  }
  // A's coefficients first, then B's, each in constraint order: threads can then take disjoint
  // constraint ranges of one matrix without sharing an output element. snarkjs writes them by
  // constraint, A's and B's interleaved: a stable partition (linear) orders those; a sort is
  // the fallback for any other order.
  bool by_constraint = true;
  uint32_t last[2] = {0, 0};
  for (const Coef& c : key->coefs) {
    if (c.constraint < last[c.matrix]) {
      by_constraint = false;
      break;
    }
    last[c.matrix] = c.constraint;
  }
  if (by_constraint)
    std::stable_partition(key->coefs.begin(), key->coefs.end(), [](const Coef& c) { return c.matrix == 0; });
  else
    std::stable_sort(key->coefs.begin(), key->coefs.end(), [](const Coef& x, const Coef& y) {
      return x.matrix != y.matrix ? x.matrix < y.matrix : x.constraint < y.constraint;
    });
  key->coefs_a = (size_t)(std::partition_point(key->coefs.begin(), key->coefs.end(),
                                               [](const Coef& c) { return c.matrix == 0; }) -
                          key->coefs.begin());
  auto g1s = [&](uint32_t type, size_t count, std::vector<G1Affine>& out, const char* what) {
    Reader s = section(type);
    if (s.len != count * 64) throw std::runtime_error(std::string("zkey: section ") + what + " has the wrong size");
    out.resize(count);
    for (size_t i = 0; i < count; i++) out[i] = read_g1(s, what);
  };
  g1s(5, key->n_vars, key->a, "A");
  g1s(6, key->n_vars, key->b1, "B1");
  {
    Reader s = section(7);
    if (s.len != (size_t)key->n_vars * 128) throw std::runtime_error("zkey: section B2 has the wrong size");
    key->b2.resize(key->n_vars);
    for (size_t i = 0; i < key->n_vars; i++) key->b2[i] = read_g2(s, "B2", b2);
  }
  g1s(8, key->n_vars - key->n_public - 1, key->c, "C");
  g1s(9, key->domain_size, key->h, "H");
  // zkgate's sections for keys imported from gnark: the quotient's coset generator, the constraint system.
  if (sections.count(100)) {
    Reader s = section(100);
    if (s.u32() != 1) throw std::runtime_error("zkey: unknown quotient convention");
    key->gnark_quotient = true;
    key->coset_shift = read_mont<FrParams>(s, "coset generator");
    if (key->coset_shift.is_zero()) throw std::runtime_error("zkey: coset generator is zero");
  }
  if (sections.count(101)) {
    auto it = sections.find(101);
    key->r1cs = parse_r1cs_section(data + it->second.first, it->second.second, key->n_vars);
    const R1csSystem& cs = *key->r1cs;
    if (cs.n_wires != key->n_vars || cs.n_public != key->n_public + 1 || cs.n_constraints > key->domain_size)
      throw std::runtime_error("zkey: the constraint system's counts differ from the key's");
  }
  prepare_domain(*key);
  return key;
}

std::unique_ptr<ZKey> parse_zkey_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size <= 0) {
    ::close(fd);
    throw std::runtime_error("cannot read " + path);
  }
  const size_t len = (size_t)st.st_size;
  // Read once, front to back: mapped whole up front (one pass over the page cache, not a fault per
  // page), except for keys beyond a few hundred MB (the structured ones), which map as they are read.
  const bool populate = len <= (size_t(512) << 20);
  void* map = mmap(nullptr, len, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) throw std::runtime_error("cannot map " + path + ": " + std::strerror(errno));
  if (!populate) madvise(map, len, MADV_SEQUENTIAL);
  try {
    auto key = parse_zkey(static_cast<const uint8_t*>(map), len);
    munmap(map, len);
    return key;
  } catch (...) {
    munmap(map, len);
    throw;
  }
}

namespace {
// ZKGATE_NATIVE_TRACE=1 prints each task's milliseconds to stderr (for profiling runs).
struct Trace {
  bool on = std::getenv("ZKGATE_NATIVE_TRACE") != nullptr;
  std::chrono::steady_clock::time_point t = std::chrono::steady_clock::now();
  double lap() {
    auto now = std::chrono::steady_clock::now();
    double ms = std::chrono::duration<double, std::milli>(now - t).count();
    t = now;
    return ms;
  }
};

/** The H scalars from A·w and B·w on the domain (C·w = their product there). */
std::vector<Scalar> h_from_evals(const ZKey& key, std::vector<Fr> (&abc)[3], Compute& compute) {
  const size_t n = key.domain_size;
  const int threads = compute.threads();
#ifdef ZK_HAVE_X8
  // On the CPU, with the eight-lane arithmetic: the whole computation in its form.
  if (!key.gnark_quotient && key.domain_x8 && x8_tables() && dynamic_cast<CpuCompute*>(&compute) != nullptr) {
    std::vector<Scalar> h(n);
    x8::h_scalars_x8(*key.domain_x8, abc[0].data(), abc[1].data(), h.data(), threads);
    return h;
  }
#endif
  parallel_for((size_t)threads, threads, [&](size_t p) {
    for (size_t i = n * p / threads; i < n * (p + 1) / threads; i++) Fr::mul(abc[2][i], abc[0][i], abc[1][i]);
  });
  // Interpolate, move to the coset g·ω^i, evaluate again. The inverse transform's 1/n is folded
  // into the coset powers.
  for (auto& v : abc) {
    compute.ntt_unscaled(v.data(), *key.domain, true);
    parallel_for((size_t)threads, threads, [&](size_t p) {
      for (size_t i = n * p / threads; i < n * (p + 1) / threads; i++) Fr::mul(v[i], v[i], key.coset_powers[i]);
    });
    compute.ntt_unscaled(v.data(), *key.domain, false);
  }
  std::vector<Scalar> h(n);
  if (key.gnark_quotient) {
    // gnark's H: (A·B − C)/Z on the coset, interpolated back to its coefficients (natural order).
    std::vector<Fr>& t = abc[2];
    parallel_for((size_t)threads, threads, [&](size_t p) {
      for (size_t i = n * p / threads; i < n * (p + 1) / threads; i++) t[i] = abc[0][i] * abc[1][i] - t[i];
    });
    compute.ntt_unscaled(t.data(), *key.domain, true);
    parallel_for((size_t)threads, threads, [&](size_t p) {
      for (size_t i = n * p / threads; i < n * (p + 1) / threads; i++) (t[i] * key.unshift[i]).to_canonical(h[i].v);
    });
    return h;
  }
  parallel_for((size_t)threads, threads, [&](size_t p) {
    for (size_t i = n * p / threads; i < n * (p + 1) / threads; i++) {
      Fr t;
      Fr::mul(t, abc[0][i], abc[1][i]);
      Fr::sub(t, t, abc[2][i]);
      t.to_canonical(h[i].v);
    }
  });
  return h;
}

/** The H scalars: A·B − C on the odd coset (see the header), from the witness. */
std::vector<Scalar> h_scalars(const ZKey& key, const Scalar* witness, Compute& compute, const Evals* evals) {
  const size_t n = key.domain_size;
  std::vector<Fr> abc[3] = {std::vector<Fr>(n, Fr::zero()), std::vector<Fr>(n, Fr::zero()),
                            std::vector<Fr>(n)};
  if (evals != nullptr) {
    const int threads = compute.threads();
    parallel_for((size_t)threads, threads, [&](size_t p) {
      for (size_t i = evals->count * p / threads; i < evals->count * (p + 1) / threads; i++) {
        abc[0][i] = Fr::from_canonical(evals->a[i].v);
        abc[1][i] = Fr::from_canonical(evals->b[i].v);
      }
    });
    return h_from_evals(key, abc, compute);
  }
  if (key.coefs.empty()) throw std::runtime_error("this key proves only with A·w and B·w given");
  // Each thread takes a run of coefficients that ends on a constraint boundary, so no two threads
  // add into the same element.
  const int threads = compute.threads();
  const size_t parts = (size_t)threads * 2;
  const size_t total = key.coefs.size();
  std::vector<size_t> cut(parts + 1);
  cut[0] = 0;
  cut[parts] = total;
  for (size_t p = 1; p < parts; p++) {
    size_t at = std::max(cut[p - 1], total * p / parts);
    while (at > cut[p - 1] && at < total && key.coefs[at].matrix == key.coefs[at - 1].matrix &&
           key.coefs[at].constraint == key.coefs[at - 1].constraint)
      at++;
    cut[p] = at;
  }
  parallel_for(parts, threads, [&](size_t p) {
    for (size_t i = cut[p]; i < cut[p + 1]; i++) {
      const Coef& c = key.coefs[i];
      // c.value holds c·R² as an integer: times the canonical witness, Montgomery gives c·w·R.
      const Scalar& ws = witness[c.signal];
      Fr w{{ws.v[0], ws.v[1], ws.v[2], ws.v[3]}};
      Fr t;
      Fr::mul(t, c.value, w);
      Fr& dst = abc[c.matrix][c.constraint];
      Fr::add(dst, dst, t);
    }
  });
  return h_from_evals(key, abc, compute);
}
}  // namespace

namespace {
/**
 * The tables that fit, in order of benefit per byte: G2 first, then H, A, C. B₁ gets none: the
 * served proofs are rerandomized (Blinding) and skip its MSM; snarkjs-blinded ones, asked for with
 * explicit r and s, run it without a table.
 */
template <class Visit>
void plan(const ZKey& key, size_t budget_bytes, Visit&& visit) {
  size_t used = 0;
  size_t b2 = FixedBaseTable<Fq2>::bytes_for(key.b2.size());
  if (used + b2 <= budget_bytes) {
    used += b2;
    visit(-1);
  }
  const std::vector<G1Affine>* g1[4] = {&key.h, &key.a, &key.b1, &key.c};
  for (int i = 0; i < 4; i++) {
    if (i == 2) continue;  // B₁
    size_t b = FixedBaseTable<Fq>::bytes_for(g1[i]->size());
    if (used + b > budget_bytes) continue;
    used += b;
    visit(i);
  }
}
}  // namespace

void plan_tables(const ZKey& key, size_t budget_bytes, bool planned[5]) {
  for (int i = 0; i < 5; i++) planned[i] = false;
  plan(key, budget_bytes, [&](int which) { planned[which + 1] = true; });
}

size_t planned_table_bytes(const ZKey& key, size_t budget_bytes) {
  size_t total = 0;
  plan(key, budget_bytes, [&](int which) {
    total += which < 0 ? FixedBaseTable<Fq2>::bytes_for(key.b2.size())
                       : FixedBaseTable<Fq>::bytes_for(
                             (which == 0 ? key.h : which == 1 ? key.a : which == 2 ? key.b1 : key.c).size());
  });
  return total;
}

size_t build_tables(ZKey& key, size_t budget_bytes, int threads) {
  size_t used = 0;
  bool ok = true;
  std::unique_ptr<FixedBaseTable<Fq>>* g1t[4] = {&key.table_h, &key.table_a, &key.table_b1, &key.table_c};
  const std::vector<G1Affine>* g1[4] = {&key.h, &key.a, &key.b1, &key.c};
  plan(key, budget_bytes, [&](int which) {
    if (!ok) return;
    if (which < 0) {
      key.table_b2 = std::make_unique<FixedBaseTable<Fq2>>();
      ok = key.table_b2->build(key.b2.data(), key.b2.size(), threads, &key.cancel_tables);
      used += key.table_b2->bytes();
    } else {
      *g1t[which] = std::make_unique<FixedBaseTable<Fq>>();
      ok = (*g1t[which])->build(g1[which]->data(), g1[which]->size(), threads, &key.cancel_tables);
      used += (*g1t[which])->bytes();
    }
  });
  if (!ok) return 0;
  key.table_bytes = used;
  key.tables_ready.store(true, std::memory_order_release);
  // Nothing planned (a budget too small): keep whatever file is there for a later, larger one.
  if (used > 0 && !key.tables_path.empty()) key.tables_saved = save_tables(key, key.tables_path);
  return used;
}

void build_tables_in_background(ZKey& key, size_t budget_bytes, int threads) {
  key.table_builder = std::thread([&key, budget_bytes, threads] { build_tables(key, budget_bytes, threads); });
}

void check_witness(const ZKey& key, const Scalar* witness, size_t n_witness) {
  if (n_witness != key.n_vars)
    throw std::runtime_error("witness has " + std::to_string(n_witness) + " values, the key " +
                             std::to_string(key.n_vars));
  for (size_t i = 0; i < n_witness; i++)
    if (!Fr::is_canonical(witness[i].v)) throw std::runtime_error("witness value out of range");
}

void check_blinding(const Scalar& r, Blinding blinding) {
  if (blinding == Blinding::rerandomized && r.is_zero()) throw std::runtime_error("rerandomized blinding needs u ≠ 0");
}

Proof prove(const ZKey& key, const Scalar* witness, size_t n_witness, const Scalar& r, const Scalar& s,
            Compute& compute, const Evals* evals, Blinding blinding) {
  check_witness(key, witness, n_witness);
  if (evals != nullptr) {
    if (evals->count > key.domain_size)
      throw std::runtime_error("more constraint evaluations (" + std::to_string(evals->count) +
                               ") than the key's domain (" + std::to_string(key.domain_size) + ")");
    for (size_t i = 0; i < evals->count; i++)
      if (!Fr::is_canonical(evals->a[i].v) || !Fr::is_canonical(evals->b[i].v))
        throw std::runtime_error("constraint evaluation out of range");
  }
  if (blinding == Blinding::snarkjs) return finish_proof(key, prove_core(key, witness, compute, evals), r, s);
  check_blinding(r, blinding);
  CoreResult core = prove_core(key, witness, compute, evals, false);
  if (std::optional<Proof> p = finish_rerandomized(key, core, r, s)) return *p;
  core.b1 = compute.msm_g1(key.b1.data(), nullptr, witness, key.n_vars);
  return finish_proof(key, core, r, s);
}

CoreResult prove_core(const ZKey& key, const Scalar* witness, Compute& compute, const Evals* evals, bool with_b1) {
  Trace trace;
  // First the H scalars (QAP evaluation and six NTTs) on every thread; then the five MSMs as
  // concurrent tasks, each with its share of the threads, longest first: every core stays busy
  // without splitting any one MSM finely.
  Trace t0;
  const std::vector<Scalar> h = h_scalars(key, witness, compute, evals);
  // Tables only once their builder has finished with them.
  const bool tables = key.tables_ready.load(std::memory_order_acquire);
  const FixedBaseTable<Fq>* t_a = tables ? key.table_a.get() : nullptr;
  const FixedBaseTable<Fq>* t_b1 = tables ? key.table_b1.get() : nullptr;
  const FixedBaseTable<Fq>* t_c = tables ? key.table_c.get() : nullptr;
  const FixedBaseTable<Fq>* t_h = tables ? key.table_h.get() : nullptr;
  const FixedBaseTable<Fq2>* t_b2 = tables ? key.table_b2.get() : nullptr;
  const double qap_ms = t0.lap();
  CoreResult out;
  out.b1 = G1::infinity();  // stays so without B₁'s task
  double ms[5] = {0, 0, 0, 0, 0};
  const char* names[5] = {"msm b2", "msm h", "msm a", "msm c", "msm b1"};
  auto job = [&](size_t task, Compute& c) {
    Trace t;
    switch (task) {
      case 0:
        out.b2 = c.msm_g2(key.b2.data(), t_b2, witness, key.n_vars);
        break;
      case 1:
        out.h = c.msm_g1(key.h.data(), t_h, h.data(), key.domain_size);
        break;
      case 2:
        out.a = c.msm_g1(key.a.data(), t_a, witness, key.n_vars);
        break;
      case 3:
        out.c = c.msm_g1(key.c.data(), t_c, witness + key.n_public + 1, key.c.size());
        break;
      case 4:
        out.b1 = c.msm_g1(key.b1.data(), t_b1, witness, key.n_vars);
        break;
    }
    ms[task] = t.lap();
  };
  const size_t tasks = with_b1 ? 5 : 4;  // B₁ is the last task
  const int concurrent = std::min((int)tasks, compute.threads());
  // A backend that cannot run tasks side by side returns no part: the tasks then run in turn.
  const bool side_by_side = concurrent > 1 && compute.part(concurrent) != nullptr;
  if (side_by_side) {
    parallel_for(tasks, concurrent, [&](size_t task) {
      // Each task gets its own Compute: they are not shared between threads.
      std::unique_ptr<Compute> mine = compute.part(concurrent);
      job(task, *mine);
    });
  } else {
    for (size_t task = 0; task < tasks; task++) job(task, compute);
  }
  if (trace.on) {
    std::fprintf(stderr, "qap+ntt %.2f ms\n", qap_ms);
    for (size_t i = 0; i < tasks; i++) std::fprintf(stderr, "%s %.2f ms\n", names[i], ms[i]);
    std::fprintf(stderr, "total %.2f ms\n", trace.lap());
  }
  return out;
}

Proof finish_proof(const ZKey& key, const CoreResult& core, const Scalar& r, const Scalar& s) {
  G1 pi_a = core.a, pib1 = core.b1, pi_c = core.c;
  G2 pi_b = core.b2;
  const G1 delta1 = G1::from_affine(key.delta1);
  G1::add_mixed(pi_a, pi_a, key.alpha1);
  G1::add(pi_a, pi_a, delta1.times(r.v));
  G2::add_mixed(pi_b, pi_b, key.beta2);
  G2::add(pi_b, pi_b, G2::from_affine(key.delta2).times(s.v));
  G1::add_mixed(pib1, pib1, key.beta1);
  G1::add(pib1, pib1, delta1.times(s.v));
  G1::add(pi_c, pi_c, core.h);
  G1::add(pi_c, pi_c, pi_a.times(s.v));
  G1::add(pi_c, pi_c, pib1.times(r.v));
  Fr rs = Fr::from_canonical(r.v) * Fr::from_canonical(s.v);
  Scalar neg_rs;
  (-rs).to_canonical(neg_rs.v);
  G1::add(pi_c, pi_c, delta1.times(neg_rs.v));
  return {pi_a.to_affine(), pi_b.to_affine(), pi_c.to_affine()};
}

std::optional<Proof> finish_rerandomized(const ZKey& key, const CoreResult& core, const Scalar& u, const Scalar& v) {
  const Fr uf = Fr::from_canonical(u.v);
  if (uf.is_zero()) return std::nullopt;
  G1 a0 = core.a;
  G1::add_mixed(a0, a0, key.alpha1);
  if (a0.is_infinity()) return std::nullopt;
  G2 b0 = core.b2;
  G2::add_mixed(b0, b0, key.beta2);
  G1 c0 = core.c;
  G1::add(c0, c0, core.h);
  Scalar u_inv;
  uf.inverse().to_canonical(u_inv.v);
  G2::add(b0, b0, G2::from_affine(key.delta2).times(v.v));
  G1::add(c0, c0, a0.times(v.v));
  return Proof{a0.times(u_inv.v).to_affine(), b0.times(u.v).to_affine(), c0.to_affine()};
}

}  // namespace zk
