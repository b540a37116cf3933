// Bucket accumulation for the fixed-base MSMs, eight affine additions at a time (field_x8.hpp).
//
// Points arrive one by one with their bucket. A point whose bucket is empty is copied in; one
// whose bucket holds the same x (the same point: a doubling, or its negation: the bucket empties)
// is settled at once on the scalar path, which is rare; every other joins the pending batch,
// unless its bucket already waits there (then it waits for the next batch). A full batch runs as
// affine additions whose denominators share one field inversion (Montgomery's trick): a forward
// pass over groups of eight lanes builds each lane's running product of denominators, the eight
// lanes' products are inverted together on the scalar path, and a backward pass finishes every
// addition and writes the buckets.
//
// Points and buckets are rows in the table's packed form (field_x8.hpp): one row of 64 bytes for
// G1, two for G2. Eight rows are transposed in registers into five-limb lanes.
#pragma once
#include "field_x8.hpp"

#ifdef ZK_HAVE_X8
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "curve.hpp"
#include "preempt.hpp"
#include "scratch.hpp"

namespace zk::x8 {

/** x·2^256 (the zkey's Montgomery form) → x·2^260 (the packed form): times 16 mod p. */
inline Fq fq_to_packed(const Fq& v) {
  Fq t = v;
  for (int i = 0; i < 4; i++) Fq::add(t, t, t);
  return t;
}

/** The packed form back to the zkey's: times 16⁻¹ mod p (a Montgomery product with 16⁻¹·2^256). */
inline Fq fq_from_packed(const Fq& w) {
  static const Fq inv16 = Fq::from_u64(16).inverse();
  Fq r;
  Fq::mul(r, w, inv16);
  return r;
}

inline Fq2 to_packed(const Fq2& v) { return {fq_to_packed(v.c0), fq_to_packed(v.c1)}; }
inline Fq to_packed(const Fq& v) { return fq_to_packed(v); }
inline Fq2 from_packed(const Fq2& v) { return {fq_from_packed(v.c0), fq_from_packed(v.c1)}; }
inline Fq from_packed(const Fq& v) { return fq_from_packed(v); }

template <class F>
Affine<F> point_to_packed(const Affine<F>& p) {
  if (p.is_infinity()) return p;
  return {to_packed(p.x), to_packed(p.y)};
}
template <class F>
Affine<F> point_from_packed(const Affine<F>& p) {
  if (p.is_infinity()) return p;
  return {from_packed(p.x), from_packed(p.y)};
}

/**
 * Inverses of eight packed values at once (none zero): one field inversion for the eight. The
 * packed value w of x read as the zkey's form is 16x; its inverse there is (16x)⁻¹, whose form is
 * x⁻¹·2^252, which times 2^8 is x⁻¹'s packed form.
 */
template <class F>
void invert_packed8(F (&v)[8]) {
  F prefix[8], acc = F::one();
  for (int k = 0; k < 8; k++) {
    prefix[k] = acc;
    acc = acc * v[k];
  }
  F inv = acc.inverse();
  for (int k = 8; k-- > 0;) {
    F out = inv * prefix[k];
    inv = inv * v[k];
    for (int i = 0; i < 8; i++) F::add(out, out, out);
    v[k] = out;
  }
}

/** How one group's rows become lanes and back: G1 (one 64-byte row per point). */
struct G1Rows {
  using S = Fq;  // the scalar field type of a coordinate
  using E = F8<FqParams>;
  static constexpr int WORDS = 8;
  /** Products are below this many p (an addition's x3 and y3 then below 4p). */
  static constexpr int PRODUCT_BOUND = 2;

