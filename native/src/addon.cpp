// The N-API face of the native prover: load a zkey once (kept behind an external handle), prove
// from a witness buffer, plus the arithmetic entry points the unit tests compare against
// independent JavaScript implementations. Values cross as little-endian 32-byte canonical integers.
#include <node_api.h>
#include <sys/stat.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fixed_base.hpp"
#include "engine.hpp"
#include "hd/curve_hd.hpp"
#include "groth16.hpp"
#include "point_decompress.hpp"
#include "poseidon.hpp"
#include "preempt.hpp"
#include "qap_setup.hpp"

using namespace zk;

namespace {

// Keys are shared by every thread of the process (the prover's workers each load the addon, but
// it is one library): a key loaded under a cache key (path, size, mtime) by one worker is found by
// the others, so the process holds one copy of its points and tables.
struct KeyHandle {
  std::shared_ptr<ZKey> key;
  size_t planned_table_bytes = 0;
  /** Tables were loaded with the key or given it by fillTables (under the registry's lock). */
  bool tables_filled = false;
  /** What became of the key's table file: "loaded", "absent", "invalid" (rebuilt) or "none". */
  std::atomic<const char*> table_file{"none"};
};

// The registry owns every named key, within one process-wide budget (bytes of the parsed key and
// its planned tables): loading a key evicts the least recently used others while the total would
// exceed it (the new key always stays). JavaScript values of named keys hold only weak references,
// so an evicted key's memory goes as soon as its last proof in flight ends, not at some later
// garbage collection; a worker finds out with a "key evicted" error and loads it again.
struct Entry {
  std::shared_ptr<KeyHandle> handle;
  size_t bytes = 0;
  uint64_t last_use = 0;
};
std::mutex registry_mutex;
std::map<std::string, Entry> registry;
size_t memory_budget = 0;  // 0: no limit
size_t registry_bytes = 0;
uint64_t use_clock = 0, evictions = 0;

/** Drops least recently used entries (not `keep`) until the total fits; returns them to free unlocked. */
std::vector<std::shared_ptr<KeyHandle>> evict_locked(const std::string& keep) {
  std::vector<std::shared_ptr<KeyHandle>> gone;
  while (memory_budget > 0 && registry_bytes > memory_budget) {
    auto victim = registry.end();
    for (auto it = registry.begin(); it != registry.end(); ++it)
      if (it->first != keep && (victim == registry.end() || it->second.last_use < victim->second.last_use))
        victim = it;
    if (victim == registry.end()) break;
    registry_bytes -= victim->second.bytes;
    gone.push_back(std::move(victim->second.handle));
    registry.erase(victim);
    evictions++;
  }
  return gone;
}

/** What a JavaScript key value holds: the key itself when unnamed, else a weak reference. */
struct KeyRef {
  std::shared_ptr<KeyHandle> owned;
  std::weak_ptr<KeyHandle> weak;
  std::string name;
};

napi_value wrap(napi_env env, std::shared_ptr<KeyHandle> shared, const std::string& name = "") {
  auto* ref = new KeyRef();
  if (name.empty())
    ref->owned = std::move(shared);
  else
    ref->weak = shared;
  ref->name = name;
  napi_value ext;
  napi_create_external(env, ref, [](napi_env, void* d, void*) { delete static_cast<KeyRef*>(d); }, nullptr, &ext);
  return ext;
}

/**
 * The named key registered (or found registered meanwhile), its budget enforced by evicting; with
 * `must_fit`, never evicting: null when it does not fit beside the keys already in.
 */
std::shared_ptr<KeyHandle> register_key(const std::string& name, std::shared_ptr<KeyHandle> handle,
                                        bool must_fit = false) {
  std::vector<std::shared_ptr<KeyHandle>> gone;
  std::shared_ptr<KeyHandle> out;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = registry.find(name);
    if (it != registry.end()) {
      it->second.last_use = ++use_clock;
      return it->second.handle;
    }
    Entry e;
    e.handle = handle;
    e.bytes = handle->key->bytes + handle->planned_table_bytes;
    if (must_fit && memory_budget > 0 && registry_bytes + e.bytes > memory_budget) return nullptr;
    e.last_use = ++use_clock;
    registry_bytes += e.bytes;
    registry[name] = std::move(e);
    gone = evict_locked(name);
    out = std::move(handle);
  }
  gone.clear();  // evicted keys are destroyed here, outside the lock (a table builder may be joined)
  return out;
}

bool get_string(napi_env env, napi_value v, std::string& out) {
  size_t len = 0;
  if (napi_get_value_string_utf8(env, v, nullptr, 0, &len) != napi_ok) return false;
  std::vector<char> buf(len + 1);
  if (napi_get_value_string_utf8(env, v, buf.data(), len + 1, &len) != napi_ok) return false;
  out.assign(buf.data(), len);
  return true;
}

/** A string, or undefined / null as "" (an optional argument). */
bool optional_string(napi_env env, napi_value v, std::string& out) {
  napi_valuetype t;
  if (napi_typeof(env, v, &t) != napi_ok) return false;
  if (t == napi_undefined || t == napi_null) {
    out.clear();
    return true;
  }
  return get_string(env, v, out);
}

/**
 * The key's fixed-base tables under `budget`: mapped from `tables_path` when that file holds them
 * (see table_file.cpp), else built (on their own thread when `background`) and saved there.
 */
void attach_tables(KeyHandle& h, double budget, int threads, bool background, const std::string& tables_path) {
  ZKey& key = *h.key;
  struct Settle {
    ZKey& k;
    ~Settle() { k.end_tables(); }
  } settle{key};  // however this ends, waiters go on
  if (budget <= 0) return;
  const TableLoad got = load_tables(key, tables_path, (size_t)budget);
  h.table_file = tables_path.empty() ? "none"
                 : got == TableLoad::loaded ? "loaded"
                 : got == TableLoad::absent ? "absent"
                                            : "invalid";
  if (got == TableLoad::loaded) return;
  key.tables_path = tables_path;
  if (background)
    build_tables_in_background(key, (size_t)budget, threads);
  else
    build_tables(key, (size_t)budget, threads);
}

napi_value throw_error(napi_env env, const std::string& msg) {
  napi_throw_error(env, nullptr, msg.c_str());
  return nullptr;
}

bool get_bytes(napi_env env, napi_value v, const uint8_t** data, size_t* len) {
  bool is_typed = false;
  napi_is_typedarray(env, v, &is_typed);
  if (!is_typed) return false;
  napi_typedarray_type type;
  size_t length;
  void* ptr;
  napi_value ab;
  size_t offset;
  if (napi_get_typedarray_info(env, v, &type, &length, &ptr, &ab, &offset) != napi_ok) return false;
  if (type != napi_uint8_array) return false;
  *data = static_cast<const uint8_t*>(ptr);
  *len = length;
  return true;
}

napi_value make_bytes(napi_env env, const void* data, size_t len) {
  void* out;
  napi_value ab, arr;
  napi_create_arraybuffer(env, len, &out, &ab);
  if (len) std::memcpy(out, data, len);
  napi_create_typedarray(env, napi_uint8_array, len, ab, 0, &arr);
  return arr;
}

template <size_t N>
bool args(napi_env env, napi_callback_info info, napi_value (&argv)[N]) {
  size_t argc = N;
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  return argc == N;
}

/** Like args, for functions whose arguments from `min` on are optional (absent ones: undefined). */
template <size_t N>
bool args_from(napi_env env, napi_callback_info info, napi_value (&argv)[N], size_t min) {
  size_t argc = N;
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  if (argc < min || argc > N) return false;
  for (size_t i = argc; i < N; i++) napi_get_undefined(env, &argv[i]);
  return true;
}

/**
 * An optional choice among names: undefined gives names[0]; else the index of the string in names,
 * or -1 (not a string, or none of them).
 */
