// Fixed-base tables on disk, beside their key: built once per key, then mapped at every start
// instead of rebuilt (seconds of both cores per key). The file is written to a temporary name,
// synced and renamed, so a crash leaves either no file or a whole one. Loading trusts nothing:
// the header must match the key and the plan, window 0 of each table must equal the key's own
// bases byte for byte (a table of another key fails here), the size must be exact (a truncated
// file fails here), and every table's checksum must match (a changed byte fails here). A file that
// fails is never used: the caller rebuilds the tables and writes the file again.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "groth16.hpp"

namespace zk {

namespace {

constexpr char MAGIC[8] = {'Z', 'K', 'G', 'T', 'B', 'L', '0', '1'};
constexpr size_t HEADER = 4096;  // the points start page-aligned
constexpr int SLOTS = 5;         // b2, h, a, b1, c
constexpr uint32_t VERSION = 2;  // 2: the points' form in the header

struct Entry {
  uint32_t present, c, windows, elem;  // elem: bytes per point (64 for G1, 128 for G2)
  uint64_t n, offset, bytes, checksum;
};

struct Header {
  char magic[8];
  uint32_t version, slots;
  uint32_t packed, reserved;  // the points' form (FixedBaseTable::packed): a process uses its own
  uint64_t n_vars, n_public, domain_size;
  Entry entries[SLOTS];
  uint64_t header_checksum;  // of everything above
};
static_assert(sizeof(Header) <= HEADER, "table file header exceeds its page");

/** A fast 64-bit checksum (four multiply-rotate lanes): for detecting damage, not adversaries. */
uint64_t checksum(const void* data, size_t len) {
  constexpr uint64_t P1 = 0x9E3779B185EBCA87ULL, P2 = 0xC2B2AE3D27D4EB4FULL;
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint64_t lane[4] = {P1, P2, P1 ^ P2, len};
  size_t i = 0;
  for (; i + 32 <= len; i += 32)
    for (int k = 0; k < 4; k++) {
      uint64_t w;
      std::memcpy(&w, p + i + 8 * k, 8);
      lane[k] += w * P2;
      lane[k] = (lane[k] << 31) | (lane[k] >> 33);
      lane[k] *= P1;
    }
  uint64_t h = len;
  for (; i < len; i++) h = (h ^ p[i]) * P1;
  for (int k = 0; k < 4; k++) h = ((h ^ lane[k]) * P1) ^ (h >> 29);
  return h;
}

template <class F>
void describe(const FixedBaseTable<F>* t, Entry& e) {
  if (!t) return;
  e.present = 1;
  e.c = (uint32_t)t->c;
  e.windows = (uint32_t)t->windows;
  e.elem = sizeof(Affine<F>);
  e.n = t->n;
  e.bytes = t->bytes();
}

bool write_all(int fd, const void* data, size_t len) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  while (len > 0) {
    ssize_t w = ::write(fd, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    len -= (size_t)w;
  }
  return true;
}

template <class F>
const void* table_points(const FixedBaseTable<F>* t) {
  return t ? static_cast<const void*>(t->points) : nullptr;
}

template <class F>
bool window0_matches(const FixedBaseTable<F>& t, const std::vector<Affine<F>>& bases) {
  if (t.n != bases.size()) return false;
  if (!t.packed) return std::memcmp(t.points, bases.data(), bases.size() * sizeof(Affine<F>)) == 0;
  for (size_t i = 0; i < bases.size(); i++) {
    const Affine<F> want = FixedBaseTable<F>::stored_form(bases[i], true);
    if (std::memcmp(&t.points[i], &want, sizeof want) != 0) return false;
  }
  return true;
}

}  // namespace

bool save_tables(const ZKey& key, const std::string& path) {
  if (!key.tables_ready.load(std::memory_order_acquire) || path.empty()) return false;
  Header h;
  std::memset(&h, 0, sizeof h);
  std::memcpy(h.magic, MAGIC, 8);
  h.version = VERSION;
  h.slots = SLOTS;
  h.n_vars = key.n_vars;
  h.n_public = key.n_public;
  h.domain_size = key.domain_size;
  const bool packed = key.table_b2 ? key.table_b2->packed
                      : key.table_h  ? key.table_h->packed
                      : key.table_a  ? key.table_a->packed
                      : key.table_b1 ? key.table_b1->packed
                      : key.table_c  ? key.table_c->packed
                                     : false;
  h.packed = packed ? 1 : 0;
  describe(key.table_b2.get(), h.entries[0]);
  describe(key.table_h.get(), h.entries[1]);
  describe(key.table_a.get(), h.entries[2]);
  describe(key.table_b1.get(), h.entries[3]);
  describe(key.table_c.get(), h.entries[4]);
  const void* data[SLOTS] = {table_points(key.table_b2.get()), table_points(key.table_h.get()),
                             table_points(key.table_a.get()), table_points(key.table_b1.get()),
                             table_points(key.table_c.get())};
  uint64_t at = HEADER;
  for (int i = 0; i < SLOTS; i++) {
    Entry& e = h.entries[i];
    if (!e.present) continue;
    e.offset = at;
    e.checksum = checksum(data[i], e.bytes);
    at += e.bytes;
  }
  h.header_checksum = checksum(&h, offsetof(Header, header_checksum));
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(key.id);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  std::vector<uint8_t> page(HEADER, 0);
  std::memcpy(page.data(), &h, sizeof h);
  bool ok = write_all(fd, page.data(), page.size());
  for (int i = 0; ok && i < SLOTS; i++)
    if (h.entries[i].present) ok = write_all(fd, data[i], h.entries[i].bytes);
  ok = ok && ::fsync(fd) == 0;
  ok = (::close(fd) == 0) && ok;
  if (ok) ok = ::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) ::unlink(tmp.c_str());
  return ok;
}

