// Accelerated Computes: the GPU pipeline (hd/pipeline.hpp) on a CUDA device through
// libzkgate_cuda.so, or on host threads (the "emulate" backend: every step of the GPU path, run
// where there is no GPU, so tests and `auto`'s self-check logic can exercise it). Both keep proving
// keys resident within a byte budget and prove batches in one pass.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "groth16.hpp"

namespace zk {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int sms = 0, cc_major = 0, cc_minor = 0, l2_bytes = 0, max_threads_per_block = 0;
  uint64_t total_bytes = 0, free_bytes = 0;
};

/** CUDA devices through the library, or why there are none (library missing, no driver, no GPU). */
struct CudaStatus {
  bool ok = false;
  std::string reason, library;
  std::vector<DeviceInfo> devices;
};
CudaStatus cuda_status();

/** An accelerated Compute: its batch path, plus what it holds resident. */
struct AccelCompute : Compute {
  virtual uint64_t resident_bytes() const = 0;
  virtual void forget(uint64_t key_id) = 0;
};

/** `budget_bytes` 0: 90 % of the device's free memory. Throws naming why it cannot open. */
std::unique_ptr<AccelCompute> open_cuda(int device, uint64_t budget_bytes);
std::unique_ptr<AccelCompute> open_emulated(int threads, uint64_t budget_bytes);

/**
 * A key of the given sizes with valid but meaningless points and coefficients (for self-checks and
 * for timing shapes whose real keys are too big to carry to a GPU host). Deterministic per seed.
 */
std::unique_ptr<ZKey> synthetic_key(uint32_t n_vars, uint32_t n_public, uint32_t domain, uint32_t per_row,
                                    uint64_t seed);
/** A witness of the key's size: a mix of zeros, ones, small and full-size values, like circuits'. */
std::vector<Scalar> synthetic_witness(const ZKey& key, uint64_t seed);

/**
 * The differential check `auto` runs before trusting an accelerator: a synthetic key's proof made
 * on it equals the CPU's with the same r and s, and MSMs of a few sizes agree. Empty when it
 * passes, else what differed.
 */
std::string accel_self_check(AccelCompute& accel);

}  // namespace zk
