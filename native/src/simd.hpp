// Whether the eight-lane arithmetic (field_x8.hpp, AVX-512 IFMA) is used where the build has it:
// one switch for every user (fixed-base tables, the H quotient, Poseidon batches).
#pragma once
#include <atomic>
#include <cstdlib>
#include <string>

#include "field_x8.hpp"

namespace zk {

/**
 * Whether fixed-base tables built from now on, and Poseidon batches, use the eight-lane form: where
 * the build targets a CPU with AVX-512 IFMA, unless ZKGATE_NATIVE_SIMD=0 (or set_x8_tables(false)),
 * which keeps the 64-bit scalar path (what CPUs without IFMA run) for comparison and tests.
 */
inline std::atomic<int>& x8_tables_setting() {
  static std::atomic<int> setting{-1};  // -1: not decided yet
  return setting;
}
inline bool x8_tables() {
#ifdef ZK_HAVE_X8
  int s = x8_tables_setting().load(std::memory_order_relaxed);
  if (s < 0) {
    const char* env = std::getenv("ZKGATE_NATIVE_SIMD");
    s = env && std::string(env) == "0" ? 0 : 1;
    x8_tables_setting().store(s);
  }
  return s == 1;
#else
  return false;
#endif
}
/** Overrides ZKGATE_NATIVE_SIMD (false everywhere the CPU lacks IFMA). */
inline void set_x8_tables(bool on) { x8_tables_setting().store(on ? 1 : 0); }

}  // namespace zk
