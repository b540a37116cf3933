// What a Groth16 prover needs from hardware: MSMs over G1 and G2 and NTTs over Fr. The CPU
// implementation is here; a CUDA implementation provides the same interface.
#pragma once
#include "msm.hpp"
#include "ntt.hpp"

namespace zk {

struct Compute {
  virtual ~Compute() = default;
  virtual const char* name() const = 0;
  virtual G1 msm_g1(const G1Affine* bases, const Scalar* scalars, size_t n) = 0;
  virtual G2 msm_g2(const G2Affine* bases, const Scalar* scalars, size_t n) = 0;
  virtual void ntt(Fr* data, const Domain& domain, bool inverse) = 0;
};

struct CpuCompute final : Compute {
  int threads;
  explicit CpuCompute(int t) : threads(t < 1 ? 1 : t) {}
  const char* name() const override { return "cpu"; }
  G1 msm_g1(const G1Affine* bases, const Scalar* scalars, size_t n) override {
    return msm(bases, scalars, n, threads);
  }
  G2 msm_g2(const G2Affine* bases, const Scalar* scalars, size_t n) override {
    return msm(bases, scalars, n, threads);
  }
  void ntt(Fr* data, const Domain& domain, bool inverse) override { zk::ntt(data, domain, inverse, threads); }
};

}  // namespace zk