  static ZK_INLINE void load(const u64* const (&rows)[8], E& x, E& y) {
    V r[8];
    for (int k = 0; k < 8; k++) r[k] = _mm512_loadu_si512(rows[k]);
    transpose8(r);
    x = unpack<E>(r[0], r[1], r[2], r[3]);
    y = unpack<E>(r[4], r[5], r[6], r[7]);
  }
  static ZK_INLINE void store(u64* const (&rows)[8], const E& x, const E& y) {
    V r[8];
    pack(x, r[0], r[1], r[2], r[3]);
    pack(y, r[4], r[5], r[6], r[7]);
    transpose8(r);
    for (int k = 0; k < 8; k++) _mm512_storeu_si512(rows[k], r[k]);
  }
  static ZK_INLINE E mul(const E& a, const E& b) { return E::mul(a, b); }
  static ZK_INLINE E sqr(const E& a) { return E::mul(a, a); }
  template <int K>
  static ZK_INLINE E sub(const E& a, const E& b) {
    return E::template sub<K>(a, b);
  }
  template <int K>
  static ZK_INLINE E canonical(const E& a) {
    return E::template canonical<K>(a);
  }
  static ZK_INLINE E neg_where(const E& a, __mmask8 m) { return E::neg_where(a, m); }
  /** Packed values of the eight lanes (canonical inputs). */
  static void extract(const E& a, S (&out)[8]) {
    alignas(64) u64 w[4][8];
    V v[4];
    pack(a, v[0], v[1], v[2], v[3]);
    for (int i = 0; i < 4; i++) _mm512_store_si512(w[i], v[i]);
    for (int k = 0; k < 8; k++) out[k] = Fq{{w[0][k], w[1][k], w[2][k], w[3][k]}};
  }
  static E insert(const S (&in)[8]) {
    alignas(64) u64 w[4][8];
    for (int k = 0; k < 8; k++)
      for (int i = 0; i < 4; i++) w[i][k] = in[k].v[i];
    return unpack<E>(_mm512_load_si512(w[0]), _mm512_load_si512(w[1]), _mm512_load_si512(w[2]),
                     _mm512_load_si512(w[3]));
  }
};

/** G2: two 64-byte rows per point (x.c0 x.c1 | y.c0 y.c1, four limbs each). */
struct G2Rows {
  using S = Fq2;
  using E = Fq2x8;
  using B = F8<FqParams>;
  static constexpr int WORDS = 16;
  /** Products' components are below this many p (an addition's x3 and y3 then below 8p). */
  static constexpr int PRODUCT_BOUND = 4;

  static ZK_INLINE void load(const u64* const (&rows)[8], E& x, E& y) {
    V r[8], s[8];
    for (int k = 0; k < 8; k++) {
      r[k] = _mm512_loadu_si512(rows[k]);
      s[k] = _mm512_loadu_si512(rows[k] + 8);
    }
    transpose8(r);
    transpose8(s);
    x.c0 = unpack<B>(r[0], r[1], r[2], r[3]);
    x.c1 = unpack<B>(r[4], r[5], r[6], r[7]);
    y.c0 = unpack<B>(s[0], s[1], s[2], s[3]);
    y.c1 = unpack<B>(s[4], s[5], s[6], s[7]);
  }
  static ZK_INLINE void store(u64* const (&rows)[8], const E& x, const E& y) {
    V r[8], s[8];
    pack(x.c0, r[0], r[1], r[2], r[3]);
    pack(x.c1, r[4], r[5], r[6], r[7]);
    pack(y.c0, s[0], s[1], s[2], s[3]);
    pack(y.c1, s[4], s[5], s[6], s[7]);
    transpose8(r);
    transpose8(s);
    for (int k = 0; k < 8; k++) {
      _mm512_storeu_si512(rows[k], r[k]);
      _mm512_storeu_si512(rows[k] + 8, s[k]);
    }
  }
  static ZK_INLINE E mul(const E& a, const E& b) { return E::mul(a, b); }
  static ZK_INLINE E sqr(const E& a) { return E::sqr(a); }
  template <int K>
  static ZK_INLINE E sub(const E& a, const E& b) {
    return E::template sub<K>(a, b);
  }
  template <int K>
  static ZK_INLINE E canonical(const E& a) {
    return E::template canonical<K>(a);
  }
  static ZK_INLINE E neg_where(const E& a, __mmask8 m) { return E::neg_where(a, m); }
  static void extract(const E& a, S (&out)[8]) {
    Fq c0[8], c1[8];
    G1Rows::extract(a.c0, c0);
    G1Rows::extract(a.c1, c1);
    for (int k = 0; k < 8; k++) out[k] = {c0[k], c1[k]};
  }
  static E insert(const S (&in)[8]) {
    Fq c0[8], c1[8];
    for (int k = 0; k < 8; k++) {
      c0[k] = in[k].c0;
      c1[k] = in[k].c1;
    }
    return {G1Rows::insert(c0), G1Rows::insert(c1)};
  }
};

template <class F>
struct RowsOf;
template <>
struct RowsOf<Fq> {
  using T = G1Rows;
};
template <>
struct RowsOf<Fq2> {
  using T = G2Rows;
};

/**
 * Buckets 0..n−1 of packed affine points, filled by add(); flush() completes what is pending.
 * Not shared between threads.
 *
 * Adding touches no point: an empty bucket just notes the point (a reference, its sign in the
 * low bit), a full one joins the batch, one already in the batch makes the point wait for the
 * next. The batch reads the points when it runs. Where many points wait for the same few buckets
 * (the top window's digits span a few bits only, so its points crowd into a few buckets),
 * waiting points of one bucket are first summed in pairs into spare rows, additions that join
 * the batch too, so that batches stay full and the crowd halves with each.
 *
 * An addition whose operands share x (one point twice, or a point and its negation: both rare)
 * is found in the batch by its zero denominator, kept out of the shared product, and finished on
 * the scalar path. The point at infinity, which only a cancellation makes, is a row of zeros.
 */
template <class F>
class BucketAdder {
  using R = typename RowsOf<F>::T;
  using E = typename R::E;
  using A = Affine<F>;
  static constexpr int W = R::WORDS;
  // Additions per shared inversion; a batch's lanes (six per group) stay within L2.
  static constexpr size_t BATCH = W == 8 ? 2048 : 1024;
  static constexpr size_t GROUPS = BATCH / 8;
  static constexpr size_t SPARE = 2 * BATCH;  // rows for pair sums
  static constexpr int32_t NO_SPARE = -1;
  static constexpr uint32_t NO_BUCKET = ~0u;