template <size_t N>
int get_choice(napi_env env, napi_value v, const char* const (&names)[N]) {
  napi_valuetype t;
  napi_typeof(env, v, &t);
  if (t == napi_undefined) return 0;
  char buf[16];
  size_t len = 0;
  if (t != napi_string || napi_get_value_string_utf8(env, v, buf, sizeof buf, &len) != napi_ok) return -1;
  for (size_t i = 0; i < N; i++)
    if (std::string(buf, len) == names[i]) return (int)i;
  return -1;
}

/** An optional blinding argument: undefined or "snarkjs", or "rerandomized" (groth16.hpp). */
bool get_blinding(napi_env env, napi_value v, Blinding* out) {
  static const char* const names[] = {"snarkjs", "rerandomized"};
  const int i = get_choice(env, v, names);
  *out = i == 1 ? Blinding::rerandomized : Blinding::snarkjs;
  return i >= 0;
}

/** "client" (the default) or "background": a background proof steps aside for client proofs (preempt.hpp). */
bool get_background(napi_env env, napi_value v, bool* out) {
  static const char* const names[] = {"client", "background"};
  const int i = get_choice(env, v, names);
  *out = i == 1;
  return i >= 0;
}

int get_int(napi_env env, napi_value v, int fallback) {
  int32_t out;
  if (napi_get_value_int32(env, v, &out) != napi_ok) return fallback;
  return out;
}

// Canonical little-endian bytes ⇄ field elements.
template <class F>
F field_in(const uint8_t* p) {
  u64 x[4];
  std::memcpy(x, p, 32);
  if (!F::is_canonical(x)) throw std::runtime_error("field element out of range");
  return F::from_canonical(x);
}
template <class F>
void field_out(const F& f, uint8_t* p) {
  u64 x[4];
  f.to_canonical(x);
  std::memcpy(p, x, 32);
}
G1Affine g1_in(const uint8_t* p) { return {field_in<Fq>(p), field_in<Fq>(p + 32)}; }
void g1_out(const G1Affine& a, uint8_t* p) {
  field_out(a.x, p);
  field_out(a.y, p + 32);
}
G2Affine g2_in(const uint8_t* p) {
  return {{field_in<Fq>(p), field_in<Fq>(p + 32)}, {field_in<Fq>(p + 64), field_in<Fq>(p + 96)}};
}
void g2_out(const G2Affine& a, uint8_t* p) {
  field_out(a.x.c0, p);
  field_out(a.x.c1, p + 32);
  field_out(a.y.c0, p + 64);
  field_out(a.y.c1, p + 96);
}

/**
 * The blinding scalars r and s (32 bytes each, below r) into `r`, `s`; false, with the error
 * thrown naming `fn`, if they are not.
 */
bool get_blinding_scalars(napi_env env, napi_value vr, napi_value vs, const char* fn, Scalar& r, Scalar& s) {
  const uint8_t *rp, *sp;
  size_t rl, sl;
  if (!get_bytes(env, vr, &rp, &rl) || rl != 32 || !get_bytes(env, vs, &sp, &sl) || sl != 32) {
    throw_error(env, std::string(fn) + ": r and s must be 32 bytes");
    return false;
  }
  std::memcpy(r.v, rp, 32);
  std::memcpy(s.v, sp, 32);
  if (!Fr::is_canonical(r.v) || !Fr::is_canonical(s.v)) {
    throw_error(env, "r and s must be below r");
    return false;
  }
  return true;
}

/** A proof as the addon returns it: a ‖ b ‖ c, affine, canonical little-endian (256 bytes). */
napi_value proof_bytes(napi_env env, const Proof& p) {
  uint8_t out[256];
  g1_out(p.a, out);
  g2_out(p.b, out + 64);
  g1_out(p.c, out + 192);
  return make_bytes(env, out, sizeof out);
}

#define GUARD_BEGIN try {
#define GUARD_END                          \
  }                                        \
  catch (const std::exception& e) {        \
    return throw_error(env, e.what());     \
  }

/** findKey(cacheKey): the key another thread of this process loaded under that name, or null. */
napi_value FindKey(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  std::string name;
  if (!args(env, info, argv) || !get_string(env, argv[0], name)) return throw_error(env, "findKey(cacheKey: string)");
  std::shared_ptr<KeyHandle> found;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = registry.find(name);
    if (it != registry.end()) {
      it->second.last_use = ++use_clock;
      found = it->second.handle;
    }
  }
  if (!found) {
    napi_value nul;
    napi_get_null(env, &nul);
    return nul;
  }
  return wrap(env, std::move(found), name);
}

/**
 * loadKey(zkey, tableBudgetBytes, threads, background, cacheKey): parses the key, then builds the
 * tables that fit, on a thread of their own when `background` (the key proves without them until
 * they are done); registers it under `cacheKey` (when not empty) for the process's other threads.
 */
napi_value LoadKey(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  std::string name, tables_path;
  if (!args_from(env, info, argv, 5) || !get_string(env, argv[4], name) || !optional_string(env, argv[5], tables_path))
    return throw_error(env, "loadKey(zkey: Uint8Array, tableBudgetBytes, threads, background, cacheKey, tablesPath?)");
  double budget = 0;
  napi_get_value_double(env, argv[1], &budget);
  int threads = get_int(env, argv[2], 1);
  bool background = false;
  napi_get_value_bool(env, argv[3], &background);
  const uint8_t* data;
  size_t len;
  if (!get_bytes(env, argv[0], &data, &len)) return throw_error(env, "loadKey: zkey must be a Uint8Array");
  GUARD_BEGIN
  auto handle = std::make_shared<KeyHandle>();
  handle->key = std::shared_ptr<ZKey>(parse_zkey(data, len));
  handle->planned_table_bytes = budget > 0 ? planned_table_bytes(*handle->key, (size_t)budget) : 0;
  handle->tables_filled = handle->planned_table_bytes > 0;
  handle->key->begin_tables();  // settled by attach_tables below
  if (!name.empty()) {
    // Another thread loaded it meanwhile: share that one, drop ours before any tables are built.
    std::shared_ptr<KeyHandle> registered = register_key(name, handle);
    if (registered != handle) return wrap(env, std::move(registered), name);
  }
  attach_tables(*handle, budget, threads, background, tables_path);
  return wrap(env, std::move(handle), name);
  GUARD_END
}

/**
 * loadKeyFile(path, tableBudgetBytes, threads, background, cacheKey, tablesPath?, mustFit?): loadKey
 * for a key on disk (mapped, any size). `mustFit` (a named key): null instead of evicting others
 * when the key and its planned tables do not fit the process's budget beside the keys in it.
 */
napi_value LoadKeyFile(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  std::string path, name, tables_path;
  bool must_fit = false;
  if (!args_from(env, info, argv, 5) || !get_string(env, argv[0], path) || !get_string(env, argv[4], name) ||
      !optional_string(env, argv[5], tables_path))
    return throw_error(env, "loadKeyFile(path, tableBudgetBytes, threads, background, cacheKey, tablesPath?, mustFit?)");
  napi_get_value_bool(env, argv[6], &must_fit);  // undefined: false
  napi_value nul;
  napi_get_null(env, &nul);
  double budget = 0;
  napi_get_value_double(env, argv[1], &budget);
  int threads = get_int(env, argv[2], 1);
  bool background = false;
  napi_get_value_bool(env, argv[3], &background);
  GUARD_BEGIN
  if (!name.empty()) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = registry.find(name);
    if (it != registry.end()) {
      it->second.last_use = ++use_clock;
      return wrap(env, it->second.handle, name);
    }
    // A parsed key takes its file's size: no need to parse one that cannot fit.
    struct stat st;
    if (must_fit && memory_budget > 0 && ::stat(path.c_str(), &st) == 0 &&
        registry_bytes + (size_t)st.st_size > memory_budget)
      return nul;
  }
  auto handle = std::make_shared<KeyHandle>();
  handle->key = std::shared_ptr<ZKey>(parse_zkey_file(path));
  handle->planned_table_bytes = budget > 0 ? planned_table_bytes(*handle->key, (size_t)budget) : 0;
  handle->tables_filled = handle->planned_table_bytes > 0;
  handle->key->begin_tables();  // settled by attach_tables below
  if (!name.empty()) {
    std::shared_ptr<KeyHandle> registered = register_key(name, handle, must_fit);
    if (!registered) return nul;
    if (registered != handle) return wrap(env, std::move(registered), name);
  }
  attach_tables(*handle, budget, threads, background, tables_path);
  return wrap(env, std::move(handle), name);
  GUARD_END
}

