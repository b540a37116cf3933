// Keys resident on an executor (a GPU, or host memory for the emulation), least recently used
// evicted first when a new one would not fit the byte budget: device memory is accounted as the
// host's --prover-memory-mb is.
#pragma once
#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "pipeline.hpp"

namespace zk::hd {

template <class X>
class Residency {
 public:
  explicit Residency(uint64_t budget_bytes) : budget_(budget_bytes) {}

  /** The key's resident copy, uploading it (and evicting others) when absent. Caller holds X. */
  const KeyResident<X>& get(X& x, const KeyView& view) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = keys_.find(view.id);
    if (it != keys_.end()) {
      order_.splice(order_.end(), order_, it->second.pos);
      return it->second.key;
    }
    const uint64_t need = resident_bytes(view);
    if (need > budget_)
      throw std::runtime_error("the key needs " + std::to_string(need >> 20) + " MiB of device memory, the budget is " +
                               std::to_string(budget_ >> 20) + " MiB (--prover-device-memory-mb)");
    while (used_ + need > budget_ && !order_.empty()) evict(order_.front());
    Entry e{upload_key(x, view), order_.insert(order_.end(), view.id)};
    used_ += e.key.bytes;
    return keys_.emplace(view.id, std::move(e)).first->second.key;
  }

  void forget(uint64_t id) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (keys_.count(id)) evict(id);
  }

  uint64_t used() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return used_;
  }
  uint64_t budget() const { return budget_; }

 private:
  struct Entry {
    KeyResident<X> key;
    std::list<uint64_t>::iterator pos;
  };
  void evict(uint64_t id) {
    auto it = keys_.find(id);
    used_ -= it->second.key.bytes;
    order_.erase(it->second.pos);
    keys_.erase(it);
  }
  const uint64_t budget_;
  uint64_t used_ = 0;
  std::map<uint64_t, Entry> keys_;
  std::list<uint64_t> order_;  // front: least recently used
  mutable std::mutex mutex_;
};

}  // namespace zk::hd
