// zkgate-prove: the native Groth16 prover as a command-line tool, with no Node. It proves snarkjs
// .zkey + circom .wtns files into snarkjs's proof.json / public.json, times the engine the gateway
// uses (cpu, cuda, or the emulated GPU path), and compares an accelerator with the CPU, so a GPU
// host can be qualified and measured with this binary alone (and libzkgate_cuda.so beside it).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine.hpp"
#include "r1cs_solver.hpp"

// .wtns values, zkey limbs and Scalars are little-endian bytes copied straight into u64 limbs.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "zkgate-prove reads little-endian files by copying");

using namespace zk;

namespace {

const char* const USAGE = R"(usage: zkgate-prove <command> [options]

Groth16 proofs (BN254; snarkjs .zkey, circom .wtns) with zkgate's native prover.

  prove --zkey K.zkey --wtns W.wtns --proof proof.json --public public.json
        [--backend cpu|cuda|emulate] [--threads N] [--devices 0,1] [--r HEX --s HEX]
      One proof, written as snarkjs writes proof.json and public.json. The blinding scalars r
      and s are random unless given (big-endian hex, optional 0x). --threads: CPU threads
      (default: all).
  bench (--zkey K.zkey --wtns W.wtns [W2.wtns ...] | --random VARS:DOMAIN:PUBLIC[:PERROW])
        [--n N] [--batch B] [--backend cpu|cuda|emulate] [--threads T] [--devices 0,1]
        [--wait-us U] [--blinding rerandomized|snarkjs]
      N proofs (default 32) from B concurrent callers (default 1), witnesses round-robin;
      accelerators gather the callers into batches of up to B, waiting up to U µs (default
      2000). Prints throughput, latency, the engine's batches, a one-proof phase breakdown and a
      final line RESULT {json}. --random proves a synthetic key (PERROW default 3). --threads:
      per proof on cpu (default: all / B), of the emulation for emulate (default: all).
      --blinding: rerandomized (default; what the gateway serves, without the B1 MSM) or
      snarkjs (r and s as snarkjs adds them).
  check --zkey K.zkey --wtns W.wtns [W2.wtns ...] [--backend cuda|emulate] [--devices 0,1]
        [--proof proof.json]
      Proves each witness with fixed r and s on the CPU and on the accelerator (default cuda),
      compares the proofs byte for byte, then (several witnesses) proves all in one batch and
      compares again. --proof writes the accelerator's proof (proof.N.json for witness N when
      there are several). Exit 1 when any differ.
  msm-check [--backend cuda|emulate] [--group 1|2|both] [--sizes 1,2,3,...] [--max-log L]
        [--seed S] [--devices 0]
      Accelerator MSMs against the CPU's on synthetic points and witness-like scalars: by
      default sizes 1, 2, 3, 7, 100, 1000, 4096 and random ones up to 2^L (default 20, at most
      20), G1 and G2. Exit 1 on any mismatch.
  check-inputs --zkey K.zkey --inputs I.bin [I2.bin ...] [--backend cuda|emulate] [--n N]
        [--proof proof.json] [--devices 0,1]
      For keys with a constraint system (imported from Light's files): solves each inputs file
      (the circuit's inputs, 32 bytes little-endian each), proves with fixed r and s on the CPU
      and on the accelerator through its Compute path, compares byte for byte (--proof writes
      the accelerator's proofs), then times N proofs of the first file on each (default 20) and
      prints their p50s. Exit 1 when any differ.
  bad-batch --zkey K.zkey --wtns W.wtns [W2.wtns ...] [--backend cuda|emulate] [--batch B]
      B callers prove at once (default 4), one with a witness made invalid: only that proof
      fails; the others equal the CPU's proofs. Exit 1 otherwise.
  devices
      The CUDA devices, or why there are none (then exit 3).
  self-check [--backend cuda|emulate] [--devices 0]
      The differential check the gateway runs before trusting an accelerator: "ok" or why not.

Exit status: 0 done, 1 failed (the reason on stderr), 2 bad usage, 3 no CUDA device (devices).
)";

/** A bad command line: reported with the usage text, exit 2. */
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

int hardware_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n ? (int)n : 1;
}

long long parse_int(const std::string& text, const std::string& what, long long min, long long max) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != 0 || errno != 0 || v < min || v > max)
    throw UsageError(what + " must be an integer from " + std::to_string(min) + " to " + std::to_string(max) +
                     ": " + text);
  return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t at = s.find(sep, start);
    out.push_back(s.substr(start, at - start));
    if (at == std::string::npos) return out;
    start = at + 1;
  }
}

/**
 * `--name value` options (also `--name=value`). Options in `multi` take every value up to the
 * next option and may repeat (several --wtns); the others take exactly one value, once.
 */