/** The key a JavaScript value refers to, held for the call; null (with the reason thrown) if none. */
std::shared_ptr<KeyHandle> get_key(napi_env env, napi_value v, const char* fn) {
  void* d = nullptr;
  if (napi_get_value_external(env, v, &d) != napi_ok || d == nullptr) {
    throw_error(env, std::string(fn) + ": not a key");
    return nullptr;
  }
  KeyRef* ref = static_cast<KeyRef*>(d);
  if (ref->owned) return ref->owned;
  std::shared_ptr<KeyHandle> h = ref->weak.lock();
  if (!h) {
    throw_error(env, std::string("key evicted: ") + ref->name + " left the memory budget; load it again");
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(registry_mutex);
  auto it = registry.find(ref->name);
  if (it != registry.end() && it->second.handle == h) it->second.last_use = ++use_clock;
  return h;
}

/**
 * plannedTableBytes(key, tableBudgetBytes): what the key's tables would take under that budget
 * (the warm-up plans which listed shapes get tables before any are attached).
 */
napi_value PlannedTableBytes(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  double budget = 0;
  if (!args(env, info, argv) || napi_get_value_double(env, argv[1], &budget) != napi_ok || budget < 0)
    return throw_error(env, "plannedTableBytes(key, tableBudgetBytes ≥ 0)");
  std::shared_ptr<KeyHandle> h = get_key(env, argv[0], "plannedTableBytes");
  if (!h) return nullptr;
  napi_value v;
  napi_create_double(env, (double)planned_table_bytes(*h->key, (size_t)budget), &v);
  return v;
}

/** The named key a JavaScript value refers to, and its name; null (with the reason thrown) if none. */
std::shared_ptr<KeyHandle> get_named_key(napi_env env, napi_value v, const char* fn, std::string& name) {
  void* d = nullptr;
  if (napi_get_value_external(env, v, &d) != napi_ok || d == nullptr || static_cast<KeyRef*>(d)->name.empty()) {
    throw_error(env, std::string(fn) + ": not a named key");
    return nullptr;
  }
  name = static_cast<KeyRef*>(d)->name;
  return get_key(env, v, fn);
}

/**
 * claimTables(key, tableBudgetBytes) → "claimed" | "held" | "none" | "no-room": reserves, in the
 * process's budget, the tables that fit `tableBudgetBytes` for a named key loaded without them,
 * only where the budget has room beside the keys already in it: unlike a load, it never evicts.
 * Claims are quick, so a caller makes them in its order of importance, then fills them (in
 * parallel). "held": the key has its tables already, or claimed; "none": no table fits that budget.
 */
napi_value ClaimTables(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  double budget = 0;
  if (!args(env, info, argv) || napi_get_value_double(env, argv[1], &budget) != napi_ok || budget < 0)
    return throw_error(env, "claimTables(key, tableBudgetBytes ≥ 0)");
  std::string name;
  std::shared_ptr<KeyHandle> h = get_named_key(env, argv[0], "claimTables", name);
  if (!h) return nullptr;
  const char* outcome = "claimed";
  GUARD_BEGIN
  const size_t planned = planned_table_bytes(*h->key, (size_t)budget);
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = registry.find(name);
    if (h->planned_table_bytes > 0)
      outcome = "held";
    else if (planned == 0)
      outcome = "none";
    else if (it == registry.end() || it->second.handle != h)
      outcome = nullptr;  // evicted since this call took it
    else if (memory_budget > 0 && registry_bytes + planned > memory_budget)
      outcome = "no-room";
    else {
      h->planned_table_bytes = planned;
      it->second.bytes += planned;
      registry_bytes += planned;
    }
  }
  if (outcome == nullptr)
    return throw_error(env, std::string("key evicted: ") + name + " left the memory budget; load it again");
  napi_value v;
  napi_create_string_utf8(env, outcome, NAPI_AUTO_LENGTH, &v);
  return v;
  GUARD_END
}

/**
 * fillTables(key, tableBudgetBytes, threads, tablesPath) → tables ready: the tables claimTables
 * reserved (the same budget), mapped from their file or built, here on this thread. Once only: a
 * key with no claimed tables, or whose tables are being filled or ready, is left as it is.
 */
napi_value FillTables(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  std::string tables_path, name;
  double budget = 0;
  if (!args(env, info, argv) || napi_get_value_double(env, argv[1], &budget) != napi_ok || budget < 0 ||
      !optional_string(env, argv[3], tables_path))
    return throw_error(env, "fillTables(key, tableBudgetBytes ≥ 0, threads, tablesPath)");
  const int threads = get_int(env, argv[2], 1);
  std::shared_ptr<KeyHandle> h = get_named_key(env, argv[0], "fillTables", name);
  if (!h) return nullptr;
  GUARD_BEGIN
  bool fill = false;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    if (h->planned_table_bytes > 0 && !h->tables_filled) {
      if (planned_table_bytes(*h->key, (size_t)budget) != h->planned_table_bytes)
        throw std::runtime_error("fillTables: the budget differs from the claim's");
      h->tables_filled = fill = true;
      h->key->begin_tables();  // settled by attach_tables
    }
  }
  if (fill) attach_tables(*h, budget, threads, false, tables_path);
  napi_value v;
  napi_get_boolean(env, h->key->wait_tables(), &v);
  return v;
  GUARD_END
}

/** setMemoryBudget(bytes): the process-wide budget of named keys and their tables (0: none). */
napi_value SetMemoryBudget(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  double bytes = 0;
  if (!args(env, info, argv) || napi_get_value_double(env, argv[0], &bytes) != napi_ok || bytes < 0)
    return throw_error(env, "setMemoryBudget(bytes: number ≥ 0)");
  std::vector<std::shared_ptr<KeyHandle>> gone;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    memory_budget = (size_t)bytes;
    gone = evict_locked("");
  }
  return nullptr;
}

/**
 * arithmetic(): the CPU arithmetic of tables built from now on: "ifma-x8" (eight lanes of AVX-512
 * IFMA) or "scalar" (64-bit limbs: mulx/adcx/adox where the CPU has them). ZKGATE_NATIVE_SIMD=0
 * forces "scalar".
 */
napi_value Arithmetic(napi_env env, napi_callback_info) {
  napi_value v;
  const char* name = x8_tables() ? "ifma-x8" : "scalar";
  napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &v);
  return v;
}

/** memoryInfo(): { budget, used, keys, evictions } of the registry. */
napi_value MemoryInfo(napi_env env, napi_callback_info) {
  size_t budget, used, keys;
  uint64_t ev;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    budget = memory_budget;
    used = registry_bytes;
    keys = registry.size();
    ev = evictions;
  }
  napi_value obj, v;
  napi_create_object(env, &obj);
  napi_create_double(env, (double)budget, &v);
  napi_set_named_property(env, obj, "budget", v);
  napi_create_double(env, (double)used, &v);
  napi_set_named_property(env, obj, "used", v);
  napi_create_double(env, (double)keys, &v);
  napi_set_named_property(env, obj, "keys", v);
  napi_create_double(env, (double)ev, &v);
  napi_set_named_property(env, obj, "evictions", v);
  return obj;
}

