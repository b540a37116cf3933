// What host and device code share: ZK_HD marks functions compiled for both (nvcc builds them for
// the GPU, g++ for the CPU, where the tests run them), and the few word operations whose best
// form differs between the two (the high half of a 64 × 64 product).
#pragma once
#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define ZK_HD __host__ __device__ __forceinline__
// Point operations stay calls on the device: inlined into every kernel they make the code (and
// nvcc's compile time) many times larger for no measurable gain at these sizes.
#define ZK_HD_CALL __host__ __device__ __noinline__
#define ZK_HD_LAMBDA __host__ __device__
#else
#define ZK_HD inline
#define ZK_HD_CALL inline
#define ZK_HD_LAMBDA
#endif

namespace zk::hd {

using u32 = uint32_t;
using u64 = uint64_t;

ZK_HD u64 mul_hi(u64 a, u64 b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return (u64)(((unsigned __int128)a * b) >> 64);
#endif
}

/** lo, hi of a·b + c + d (never overflows 128 bits). */
ZK_HD void mac(u64 a, u64 b, u64 c, u64 d, u64& lo, u64& hi) {
  u64 l = a * b, h = mul_hi(a, b);
  l += c;
  h += (l < c);
  l += d;
  h += (l < d);
  lo = l;
  hi = h;
}

/** a + b + carry; carry becomes the carry out (0 or 1). */
ZK_HD u64 addc(u64 a, u64 b, u64& carry) {
  u64 s = a + b;
  u64 c1 = s < a;
  u64 s2 = s + carry;
  u64 c2 = s2 < s;
  carry = c1 | c2;
  return s2;
}

/** a − b − borrow; borrow becomes the borrow out (0 or 1). */
ZK_HD u64 subb(u64 a, u64 b, u64& borrow) {
  u64 d = a - b;
  u64 b1 = a < b;
  u64 d2 = d - borrow;
  u64 b2 = d < borrow;
  borrow = b1 | b2;
  return d2;
}

}  // namespace zk::hd