class Args {
 public:
  Args(int argc, char** argv, const std::set<std::string>& single, const std::set<std::string>& multi) {
    for (int i = 0; i < argc; i++) {
      std::string tok = argv[i];
      if (tok == "--help" || tok == "-h") throw UsageError("");
      if (tok.rfind("--", 0) != 0) throw UsageError("unexpected argument " + tok);
      std::string name = tok.substr(2), inline_value;
      const bool has_inline = name.find('=') != std::string::npos;
      if (has_inline) {
        inline_value = name.substr(name.find('=') + 1);
        name = name.substr(0, name.find('='));
      }
      const bool many = multi.count(name) != 0;
      if (!many && !single.count(name)) throw UsageError("unknown option --" + name);
      if (!many && opts_.count(name)) throw UsageError("--" + name + " given twice");
      std::vector<std::string>& values = opts_[name];
      if (has_inline) {
        values.push_back(inline_value);
        continue;
      }
      const size_t before = values.size();
      while (i + 1 < argc && std::strncmp(argv[i + 1], "--", 2) != 0) {
        values.push_back(argv[++i]);
        if (!many) break;
      }
      if (values.size() == before) throw UsageError("--" + name + " needs a value");
    }
  }
  bool has(const std::string& k) const { return opts_.count(k) != 0; }
  std::string get(const std::string& k, const std::string& fallback = "") const {
    return has(k) ? opts_.at(k).front() : fallback;
  }
  std::string need(const std::string& k) const {
    if (!has(k)) throw UsageError("--" + k + " is required");
    return get(k);
  }
  std::vector<std::string> list(const std::string& k) const {
    return has(k) ? opts_.at(k) : std::vector<std::string>{};
  }
  long long integer(const std::string& k, long long fallback, long long min, long long max) const {
    return has(k) ? parse_int(get(k), "--" + k, min, max) : fallback;
  }

 private:
  std::map<std::string, std::vector<std::string>> opts_;
};

std::string backend_arg(const Args& a, const char* fallback, bool accelerators_only) {
  const std::string b = a.get("backend", fallback);
  if (b == "cuda" || b == "emulate" || (b == "cpu" && !accelerators_only)) return b;
  throw UsageError("--backend must be " + std::string(accelerators_only ? "cuda or emulate" : "cpu, cuda or emulate") +
                   ": " + b);
}

std::vector<int> devices_arg(const Args& a) {
  std::vector<int> out;
  if (a.has("devices"))
    for (const std::string& d : split(a.get("devices"), ',')) out.push_back((int)parse_int(d, "--devices", 0, 1023));
  return out;
}

// ---- files ----

std::vector<uint8_t> read_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error("cannot read " + path + ": not a regular file");
  }
  std::vector<uint8_t> data((size_t)st.st_size);
  size_t got = 0;
  while (got < data.size()) {
    const ssize_t n = ::read(fd, data.data() + got, data.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = n < 0 ? std::strerror(errno) : "file shrank while reading";
      ::close(fd);
      throw std::runtime_error("cannot read " + path + ": " + why);
    }
    got += (size_t)n;
  }
  ::close(fd);
  return data;
}

void write_file(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
}