  // A bucket's slot: its state in the low two bits, above them the number of the batch that last
  // took an addition into it (so a bucket is in the batch exactly when that number is the
  // current one, and nothing needs resetting after a batch).
  enum : uint32_t { EMPTY = 0, NOTED = 1, FULL = 2 };

  /** A point on its way into a bucket: a table row, or a spare row holding a pair's sum. */
  struct Waiting {
    uint32_t bucket;
    bool neg;
    int32_t spare;
    const u64* point;
  };
  /** dst = ±a + ±b (a sign in each address's low bit: rows are 64-byte aligned). */
  struct Op {
    u64* dst;
    uintptr_t a, b;
    uint32_t bucket;  // dst's, or NO_BUCKET (a spare)
  };
  static uintptr_t tag(const u64* p, bool neg) { return reinterpret_cast<uintptr_t>(p) | (neg ? 1 : 0); }
  static const u64* untag(uintptr_t t) { return reinterpret_cast<const u64*>(t & ~uintptr_t(1)); }

 public:
  explicit BucketAdder(size_t n) : n_(n), slot_(n, EMPTY), noted_(n), partner_(n, -1), paired_(4 * BATCH, 0) {
    // The buckets, then the spare rows, then the dummy operands of padding lanes.
    rows_ = rows_buf_.reserve((n + SPARE + 2) * W);
    spare_rows_ = rows_ + n * W;
    dummy_a_ = spare_rows_ + SPARE * W;
    dummy_b_ = dummy_a_ + W;
    const A g = generator();
    Jacobian<F> g2 = Jacobian<F>::from_affine(g);
    Jacobian<F>::dbl(g2, g2);
    two_g_ = point_to_packed(g2.to_affine());
    const A gp = point_to_packed(g);
    std::memcpy(dummy_b_, &gp, sizeof(A));
    free_spares_.reserve(SPARE);
    for (size_t i = SPARE; i-- > 0;) free_spares_.push_back((int32_t)i);
    ops_.reserve(BATCH);
    waiting_.reserve(2 * BATCH);
    lanes_ = lanes_buf_.reserve(GROUPS * 6);
  }

  size_t size() const { return n_; }
  /** Whether bucket b holds a point (after flush()). */
  bool full(size_t b) const { return (slot_[b] & 3) == FULL; }
  /** Bucket b's row, packed (valid after flush(), while this lives). */
  const u64* row(size_t b) const { return rows_ + b * W; }
  /** Bucket b in the zkey's form (after flush()). */
  A bucket(size_t b) const {
    A p;
    std::memcpy(&p, row(b), sizeof(A));
    return point_from_packed(p);
  }

  /** Adds the packed point at `point` (negated when `neg`) into bucket b. */
  ZK_INLINE void add(uint32_t b, const u64* point, bool neg) {
    if (!place({b, neg, NO_SPARE, point})) {
      waiting_.push_back({b, neg, NO_SPARE, point});
      if (waiting_.size() >= BATCH) run();
    }
    if (ops_.size() == BATCH) run();
  }

