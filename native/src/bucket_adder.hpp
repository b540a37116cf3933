// Affine buckets filled in place, in batches that share one field inversion: the 64-bit path's
// counterpart of the eight-lane x8::BucketAdder (msm_x8.hpp).
//
// A point goes straight from where it lives (a fixed-base table's row) into its bucket: no sort
// by bucket and no copy of the points first, which took about a quarter of a fixed-base MSM on
// CPUs without AVX-512. An addition into a bucket that already has one in the current batch waits
// for the next batch; waiting points of the same bucket are summed two by two meanwhile (into
// spare slots, in the batch like any addition), so that a crowded bucket (few buckets, or one
// window's narrow digits) is done in about log₂ rounds rather than one batch per point.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "batch_chords.hpp"
#include "curve.hpp"
#include "preempt.hpp"

namespace zk {

template <class F>
class AffineBucketAdder {
  using A = Affine<F>;
  using J = Jacobian<F>;
  // Additions per shared inversion (256 to 2048 measured alike on Zen 3): a batch's operands and
  // scratch stay within L2.
  static constexpr size_t BATCH = sizeof(A) > 64 ? 512 : 1024;
  static constexpr size_t SPARES = 2 * BATCH;
  static constexpr uint32_t NO_SPARE = ~0u;

  /** dst += sign·*p, where dst is a bucket (bucket < n) or a spare slot (bucket ≥ n). */
  struct Op {
    uint32_t dst;
    bool neg;
    const A* p;
  };
  /** A point waiting for its bucket: a table row, or a spare slot holding a pair's sum. */
  struct Waiting {
    uint32_t bucket;
    bool neg;
    uint32_t spare;  // NO_SPARE for a table row
    const A* p;
  };

 public:
  explicit AffineBucketAdder(size_t n)
      : n_(n), slots_(n + SPARES), full_(n, 0), busy_(n + SPARES, 0), partner_(n, -1) {
    free_spares_.reserve(SPARES);
    for (size_t i = SPARES; i-- > 0;) free_spares_.push_back((uint32_t)(n + i));
    ops_.reserve(BATCH);
    den_.resize(BATCH);
    prefix_.resize(BATCH);
    special_.resize(BATCH);
  }

  size_t size() const { return n_; }
  /** Whether bucket b holds a point (after flush()). */
  bool full(size_t b) const { return full_[b] != 0; }
  /** Bucket b's point (after flush()). */
  const A& bucket(size_t b) const { return slots_[b]; }

  /** Adds *p (negated when `neg`; the point at infinity is all zeros) into bucket b. */
  inline void add(uint32_t b, const A* p, bool neg) {
    if (!place({b, neg, NO_SPARE, p})) {
      waiting_.push_back({b, neg, NO_SPARE, p});
      if (waiting_.size() >= BATCH) run();
    }
    if (ops_.size() == BATCH) run();
  }

  /** Runs batches until nothing is pending. */
  void flush() {
    while (!ops_.empty() || !waiting_.empty()) run();
  }

 private:
  /** Puts the addition in the batch (or fills an empty bucket); false when b is in the batch already. */
  inline bool place(const Waiting& w) {
    if (busy_[w.bucket] == batch_) return false;
    if (w.spare != NO_SPARE) to_release_.push_back(w.spare);
    if (w.p->is_infinity()) return true;  // a base at infinity, or a pair that cancelled
    if (!full_[w.bucket]) {
      A& s = slots_[w.bucket];
      s = *w.p;
      if (w.neg) F::neg(s.y, s.y);
      full_[w.bucket] = 1;
      return true;
    }
    busy_[w.bucket] = batch_;
    ops_.push_back({w.bucket, w.neg, w.p});
    return true;
  }

  /** One batch: its additions; then the waiting points placed, or paired up, for the next. */
  void run() {
    preempt_point();
    if (!ops_.empty()) compute();
    ops_.clear();
    for (uint32_t s : to_release_) free_spares_.push_back(s);
    to_release_.clear();
    batch_++;
    retry_.swap(waiting_);
    waiting_.clear();
    for (const Waiting& w : retry_)
      if (ops_.size() >= BATCH || !place(w)) waiting_.push_back(w);
    retry_.clear();
    if (waiting_.size() >= 16 && ops_.size() < BATCH) pair_up();
  }

  /** Sums waiting points of the same bucket two by two into spare slots, as far as the batch has room. */
  void pair_up() {
    retry_.clear();
    std::vector<uint8_t>& paired = paired_;
    paired.assign(waiting_.size(), 0);
    for (size_t i = 0; i < waiting_.size(); i++) {
      const Waiting& y = waiting_[i];
      int32_t& seen = partner_[y.bucket];
      if (seen < 0) {
        seen = (int32_t)i;
        continue;
      }
      if (ops_.size() >= BATCH || free_spares_.empty()) continue;
      const Waiting& x = waiting_[(size_t)seen];
      paired[(size_t)seen] = paired[i] = 1;
      seen = -1;
      const uint32_t s = free_spares_.back();
      free_spares_.pop_back();
      // The spare starts as x (signed), and y is added to it in this batch.
      A& slot = slots_[s];
      slot = *x.p;
      if (x.neg) F::neg(slot.y, slot.y);
      if (x.spare != NO_SPARE) to_release_.push_back(x.spare);
      if (y.spare != NO_SPARE) to_release_.push_back(y.spare);
      busy_[s] = batch_;
      ops_.push_back({s, y.neg, y.p});
      retry_.push_back({x.bucket, false, s, &slots_[s]});
    }
    for (size_t i = 0; i < waiting_.size(); i++) {
      partner_[waiting_[i].bucket] = -1;
      if (!paired[i]) retry_.push_back(waiting_[i]);
    }
    waiting_.swap(retry_);
    retry_.clear();
  }

  /**
   * slots[op.dst] += ±*op.p for every op, one inversion for all (batch_chords). Operands that need
   * more than the chord rule (a spare's start at infinity, equal x: a doubling or a cancellation)
   * are rare and done one by one.
   */
  void compute() {
    const size_t k = ops_.size();
    auto chord = [&](size_t e) {
      const Op& op = ops_[e];
      A* b = &slots_[op.dst];
      return Chord<F>{b, op.p, b, op.neg};
    };
    if (batch_chords<F>(k, chord, den_.data(), prefix_.data(), special_.data()))
      for (size_t e = 0; e < k; e++)
        if (special_[e]) finish_special(ops_[e]);
  }

  void finish_special(const Op& op) {
    A& b = slots_[op.dst];
    A p = *op.p;
    if (op.neg) F::neg(p.y, p.y);
    J sum = J::from_affine(b);
    J::add_mixed(sum, sum, p);
    b = sum.to_affine();  // infinity is all zeros
    if (op.dst < n_ && b.is_infinity()) full_[op.dst] = 0;
  }

  size_t n_;
  std::vector<A> slots_;  // the n buckets, then the spares
  std::vector<uint8_t> full_;
  std::vector<uint32_t> busy_;  // the batch a slot was last put into
  std::vector<int32_t> partner_;
  uint32_t batch_ = 1;
  std::vector<Op> ops_;
  std::vector<Waiting> waiting_, retry_;
  std::vector<uint32_t> free_spares_, to_release_;
  std::vector<uint8_t> paired_;
  std::vector<F> den_, prefix_;
  std::vector<uint8_t> special_;
};

}  // namespace zk