/**
 * preemptStats() → { pauses, pausedMs, slices, clients }: how often background proofs stepped aside
 * for client proofs (and for how long in all), how often one ran a slice after waiting its longest,
 * and client proofs in the prover now.
 */
napi_value PreemptStatsInfo(napi_env env, napi_callback_info info) {
  const PreemptStats st = preempt_stats();
  napi_value obj, v;
  napi_create_object(env, &obj);
  napi_create_double(env, (double)st.pauses, &v);
  napi_set_named_property(env, obj, "pauses", v);
  napi_create_double(env, (double)st.paused_us / 1000.0, &v);
  napi_set_named_property(env, obj, "pausedMs", v);
  napi_create_double(env, (double)st.slices, &v);
  napi_set_named_property(env, obj, "slices", v);
  napi_create_int32(env, st.clients, &v);
  napi_set_named_property(env, obj, "clients", v);
  return obj;
}

napi_value KeyInfo(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!args(env, info, argv)) return throw_error(env, "keyInfo(key)");
  std::shared_ptr<KeyHandle> h = get_key(env, argv[0], "keyInfo");
  if (!h) return nullptr;
  napi_value obj, v;
  napi_create_object(env, &obj);
  napi_create_uint32(env, h->key->n_vars, &v);
  napi_set_named_property(env, obj, "nVars", v);
  napi_create_uint32(env, h->key->n_public, &v);
  napi_set_named_property(env, obj, "nPublic", v);
  napi_create_uint32(env, h->key->domain_size, &v);
  napi_set_named_property(env, obj, "domainSize", v);
  napi_create_double(env, (double)h->key->bytes, &v);
  napi_set_named_property(env, obj, "bytes", v);
  napi_create_double(env, (double)h->planned_table_bytes, &v);
  napi_set_named_property(env, obj, "tableBytes", v);
  napi_get_boolean(env, h->key->tables_ready.load(), &v);
  napi_set_named_property(env, obj, "tablesReady", v);
  napi_create_string_utf8(env, h->table_file.load(), NAPI_AUTO_LENGTH, &v);
  napi_set_named_property(env, obj, "tableFile", v);
  napi_get_boolean(env, h->key->tables_saved.load(), &v);
  napi_set_named_property(env, obj, "tablesSaved", v);
  return obj;
}

/** waitTables(key): blocks until a background table build has finished (benchmarks, tests). */
napi_value WaitTables(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!args(env, info, argv)) return throw_error(env, "waitTables(key)");
  std::shared_ptr<KeyHandle> h = get_key(env, argv[0], "waitTables");
  if (!h) return nullptr;
  napi_value v;
  napi_get_boolean(env, h->key->wait_tables(), &v);
  return v;
}

/**
 * prove(key, witness (n × 32 bytes), r (32), s (32), threads, blinding?, priority?) → a ‖ b ‖ c
 * (256 bytes); blinding "snarkjs" (default) or "rerandomized" (r, s are then u, v: groth16.hpp's
 * Blinding); priority "client" (default) or "background".
 */
napi_value Prove(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  if (!args_from(env, info, argv, 5)) return throw_error(env, "prove(key, witness, r, s, threads, blinding?, priority?)");
  Blinding blinding;
  if (!get_blinding(env, argv[5], &blinding)) return throw_error(env, "prove: blinding must be \"snarkjs\" or \"rerandomized\"");
  bool background;
  if (!get_background(env, argv[6], &background))
    return throw_error(env, "prove: priority must be \"client\" or \"background\"");
  std::shared_ptr<KeyHandle> h = get_key(env, argv[0], "prove");
  if (!h) return nullptr;
  const uint8_t* w;
  size_t wl;
  if (!get_bytes(env, argv[1], &w, &wl) || wl % 32 != 0) return throw_error(env, "prove: witness must be n × 32 bytes");
  Scalar rs, ss;
  if (!get_blinding_scalars(env, argv[2], argv[3], "prove", rs, ss)) return nullptr;
  int threads = get_int(env, argv[4], 1);
  GUARD_BEGIN
  std::vector<Scalar> witness(wl / 32);
  std::memcpy(witness.data(), w, wl);
  CpuCompute cpu(threads);
  ProofPriority priority(background);
  Proof p = zk::prove(*h->key, witness.data(), witness.size(), rs, ss, cpu, nullptr, blinding);
  return proof_bytes(env, p);
  GUARD_END
}

/**
 * proveEvals(key, witness, a, b, r, s, threads, blinding?, priority?): prove with A·w and B·w per
 * row given (keys without coefficients); blinding and priority as prove's.
 */
napi_value ProveEvals(napi_env env, napi_callback_info info) {
  napi_value argv[9];
  if (!args_from(env, info, argv, 7))
    return throw_error(env, "proveEvals(key, witness, a, b, r, s, threads, blinding?, priority?)");
  Blinding blinding;
  if (!get_blinding(env, argv[7], &blinding))
    return throw_error(env, "proveEvals: blinding must be \"snarkjs\" or \"rerandomized\"");
  bool background;
  if (!get_background(env, argv[8], &background))
    return throw_error(env, "proveEvals: priority must be \"client\" or \"background\"");
  std::shared_ptr<KeyHandle> h = get_key(env, argv[0], "proveEvals");
  if (!h) return nullptr;
  const uint8_t *w, *a, *b;
  size_t wl, al, bl;
  if (!get_bytes(env, argv[1], &w, &wl) || wl % 32 != 0)
    return throw_error(env, "proveEvals: witness must be n × 32 bytes");
  if (!get_bytes(env, argv[2], &a, &al) || !get_bytes(env, argv[3], &b, &bl) || al % 32 != 0 || al != bl)
    return throw_error(env, "proveEvals: a and b must be m × 32 bytes each");
  Scalar rs, ss;
  if (!get_blinding_scalars(env, argv[4], argv[5], "proveEvals", rs, ss)) return nullptr;
  int threads = get_int(env, argv[6], 1);
  GUARD_BEGIN
  // The caller's buffers stay alive for the call (it is synchronous): no copies of the large ones.
  if ((uintptr_t)w % alignof(Scalar) || (uintptr_t)a % alignof(Scalar) || (uintptr_t)b % alignof(Scalar))
    throw std::runtime_error("proveEvals: buffers must be 8-byte aligned");
  Evals ev{reinterpret_cast<const Scalar*>(a), reinterpret_cast<const Scalar*>(b), al / 32};
  CpuCompute cpu(threads);
  ProofPriority priority(background);
  Proof p = zk::prove(*h->key, reinterpret_cast<const Scalar*>(w), wl / 32, rs, ss, cpu, &ev, blinding);
  return proof_bytes(env, p);
  GUARD_END
}

/**
 * decompressPoints(group 1|2, points (gnark's compressed encoding: 32 | 64 bytes each), threads)
 * → the points in the zkey encoding (affine, Montgomery: 64 | 128 bytes each); throws naming the
 * first point that is not one.
 */
napi_value DecompressPoints(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  const uint8_t* in;
  size_t len;
  if (!args(env, info, argv) || !get_bytes(env, argv[1], &in, &len))
    return throw_error(env, "decompressPoints(group, points, threads)");
  const int group = get_int(env, argv[0], 0);
  const size_t size = group == 1 ? 32 : group == 2 ? 64 : 0;
  if (size == 0 || len % size != 0) return throw_error(env, "decompressPoints: group 1 (32-byte points) or 2 (64-byte)");
  const int threads = std::max(1, get_int(env, argv[2], 1));
  GUARD_BEGIN
  const size_t count = len / size;
  if (group == 1) {
    std::vector<G1Affine> out(count);
    decompress_points(out.data(), in, count, threads);
    return make_bytes(env, out.data(), count * sizeof(G1Affine));
  }
  std::vector<G2Affine> out(count);
  decompress_points(out.data(), in, count, threads);
  return make_bytes(env, out.data(), count * sizeof(G2Affine));
  GUARD_END
}

