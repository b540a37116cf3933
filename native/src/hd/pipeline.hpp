// The accelerator's half of a batch of Groth16 proofs of one key, written once over an executor X
// that supplies memory, copies, parallel launches and a key-value sort. The CUDA executor runs it
// on a GPU; the host executor runs the very same steps on CPU threads, which is how CPU-only
// machines test it (its results must equal the CPU prover's bit for bit).
//
// Per batch of B witnesses, only the witnesses travel to X; the key (bases, the QAP's rows,
// twiddles) is resident there:
//   1. QAP: A·w and B·w on the domain, one thread per (proof, constraint row); C = A·B there.
//   2. For each of the 3·B polynomials: inverse NTT, shift to the odd coset, forward NTT (snarkjs's
//      convention, as the CPU prover); H scalars = A·B − C there, canonical.
//   3. Five MSMs per proof (A, B1, C, H on G1; B2 on G2), batched: Pippenger with signed digits,
//      one key per (proof, window, bucket) sorted by radix sort; one thread per bucket adds its
//      points; scalars equal to 1 (witnesses are full of them) are spread over the buckets of an
//      extra window summed with weight 1, so no bucket gets them all; bucket sums weighted by
//      running sums in segments, then per window. The window sums (B × (W + 1) points) go back to
//      the host, which combines them (c doublings per window) in the thread that asked for the
//      proof.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "curve_hd.hpp"
#include "digits.hpp"

