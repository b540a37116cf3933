// Signed base-2^c window digits of a canonical scalar, each in [−2^(c−1), 2^(c−1)] (a digit above
// half borrows from the next window), for the CPU's MSM and the device's alike.
#pragma once
#include "hd.hpp"

namespace zk::hd {

/** Calls f(w, d) for every window w < windows with its digit d (zeros included). */
template <class F>
ZK_HD void for_each_signed_digit(const u64 v[4], int c, int windows, F f) {
  const u64 mask = (u64(1) << c) - 1;
  const int64_t half = int64_t(1) << (c - 1);
  int64_t carry = 0;
  for (int w = 0; w < windows; w++) {
    const int bit = w * c, limb = bit / 64, off = bit % 64;
    u64 raw = limb < 4 ? (v[limb] >> off) : 0;
    if (off + c > 64 && limb + 1 < 4) raw |= v[limb + 1] << (64 - off);
    int64_t d = (int64_t)(raw & mask) + carry;
    carry = 0;
    if (d > half) {
      d -= int64_t(1) << c;
      carry = 1;
    }
    f(w, d);
  }
}

}  // namespace zk::hd
