// The interface of libzkgate_cuda.so (built by nvcc from native/src/cuda/), which the addon and
// zkgate-prove open at run time: a machine without CUDA or without a GPU still loads them, and the
// library's absence is a reason to report, not a link error. Both sides are built with the same
// C++ compiler, so the pipeline's C++ types cross unchanged.
#pragma once
#include <cstddef>
#include <cstdint>

#include "pipeline.hpp"

#define ZKC_API_VERSION 1

extern "C" {

struct zkc_device {
  int index;
  char name[256];
  int sms;
  int cc_major, cc_minor;
  uint64_t total_bytes, free_bytes;
  int l2_bytes;
  int max_threads_per_block;
};

typedef int (*zkc_api_version_fn)(void);
/** Devices visible, or −1 with the reason in err. */
typedef int (*zkc_device_count_fn)(char* err, size_t err_len);
typedef int (*zkc_device_info_fn)(int dev, zkc_device* out, char* err, size_t err_len);
/** A context on one device (its stream, its resident keys); null with the reason in err. */
typedef void* (*zkc_open_fn)(int dev, uint64_t budget_bytes, char* err, size_t err_len);
typedef void (*zkc_close_fn)(void* ctx);
typedef void (*zkc_forget_fn)(void* ctx, uint64_t key_id);
typedef uint64_t (*zkc_resident_bytes_fn)(void* ctx);
/** The window sums of B proofs; 0 on success, else −1 with the reason in err. */
typedef int (*zkc_prove_core_fn)(void* ctx, const zk::hd::KeyView* key, const zk::hd::ScalarHD* witnesses, uint32_t B,
                                 zk::hd::CoreSums* out, char* err, size_t err_len);
/** One MSM, bases uploaded for the call (tests, benchmarks). */
typedef int (*zkc_msm_g1_fn)(void* ctx, const zk::hd::G1AffineHD* bases, const zk::hd::ScalarHD* scalars, uint64_t n,
                             zk::hd::WindowSums<zk::hd::FqHD>* out, char* err, size_t err_len);
typedef int (*zkc_msm_g2_fn)(void* ctx, const zk::hd::G2AffineHD* bases, const zk::hd::ScalarHD* scalars, uint64_t n,
                             zk::hd::WindowSums<zk::hd::Fq2HD>* out, char* err, size_t err_len);
/** `count` unscaled transforms of 2^log_n values in place, with the given per-stage twiddles. */
typedef int (*zkc_ntt_fn)(void* ctx, zk::hd::FrHD* data, uint32_t count, uint32_t log_n, const zk::hd::FrHD* twiddles,
                          char* err, size_t err_len);
}