TableLoad load_tables(ZKey& key, const std::string& path, size_t budget_bytes) {
  if (path.empty() || budget_bytes == 0) return TableLoad::absent;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return TableLoad::absent;
  struct stat st;
  if (fstat(fd, &st) != 0 || (size_t)st.st_size < HEADER) {
    ::close(fd);
    return TableLoad::invalid;
  }
  const size_t len = (size_t)st.st_size;
  void* map = mmap(nullptr, len, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return TableLoad::invalid;
  std::shared_ptr<const void> keep(map, [len](const void* p) { munmap(const_cast<void*>(p), len); });
  const uint8_t* base = static_cast<const uint8_t*>(map);
  Header h;
  std::memcpy(&h, base, sizeof h);
  // Tables in the other form (built by a process with the other arithmetic) are rebuilt.
  const bool packed = x8_tables();
  if (std::memcmp(h.magic, MAGIC, 8) != 0 || h.version != VERSION || h.slots != SLOTS ||
      h.packed != (packed ? 1u : 0u) ||
      h.header_checksum != checksum(&h, offsetof(Header, header_checksum)) || h.n_vars != key.n_vars ||
      h.n_public != key.n_public || h.domain_size != key.domain_size)
    return TableLoad::invalid;
  // The same tables the budget plans now (a changed budget plans others: rebuild).
  bool planned[SLOTS] = {false, false, false, false, false};
  plan_tables(key, budget_bytes, planned);
  const size_t counts[SLOTS] = {key.b2.size(), key.h.size(), key.a.size(), key.b1.size(), key.c.size()};
  uint64_t expect_at = HEADER;
  for (int i = 0; i < SLOTS; i++) {
    const Entry& e = h.entries[i];
    if ((e.present != 0) != planned[i]) return TableLoad::invalid;
    if (!e.present) continue;
    const uint32_t elem = i == 0 ? sizeof(G2Affine) : sizeof(G1Affine);
    const int c = i == 0 ? FixedBaseTable<Fq2>::window_for(counts[i]) : FixedBaseTable<Fq>::window_for(counts[i]);
    if (e.n != counts[i] || e.elem != elem || e.c != (uint32_t)c || e.windows != (uint32_t)window_count(c) ||
        e.bytes != (uint64_t)e.windows * e.n * elem || e.offset != expect_at)
      return TableLoad::invalid;
    expect_at += e.bytes;
  }
  if (expect_at != len) return TableLoad::invalid;  // truncated, or more than the tables
  for (int i = 0; i < SLOTS; i++) {
    const Entry& e = h.entries[i];
    if (e.present && checksum(base + e.offset, e.bytes) != e.checksum) return TableLoad::invalid;
  }
  auto t_b2 = std::make_unique<FixedBaseTable<Fq2>>();
  std::unique_ptr<FixedBaseTable<Fq>> g1[4];
  if (h.entries[0].present)
    t_b2->adopt(reinterpret_cast<const G2Affine*>(base + h.entries[0].offset), counts[0], (int)h.entries[0].c,
                packed, keep);
  for (int i = 1; i < SLOTS; i++) {
    if (!h.entries[i].present) continue;
    g1[i - 1] = std::make_unique<FixedBaseTable<Fq>>();
    g1[i - 1]->adopt(reinterpret_cast<const G1Affine*>(base + h.entries[i].offset), counts[i],
                     (int)h.entries[i].c, packed, keep);
  }
  // Window 0 holds the bases themselves: they must be this key's.
  if ((h.entries[0].present && !window0_matches(*t_b2, key.b2)) ||
      (g1[0] && !window0_matches(*g1[0], key.h)) || (g1[1] && !window0_matches(*g1[1], key.a)) ||
      (g1[2] && !window0_matches(*g1[2], key.b1)) || (g1[3] && !window0_matches(*g1[3], key.c)))
    return TableLoad::invalid;
  if (h.entries[0].present) key.table_b2 = std::move(t_b2);
  key.table_h = std::move(g1[0]);
  key.table_a = std::move(g1[1]);
  key.table_b1 = std::move(g1[2]);
  key.table_c = std::move(g1[3]);
  key.table_bytes = expect_at - HEADER;
  key.tables_from_file = true;
  key.tables_ready.store(true, std::memory_order_release);
  return TableLoad::loaded;
}

}  // namespace zk