std::unique_ptr<ZKey> load_zkey(const std::string& path) {
  const std::vector<uint8_t> data = read_file(path);
  try {
    return parse_zkey(data.data(), data.size());
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

/**
 * A circom .wtns: "wtns", u32 version, u32 section count, sections {u32 type, u64 size, bytes};
 * section 1 holds n8 (32), the prime (BN254's r) and the witness count, section 2 the values
 * (32-byte little-endian each, which is the Scalar layout).
 */
std::vector<Scalar> read_wtns(const std::string& path) {
  const std::vector<uint8_t> d = read_file(path);
  auto fail = [&](const std::string& why) { return std::runtime_error(path + ": " + why); };
  auto u32_at = [&](size_t at) {
    uint32_t v;
    std::memcpy(&v, &d[at], 4);
    return v;
  };
  if (d.size() < 12 || std::memcmp(d.data(), "wtns", 4) != 0) throw fail("not a .wtns file (no \"wtns\" magic)");
  const uint32_t n_sections = u32_at(8);
  size_t pos = 12, header_at = 0, header_len = 0, values_at = 0, values_len = 0;
  bool header = false, values = false;
  for (uint32_t i = 0; i < n_sections; i++) {
    if (d.size() - pos < 12) throw fail("truncated (section " + std::to_string(i + 1) + " of " +
                                        std::to_string(n_sections) + " is missing)");
    const uint32_t type = u32_at(pos);
    uint64_t size;
    std::memcpy(&size, &d[pos + 4], 8);
    pos += 12;
    if (size > d.size() - pos)
      throw fail("truncated (section type " + std::to_string(type) + " has " + std::to_string(size) + " bytes, " +
                 std::to_string(d.size() - pos) + " are left)");
    if (type == 1 || type == 2) {
      bool& seen = type == 1 ? header : values;
      if (seen) throw fail("two sections of type " + std::to_string(type));
      seen = true;
      (type == 1 ? header_at : values_at) = pos;
      (type == 1 ? header_len : values_len) = (size_t)size;
    }
    pos += (size_t)size;
  }
  if (!header || !values) throw fail(header ? "no witness section (type 2)" : "no header section (type 1)");
  if (header_len < 40) throw fail("header section too short");
  const uint32_t n8 = u32_at(header_at);
  if (n8 != 32) throw fail("field elements of " + std::to_string(n8) + " bytes: not BN254's (32)");
  if (std::memcmp(&d[header_at + 4], FrParams::P, 32) != 0) throw fail("prime is not BN254's scalar field order r");
  const uint32_t n = u32_at(header_at + 36);
  if (values_len != (size_t)n * 32)
    throw fail("witness section has " + std::to_string(values_len) + " bytes for " + std::to_string(n) + " values");
  std::vector<Scalar> w(n);
  if (n) std::memcpy(w.data(), &d[values_at], values_len);
  for (uint32_t i = 0; i < n; i++)
    if (!Fr::is_canonical(w[i].v)) throw fail("value " + std::to_string(i) + " is not below r");
  return w;
}

// ---- scalars and snarkjs JSON ----

/** Big-endian hex (optional 0x) of an integer below r. */
Scalar parse_scalar_hex(const std::string& what, std::string hex) {
  if (hex.rfind("0x", 0) == 0 || hex.rfind("0X", 0) == 0) hex = hex.substr(2);
  if (hex.empty() || hex.size() > 64) throw UsageError(what + " must be 1 to 64 hex digits");
  Scalar s{{0, 0, 0, 0}};
  for (size_t i = 0; i < hex.size(); i++) {
    const char c = hex[hex.size() - 1 - i];  // least significant digit first
    int v;
    if (c >= '0' && c <= '9') v = c - '0';
    else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    else throw UsageError(what + " is not hex: " + hex);
    s.v[i / 16] |= (u64)v << (4 * (i % 16));
  }
  if (!Fr::is_canonical(s.v)) throw UsageError(what + " must be below the BN254 group order r");
  return s;
}

/** Uniform below r: 254 random bits, rejected (about 1 in 4) until below r. */
Scalar random_scalar() {
  static std::random_device rd;
  auto u64_random = [] { return ((u64)rd() << 32) | (u64)rd(); };
  for (;;) {
    Scalar s{{u64_random(), u64_random(), u64_random(), u64_random() & ((u64(1) << 62) - 1)}};
    if (Fr::is_canonical(s.v)) return s;
  }
}

/** A 256-bit integer (little-endian limbs) in decimal: repeated division by 10^19. */
std::string decimal(const u64 limbs[4]) {
  constexpr u64 CHUNK = 10000000000000000000ULL;  // 10^19, the largest power of ten in a u64
  u64 x[4] = {limbs[0], limbs[1], limbs[2], limbs[3]};
  std::vector<u64> chunks;  // least significant first
  while (x[0] | x[1] | x[2] | x[3]) {
    u128 rem = 0;
    for (int i = 3; i >= 0; i--) {
      const u128 cur = (rem << 64) | x[i];
      x[i] = (u64)(cur / CHUNK);
      rem = cur % CHUNK;
    }
    chunks.push_back((u64)rem);
  }
  if (chunks.empty()) return "0";
  std::string out = std::to_string(chunks.back());
  char buf[24];
  for (size_t i = chunks.size() - 1; i-- > 0;) {
    std::snprintf(buf, sizeof buf, "%019llu", (unsigned long long)chunks[i]);
    out += buf;
  }
  return out;
}

std::string decimal(const Fq& f) {
  u64 c[4];
  f.to_canonical(c);  // points are held in Montgomery form
  return decimal(c);
}

/** A JSON array of strings laid out as JSON.stringify(…, null, 1) does, its items at `depth`. */
std::string json_strings(const std::vector<std::string>& items, int depth) {
  const std::string pad(depth, ' ');
  std::string out = "[\n";
  for (size_t i = 0; i < items.size(); i++) out += pad + "\"" + items[i] + "\"" + (i + 1 < items.size() ? ",\n" : "\n");
  return items.empty() ? "[]" : out + std::string(depth - 1, ' ') + "]";
}

// snarkjs's projective form: affine points with z = 1, infinity as (0, 1, 0).
std::vector<std::string> g1_strings(const G1Affine& p) {
  if (p.is_infinity()) return {"0", "1", "0"};
  return {decimal(p.x), decimal(p.y), "1"};
}

std::string proof_json(const Proof& p) {
  std::vector<std::vector<std::string>> b = {{"0", "0"}, {"1", "0"}, {"0", "0"}};
  if (!p.b.is_infinity())
    b = {{decimal(p.b.x.c0), decimal(p.b.x.c1)}, {decimal(p.b.y.c0), decimal(p.b.y.c1)}, {"1", "0"}};
  return "{\n \"pi_a\": " + json_strings(g1_strings(p.a), 2) + ",\n \"pi_b\": [\n  " + json_strings(b[0], 3) +
         ",\n  " + json_strings(b[1], 3) + ",\n  " + json_strings(b[2], 3) + "\n ],\n \"pi_c\": " +
         json_strings(g1_strings(p.c), 2) + ",\n \"protocol\": \"groth16\",\n \"curve\": \"bn128\"\n}\n";
}

/** Wires 1..n_public (wire 0 is the constant 1): snarkjs's public.json. */
std::string public_json(const std::vector<Scalar>& w, uint32_t n_public) {
  std::vector<std::string> items;
  for (uint32_t i = 1; i <= n_public && i < w.size(); i++) items.push_back(decimal(w[i].v));
  return json_strings(items, 1) + "\n";
}

// ---- backends ----

/** One accelerator, used directly (not through an Engine): the first of --devices for cuda. */
std::unique_ptr<AccelCompute> open_accel(const std::string& backend, const std::vector<int>& devices, int threads) {
  if (backend == "emulate") return open_emulated(threads, 0);
  const CudaStatus st = cuda_status();
  if (!st.ok) throw std::runtime_error(st.reason);
  const int d = devices.empty() ? 0 : devices.front();
  if (d >= (int)st.devices.size())
    throw std::runtime_error("CUDA device " + std::to_string(d) + " does not exist (" +
                             std::to_string(st.devices.size()) + " visible)");
  return open_cuda(d, 0);
}

EngineOptions engine_options(const std::string& backend, const std::vector<int>& devices, int threads) {
  EngineOptions o;
  o.backend = backend;
  o.devices = devices;
  o.threads = threads;
  return o;
}

std::string describe_key(const ZKey& k) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%u variables, %u public, domain 2^%d, %zu coefficients, %.1f MiB", k.n_vars,
                k.n_public, k.log_domain, k.coefs.size(), (double)k.bytes / (1 << 20));
  return buf;
}

