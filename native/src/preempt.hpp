// Client proofs preempt background proofs (the forester's batch proofs): while any client proof is
// in the prover, a thread working on a background proof waits at its next preemption point, so a
// client's proof gets every core, not what the OS scheduler shares out (on two cores a one-thread
// batch proof beside a two-thread client proof took a third of its cores and stretched it 1.5–2.4×).
// Lowering the background thread's OS priority instead starved it whenever anything else kept the
// cores busy, and the forester's queues then filled; here it waits only for client proofs.
//
// A background proof that has waited kMaxPause without a break in client proofs runs a slice of
// kSlice anyway: clients' transactions need the forester to drain its queues, so it must progress
// under a steady stream of client proofs too (at least kSlice / (kMaxPause + kSlice) of a thread).
//
// Preemption points are where a thread finishes a unit of work of at most a few milliseconds (a
// batch of bucket additions, an NTT stage on a block, a chunk of a loop), so the wait a client proof
// sees for a background thread to step aside is about that long.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace zk {

namespace preempt_detail {
inline std::atomic<int> clients{0};
inline std::mutex mutex;
inline std::condition_variable resumed;
inline std::atomic<uint64_t> pauses{0}, paused_us{0}, slices{0};
inline thread_local bool background = false;
inline thread_local std::chrono::steady_clock::time_point slice_until{};
constexpr std::chrono::milliseconds kMaxPause{1000}, kSlice{250};

inline void wait_for_clients() {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  if (start < slice_until) return;
  std::unique_lock<std::mutex> lock(mutex);
  const bool clear = resumed.wait_until(lock, start + kMaxPause, [] { return clients.load() == 0; });
  lock.unlock();
  const auto end = clock::now();
  pauses.fetch_add(1, std::memory_order_relaxed);
  paused_us.fetch_add((uint64_t)std::chrono::duration_cast<std::chrono::microseconds>(end - start).count(),
                      std::memory_order_relaxed);
  if (!clear) {
    slices.fetch_add(1, std::memory_order_relaxed);
    slice_until = end + kSlice;
  }
}
}  // namespace preempt_detail

/** Where a background proof's thread steps aside while client proofs run (a relaxed load otherwise). */
inline void preempt_point() {
  if (preempt_detail::background && preempt_detail::clients.load(std::memory_order_relaxed) != 0)
    preempt_detail::wait_for_clients();
}

/** Whether this thread works on a background proof (threads started for it inherit this). */
inline bool in_background() { return preempt_detail::background; }

/** For a proof's duration on this thread: it is a client's (the default) or a background one. */
class ProofPriority {
 public:
  explicit ProofPriority(bool background) : background_(background), was_(preempt_detail::background) {
    preempt_detail::background = background;
    if (!background) preempt_detail::clients.fetch_add(1);
  }
  ~ProofPriority() {
    preempt_detail::background = was_;
    if (background_) return;
    // Under the mutex, so a background thread between its check and its wait cannot miss this.
    std::lock_guard<std::mutex> lock(preempt_detail::mutex);
    if (preempt_detail::clients.fetch_sub(1) == 1) preempt_detail::resumed.notify_all();
  }
  ProofPriority(const ProofPriority&) = delete;
  ProofPriority& operator=(const ProofPriority&) = delete;

 private:
  bool background_, was_;
};

/** Sets a spawned thread's background flag to its parent's (parallel_for's workers). */
class InheritPriority {
 public:
  explicit InheritPriority(bool background) : was_(preempt_detail::background) {
    preempt_detail::background = background;
  }
  ~InheritPriority() { preempt_detail::background = was_; }

 private:
  bool was_;
};

struct PreemptStats {
  uint64_t pauses, paused_us, slices;
  int clients;
};
inline PreemptStats preempt_stats() {
  return {preempt_detail::pauses.load(), preempt_detail::paused_us.load(), preempt_detail::slices.load(),
          preempt_detail::clients.load()};
}

}  // namespace zk