  /** Runs batches until nothing is pending; noted points are copied into their buckets. */
  void flush() {
    while (!ops_.empty() || !waiting_.empty()) run();
    for (size_t b = 0; b < n_; b++) {
      if ((slot_[b] & 3) != NOTED) continue;
      copy_point(rows_ + b * W, untag(noted_[b]), noted_[b] & 1);
      slot_[b] = FULL;
    }
  }

 private:
  static A generator() {
    if constexpr (std::is_same<F, Fq>::value)
      return g1_generator();
    else
      return g2_generator();
  }

  u64* spare_row(int32_t s) { return spare_rows_ + (size_t)s * W; }
  void release(int32_t s) {
    if (s != NO_SPARE) free_spares_.push_back(s);
  }
  static bool is_infinity_row(const u64* row) {
    for (int i = 0; i < W; i++)
      if (row[i] != 0) return false;
    return true;
  }

  /** Notes the point, or puts its addition in the batch; false when its bucket is in the batch. */
  ZK_INLINE bool place(const Waiting& w) {
    uint32_t& slot = slot_[w.bucket];
    if ((slot >> 2) == batch_) return false;
    if (w.spare != NO_SPARE) {
      // A pair's sum may have cancelled: nothing to add. Spares are reused, so one goes into its
      // batch's release list, or is copied into an empty bucket.
      if (is_infinity_row(w.point)) {
        release(w.spare);
        return true;
      }
      if ((slot & 3) == EMPTY) {
        copy_point(rows_ + (size_t)w.bucket * W, w.point, w.neg);
        release(w.spare);
        slot = FULL;
        return true;
      }
      to_release_.push_back(w.spare);
    }
    const uint32_t st = slot & 3;
    if (st == EMPTY) {
      noted_[w.bucket] = tag(w.point, w.neg);
      slot = NOTED;
      return true;
    }
    u64* row = rows_ + (size_t)w.bucket * W;
    const uintptr_t a = st == NOTED ? noted_[w.bucket] : tag(row, false);
    slot = (batch_ << 2) | FULL;  // full once the batch has run
    ops_.push_back({row, a, tag(w.point, w.neg), w.bucket});
    return true;
  }

  static void copy_point(u64* dst, const u64* src, bool neg) {
    std::memcpy(dst, src, W * 8);
    if (!neg) return;
    A p;
    std::memcpy(&p, dst, sizeof(A));
    F::neg(p.y, p.y);  // negation mod p is the same on any Montgomery form
    std::memcpy(dst, &p, sizeof(A));
  }

  /** One batch: the pending additions; then the waiting points placed, or paired up, for the next. */
  void run() {
    preempt_point();
    if (!ops_.empty()) compute();
    for (int32_t s : to_release_) release(s);
    to_release_.clear();
    // Additions finished on the scalar path may have left a bucket empty.
    for (uint32_t i : specials_)
      if (ops_[i].bucket != NO_BUCKET && is_infinity_row(ops_[i].dst)) slot_[ops_[i].bucket] = EMPTY;
    specials_.clear();
    ops_.clear();
    batch_++;
    retry_.swap(waiting_);
    waiting_.clear();
    for (const Waiting& w : retry_)
      if (ops_.size() >= BATCH || !place(w)) waiting_.push_back(w);
    retry_.clear();
    if (waiting_.size() >= 16 && ops_.size() < BATCH) pair_up();
  }

  /** Sums waiting points of the same bucket two by two into spare rows, as far as the batch has room. */
  void pair_up() {
    if (paired_.size() < waiting_.size()) paired_.resize(waiting_.size(), 0);
    retry_.clear();
    for (size_t i = 0; i < waiting_.size(); i++) {
      const Waiting& y = waiting_[i];
      if (y.spare != NO_SPARE && is_infinity_row(y.point)) {  // a pair that cancelled: gone
        release(y.spare);
        paired_[i] = 1;
        continue;
      }
      int32_t& seen = partner_[y.bucket];
      if (seen < 0) {  // the first of its bucket: wait for a partner
        seen = (int32_t)i;
        continue;
      }
      if (ops_.size() >= BATCH || free_spares_.empty()) continue;  // no room: both wait
      const Waiting& x = waiting_[(size_t)seen];
      paired_[(size_t)seen] = paired_[i] = 1;
      seen = -1;
      const int32_t s = free_spares_.back();
      free_spares_.pop_back();
      if (x.spare != NO_SPARE) to_release_.push_back(x.spare);
      if (y.spare != NO_SPARE) to_release_.push_back(y.spare);
      ops_.push_back({spare_row(s), tag(x.point, x.neg), tag(y.point, y.neg), NO_BUCKET});
      retry_.push_back({x.bucket, false, s, spare_row(s)});
    }
    for (size_t i = 0; i < waiting_.size(); i++) {
      partner_[waiting_[i].bucket] = -1;
      if (!paired_[i]) retry_.push_back(waiting_[i]);
      paired_[i] = 0;
    }
    waiting_.swap(retry_);
    retry_.clear();
  }

