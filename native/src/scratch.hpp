// Reusable scratch memory for the MSMs' bucket sorting: megabytes per call, many calls per proof.
// Fresh allocations of that size come from the kernel page by page (a fault and a zeroed page per
// 4 KiB), which cost more than the additions they hold; blocks are therefore kept for the next
// call in a small process-wide free list. Contents are uninitialised; blocks are 64-byte aligned.
#pragma once
#include <cstddef>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

namespace zk {

class ScratchPool {
 public:
  static ScratchPool& instance() {
    static ScratchPool* pool = new ScratchPool();  // never destroyed: blocks may be in use at exit
    return *pool;
  }

  /** A block of at least `bytes` (the smallest kept one that fits, else a new one). */
  void* take(size_t bytes, size_t& got) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      size_t best = free_.size();
      for (size_t i = 0; i < free_.size(); i++)
        if (free_[i].bytes >= bytes && (best == free_.size() || free_[i].bytes < free_[best].bytes)) best = i;
      if (best < free_.size()) {
        Block b = free_[best];
        free_.erase(free_.begin() + (std::ptrdiff_t)best);
        kept_ -= b.bytes;
        got = b.bytes;
        return b.p;
      }
    }
    // Cache-line aligned: SIMD lanes are loaded and stored whole.
    const size_t rounded = (bytes + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, rounded);
    if (!p) throw std::bad_alloc();
    got = rounded;
    return p;
  }

  /** Returns a block; the largest kept blocks stay within the cap, the rest are freed. */
  void give(void* p, size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back({p, bytes});
    kept_ += bytes;
    while (kept_ > CAP_BYTES || free_.size() > CAP_BLOCKS) {
      size_t smallest = 0;
      for (size_t i = 1; i < free_.size(); i++)
        if (free_[i].bytes < free_[smallest].bytes) smallest = i;
      kept_ -= free_[smallest].bytes;
      std::free(free_[smallest].p);
      free_.erase(free_.begin() + (std::ptrdiff_t)smallest);
    }
  }

  size_t kept_bytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return kept_;
  }

 private:
  static constexpr size_t CAP_BYTES = size_t(96) << 20;
  static constexpr size_t CAP_BLOCKS = 16;
  struct Block {
    void* p;
    size_t bytes;
  };
  std::mutex mutex_;
  std::vector<Block> free_;
  size_t kept_ = 0;
};

/** n uninitialised T (trivially copyable) from the pool, returned when this goes out of scope. */
template <class T>
class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() { release(); }

  /** Room for at least n elements; earlier contents are not kept. */
  T* reserve(size_t n) {
    if (n * sizeof(T) <= bytes_) return p_;
    release();
    p_ = static_cast<T*>(ScratchPool::instance().take(n * sizeof(T), bytes_));
    return p_;
  }
  T* data() const { return p_; }

 private:
  void release() {
    if (p_) ScratchPool::instance().give(p_, bytes_);
    p_ = nullptr;
    bytes_ = 0;
  }
  T* p_ = nullptr;
  size_t bytes_ = 0;
};

/** n uninitialised T (trivially copyable), 64-byte aligned, owned (freed, not pooled: long-lived). */
template <class T>
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer() { release(); }

  /** Room for exactly n elements (earlier contents gone). */
  T* reserve(size_t n) {
    release();
    const size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
    p_ = static_cast<T*>(std::aligned_alloc(64, bytes > 0 ? bytes : 64));
    if (!p_) throw std::bad_alloc();
    return p_;
  }
  void release() {
    std::free(p_);
    p_ = nullptr;
  }
  T* data() const { return p_; }

 private:
  T* p_ = nullptr;
};

}  // namespace zk
