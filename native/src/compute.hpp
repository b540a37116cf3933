// What a Groth16 prover needs from hardware: MSMs over G1 and G2 and NTTs over Fr. The CPU
// implementation is here; a CUDA implementation provides the same interface. An MSM may be given
// the bases' precomputed table (kept with a proving key); an implementation may ignore it.
#pragma once
#include <algorithm>
#include <memory>

#include "msm.hpp"
#include "ntt.hpp"

namespace zk {

struct ZKey;

/** A proof's five MSM results before the blinding terms: what an accelerator computes. */
struct CoreResult {
  G1 a, b1, c, h;
  G2 b2;
};

/** What one batched pass returns; each proof's thread takes its own result out (the host-side combining is spread over them). */
struct BatchCore {
  virtual ~BatchCore() = default;
  virtual CoreResult take(size_t proof) const = 0;
};

struct Compute {
  virtual ~Compute() = default;
  virtual const char* name() const = 0;
  virtual G1 msm_g1(const G1Affine* bases, const FixedBaseTable<Fq>* table, const Scalar* scalars, size_t n) = 0;
  virtual G2 msm_g2(const G2Affine* bases, const FixedBaseTable<Fq2>* table, const Scalar* scalars, size_t n) = 0;
  virtual void ntt(Fr* data, const Domain& domain, bool inverse) = 0;
  /** A transform whose inverse leaves out its 1/n (callers fold it in). */
  virtual void ntt_unscaled(Fr* data, const Domain& domain, bool inverse) = 0;
  virtual int threads() const = 0;
  /**
   * A Compute for one of `tasks` concurrent tasks of a proof (the CPU shares its threads out);
   * nullptr when tasks should run one after the other on this one.
   */
  virtual std::unique_ptr<Compute> part(int tasks) = 0;
  /**
   * The cores of `count` proofs of one key in one pass (witnesses already checked), or nullptr
   * when this Compute has no batched path (callers then prove one at a time).
   */
  virtual std::shared_ptr<BatchCore> prove_core_batch(const ZKey& key, const Scalar* const* witnesses, size_t count) {
    return nullptr;
  }
};

struct CpuCompute final : Compute {
  int n_threads;
  explicit CpuCompute(int t) : n_threads(t < 1 ? 1 : t) {}
  const char* name() const override { return "cpu"; }
  G1 msm_g1(const G1Affine* bases, const FixedBaseTable<Fq>* table, const Scalar* scalars, size_t n) override {
    return table ? msm_fixed(*table, bases, scalars, n, n_threads) : msm(bases, scalars, n, n_threads);
  }
  G2 msm_g2(const G2Affine* bases, const FixedBaseTable<Fq2>* table, const Scalar* scalars, size_t n) override {
    return table ? msm_fixed(*table, bases, scalars, n, n_threads) : msm(bases, scalars, n, n_threads);
  }
  void ntt(Fr* data, const Domain& domain, bool inverse) override { zk::ntt(data, domain, inverse, n_threads); }
  void ntt_unscaled(Fr* data, const Domain& domain, bool inverse) override {
    zk::ntt(data, domain, inverse, n_threads, false);
  }
  int threads() const override { return n_threads; }
  std::unique_ptr<Compute> part(int tasks) override {
    return std::make_unique<CpuCompute>(std::max(1, n_threads / std::max(1, tasks)));
  }
};

}  // namespace zk