/** The inputs argument of solve and proveInputs: n × 32 bytes, canonical little-endian. */
bool get_inputs(napi_env env, napi_value v, std::vector<Scalar>& out) {
  const uint8_t* p;
  size_t len;
  if (!get_bytes(env, v, &p, &len) || len % 32 != 0) return false;
  out.resize(len / 32);
  std::memcpy(out.data(), p, len);
  return true;
}

const R1csSystem& r1cs_of(const ZKey& key) {
  if (!key.r1cs) throw std::runtime_error("this key has no constraint system (it proves from a full witness)");
  return *key.r1cs;
}

/**
 * solve(key, inputs) → { witness, a, b }: the key's constraint system solved for the circuit's
 * inputs (public without the constant wire, then secret); an unsatisfied constraint throws
 * "constraint #N is not satisfied".
 */
napi_value Solve(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  std::vector<Scalar> inputs;
  if (!args(env, info, argv) || !get_inputs(env, argv[1], inputs)) return throw_error(env, "solve(key, inputs)");
  std::shared_ptr<KeyHandle> h = get_key(env, argv[0], "solve");
  if (!h) return nullptr;
  GUARD_BEGIN
  R1csSolution sol = solve_r1cs(r1cs_of(*h->key), inputs.data(), inputs.size());
  napi_value obj;
  napi_create_object(env, &obj);
  napi_set_named_property(env, obj, "witness", make_bytes(env, sol.witness.data(), sol.witness.size() * 32));
  napi_set_named_property(env, obj, "a", make_bytes(env, sol.a.data(), sol.a.size() * 32));
  napi_set_named_property(env, obj, "b", make_bytes(env, sol.b.data(), sol.b.size() * 32));
  return obj;
  GUARD_END
}

/**
 * proveInputs(key, inputs, r, s, threads, blinding?, priority?) → a ‖ b ‖ c: solve, then prove with
 * the rows' A·w and B·w (keys with a constraint system); errors as solve's.
 */
napi_value prove_inputs(napi_env env, napi_callback_info info, bool engine);
napi_value ProveInputs(napi_env env, napi_callback_info info) { return prove_inputs(env, info, false); }
/** engineProveInputs(key, inputs, r, s, threads, blinding?): proveInputs through the process's engine. */
napi_value EngineProveInputs(napi_env env, napi_callback_info info) { return prove_inputs(env, info, true); }

napi_value prove_inputs(napi_env env, napi_callback_info info, bool engine) {
  napi_value argv[7];
  std::vector<Scalar> inputs;
  if (!args_from(env, info, argv, 5) || !get_inputs(env, argv[1], inputs))
    return throw_error(env, "proveInputs(key, inputs, r, s, threads, blinding?, priority?)");
  Blinding blinding;
  if (!get_blinding(env, argv[5], &blinding))
    return throw_error(env, "proveInputs: blinding must be \"snarkjs\" or \"rerandomized\"");
  bool background;
  if (!get_background(env, argv[6], &background))
    return throw_error(env, "proveInputs: priority must be \"client\" or \"background\"");
  std::shared_ptr<KeyHandle> h = get_key(env, argv[0], "proveInputs");
  if (!h) return nullptr;
  Scalar rs, ss;
  if (!get_blinding_scalars(env, argv[2], argv[3], "proveInputs", rs, ss)) return nullptr;
  const int threads = get_int(env, argv[4], 1);
  GUARD_BEGIN
  ProofPriority priority(background);
  R1csSolution sol = solve_r1cs(r1cs_of(*h->key), inputs.data(), inputs.size());
  Evals ev{sol.a.data(), sol.b.data(), sol.a.size()};
  Proof p;
  if (engine) {
    std::shared_ptr<Engine> e = current_engine();
    if (!e) throw std::runtime_error("engineProveInputs: engineConfigure first");
    p = e->prove_evals(*h->key, sol.witness.data(), sol.witness.size(), ev, rs, ss, blinding);
  } else {
    CpuCompute cpu(threads);
    p = zk::prove(*h->key, sol.witness.data(), sol.witness.size(), rs, ss, cpu, &ev, blinding);
  }
  return proof_bytes(env, p);
  GUARD_END
}

// The fixed-base tables (64 MB for G1, 128 MB for G2) live from the first use until released.
std::mutex fixed_base_mutex;
std::unique_ptr<FixedBaseMul<Fq>> fixed_base_g1;
std::unique_ptr<FixedBaseMul<Fq2>> fixed_base_g2;

/** fixedBaseMul(group 1|2, scalars: n × 32 bytes, threads) → n points · generator, zkey encoding. */
napi_value FixedBaseMulOp(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  if (!args(env, info, argv)) return throw_error(env, "fixedBaseMul(group, scalars, threads)");
  int group = get_int(env, argv[0], 0);
  const uint8_t* sc;
  size_t sl;
  if ((group != 1 && group != 2) || !get_bytes(env, argv[1], &sc, &sl) || sl % 32 != 0)
    return throw_error(env, "fixedBaseMul: group 1 or 2 and n × 32 bytes of scalars");
  int threads = get_int(env, argv[2], 1);
  GUARD_BEGIN
  const size_t n = sl / 32;
  std::vector<Scalar> scalars(n);
  std::memcpy(scalars.data(), sc, sl);
  for (const Scalar& k : scalars)
    if (!Fr::is_canonical(k.v)) throw std::runtime_error("fixedBaseMul: scalar not below r");
  const size_t bytes = group == 1 ? 64 : 128;
  std::vector<uint8_t> out(n * bytes);
  {
    std::lock_guard<std::mutex> lock(fixed_base_mutex);
    if (group == 1) {
      if (!fixed_base_g1) fixed_base_g1 = std::make_unique<FixedBaseMul<Fq>>(g1_generator(), threads);
      fixed_base_g1->run(scalars.data(), n, out.data(), threads);
    } else {
      if (!fixed_base_g2) fixed_base_g2 = std::make_unique<FixedBaseMul<Fq2>>(g2_generator(), threads);
      fixed_base_g2->run(scalars.data(), n, out.data(), threads);
    }
  }
  return make_bytes(env, out.data(), out.size());
  GUARD_END
}

/**
 * qapAccumulate(constraints, nConstraints, firstConstraint, lagrange, u, v, w, coefficients) →
 * {coefs, count}: one run of the dev setup's constraint pass (qap_setup.hpp), adding into u, v, w
 * (equal-length Uint8Arrays, nVars × 32 bytes) in place.
 */
