// Groth16 proving from a snarkjs .zkey and a circom witness, following snarkjs's conventions so
// proofs verify with the key's verification key: A and B evaluated on the domain from the key's
// coefficient section, C = A·B there; each interpolated, shifted to the odd coset (ω of twice the
// domain size) and evaluated again; the H scalars are A·B − C on that coset, whose points the key's
// H section holds.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <optional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <string>
#include <vector>

#include "compute.hpp"
#include "r1cs_solver.hpp"

namespace zk {

namespace x8 {
struct DomainX8;
}

/** Tells accelerators holding a copy of key `id` that it is gone (defined in engine.cpp). */
void key_released(uint64_t id);

struct Coef {
  uint32_t matrix, constraint, signal;
  Fr value;  // Montgomery form of coefficient × R (snarkjs stores c·R² as an integer)
};

struct ZKey {
  /** Unique for the process's life: what accelerators key their resident copies by. */
  const uint64_t id = next_key_id();
  static uint64_t next_key_id() {
    static std::atomic<uint64_t> counter{1};
    return counter.fetch_add(1);
  }
  uint32_t n_vars = 0, n_public = 0, domain_size = 0;
  int log_domain = 0;
  G1Affine alpha1, beta1, delta1;
  G2Affine beta2, gamma2, delta2;
  std::vector<Coef> coefs;  // grouped: matrix A then B, each ordered by constraint
  size_t coefs_a = 0;       // how many belong to A
  std::vector<G1Affine> a, b1, c, h;
  std::vector<G2Affine> b2;
  // Precomputed tables of the fixed bases (none for those the memory budget left no room for).
  // They may be built in the background after loading: provers use them once `tables_ready`.
  std::unique_ptr<FixedBaseTable<Fq>> table_a, table_b1, table_c, table_h;
  std::unique_ptr<FixedBaseTable<Fq2>> table_b2;
  size_t table_bytes = 0;
  std::atomic<bool> tables_ready{false}, cancel_tables{false};
  /** The tables came from their file (mapped), not built here. */
  bool tables_from_file = false;
  /** Where built tables are saved for the next start (empty: not saved); whether that worked. */
  std::string tables_path;
  std::atomic<bool> tables_saved{false};
  std::thread table_builder;
  std::mutex builder_mutex;  // joins may come from several threads (keys are shared by workers)
  std::condition_variable tables_settled;
  bool tables_pending = false;

  /**
   * Set while the loader decides where the tables come from (their file, or a build about to
   * start): a key shared with other threads is visible to them before that is settled.
   */
  void begin_tables() {
    std::lock_guard<std::mutex> lock(builder_mutex);
    tables_pending = true;
  }
  void end_tables() {
    {
      std::lock_guard<std::mutex> lock(builder_mutex);
      tables_pending = false;
    }
    tables_settled.notify_all();
  }

  /** Waits for the tables' load or background build; true when the tables are ready. */
  bool wait_tables() {
    std::unique_lock<std::mutex> lock(builder_mutex);
    tables_settled.wait(lock, [this] { return !tables_pending; });
    if (table_builder.joinable()) table_builder.join();
    return tables_ready.load();
  }