  /** Op i's operands share x: its double, or infinity (zeros) when they cancel. */
  void finish_special(uint32_t i) {
    const Op& op = ops_[i];
    A a, b;
    std::memcpy(&a, untag(op.a), sizeof(A));
    std::memcpy(&b, untag(op.b), sizeof(A));
    if (op.a & 1) F::neg(a.y, a.y);
    if (op.b & 1) F::neg(b.y, b.y);
    A out = A::infinity();
    if (a.y == b.y) {
      Jacobian<F> d = Jacobian<F>::from_affine(point_from_packed(a));
      Jacobian<F>::dbl(d, d);
      out = point_to_packed(d.to_affine());  // never infinity: no point of order 2
    }
    std::memcpy(op.dst, &out, sizeof(A));
  }

  void compute() {
    const size_t k = ops_.size();
#ifdef ZK_X8_VERIFY
    std::vector<A> va(k), vb(k);
    for (size_t i = 0; i < k; i++) {
      std::memcpy(&va[i], untag(ops_[i].a), sizeof(A));
      std::memcpy(&vb[i], untag(ops_[i].b), sizeof(A));
      if (ops_[i].a & 1) F::neg(va[i].y, va[i].y);
      if (ops_[i].b & 1) F::neg(vb[i].y, vb[i].y);
    }
    struct Check {
      BucketAdder* self;
      std::vector<A>&va, &vb;
      ~Check() {
        for (size_t i = 0; i < self->ops_.size(); i++) {
          Jacobian<F> want = Jacobian<F>::from_affine(point_from_packed(va[i]));
          Jacobian<F>::add_mixed(want, want, point_from_packed(vb[i]));
          A got;
          std::memcpy(&got, self->ops_[i].dst, sizeof(A));
          A w = want.to_affine();
          A g = point_from_packed(got);
          if (!(w.x == g.x && w.y == g.y)) {
            bool special = false;
            for (uint32_t sp : self->specials_) special |= sp == i;
            int dup_dst = 0, writes_a = 0, writes_b = 0;
            for (size_t j = 0; j < self->ops_.size(); j++) {
              if (j == i) continue;
              dup_dst += self->ops_[j].dst == self->ops_[i].dst;
              writes_a += (const u64*)self->ops_[j].dst == untag(self->ops_[i].a);
              writes_b += (const u64*)self->ops_[j].dst == untag(self->ops_[i].b);
            }
            std::fprintf(stderr, "  dup_dst %d writes_a %d writes_b %d a_spare %d b_spare %d\n", dup_dst, writes_a, writes_b,
              untag(self->ops_[i].a) >= self->spare_rows_ && untag(self->ops_[i].a) < self->dummy_a_,
              untag(self->ops_[i].b) >= self->spare_rows_ && untag(self->ops_[i].b) < self->dummy_a_);
            std::fprintf(stderr, "op %zu of %zu wrong (bucket %u) special %d a==b %d xeq %d dst==a %d dst==b %d want_inf %d\n", i, self->ops_.size(), self->ops_[i].bucket, special, untag(self->ops_[i].a) == untag(self->ops_[i].b), va[i].x == vb[i].x, (const u64*)self->ops_[i].dst == untag(self->ops_[i].a), (const u64*)self->ops_[i].dst == untag(self->ops_[i].b), want.is_infinity());
          }
        }
      }
    } check{this, va, vb};
#endif
#ifdef ZK_X8_STATS
    stats_batches++;
    stats_adds += k;
#endif
    const size_t groups = (k + 7) / 8;
    std::memcpy(dummy_a_, &two_g_, sizeof(A));
    E* prefix = lanes_;
    E* den = lanes_ + GROUPS;
    E* dy = lanes_ + 2 * GROUPS;
    E* ax = lanes_ + 3 * GROUPS;
    E* ay = lanes_ + 4 * GROUPS;
    E* sx = lanes_ + 5 * GROUPS;
    const E p_lanes = E::broadcast_p();
    const E one_lanes = one();
    E acc = one_lanes;
    for (size_t g = 0; g < groups; g++) {
      const u64* arow[8];
      const u64* brow[8];
      __mmask8 neg_a = 0, neg_b = 0;
      for (int l = 0; l < 8; l++) {
        const size_t i = g * 8 + l;
        if (i < k) {
          const Op& op = ops_[i];
          arow[l] = untag(op.a);
          brow[l] = untag(op.b);
          neg_a |= (__mmask8)((op.a & 1) << l);
          neg_b |= (__mmask8)((op.b & 1) << l);
        } else {
          arow[l] = dummy_a_;
          brow[l] = dummy_b_;
        }
      }
      E bx, by;
      R::load(arow, ax[g], ay[g]);
      R::load(brow, bx, by);
      if (neg_a) ay[g] = R::neg_where(ay[g], neg_a);
      if (neg_b) by = R::neg_where(by, neg_b);
      den[g] = R::template sub<1>(bx, ax[g]);  // in (0, 2p): ≡ 0 exactly when it is p
      // Lanes whose operands share x: finished apart; 1 keeps them out of the product.
      const __mmask8 same = E::equal(den[g], p_lanes);
      if (same) {
        den[g] = E::blend(den[g], one_lanes, same);
        for (int l = 0; l < 8; l++)
          if (same & (1u << l)) specials_.push_back((uint32_t)(g * 8 + l));
      }
      dy[g] = R::template sub<1>(by, ay[g]);  // below 2p
      sx[g] = E::add(ax[g], bx);              // below 2p
      prefix[g] = acc;
      acc = R::mul(acc, den[g]);
    }
    E inv = invert(acc);
    size_t next_special = specials_.size();  // specials_ is in op order: walk it backwards
    for (size_t g = groups; g-- > 0;) {
      const E inv_g = R::mul(inv, prefix[g]);
      inv = R::mul(inv, den[g]);
      const E lambda = R::mul(dy[g], inv_g);
      // x3 = λ² − (ax + bx), y3 = λ·(ax − x3) − ay: below (bound + 2)·p.
      constexpr int OUT = R::PRODUCT_BOUND == 2 ? 4 : 8;
      const E x3 = R::template canonical<OUT>(R::template sub<2>(R::sqr(lambda), sx[g]));
      const E y3 = R::template canonical<OUT>(R::template sub<1>(R::mul(lambda, R::template sub<1>(ax[g], x3)), ay[g]));
      u64* out[8];
      for (int l = 0; l < 8; l++) {
        const size_t i = g * 8 + l;
        out[l] = i < k ? ops_[i].dst : dummy_a_;
      }
      while (next_special > 0 && specials_[next_special - 1] >= g * 8) out[specials_[--next_special] - g * 8] = dummy_a_;
      R::store(out, x3, y3);
    }
    for (uint32_t i : specials_) finish_special(i);
  }