napi_value QapAccumulateOp(napi_env env, napi_callback_info info) {
  napi_value argv[8];
  const uint8_t *cs, *lg, *sums[3];
  size_t cl, ll, sl[3];
  if (!args(env, info, argv) || !get_bytes(env, argv[0], &cs, &cl) || !get_bytes(env, argv[3], &lg, &ll) ||
      !get_bytes(env, argv[4], &sums[0], &sl[0]) || !get_bytes(env, argv[5], &sums[1], &sl[1]) ||
      !get_bytes(env, argv[6], &sums[2], &sl[2]))
    return throw_error(env, "qapAccumulate(constraints, nConstraints, firstConstraint, lagrange, u, v, w, coefficients)");
  const int64_t n_constraints = get_int(env, argv[1], -1), first = get_int(env, argv[2], -1);
  if (n_constraints < 0 || first < 0 || first + n_constraints > int64_t(UINT32_MAX))
    return throw_error(env, "qapAccumulate: counts out of range");
  if (sl[0] == 0 || sl[0] % 32 != 0 || sl[1] != sl[0] || sl[2] != sl[0] || sl[0] / 32 > UINT32_MAX)
    return throw_error(env, "qapAccumulate: u, v and w must be nVars × 32 bytes each");
  bool with_coefs = false;
  napi_get_value_bool(env, argv[7], &with_coefs);
  GUARD_BEGIN
  uint8_t* const out[3] = {const_cast<uint8_t*>(sums[0]), const_cast<uint8_t*>(sums[1]), const_cast<uint8_t*>(sums[2])};
  std::vector<uint8_t> coefs;
  const uint32_t count = qap_accumulate(cs, cl, uint32_t(first), uint32_t(n_constraints), lg, ll, out,
                                        uint32_t(sl[0] / 32), with_coefs ? &coefs : nullptr);
  napi_value obj, n;
  napi_create_object(env, &obj);
  napi_set_named_property(env, obj, "coefs", make_bytes(env, coefs.data(), coefs.size()));
  napi_create_uint32(env, count, &n);
  napi_set_named_property(env, obj, "count", n);
  return obj;
  GUARD_END
}

/** fixedBaseRelease(): frees the fixed-base tables (a setup is done). */
napi_value FixedBaseRelease(napi_env env, napi_callback_info) {
  std::lock_guard<std::mutex> lock(fixed_base_mutex);
  fixed_base_g1.reset();
  fixed_base_g2.reset();
  napi_value undef;
  napi_get_undefined(env, &undef);
  return undef;
}

napi_value set_num(napi_env env, napi_value obj, const char* name, double v) {
  napi_value x;
  napi_create_double(env, v, &x);
  napi_set_named_property(env, obj, name, x);
  return obj;
}
napi_value set_str(napi_env env, napi_value obj, const char* name, const std::string& v) {
  napi_value x;
  napi_create_string_utf8(env, v.c_str(), v.size(), &x);
  napi_set_named_property(env, obj, name, x);
  return obj;
}

/** cudaStatus() → {ok, reason, library, devices: [{index, name, sms, computeCapability, totalBytes, freeBytes, l2Bytes}]}. */
napi_value CudaStatusInfo(napi_env env, napi_callback_info info) {
  GUARD_BEGIN
  CudaStatus st = cuda_status();
  napi_value obj, ok, list;
  napi_create_object(env, &obj);
  napi_get_boolean(env, st.ok, &ok);
  napi_set_named_property(env, obj, "ok", ok);
  set_str(env, obj, "reason", st.reason);
  set_str(env, obj, "library", st.library);
  napi_create_array_with_length(env, st.devices.size(), &list);
  for (size_t i = 0; i < st.devices.size(); i++) {
    const DeviceInfo& d = st.devices[i];
    napi_value o;
    napi_create_object(env, &o);
    set_num(env, o, "index", d.index);
    set_str(env, o, "name", d.name);
    set_num(env, o, "sms", d.sms);
    set_str(env, o, "computeCapability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor));
    set_num(env, o, "totalBytes", (double)d.total_bytes);
    set_num(env, o, "freeBytes", (double)d.free_bytes);
    set_num(env, o, "l2Bytes", d.l2_bytes);
    napi_set_element(env, list, i, o);
  }
  napi_set_named_property(env, obj, "devices", list);
  return obj;
  GUARD_END
}

/**
 * engineConfigure(backend, devices: number[], deviceBudgetBytes, batchMax, batchWaitUs, threads):
 * the process-wide engine (every worker calls it with the same options; the first creates it).
 * Returns its description; throws why the backend cannot run.
 */
napi_value EngineConfigure(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  EngineOptions o;
  if (!args(env, info, argv) || !get_string(env, argv[0], o.backend))
    return throw_error(env, "engineConfigure(backend, devices, deviceBudgetBytes, batchMax, batchWaitUs, threads)");
  uint32_t count = 0;
  napi_get_array_length(env, argv[1], &count);
  for (uint32_t i = 0; i < count; i++) {
    napi_value v;
    napi_get_element(env, argv[1], i, &v);
    o.devices.push_back(get_int(env, v, -1));
  }
  double budget = 0;
  napi_get_value_double(env, argv[2], &budget);
  o.device_budget_bytes = budget > 0 ? (uint64_t)budget : 0;
  o.batch_max = get_int(env, argv[3], 1);
  o.batch_wait_us = get_int(env, argv[4], 0);
  o.threads = get_int(env, argv[5], 1);
  GUARD_BEGIN
  std::string d = configure_engine(o)->describe();
  napi_value out;
  napi_create_string_utf8(env, d.c_str(), d.size(), &out);
  return out;
  GUARD_END
}

/** engineProve(key, witness, r, s, blinding?) → a ‖ b ‖ c, through the engine's batcher (blocks this thread). */
napi_value EngineProve(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  if (!args_from(env, info, argv, 4)) return throw_error(env, "engineProve(key, witness, r, s, blinding?)");
  Blinding blinding;
  if (!get_blinding(env, argv[4], &blinding))
    return throw_error(env, "engineProve: blinding must be \"snarkjs\" or \"rerandomized\"");
  std::shared_ptr<KeyHandle> h = get_key(env, argv[0], "engineProve");
  if (!h) return nullptr;
  const uint8_t* w;
  size_t wl;
  if (!get_bytes(env, argv[1], &w, &wl) || wl % 32 != 0)
    return throw_error(env, "engineProve: witness must be n × 32 bytes");
  Scalar rs, ss;
  if (!get_blinding_scalars(env, argv[2], argv[3], "engineProve", rs, ss)) return nullptr;
  GUARD_BEGIN
  std::shared_ptr<Engine> engine = current_engine();
  if (!engine) throw std::runtime_error("engineProve: engineConfigure was not called");
  std::vector<Scalar> witness(wl / 32);
  std::memcpy(witness.data(), w, wl);
  Proof p = engine->prove(*h->key, witness.data(), witness.size(), rs, ss, blinding);
  return proof_bytes(env, p);
  GUARD_END
}

/** engineStats() → {backend, description, proofs, batches, largestBatch, failed, residentBytes} or null. */
napi_value EngineStatsInfo(napi_env env, napi_callback_info info) {
  std::shared_ptr<Engine> engine = current_engine();
  napi_value obj;
  if (!engine) {
    napi_get_null(env, &obj);
    return obj;
  }
  EngineStats st = engine->stats();
  napi_create_object(env, &obj);
  set_str(env, obj, "backend", engine->options().backend);
  set_str(env, obj, "description", engine->describe());
  set_num(env, obj, "proofs", (double)st.proofs);
  set_num(env, obj, "batches", (double)st.batches);
  set_num(env, obj, "largestBatch", (double)st.largest_batch);
  set_num(env, obj, "failed", (double)st.failed);
  set_num(env, obj, "residentBytes", (double)st.resident_bytes);
  return obj;
}

/**
 * accelSelfCheck(backend 'cuda'|'emulate', device, threads) → '' when a synthetic key's proofs made
 * by the accelerator equal the CPU's with the same r and s (and MSMs agree), else the reason.
 */
napi_value AccelSelfCheck(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  std::string backend;
  if (!args(env, info, argv) || !get_string(env, argv[0], backend))
    return throw_error(env, "accelSelfCheck(backend, device, threads)");
  const int device = get_int(env, argv[1], 0), threads = get_int(env, argv[2], 1);
  std::string reason;
  try {
    std::unique_ptr<AccelCompute> a = backend == "cuda" ? open_cuda(device, 0) : open_emulated(threads, 0);
    reason = accel_self_check(*a);
  } catch (const std::exception& e) {
    reason = e.what();
  }
  napi_value out;
  napi_create_string_utf8(env, reason.c_str(), reason.size(), &out);
  return out;
}

// ---- Test entry points: each takes and returns canonical little-endian bytes. ----

template <class F>
F field_op(int op, const F& x, const F& y) {
  switch (op) {
    case 0: return x + y;
    case 1: return x - y;
    case 2: return x * y;
    case 3: return x.squared();
    case 4: return x.inverse();
    case 5: return -x;
  }
  throw std::runtime_error("unknown op");
}

napi_value FieldOp(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!args(env, info, argv)) return throw_error(env, "fieldOp(field, op, a, b)");
  int field = get_int(env, argv[0], -1), op = get_int(env, argv[1], -1);
  const uint8_t *a, *b;
  size_t al, bl;
  if (!get_bytes(env, argv[2], &a, &al) || !get_bytes(env, argv[3], &b, &bl)) return throw_error(env, "bytes");
  GUARD_BEGIN
  const size_t size = field == 2 ? 64 : 32;
  if (al != size || bl != size) throw std::runtime_error("operands are " + std::to_string(size) + " bytes");
  uint8_t out[64];
  if (field == 0) {
    field_out(field_op(op, field_in<Fq>(a), field_in<Fq>(b)), out);
  } else if (field == 1) {
    field_out(field_op(op, field_in<Fr>(a), field_in<Fr>(b)), out);
  } else if (field == 2) {
    Fq2 z = field_op(op, Fq2{field_in<Fq>(a), field_in<Fq>(a + 32)}, Fq2{field_in<Fq>(b), field_in<Fq>(b + 32)});
    field_out(z.c0, out);
    field_out(z.c1, out + 32);
  } else {
    throw std::runtime_error("unknown field");
  }
  return make_bytes(env, out, size);
  GUARD_END
}