namespace zk::hd {

/** A canonical scalar (not Montgomery), as witnesses and the H scalars are. */
struct ScalarHD {
  u64 v[4];
};

/** A key as the host has it (pointers into host memory), for uploading. */
struct KeyView {
  u64 id;
  u32 n_vars, n_public, domain, log_domain, n_c;
  const G1AffineHD *a, *b1, *c, *h;
  const G2AffineHD* b2;
  /** QAP rows: A's entries [rows_a[i], rows_a[i+1]), B's [rows_b[i], rows_b[i+1]) of cols / vals. */
  const u32 *rows_a, *rows_b, *cols;
  const FrHD* vals;  // coefficient · R² as an integer, as the zkey stores it
  u32 n_coefs;
  /** Per stage twiddles (stage of half-size h at h − 1), both directions; coset powers / n. */
  const FrHD *tw_fwd, *tw_inv, *coset;
};

template <class X>
struct KeyResident {
  u64 id = 0;
  u32 n_vars = 0, n_public = 0, domain = 0, log_domain = 0, n_c = 0;
  typename X::template Buf<G1AffineHD> a, b1, c, h;
  typename X::template Buf<G2AffineHD> b2;
  typename X::template Buf<u32> rows_a, rows_b, cols;
  typename X::template Buf<FrHD> vals, tw_fwd, tw_inv, coset;
  size_t bytes = 0;
};

/** Bytes a key takes where it is resident. */
inline size_t resident_bytes(const KeyView& v) {
  const size_t tw = v.domain > 1 ? v.domain - 1 : 1;
  return sizeof(G1AffineHD) * ((size_t)v.n_vars * 2 + v.n_c + v.domain) + sizeof(G2AffineHD) * v.n_vars +
         sizeof(u32) * ((size_t)v.domain * 2 + 2 + v.n_coefs) + sizeof(FrHD) * ((size_t)v.n_coefs + 2 * tw + v.domain);
}

template <class X, class T>
typename X::template Buf<T> upload(X& x, const T* src, size_t n) {
  auto b = x.template alloc<T>(n);
  if (n) x.upload(b.data(), src, n);
  return b;
}

template <class X>
KeyResident<X> upload_key(X& x, const KeyView& v) {
  KeyResident<X> k;
  k.id = v.id;
  k.n_vars = v.n_vars;
  k.n_public = v.n_public;
  k.domain = v.domain;
  k.log_domain = v.log_domain;
  k.n_c = v.n_c;
  const size_t tw = v.domain > 1 ? v.domain - 1 : 1;
  k.a = upload(x, v.a, v.n_vars);
  k.b1 = upload(x, v.b1, v.n_vars);
  k.c = upload(x, v.c, v.n_c);
  k.h = upload(x, v.h, v.domain);
  k.b2 = upload(x, v.b2, v.n_vars);
  k.rows_a = upload(x, v.rows_a, (size_t)v.domain + 1);
  k.rows_b = upload(x, v.rows_b, (size_t)v.domain + 1);
  k.cols = upload(x, v.cols, v.n_coefs);
  k.vals = upload(x, v.vals, v.n_coefs);
  k.tw_fwd = upload(x, v.tw_fwd, tw);
  k.tw_inv = upload(x, v.tw_inv, tw);
  k.coset = upload(x, v.coset, v.domain);
  k.bytes = resident_bytes(v);
  x.sync();
  return k;
}

ZK_HD size_t bit_reverse_index(size_t j, u32 log_n) {
  size_t r = 0;
  for (u32 b = 0; b < log_n; b++) {
    r = (r << 1) | (j & 1);
    j >>= 1;
  }
  return r;
}

/** In place, `count` transforms of 2^log_n values each (consecutive); unscaled inverse. */
template <class X>
void ntt_batch(X& x, FrHD* data, size_t count, u32 log_n, const FrHD* tw) {
  const size_t n = size_t(1) << log_n;
  if (n <= 1 || count == 0) return;
  x.launch(count * n, [=] ZK_HD_LAMBDA(size_t i) {
    const size_t p = i >> log_n, j = i & (n - 1);
    const size_t r = bit_reverse_index(j, log_n);
    if (j < r) {
      FrHD t = data[p * n + j];
      data[p * n + j] = data[p * n + r];
      data[p * n + r] = t;
    }
  });
  const size_t halfn = n / 2;
  for (u32 s = 0; s < log_n; s++) {
    const size_t half = size_t(1) << s;
    x.launch(count * halfn, [=] ZK_HD_LAMBDA(size_t i) {
      const size_t p = i / halfn, k = i % halfn;
      const size_t blk = k >> s, j = k & (half - 1);
      FrHD* v = data + p * n + blk * 2 * half;
      FrHD t, u = v[j];
      FrHD::mul(t, v[j + half], tw[half - 1 + j]);
      FrHD::add(v[j], u, t);
      FrHD::sub(v[j + half], u, t);
    });
  }
}

/** Steps 1–2: the H scalars of B proofs (B × domain, canonical) from their witnesses. */
template <class X>
void h_scalars_batch(X& x, const KeyResident<X>& k, const ScalarHD* w, u32 B, ScalarHD* h) {
  const size_t n = k.domain;
  auto polys = x.template alloc<FrHD>((size_t)3 * B * n);
  FrHD* P = polys.data();
  const u32 *ra = k.rows_a.data(), *rb = k.rows_b.data(), *cols = k.cols.data();
  const FrHD* vals = k.vals.data();
  const size_t nv = k.n_vars;
  x.launch((size_t)B * n, [=] ZK_HD_LAMBDA(size_t i) {
    const size_t p = i / n, row = i % n;
    const ScalarHD* wp = w + p * nv;
    FrHD sa = FrHD::zero(), sb = FrHD::zero(), t;
    // vals hold c·R² as integers: times a canonical witness value, Montgomery gives c·w·R.
    for (u32 j = ra[row]; j < ra[row + 1]; j++) {
      const ScalarHD& s = wp[cols[j]];
      FrHD::mul(t, vals[j], FrHD{{s.v[0], s.v[1], s.v[2], s.v[3]}});
      FrHD::add(sa, sa, t);
    }
    for (u32 j = rb[row]; j < rb[row + 1]; j++) {
      const ScalarHD& s = wp[cols[j]];
      FrHD::mul(t, vals[j], FrHD{{s.v[0], s.v[1], s.v[2], s.v[3]}});
      FrHD::add(sb, sb, t);
    }
    FrHD* base = P + p * 3 * n;
    base[row] = sa;
    base[n + row] = sb;
    FrHD::mul(base[2 * n + row], sa, sb);
  });
  ntt_batch(x, P, (size_t)3 * B, k.log_domain, k.tw_inv.data());
  const FrHD* coset = k.coset.data();
  x.launch((size_t)3 * B * n, [=] ZK_HD_LAMBDA(size_t i) { FrHD::mul(P[i], P[i], coset[i % n]); });
  ntt_batch(x, P, (size_t)3 * B, k.log_domain, k.tw_fwd.data());
  x.launch((size_t)B * n, [=] ZK_HD_LAMBDA(size_t i) {
    const size_t p = i / n, j = i % n;
    const FrHD* base = P + p * 3 * n;
    FrHD t;
    FrHD::mul(t, base[j], base[n + j]);
    FrHD::sub(t, t, base[2 * n + j]);
    t.to_canonical(h[i].v);
  });
  x.sync();
}

/** Window width of the batched MSM over n points per proof: sort and bucket work against bucket count. */
inline int msm_window_hd(size_t n) {
  int best = 4;
  double best_cost = 1e300;
  for (int c = 4; c <= 16; c++) {
    const int windows = (254 + c) / c;
    const double cost = windows * ((double)n + (double)(size_t(1) << c) * 1.5);
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

/** A batched MSM's window sums: B × (W + 1) points, the last of each proof's run weighing 1. */
template <class F>
struct WindowSums {
  int c = 1, windows = 1;
  std::vector<JacobianHD<F>> sums;
};

/**
 * Σ scalars[p·stride + i] · bases[i] for i < n, for each proof p < B: the window sums, which
 * combine_windows turns into the result.
 */
template <class X, class F>
WindowSums<F> msm_batch(X& x, const AffineHD<F>* bases, size_t n, const ScalarHD* scalars, size_t stride, u32 B) {
  using J = JacobianHD<F>;
  WindowSums<F> out;
  if (n == 0 || B == 0) {
    out.sums.assign((size_t)B * 2, J::infinity());
    return out;
  }
  const int c = msm_window_hd(n);
  const u32 W = (u32)((254 + c) / c);
  const u32 NB = u32(1) << (c - 1);
  const u64 K = (u64)B * (W + 1) * NB;
  const u64 E = (u64)B * n * W;
  if (K >= 0xffffffffULL || E >= 0xffffffffULL)
    throw std::runtime_error("MSM batch too large: " + std::to_string(B) + " × " + std::to_string(n) + " points");
  const u32 SKIP = (u32)K;
  int bits = 1;
  while ((u64(1) << bits) <= K) bits++;
  out.c = c;
  out.windows = (int)W;

  auto keys_in = x.template alloc<u32>(E), vals_in = x.template alloc<u32>(E);
  auto keys_out = x.template alloc<u32>(E), vals_out = x.template alloc<u32>(E);
  {
    u32 *kk = keys_in.data(), *vv = vals_in.data();
    x.launch((size_t)B * n, [=] ZK_HD_LAMBDA(size_t t) {
      const size_t p = t / n, i = t % n;
      const ScalarHD s = scalars[p * stride + i];
      u32* key = kk + t * W;
      u32* val = vv + t * W;
      const bool zero = (s.v[0] | s.v[1] | s.v[2] | s.v[3]) == 0;
      const bool one = s.v[0] == 1 && (s.v[1] | s.v[2] | s.v[3]) == 0;
      if (zero || one) {
        for (u32 w = 0; w < W; w++) key[w] = SKIP;
        if (one) {
          key[0] = (u32)((p * (W + 1) + W) * NB + (i & (NB - 1)));
          val[0] = (u32)i;
        }
        return;
      }
      for_each_signed_digit(s.v, c, (int)W, [&](int w, int64_t d) {
        if (d == 0) {
          key[w] = SKIP;
        } else {
          const u32 m = (u32)(d < 0 ? -d : d);
          key[w] = (u32)((p * (W + 1) + (size_t)w) * NB + (m - 1));
          val[w] = (u32)i | (d < 0 ? 0x80000000u : 0u);
        }
      });
    });
  }
  x.sort_pairs(keys_in.data(), vals_in.data(), keys_out.data(), vals_out.data(), (size_t)E, bits);

  // Bucket k's entries are [start[k], end[k]) of the sorted order; empty buckets stay 0..0.
  auto start = x.template alloc<u32>(K), end = x.template alloc<u32>(K);
  x.fill_zero(start.data(), (size_t)K);
  x.fill_zero(end.data(), (size_t)K);
  {
    const u32* ko = keys_out.data();
    u32 *st = start.data(), *en = end.data();
    const size_t En = (size_t)E;
    x.launch(En, [=] ZK_HD_LAMBDA(size_t j) {
      const u32 k = ko[j];
      if (k == SKIP) return;
      if (j == 0 || ko[j - 1] != k) st[k] = (u32)j;
      if (j + 1 == En || ko[j + 1] != k) en[k] = (u32)(j + 1);
    });
  }
  auto buckets = x.template alloc<J>(K);
  {
    const u32 *st = start.data(), *en = end.data(), *vo = vals_out.data();
    J* bk = buckets.data();
    x.launch((size_t)K, [=] ZK_HD_LAMBDA(size_t k) {
      J acc = J::infinity();
      for (u32 j = st[k]; j < en[k]; j++) {
        const u32 v = vo[j];
        J::add_mixed(acc, acc, bases[v & 0x7fffffffu], (v >> 31) != 0);
      }
      bk[k] = acc;
    });
  }
  // Segments of S buckets: L = Σ (j + 1)·B_j over the segment's own positions, R = Σ B_j.
  u32 log_t = 0;
  while ((u32(1) << (2 * (log_t + 1))) <= NB) log_t++;  // T ≈ √NB
  const u32 T = u32(1) << log_t, S = NB / T;
  u32 log_s = 0;
  while ((u32(1) << log_s) < S) log_s++;
  const size_t nwin = (size_t)B * (W + 1);
  auto seg_l = x.template alloc<J>(nwin * T), seg_r = x.template alloc<J>(nwin * T);
  {
    const J* bk = buckets.data();
    J *L = seg_l.data(), *R = seg_r.data();
    x.launch(nwin * T, [=] ZK_HD_LAMBDA(size_t q) {
      const size_t win = q / T, t = q % T;
      const J* b = bk + win * NB + t * S;
      J run = J::infinity(), loc = J::infinity();
      for (u32 j = S; j-- > 0;) {
        J::add(run, run, b[j]);
        J::add(loc, loc, run);
      }
      L[q] = loc;
      R[q] = run;
    });
  }
  // Window sum Σ (b + 1)·B_b = Σ_t L_t + S · Σ_t t·R_t; the ones' window is Σ_t R_t.
  auto wsum = x.template alloc<J>(nwin);
  {
    const J *L = seg_l.data(), *R = seg_r.data();
    J* ws = wsum.data();
    x.launch(nwin, [=] ZK_HD_LAMBDA(size_t win) {
      const J* l = L + win * T;
      const J* r = R + win * T;
      J total = J::infinity();
      if (win % (W + 1) == W) {
        for (u32 t = 0; t < T; t++) J::add(total, total, r[t]);
      } else {
        for (u32 t = 0; t < T; t++) J::add(total, total, l[t]);
        J run = J::infinity(), acc = J::infinity();
        for (u32 t = T; t-- > 1;) {
          J::add(run, run, r[t]);
          J::add(acc, acc, run);
        }
        for (u32 d = 0; d < log_s; d++) J::dbl(acc, acc);
        J::add(total, total, acc);
      }
      ws[win] = total;
    });
  }
  out.sums.resize(nwin);
  x.download(out.sums.data(), wsum.data(), nwin);
  x.sync();
  return out;
}

/** Proof p's result from its window sums: Horner over the windows, plus the ones' window. */
template <class F>
JacobianHD<F> combine_windows(const WindowSums<F>& s, u32 p) {
  using J = JacobianHD<F>;
  const size_t W = (size_t)s.windows;
  const J* ws = s.sums.data() + (size_t)p * (W + 1);
  J acc = ws[W - 1];
  for (size_t w = W - 1; w-- > 0;) {
    for (int i = 0; i < s.c; i++) J::dbl(acc, acc);
    J::add(acc, acc, ws[w]);
  }
  J::add(acc, acc, ws[W]);
  return acc;
}

/** Everything a batch's proofs need back from X: the window sums of the five MSMs. */
struct CoreSums {
  WindowSums<FqHD> a, b1, c, h;
  WindowSums<Fq2HD> b2;
};

/** Steps 1–3 for B witnesses (B × n_vars canonical scalars, host memory). */
template <class X>
CoreSums prove_core_batch(X& x, const KeyResident<X>& k, const ScalarHD* witnesses_host, u32 B) {
  const size_t nv = k.n_vars;
  auto w = x.template alloc<ScalarHD>((size_t)B * nv);
  x.upload(w.data(), witnesses_host, (size_t)B * nv);
  auto h = x.template alloc<ScalarHD>((size_t)B * k.domain);
  h_scalars_batch(x, k, w.data(), B, h.data());
  CoreSums out;
  out.a = msm_batch(x, k.a.data(), nv, w.data(), nv, B);
  out.b1 = msm_batch(x, k.b1.data(), nv, w.data(), nv, B);
  out.b2 = msm_batch(x, k.b2.data(), nv, w.data(), nv, B);
  out.c = msm_batch(x, k.c.data(), k.n_c, w.data() + k.n_public + 1, nv, B);
  out.h = msm_batch(x, k.h.data(), k.domain, h.data(), k.domain, B);
  return out;
}

}  // namespace zk::hd