// ---- prove ----

int cmd_prove(int argc, char** argv) {
  const Args a(argc, argv, {"zkey", "wtns", "proof", "public", "backend", "threads", "devices", "r", "s"}, {});
  const std::string zkey = a.need("zkey"), wtns = a.need("wtns"), proof = a.need("proof"), pub = a.need("public");
  if (a.has("r") != a.has("s")) throw UsageError("--r and --s go together");
  const std::string backend = backend_arg(a, "cpu", false);
  const int threads = (int)a.integer("threads", hardware_threads(), 1, 4096);
  const std::vector<int> devices = devices_arg(a);
  const Scalar r = a.has("r") ? parse_scalar_hex("--r", a.get("r")) : random_scalar();
  const Scalar s = a.has("s") ? parse_scalar_hex("--s", a.get("s")) : random_scalar();
  // The witness first: a bad one fails before the (slow) key load.
  const std::vector<Scalar> w = read_wtns(wtns);
  const auto key = load_zkey(zkey);
  // No fixed-base tables: building them takes longer than they save on one proof.
  Engine engine(engine_options(backend, devices, threads));
  const auto t0 = Clock::now();
  const Proof p = engine.prove(*key, w.data(), w.size(), r, s);
  const double ms = ms_since(t0);
  write_file(proof, proof_json(p));
  write_file(pub, public_json(w, key->n_public));
  std::printf("proved %s in %.1f ms (%s)\n", wtns.c_str(), ms, engine.describe().c_str());
  return 0;
}

// ---- bench ----

struct BenchInput {
  std::unique_ptr<ZKey> key;
  std::vector<std::vector<Scalar>> witnesses;
};

BenchInput bench_input(const Args& a, int batch) {
  BenchInput in;
  const auto t0 = Clock::now();
  if (a.has("random") == a.has("zkey")) throw UsageError("bench needs --zkey with --wtns, or --random");
  if (a.has("random")) {
    const std::vector<std::string> parts = split(a.get("random"), ':');
    if (parts.size() < 3 || parts.size() > 4) throw UsageError("--random is VARS:DOMAIN:PUBLIC[:PERROW]");
    const auto vars = (uint32_t)parse_int(parts[0], "VARS", 3, 1 << 28);
    const auto domain = (uint32_t)parse_int(parts[1], "DOMAIN", 2, 1 << 28);
    const auto pub = (uint32_t)parse_int(parts[2], "PUBLIC", 0, 1 << 28);
    const auto per_row = (uint32_t)(parts.size() == 4 ? parse_int(parts[3], "PERROW", 1, 64) : 3);
    if (vars < pub + 2) throw UsageError("--random: VARS must exceed PUBLIC + 1");
    if (domain & (domain - 1)) throw UsageError("--random: DOMAIN must be a power of two");
    in.key = synthetic_key(vars, pub, domain, per_row, 1);
    // One witness per caller (at least two, so round-robin alternates), each distinct.
    const int count = std::min(std::max(batch, 2), 16);
    for (int i = 0; i < count; i++) in.witnesses.push_back(synthetic_witness(*in.key, 100 + i));
    std::printf("synthetic key: %s; %zu witnesses; made in %.0f ms\n", describe_key(*in.key).c_str(),
                in.witnesses.size(), ms_since(t0));
  } else {
    if (!a.has("wtns")) throw UsageError("--zkey needs --wtns");
    for (const std::string& path : a.list("wtns")) in.witnesses.push_back(read_wtns(path));
    in.key = load_zkey(a.get("zkey"));
    std::printf("key %s: %s; %zu witnesses; loaded in %.0f ms\n", a.get("zkey").c_str(), describe_key(*in.key).c_str(),
                in.witnesses.size(), ms_since(t0));
  }
  return in;
}

double percentile(std::vector<double> xs, double p) {
  std::sort(xs.begin(), xs.end());
  const size_t rank = (size_t)std::ceil(p * (double)xs.size());
  return xs[std::min(xs.size() - 1, rank ? rank - 1 : 0)];
}

struct Throughput {
  double total_s = 0, p50 = 0, p99 = 0;
  EngineStats stats;
};

/** n proofs from `batch` caller threads sharing one counter, each timing its own calls. */
Throughput run_callers(Engine& engine, const BenchInput& in, int n, int batch, Blinding blinding) {
  std::vector<std::pair<Scalar, Scalar>> rs(n);
  for (auto& x : rs) x = {random_scalar(), random_scalar()};
  std::vector<double> latency(n);
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::string error;
  const auto t0 = Clock::now();
  std::vector<std::thread> callers;
  for (int c = 0; c < batch; c++)
    callers.emplace_back([&] {
      for (int i = next.fetch_add(1); i < n && !failed; i = next.fetch_add(1)) {
        const std::vector<Scalar>& w = in.witnesses[(size_t)i % in.witnesses.size()];
        const auto t = Clock::now();
        try {
          engine.prove(*in.key, w.data(), w.size(), rs[i].first, rs[i].second, blinding);
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> lock(error_mutex);
          if (error.empty()) error = e.what();
          failed = true;
        }
        latency[i] = ms_since(t);
      }
    });
  for (auto& t : callers) t.join();
  if (failed) throw std::runtime_error(error);
  Throughput out;
  out.total_s = ms_since(t0) / 1000;
  out.p50 = percentile(latency, 0.50);
  out.p99 = percentile(latency, 0.99);
  out.stats = engine.stats();
  return out;
}