// The GPU path's arithmetic as compiled for the host (hd/), for the same comparisons.
template <class H, class C>
H to_hd(const C& c) {
  static_assert(sizeof(H) == sizeof(C), "layouts");
  H h;
  std::memcpy((void*)&h, (const void*)&c, sizeof h);
  return h;
}
template <class C, class H>
C from_hd(const H& h) {
  C c;
  std::memcpy((void*)&c, (const void*)&h, sizeof c);
  return c;
}
template <class H>
H hd_field_op(int op, const H& x, const H& y) {
  H r;
  switch (op) {
    case 0: H::add(r, x, y); return r;
    case 1: H::sub(r, x, y); return r;
    case 2: H::mul(r, x, y); return r;
    case 3: H::sqr(r, x); return r;
    case 5: H::neg(r, x); return r;
  }
  throw std::runtime_error("unknown op");
}

/** hdFieldOp(field 0 Fq | 1 Fr | 2 Fq2, op 0 add, 1 sub, 2 mul, 3 square, 5 negate, a, b). */
napi_value HdFieldOp(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!args(env, info, argv)) return throw_error(env, "hdFieldOp(field, op, a, b)");
  int field = get_int(env, argv[0], -1), op = get_int(env, argv[1], -1);
  const uint8_t *a, *b;
  size_t al, bl;
  if (!get_bytes(env, argv[2], &a, &al) || !get_bytes(env, argv[3], &b, &bl)) return throw_error(env, "bytes");
  GUARD_BEGIN
  const size_t size = field == 2 ? 64 : 32;
  if (al != size || bl != size) throw std::runtime_error("operands are " + std::to_string(size) + " bytes");
  uint8_t out[64];
  if (field == 0) {
    field_out(from_hd<Fq>(hd_field_op(op, to_hd<hd::FqHD>(field_in<Fq>(a)), to_hd<hd::FqHD>(field_in<Fq>(b)))), out);
  } else if (field == 1) {
    field_out(from_hd<Fr>(hd_field_op(op, to_hd<hd::FrHD>(field_in<Fr>(a)), to_hd<hd::FrHD>(field_in<Fr>(b)))), out);
  } else if (field == 2) {
    Fq2 x{field_in<Fq>(a), field_in<Fq>(a + 32)}, y{field_in<Fq>(b), field_in<Fq>(b + 32)};
    Fq2 z = from_hd<Fq2>(hd_field_op(op, to_hd<hd::Fq2HD>(x), to_hd<hd::Fq2HD>(y)));
    field_out(z.c0, out);
    field_out(z.c1, out + 32);
  } else {
    throw std::runtime_error("unknown field");
  }
  return make_bytes(env, out, size);
  GUARD_END
}

/** hdCurveOp(group 1|2, op 0 add, 1 mixed add, 2 double, 4 mixed add of −q, p, q): the GPU path's formulas. */
napi_value HdCurveOp(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!args(env, info, argv)) return throw_error(env, "hdCurveOp(group, op, p, q)");
  int group = get_int(env, argv[0], -1), op = get_int(env, argv[1], -1);
  const uint8_t *p, *q;
  size_t pl, ql;
  if (!get_bytes(env, argv[2], &p, &pl) || !get_bytes(env, argv[3], &q, &ql)) return throw_error(env, "bytes");
  GUARD_BEGIN
  auto run = [&](auto cpu_tag, auto hd_tag, auto in, auto outf, size_t size) {
    using J = decltype(cpu_tag);
    using H = decltype(hd_tag);
    using HA = decltype(H::X);
    if (pl != size || ql != size) throw std::runtime_error("operands have the wrong size");
    auto a = in(p), b = in(q);
    H ja = to_hd<H>(J::from_affine(a)), jb = to_hd<H>(J::from_affine(b)), r;
    hd::AffineHD<HA> ab;
    std::memcpy((void*)&ab, (const void*)&b, sizeof ab);
    switch (op) {
      case 0: H::add(r, ja, jb); break;
      case 1: H::add_mixed(r, ja, ab); break;
      case 2: H::dbl(r, ja); break;
      case 4: H::add_mixed(r, ja, ab, true); break;
      default: throw std::runtime_error("unknown op");
    }
    std::vector<uint8_t> out(size);
    outf(from_hd<J>(r).to_affine(), out.data());
    return make_bytes(env, out.data(), size);
  };
  if (group == 1) return run(G1{}, hd::G1HD{}, g1_in, g1_out, 64);
  if (group == 2) return run(G2{}, hd::G2HD{}, g2_in, g2_out, 128);
  throw std::runtime_error("unknown group");
  GUARD_END
}

/** curveOp(group 1|2, op, p, q|k): 0 add (Jacobian), 1 mixed add, 2 double, 3 scalar mul. */
napi_value CurveOp(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!args(env, info, argv)) return throw_error(env, "curveOp(group, op, p, q)");
  int group = get_int(env, argv[0], -1), op = get_int(env, argv[1], -1);
  const uint8_t *p, *q;
  size_t pl, ql;
  if (!get_bytes(env, argv[2], &p, &pl) || !get_bytes(env, argv[3], &q, &ql)) return throw_error(env, "bytes");
  GUARD_BEGIN
  auto run = [&](auto jac_tag, auto in, auto outf, size_t size) {
    using J = decltype(jac_tag);
    if (pl != size || ql != (op == 3 ? 32 : size)) throw std::runtime_error("operands have the wrong size");
    auto a = in(p);
    J r;
    if (op == 3) {
      u64 k[4];
      std::memcpy(k, q, 32);
      r = J::from_affine(a).times(k);
    } else if (op == 2) {
      J::dbl(r, J::from_affine(a));
    } else {
      auto b = in(q);
      if (op == 0) J::add(r, J::from_affine(a), J::from_affine(b));
      else J::add_mixed(r, J::from_affine(a), b);
    }
    std::vector<uint8_t> out(size);
    outf(r.to_affine(), out.data());
    return make_bytes(env, out.data(), size);
  };
  if (group == 1) return run(G1{}, g1_in, g1_out, 64);
  if (group == 2) return run(G2{}, g2_in, g2_out, 128);
  throw std::runtime_error("unknown group");
  GUARD_END
}