  static E one() {
    typename R::S ones[8];
    for (auto& o : ones) o = to_packed(F::one());
    return R::insert(ones);
  }

  static E invert(const E& acc) {
    typename R::S v[8];
    R::extract(R::template canonical<4>(acc), v);
    invert_packed8(v);
    return R::insert(v);
  }

#ifdef ZK_X8_STATS
 public:
  size_t stats_batches = 0, stats_adds = 0;

 private:
#endif
  size_t n_;
  uint32_t batch_ = 1;            // the batch being filled (slots start at 0: in none)
  std::vector<uint32_t> slot_;    // per bucket: state | batch << 2
  std::vector<uintptr_t> noted_;  // NOTED buckets: the point's address | its sign
  std::vector<int32_t> partner_;  // pair_up's scratch: per bucket, a waiting point's index or −1
  std::vector<uint8_t> paired_;   // per waiting point
  Scratch<u64> rows_buf_;
  u64* rows_ = nullptr;
  u64* spare_rows_ = nullptr;
  u64* dummy_a_ = nullptr;
  u64* dummy_b_ = nullptr;
  A two_g_;
  std::vector<int32_t> free_spares_, to_release_;
  std::vector<Op> ops_;
  std::vector<uint32_t> specials_;
  std::vector<Waiting> waiting_, retry_;
  Scratch<E> lanes_buf_;
  E* lanes_ = nullptr;
};

}  // namespace zk::x8
#endif