struct Phases {
  double check = 0, core = 0, take = 0, finish = 0;
};

/** One proof with each step timed alone; accelerators opened directly, their key already resident. */
Phases phase_breakdown(const BenchInput& in, const std::string& backend, const std::vector<int>& devices,
                       int threads, Blinding blinding) {
  Phases ph;
  const std::vector<Scalar>& w = in.witnesses.front();
  const Scalar r = random_scalar(), s = random_scalar();
  auto t = Clock::now();
  check_witness(*in.key, w.data(), w.size());
  ph.check = ms_since(t);
  CoreResult core;
  if (backend == "cpu") {
    CpuCompute cpu(threads);
    t = Clock::now();
    core = prove_core(*in.key, w.data(), cpu, nullptr, blinding == Blinding::snarkjs);
    ph.core = ms_since(t);
  } else {
    const auto accel = open_accel(backend, devices, threads);
    const Scalar* ws[1] = {w.data()};
    accel->prove_core_batch(*in.key, ws, 1);  // uploads the key: not what a proof costs
    t = Clock::now();
    const std::shared_ptr<BatchCore> batch = accel->prove_core_batch(*in.key, ws, 1);
    ph.core = ms_since(t);
    t = Clock::now();
    core = batch->take(0);
    ph.take = ms_since(t);
  }
  t = Clock::now();
  if (blinding == Blinding::snarkjs || !finish_rerandomized(*in.key, core, r, s)) finish_proof(*in.key, core, r, s);
  ph.finish = ms_since(t);
  return ph;
}

int cmd_bench(int argc, char** argv) {
  const Args a(argc, argv, {"zkey", "random", "n", "batch", "backend", "threads", "devices", "wait-us", "blinding"},
               {"wtns"});
  const std::string blinding_name = a.has("blinding") ? a.get("blinding") : "rerandomized";
  if (blinding_name != "rerandomized" && blinding_name != "snarkjs")
    throw UsageError("--blinding must be rerandomized or snarkjs");
  const Blinding blinding = blinding_name == "snarkjs" ? Blinding::snarkjs : Blinding::rerandomized;
  const std::string backend = backend_arg(a, "cpu", false);
  const int n = (int)a.integer("n", 32, 1, 1 << 24);
  const int batch = (int)a.integer("batch", 1, 1, 4096);
  // cpu: B proofs run side by side, so by default they share the cores out.
  const int threads = (int)a.integer("threads", backend == "cpu" ? std::max(1, hardware_threads() / batch)
                                                                 : hardware_threads(), 1, 4096);
  const int wait_us = (int)a.integer("wait-us", 2000, 0, 60000000);
  const std::vector<int> devices = devices_arg(a);
  const BenchInput in = bench_input(a, batch);
  if (backend == "cpu") {
    // The gateway proves with the key's fixed-base tables, so the bench does too.
    const auto t0 = Clock::now();
    const size_t bytes = build_tables(*in.key, size_t(1) << 30, threads);
    std::printf("fixed-base tables: %.1f MiB in %.0f ms (%d threads; %s arithmetic)\n", (double)bytes / (1 << 20),
                ms_since(t0), threads, x8_tables() ? "ifma-x8" : "scalar");
  }
  Throughput tp;
  {
    EngineOptions o = engine_options(backend, devices, threads);
    o.batch_max = batch;  // the cpu engine ignores it
    o.batch_wait_us = wait_us;
    Engine engine(o);
    std::printf("engine: %s, %d threads\n", engine.describe().c_str(), threads);
    const std::vector<Scalar>& w = in.witnesses.front();
    const auto t0 = Clock::now();
    engine.prove(*in.key, w.data(), w.size(), random_scalar(), random_scalar(), blinding);
    std::printf("warm-up proof: %.1f ms (accelerators upload the key here)\n", ms_since(t0));
    tp = run_callers(engine, in, n, batch, blinding);
  }  // the engine lets go of its devices before the breakdown opens one again
  const double pps = n / tp.total_s;
  std::printf("%d proofs, %d callers: %.3f s, %.2f proofs/s; latency p50 %.1f ms, p99 %.1f ms\n", n, batch, tp.total_s,
              pps, tp.p50, tp.p99);
  std::printf("engine: %llu proofs (with the warm-up) in %llu batches, largest %llu, %llu failed\n",
              (unsigned long long)tp.stats.proofs, (unsigned long long)tp.stats.batches,
              (unsigned long long)tp.stats.largest_batch, (unsigned long long)tp.stats.failed);
  const Phases ph = phase_breakdown(in, backend, devices, threads, blinding);
  const double core_ms = ph.core + ph.take;
  if (backend == "cpu")
    std::printf("one proof: check_witness %.2f ms, prove_core %.1f ms, finish_proof %.2f ms\n", ph.check, ph.core,
                ph.finish);
  else
    std::printf("one proof: check_witness %.2f ms, prove_core_batch %.1f ms, take %.2f ms, finish_proof %.2f ms\n",
                ph.check, ph.core, ph.take, ph.finish);
  std::printf(
      "RESULT {\"backend\":\"%s\",\"blinding\":\"%s\",\"n\":%d,\"batch\":%d,\"proofs_per_s\":%.3f,\"p50_ms\":%.3f,\"p99_ms\":%.3f,"
      "\"core_ms\":%.3f,\"finish_ms\":%.3f}\n",
      backend.c_str(), blinding_name.c_str(), n, batch, pps, tp.p50, tp.p99, core_ms, ph.finish);
  return 0;
}