/** msm(group, bases (affine canonical), scalars (32 bytes each), threads, fixed) → affine. */
napi_value Msm(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  if (!args(env, info, argv)) return throw_error(env, "msm(group, bases, scalars, threads, fixedBaseTable)");
  int group = get_int(env, argv[0], -1), threads = get_int(env, argv[3], 1);
  bool fixed = false;
  napi_get_value_bool(env, argv[4], &fixed);
  const uint8_t *b, *s;
  size_t bl, sl;
  if (!get_bytes(env, argv[1], &b, &bl) || !get_bytes(env, argv[2], &s, &sl)) return throw_error(env, "bytes");
  GUARD_BEGIN
  size_t n = sl / 32;
  std::vector<Scalar> scalars(n);
  std::memcpy(scalars.data(), s, n * 32);
  for (auto& k : scalars)
    if (!Fr::is_canonical(k.v)) throw std::runtime_error("scalar out of range");
  CpuCompute cpu(threads);
  if (group == 1) {
    if (bl != n * 64) throw std::runtime_error("bases and scalars differ in count");
    std::vector<G1Affine> bases(n);
    for (size_t i = 0; i < n; i++) bases[i] = g1_in(b + 64 * i);
    uint8_t out[64];
    FixedBaseTable<Fq> table;
    if (fixed) table.build(bases.data(), n, threads);
    g1_out(cpu.msm_g1(bases.data(), fixed ? &table : nullptr, scalars.data(), n).to_affine(), out);
    return make_bytes(env, out, 64);
  }
  if (bl != n * 128) throw std::runtime_error("bases and scalars differ in count");
  std::vector<G2Affine> bases(n);
  for (size_t i = 0; i < n; i++) bases[i] = g2_in(b + 128 * i);
  uint8_t out[128];
  FixedBaseTable<Fq2> table;
  if (fixed) table.build(bases.data(), n, threads);
  g2_out(cpu.msm_g2(bases.data(), fixed ? &table : nullptr, scalars.data(), n).to_affine(), out);
  return make_bytes(env, out, 128);
  GUARD_END
}

/** ntt(values (2^k × 32 bytes), inverse, threads) → values. */
napi_value Ntt(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  if (!args(env, info, argv)) return throw_error(env, "ntt(values, inverse, threads)");
  const uint8_t* v;
  size_t vl;
  if (!get_bytes(env, argv[0], &v, &vl)) return throw_error(env, "bytes");
  bool inverse = false;
  napi_get_value_bool(env, argv[1], &inverse);
  int threads = get_int(env, argv[2], 1);
  GUARD_BEGIN
  size_t n = vl / 32;
  int log = 0;
  while ((size_t(1) << log) < n) log++;
  if ((size_t(1) << log) != n || n * 32 != vl) throw std::runtime_error("ntt size must be a power of two");
  std::vector<Fr> a(n);
  for (size_t i = 0; i < n; i++) a[i] = field_in<Fr>(v + 32 * i);
  Domain d(log);
  CpuCompute cpu(threads);
  cpu.ntt(a.data(), d, inverse);
  std::vector<uint8_t> out(vl);
  for (size_t i = 0; i < n; i++) field_out(a[i], out.data() + 32 * i);
  return make_bytes(env, out.data(), vl);
  GUARD_END
}

napi_value RootOfUnity(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!args(env, info, argv)) return throw_error(env, "rootOfUnity(k)");
  int k = get_int(env, argv[0], -1);
  if (k < 0 || k > FR_TWO_ADICITY) return throw_error(env, "k out of range");
  uint8_t out[32];
  field_out(root_of_unity(k), out);
  return make_bytes(env, out, 32);
}

/**
 * poseidonSetup(t, fullRounds, partialRounds, c, s, m, p): circomlib's optimized-form parameters
 * of one width (32-byte little-endian values).
 */
napi_value PoseidonSetup(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  if (!args(env, info, argv)) return throw_error(env, "poseidonSetup(t, full, partial, c, s, m, p)");
  GUARD_BEGIN
  PoseidonWidth w;
  w.t = get_int(env, argv[0], 0);
  w.full = get_int(env, argv[1], 0);
  w.partial = get_int(env, argv[2], 0);
  std::vector<Fr>* into[4] = {&w.c, &w.s, &w.m, &w.p};
  for (int k = 0; k < 4; k++) {
    const uint8_t* b;
    size_t len;
    if (!get_bytes(env, argv[3 + k], &b, &len) || len % 32) return throw_error(env, "constants must be 32-byte values");
    for (size_t i = 0; i < len; i += 32) into[k]->push_back(field_in<Fr>(b + i));
  }
  poseidon().set(std::move(w));
  return nullptr;
  GUARD_END
}

/**
 * poseidon(inputs, arity, bigEndian?): hashes of consecutive groups of `arity` inputs (32-byte
 * values, little-endian unless bigEndian), so a Merkle level of k pairs is one call; returns k × 32
 * bytes in the same byte order.
 */
napi_value PoseidonHash(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  if (!args_from(env, info, argv, 2)) return throw_error(env, "poseidon(inputs, arity, bigEndian)");
  const uint8_t* in;
  size_t len;
  if (!get_bytes(env, argv[0], &in, &len)) return throw_error(env, "inputs must be a Uint8Array");
  int arity = get_int(env, argv[1], 0);
  if (arity < 1 || arity >= Poseidon::MAX_T || len % (32 * size_t(arity)))
    return throw_error(env, "inputs must be groups of arity 32-byte values, arity 1 to 16");
  bool big_endian = false;
  napi_get_value_bool(env, argv[2], &big_endian);  // undefined: little-endian
  GUARD_BEGIN
  const size_t k = len / (32 * size_t(arity));
  std::vector<uint8_t> out(32 * k);
  poseidon().hash_bytes(in, arity, k, out.data(), big_endian);
  return make_bytes(env, out.data(), out.size());
  GUARD_END
}

napi_value Init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"loadKey", nullptr, LoadKey, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"keyInfo", nullptr, KeyInfo, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"plannedTableBytes", nullptr, PlannedTableBytes, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"claimTables", nullptr, ClaimTables, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"fillTables", nullptr, FillTables, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"findKey", nullptr, FindKey, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"setMemoryBudget", nullptr, SetMemoryBudget, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"memoryInfo", nullptr, MemoryInfo, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"preemptStats", nullptr, PreemptStatsInfo, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"arithmetic", nullptr, Arithmetic, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"waitTables", nullptr, WaitTables, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"prove", nullptr, Prove, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"loadKeyFile", nullptr, LoadKeyFile, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"proveEvals", nullptr, ProveEvals, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"fixedBaseMul", nullptr, FixedBaseMulOp, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"fixedBaseRelease", nullptr, FixedBaseRelease, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"qapAccumulate", nullptr, QapAccumulateOp, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"fieldOp", nullptr, FieldOp, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"curveOp", nullptr, CurveOp, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"msm", nullptr, Msm, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"ntt", nullptr, Ntt, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"rootOfUnity", nullptr, RootOfUnity, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"poseidonSetup", nullptr, PoseidonSetup, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"poseidon", nullptr, PoseidonHash, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"hdFieldOp", nullptr, HdFieldOp, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"hdCurveOp", nullptr, HdCurveOp, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"cudaStatus", nullptr, CudaStatusInfo, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"engineConfigure", nullptr, EngineConfigure, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"engineProve", nullptr, EngineProve, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"engineStats", nullptr, EngineStatsInfo, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"accelSelfCheck", nullptr, AccelSelfCheck, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"decompressPoints", nullptr, DecompressPoints, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"solve", nullptr, Solve, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"proveInputs", nullptr, ProveInputs, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"engineProveInputs", nullptr, EngineProveInputs, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
