// A minimal fork-join: run fn(task) for tasks 0..n-1 on up to `threads` threads (the caller's
// thread is one of them). Proofs are long enough that starting threads per call costs little.
// Threads started here work at their caller's priority (preempt.hpp), stepping aside between tasks.
#pragma once
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

#include "preempt.hpp"

namespace zk {

template <class Fn>
void parallel_for(size_t n, int threads, Fn&& fn) {
  if (threads <= 1 || n <= 1) {
    for (size_t i = 0; i < n; i++) {
      preempt_point();
      fn(i);
    }
    return;
  }
  std::atomic<size_t> next{0};
  const bool background = in_background();
  auto run = [&]() {
    InheritPriority inherit(background);
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) {
      preempt_point();
      fn(i);
    }
  };
  size_t extra = (size_t)threads - 1 < n - 1 ? (size_t)threads - 1 : n - 1;
  std::vector<std::thread> pool;
  pool.reserve(extra);
  for (size_t t = 0; t < extra; t++) pool.emplace_back(run);
  run();
  for (auto& t : pool) t.join();
}

}  // namespace zk
