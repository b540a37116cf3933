// The process's proving engine: which Compute proves (cpu, cuda devices, or the emulated GPU
// path), and the batcher in front of accelerators. Concurrent proof requests for the same key
// (from the pool's worker threads, or zkgate-prove's batch mode) are gathered — up to batch_max,
// waiting at most batch_wait_us after the first — and proved in one device pass; each caller then
// finishes its own proof (blinding terms, window combination) on its own thread.
#pragma once
#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "accel.hpp"

namespace zk {

struct EngineOptions {
  std::string backend = "cpu";  // cpu | cuda | emulate
  std::vector<int> devices;     // cuda: which devices (empty: all)
  uint64_t device_budget_bytes = 0;
  int batch_max = 1;
  int batch_wait_us = 0;
  int threads = 1;  // cpu: threads per proof; emulate: threads of the emulation
  bool operator==(const EngineOptions& o) const {
    return backend == o.backend && devices == o.devices && device_budget_bytes == o.device_budget_bytes &&
           batch_max == o.batch_max && batch_wait_us == o.batch_wait_us && threads == o.threads;
  }
};

struct EngineStats {
  uint64_t proofs = 0, batches = 0, largest_batch = 0, failed = 0, resident_bytes = 0;
};

class Engine {
 public:
  /** Opens the backend's devices; throws naming why it cannot (no library, no device, …). */
  explicit Engine(const EngineOptions& options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  const EngineOptions& options() const { return options_; }
  /** One proof; blocks while its batch gathers and runs. Throws for a bad witness or a failed pass. */
  Proof prove(const ZKey& key, const Scalar* witness, size_t n_witness, const Scalar& r, const Scalar& s,
              Blinding blinding = Blinding::snarkjs);
  /**
   * One proof with A·w and B·w given (keys without a coefficient section, or with gnark's
   * quotient: imported from Light's files), through the Compute interface of the backend (on an
   * accelerator its MSMs and NTTs, one proof at a time): the batched pass does not serve them.
   */
  Proof prove_evals(const ZKey& key, const Scalar* witness, size_t n_witness, const Evals& evals, const Scalar& r,
                    const Scalar& s, Blinding blinding);
  EngineStats stats() const;
  std::string describe() const;
  /** Drops a released key's resident copies (see key_released). */
  void forget(uint64_t key_id);

 private:
  struct Pending {
    const ZKey* key;
    const Scalar* witness;
    std::shared_ptr<BatchCore> core;
    size_t index = 0;
    std::string error;
    bool taken = false, done = false;
  };
  struct Group {
    std::vector<Pending*> queue;
    bool leader = false;
  };
  void lead(std::unique_lock<std::mutex>& lock, const ZKey* key);
  void run_batch(const ZKey& key, std::vector<Pending*>& batch);
  Compute& pick_compute(size_t& index);

  EngineOptions options_;
  std::unique_ptr<CpuCompute> cpu_;
  std::vector<std::unique_ptr<AccelCompute>> accel_;
  std::vector<std::unique_ptr<std::mutex>> accel_busy_;
  std::atomic<size_t> next_accel_{0};

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::map<const ZKey*, Group> groups_;
  EngineStats stats_;
};

/** The process-wide engine (the addon's workers share it): created on first configure. */
std::shared_ptr<Engine> configure_engine(const EngineOptions& options);
std::shared_ptr<Engine> current_engine();

}  // namespace zk