// ---- check ----

/** Fixed blinding scalars, so the CPU's and the accelerator's proofs must match byte for byte. */
const Scalar CHECK_R{{0x0123456789abcdefULL, 0x1111111111111111ULL, 0x2222222222222222ULL, 0x0333333333333333ULL}};
const Scalar CHECK_S{{0xfedcba9876543210ULL, 0x4444444444444444ULL, 0x5555555555555555ULL, 0x0666666666666666ULL}};

std::string proof_path(const std::string& base, size_t index, size_t count) {
  if (count == 1) return base;
  const size_t dot = base.rfind('.'), slash = base.rfind('/');
  const std::string n = std::to_string(index);
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return base + "." + n;
  return base.substr(0, dot) + "." + n + base.substr(dot);
}

int cmd_check(int argc, char** argv) {
  const Args a(argc, argv, {"zkey", "backend", "devices", "proof", "threads"}, {"wtns"});
  const std::string backend = backend_arg(a, "cuda", true);
  const std::vector<int> devices = devices_arg(a);
  const int threads = (int)a.integer("threads", hardware_threads(), 1, 4096);
  const std::string zkey = a.need("zkey");
  const std::vector<std::string> paths = a.list("wtns");
  if (paths.empty()) throw UsageError("--wtns is required");
  std::vector<std::vector<Scalar>> ws;
  for (const std::string& p : paths) ws.push_back(read_wtns(p));
  const auto key = load_zkey(zkey);
  // The accelerator opens first: without one, the check fails before the CPU's proofs.
  std::unique_ptr<Engine> accel = std::make_unique<Engine>(engine_options(backend, devices, threads));
  std::vector<Proof> want;
  {
    Engine cpu(engine_options("cpu", {}, threads));
    for (const auto& w : ws) want.push_back(cpu.prove(*key, w.data(), w.size(), CHECK_R, CHECK_S));
  }
  bool all_equal = true;
  auto report = [&](const std::string& what, size_t i, const Proof& got) {
    const bool eq = std::memcmp(&got, &want[i], sizeof got) == 0;
    all_equal = all_equal && eq;
    std::printf("%s %s: %s\n", what.c_str(), paths[i].c_str(), eq ? "equal" : "DIFFERENT");
  };
  for (size_t i = 0; i < ws.size(); i++) {
    const Proof got = accel->prove(*key, ws[i].data(), ws[i].size(), CHECK_R, CHECK_S);
    report(backend, i, got);
    if (a.has("proof")) write_file(proof_path(a.get("proof"), i, ws.size()), proof_json(got));
  }
  accel.reset();  // lets go of its devices before the batch opens one again
  if (ws.size() > 1) {
    // All witnesses in one device pass: the batched kernels must keep proofs apart.
    const auto device = open_accel(backend, devices, threads);
    std::vector<const Scalar*> ptrs;
    for (const auto& w : ws) ptrs.push_back(w.data());
    const std::shared_ptr<BatchCore> core = device->prove_core_batch(*key, ptrs.data(), ptrs.size());
    if (!core) throw std::runtime_error(std::string(device->name()) + " has no batched path");
    for (size_t i = 0; i < ws.size(); i++)
      report(backend + " batch of " + std::to_string(ws.size()), i,
             finish_proof(*key, core->take(i), CHECK_R, CHECK_S));
  }
  return all_equal ? 0 : 1;
}

// ---- msm-check ----

std::vector<size_t> msm_sizes(const Args& a, int max_log, uint64_t seed) {
  std::vector<size_t> sizes;
  if (a.has("sizes")) {
    for (const std::string& s : split(a.get("sizes"), ','))
      sizes.push_back((size_t)parse_int(s, "--sizes", 1, 1 << 24));
    return sizes;
  }
  const size_t top = size_t(1) << max_log;
  for (size_t n : {1, 2, 3, 7, 100, 1000, 4096})
    if (n <= top) sizes.push_back(n);
  // Random sizes spread over the magnitudes (a random bit length, then a size of that length),
  // plus the largest: uneven sizes exercise partial windows and buckets.
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 3 && max_log > 0; i++) {
    const int bits = 1 + (int)(rng() % (uint64_t)max_log);
    const size_t lo = (size_t(1) << (bits - 1)) + 1, hi = size_t(1) << bits;
    sizes.push_back(lo + (size_t)(rng() % (hi - lo + 1)));
  }
  sizes.push_back(top);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

/**
 * Times the CPU's and the accelerator's MSM of the same inputs; true when they agree. `rate` keeps
 * the accelerator's points/s (the last, largest size's is the one reported).
 */