  ZKey() = default;
  ZKey(const ZKey&) = delete;
  ZKey& operator=(const ZKey&) = delete;
  ~ZKey() {
    cancel_tables = true;
    {
      std::lock_guard<std::mutex> lock(builder_mutex);
      if (table_builder.joinable()) table_builder.join();
    }
    key_released(id);
  }
  std::unique_ptr<Domain> domain, coset_domain;
  Fr coset_shift;               // ω of order 2 × domain size (gnark's quotient: its coset generator)
  std::vector<Fr> coset_powers;  // shift^i / domain size
  /**
   * gnark's quotient (keys imported from Light's files, zkey section 100): H's coefficients, not
   * its values on a coset, go into the MSM (section 9 holds [τ^i·Z(τ)/δ]₁); unshift[i] =
   * g^−i / (n·(gⁿ − 1)) takes the coset values back to them.
   */
  bool gnark_quotient = false;
  std::vector<Fr> unshift;
  /** The constraint system (section 101): such a key proves from the circuit's inputs alone. */
  std::unique_ptr<R1csSystem> r1cs;
  /** The domain's constants for the eight-lane transforms (ntt_x8.hpp), where the CPU has them. */
  std::shared_ptr<const x8::DomainX8> domain_x8;
  size_t bytes = 0;
};

struct Proof {
  G1Affine a;
  G2Affine b;
  G1Affine c;
};

/** The key's domain, coset shift and coset powers (÷ n) from its log_domain and domain_size. */
void prepare_domain(ZKey& key);

/** Parses a Groth16 .zkey (snarkjs binary format); throws std::runtime_error naming the problem. */
std::unique_ptr<ZKey> parse_zkey(const uint8_t* data, size_t len);

/** The same from a file, mapped rather than read (keys of several GB). */
std::unique_ptr<ZKey> parse_zkey_file(const std::string& path);

/**
 * A · w and B · w per constraint row (canonical scalars, `count` ≤ the domain size, the rest zero),
 * given with the witness by callers that compute them while building it. Keys without a coefficient
 * section (zkgate's structured circuits) prove only this way.
 */
struct Evals {
  const Scalar* a = nullptr;
  const Scalar* b = nullptr;
  size_t count = 0;
};

/**
 * Builds fixed-base tables for the key's MSMs while they fit in `budget_bytes` (G2 first: its
 * table saves the most time per byte), then marks them ready. Stops early (tables unused) when the
 * key is being destroyed. Returns the bytes used.
 */
size_t build_tables(ZKey& key, size_t budget_bytes, int threads);

/** What build_tables would use under this budget. */
size_t planned_table_bytes(const ZKey& key, size_t budget_bytes);

/** Which tables fit the budget, by slot: b2, h, a, b1, c. */
void plan_tables(const ZKey& key, size_t budget_bytes, bool planned[5]);

enum class TableLoad { loaded, absent, invalid };

/**
 * The key's tables from their file at `path` (mapped), when it holds exactly the tables this
 * budget plans, for this key, whole and unchanged (see table_file.cpp); otherwise nothing is used.
 */
TableLoad load_tables(ZKey& key, const std::string& path, size_t budget_bytes);

/** Writes the key's ready tables to `path` (a temporary file, synced, then renamed). */
bool save_tables(const ZKey& key, const std::string& path);

/** Starts build_tables on a thread of its own; the key proves without tables until it is done. */
void build_tables_in_background(ZKey& key, size_t budget_bytes, int threads);

/**
 * How a proof is blinded. Both give proofs distributed alike (uniform among the statement's valid
 * proofs); they differ in cost and in what a caller can reproduce.
 *  - `snarkjs`: r·δ in A, s·δ in B, and their terms in C, exactly as snarkjs blinds; given r and s
 *    the proof is byte-equal to snarkjs'. C's r·B₁ term needs the B₁ MSM.
 *  - `rerandomized`: the unblinded proof (A₀, B₀, C₀) rerandomized with u ≠ 0 and v:
 *    A = A₀/u, B = u·(B₀ + v·δ₂), C = C₀ + v·A₀. e(A, B) = e(A₀, B₀)·e(v·A₀, δ₂), so the proof
 *    verifies; A is uniform (u) and B uniform given A (v), as in snarkjs' blinding. No B₁ MSM:
 *    about a tenth of a proof's work.
 */
enum class Blinding { snarkjs, rerandomized };

/**
 * Proves with a witness of n_vars canonical scalars (the .wtns section-2 layout: 32-byte little-
 * endian each). `r` and `s` are the blinding scalars (canonical; for `rerandomized`, u and v);
 * callers pass fresh random ones.
 */
Proof prove(const ZKey& key, const Scalar* witness, size_t n_witness, const Scalar& r, const Scalar& s,
            Compute& compute, const Evals* evals = nullptr, Blinding blinding = Blinding::snarkjs);

/** Throws std::runtime_error when the blinding scalars do not suit the blinding (u = 0 for rerandomized). */
void check_blinding(const Scalar& r, Blinding blinding);

/** Throws std::runtime_error naming what is wrong with a witness for this key. */
void check_witness(const ZKey& key, const Scalar* witness, size_t n_witness);

/**
 * The MSMs of one proof on `compute` (QAP, NTTs and MSMs; the witness already checked); B₁ only
 * when `with_b1` (snarkjs' blinding needs it, rerandomization does not).
 */
CoreResult prove_core(const ZKey& key, const Scalar* witness, Compute& compute, const Evals* evals = nullptr,
                      bool with_b1 = true);

/** The proof from its core and the blinding scalars (host work, the same for every backend). */
Proof finish_proof(const ZKey& key, const CoreResult& core, const Scalar& r, const Scalar& s);

/**
 * The rerandomized proof from a core (B₁ unused) and u, v (see Blinding); nullopt when u = 0 or
 * A₀ is the point at infinity (probability about 2⁻²⁵⁴), where callers blind as snarkjs does.
 */
std::optional<Proof> finish_rerandomized(const ZKey& key, const CoreResult& core, const Scalar& u, const Scalar& v);

}  // namespace zk