template <class CpuRun, class AccelRun>
bool compare_msm(const char* group, size_t n, double& rate, CpuRun cpu_run, AccelRun accel_run) {
  auto t = Clock::now();
  const auto want = cpu_run().to_affine();
  const double cpu_ms = ms_since(t);
  t = Clock::now();
  const auto got = accel_run().to_affine();
  const double accel_ms = ms_since(t);
  const bool eq = want.x == got.x && want.y == got.y;
  rate = (double)n / (accel_ms / 1000);
  std::printf("%s n=%-8zu cpu %10.2f ms  accel %10.2f ms  %9.3f Mpoints/s  %s\n", group, n, cpu_ms, accel_ms,
              rate / 1e6, eq ? "equal" : "DIFFERENT");
  std::fflush(stdout);  // large sizes take a while: show progress
  return eq;
}

int cmd_msm_check(int argc, char** argv) {
  const Args a(argc, argv, {"backend", "group", "sizes", "max-log", "seed", "devices", "threads"}, {});
  const std::string backend = backend_arg(a, "cuda", true);
  const std::string group = a.get("group", "both");
  if (group != "1" && group != "2" && group != "both") throw UsageError("--group must be 1, 2 or both");
  const int max_log = (int)a.integer("max-log", 20, 0, 20);
  const int threads = (int)a.integer("threads", hardware_threads(), 1, 4096);
  const uint64_t seed = a.has("seed") ? (uint64_t)parse_int(a.get("seed"), "--seed", 0, INT64_MAX)
                                      : ((uint64_t)std::random_device{}() << 16) ^ std::random_device{}();
  const std::vector<size_t> sizes = msm_sizes(a, max_log, seed);
  const auto accel = open_accel(backend, devices_arg(a), threads);
  CpuCompute cpu(threads);
  std::printf("%s MSMs against the CPU's (%d threads), seed %llu\n", accel->name(), threads, (unsigned long long)seed);
  bool all_equal = true;
  double rate_g1 = 0, rate_g2 = 0;
  for (size_t n : sizes) {
    // n + 2 variables: the key's A and B2 hold n + 2 points, its C n (one public input).
    const auto key = synthetic_key((uint32_t)n + 2, 1, 4, 1, seed + n);
    const std::vector<Scalar> s = synthetic_witness(*key, seed ^ (n * 0x9e3779b97f4a7c15ULL));
    if (group != "2")
      all_equal &= compare_msm(
          "G1", n, rate_g1, [&] { return cpu.msm_g1(key->a.data(), nullptr, s.data(), n); },
          [&] { return accel->msm_g1(key->a.data(), nullptr, s.data(), n); });
    if (group != "1")
      all_equal &= compare_msm(
          "G2", n, rate_g2, [&] { return cpu.msm_g2(key->b2.data(), nullptr, s.data(), n); },
          [&] { return accel->msm_g2(key->b2.data(), nullptr, s.data(), n); });
  }
  std::printf("accelerator at n=%zu:", sizes.back());
  if (group != "2") std::printf(" G1 %.3f Mpoints/s", rate_g1 / 1e6);
  if (group != "1") std::printf(" G2 %.3f Mpoints/s", rate_g2 / 1e6);
  std::printf("\n%s\n", all_equal ? "all equal" : "MISMATCH");
  return all_equal ? 0 : 1;
}

// ---- devices, self-check ----

int cmd_devices(int argc, char** argv) {
  const Args a(argc, argv, {}, {});
  const CudaStatus st = cuda_status();
  std::printf("CUDA library: %s\n", st.library.c_str());
  if (!st.ok) {
    std::printf("no CUDA device: %s\n", st.reason.c_str());
    return 3;
  }
  for (const DeviceInfo& d : st.devices)
    std::printf("device %d: %s, %d SMs, compute capability %d.%d, memory %.1f GiB total / %.1f GiB free, L2 %.1f MiB\n",
                d.index, d.name.c_str(), d.sms, d.cc_major, d.cc_minor, (double)d.total_bytes / (1 << 30),
                (double)d.free_bytes / (1 << 30), (double)d.l2_bytes / (1 << 20));
  return 0;
}

int cmd_self_check(int argc, char** argv) {
  const Args a(argc, argv, {"backend", "devices", "threads"}, {});
  const std::string backend = backend_arg(a, "cuda", true);
  const auto accel = open_accel(backend, devices_arg(a), (int)a.integer("threads", hardware_threads(), 1, 4096));
  const std::string why = accel_self_check(*accel);
  std::printf("%s\n", why.empty() ? "ok" : why.c_str());
  return why.empty() ? 0 : 1;
}

/**
 * B callers prove at once through a batching engine, one of them with a witness made invalid (a
 * value at or above r): that proof alone must fail; the others must equal the CPU's proofs.
 */
// ---- check-inputs ----

int cmd_check_inputs(int argc, char** argv) {
  const Args a(argc, argv, {"zkey", "backend", "devices", "proof", "threads", "n"}, {"inputs"});
  const std::string backend = backend_arg(a, "cuda", true);
  const std::vector<int> devices = devices_arg(a);
  const int threads = (int)a.integer("threads", hardware_threads(), 1, 4096);
  const int n = (int)a.integer("n", 20, 1, 100000);
  const std::vector<std::string> paths = a.list("inputs");
  if (paths.empty()) throw UsageError("--inputs is required");
  const auto key = load_zkey(a.need("zkey"));
  if (!key->r1cs) throw std::runtime_error(a.get("zkey") + ": no constraint system (prove it with check --wtns)");
  std::vector<R1csSolution> sols;
  for (const std::string& path : paths) {
    const std::vector<uint8_t> bytes = read_file(path);
    if (bytes.size() % 32 != 0) throw std::runtime_error(path + ": not a whole number of 32-byte inputs");
    std::vector<Scalar> inputs(bytes.size() / 32);
    std::memcpy(inputs.data(), bytes.data(), bytes.size());
    sols.push_back(solve_r1cs(*key->r1cs, inputs.data(), inputs.size()));
  }
  auto prove = [&](Engine& e, const R1csSolution& s) {
    const Evals ev{s.a.data(), s.b.data(), s.a.size()};
    return e.prove_evals(*key, s.witness.data(), s.witness.size(), ev, CHECK_R, CHECK_S, Blinding::rerandomized);
  };
  Engine accel(engine_options(backend, devices, threads));
  Engine cpu(engine_options("cpu", {}, threads));
  bool all_equal = true;
  for (size_t i = 0; i < sols.size(); i++) {
    const Proof want = prove(cpu, sols[i]);
    const Proof got = prove(accel, sols[i]);
    const bool eq = std::memcmp(&got, &want, sizeof got) == 0;
    all_equal = all_equal && eq;
    std::printf("%s %s: %s\n", backend.c_str(), paths[i].c_str(), eq ? "equal" : "DIFFERENT");
    if (a.has("proof")) write_file(proof_path(a.get("proof"), i, sols.size()), proof_json(got));
  }
  std::fflush(stdout);
  auto p50 = [&](Engine& e) {
    std::vector<double> ms;
    for (int i = 0; i < n; i++) {
      const auto t0 = Clock::now();
      prove(e, sols[0]);
      ms.push_back(ms_since(t0));
    }
    return percentile(ms, 0.5);
  };
  const double cpu_ms = p50(cpu), accel_ms = p50(accel);
  std::printf("p50 of %d proofs of %s: cpu %.1f ms (%d threads), %s %.1f ms (%s)\n", n, paths[0].c_str(), cpu_ms,
              threads, backend.c_str(), accel_ms, accel.describe().c_str());
  return all_equal ? 0 : 1;
}

int cmd_bad_batch(int argc, char** argv) {
  const Args a(argc, argv, {"zkey", "backend", "devices", "threads", "batch"}, {"wtns"});
  const std::string backend = backend_arg(a, "cuda", true);
  const std::vector<int> devices = devices_arg(a);
  const int threads = (int)a.integer("threads", hardware_threads(), 1, 4096);
  const int batch = (int)a.integer("batch", 4, 2, 4096);
  const std::vector<std::string> paths = a.list("wtns");
  if (paths.empty()) throw UsageError("--wtns is required");
  std::vector<std::vector<Scalar>> ws;
  for (int i = 0; i < batch; i++) ws.push_back(read_wtns(paths[(size_t)i % paths.size()]));
  const size_t bad = (size_t)batch / 2;
  ws[bad][ws[bad].size() - 1].v[3] = ~0ULL;
  const auto key = load_zkey(a.need("zkey"));
  EngineOptions o = engine_options(backend, devices, threads);
  o.batch_max = batch;
  o.batch_wait_us = 2000000;
  Engine engine(o);
  std::vector<Proof> got(ws.size());
  std::vector<std::string> errors(ws.size());
  std::vector<std::thread> callers;
  for (size_t i = 0; i < ws.size(); i++)
    callers.emplace_back([&, i] {
      try {
        got[i] = engine.prove(*key, ws[i].data(), ws[i].size(), CHECK_R, CHECK_S);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  for (auto& t : callers) t.join();
  Engine cpu(engine_options("cpu", {}, threads));
  bool ok = true;
  for (size_t i = 0; i < ws.size(); i++) {
    if (i == bad) {
      const bool failed = !errors[i].empty();
      std::printf("caller %zu (bad witness): %s\n", i, failed ? ("failed: " + errors[i]).c_str() : "NOT REFUSED");
      ok = ok && failed;
      continue;
    }
    const Proof want = cpu.prove(*key, ws[i].data(), ws[i].size(), CHECK_R, CHECK_S);
    const bool eq = errors[i].empty() && std::memcmp(&want, &got[i], sizeof want) == 0;
    std::printf("caller %zu: %s\n", i, eq ? "equal to the CPU's proof" : ("DIFFERENT " + errors[i]).c_str());
    ok = ok && eq;
  }
  const EngineStats st = engine.stats();
  std::printf("engine: %llu proofs in %llu batches, largest %llu; %s\n", (unsigned long long)st.proofs,
              (unsigned long long)st.batches, (unsigned long long)st.largest_batch, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, int (*)(int, char**)> commands = {
      {"prove", cmd_prove},         {"bench", cmd_bench},     {"check", cmd_check},
      {"msm-check", cmd_msm_check}, {"devices", cmd_devices}, {"self-check", cmd_self_check},
      {"bad-batch", cmd_bad_batch}, {"check-inputs", cmd_check_inputs},
  };
  try {
    if (argc < 2) throw UsageError("");
    const auto cmd = commands.find(argv[1]);
    if (cmd == commands.end()) {
      const std::string word = argv[1];
      throw UsageError(word == "--help" || word == "-h" || word == "help" ? "" : "unknown command " + word);
    }
    return cmd->second(argc - 2, argv + 2);
  } catch (const UsageError& e) {
    if (*e.what()) std::fprintf(stderr, "zkgate-prove: %s\n\n", e.what());
    std::fputs(USAGE, stderr);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zkgate-prove: %s\n", e.what());
    return 1;
  }
}
