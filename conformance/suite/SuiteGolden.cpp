// Reference files: one (case, dtype, size, mode)'s inputs, golden output and float64 values,
// for suite runs on machines that carry only the runtime (the GPU test machine).
//
// Format (little-endian): "TSREF1\0\0", then n, grid.x, grid.y, grid.z (u32 each), then the
// buffers x, y, out, golden (dtype u8, count u64, bytes), then the per-element arrays scale,
// growth, exact (count u64, f64 each) and inFastDomain (count u64, u8 each).
#include "Suite.hpp"

#include <cstdio>
#include <cstring>
#include <memory>

namespace tessera::suite {
namespace {

constexpr char kMagic[8] = {'T', 'S', 'R', 'E', 'F', '1', 0, 0};

struct Writer {
  std::string bytes;
  template <class T> void put(T v) { bytes.append(reinterpret_cast<const char *>(&v), sizeof v); }
  void buffer(const HostBuffer &b) {
    put(uint8_t(b.dtype));
    put(uint64_t(b.count()));
    bytes.append(reinterpret_cast<const char *>(b.bytes.data()), b.bytes.size());
  }
  template <class T> void array(const std::vector<T> &v) {
    put(uint64_t(v.size()));
    for (const T &x : v)
      put(x);
  }
};

struct Reader {
  const std::string &bytes;
  size_t at = 0;
  bool ok = true;
  template <class T> T get() {
    T v{};
    if (at + sizeof v > bytes.size()) {
      ok = false;
      return v;
    }
    std::memcpy(&v, bytes.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  HostBuffer buffer() {
    DType t = DType(get<uint8_t>());
    uint64_t count = get<uint64_t>();
    size_t size = sizeOf(t);
    if (!ok || size == 0 || count > (bytes.size() - at) / size) {
      ok = false;
      return {};
    }
    HostBuffer b(t, count);
    std::memcpy(b.bytes.data(), bytes.data() + at, b.bytes.size());
    at += b.bytes.size();
    return b;
  }
  template <class T> std::vector<T> array() {
    uint64_t count = get<uint64_t>();
    if (!ok || count > (bytes.size() - at) / sizeof(T)) {
      ok = false;
      return {};
    }
    std::vector<T> v(count);
    for (T &x : v)
      x = get<T>();
    return v;
  }
};

} // namespace

std::string jobStem(const std::string &caseName, DType t, Numerics mode) {
  return caseName + "_" + std::string(toString(t)) + "_" + toString(mode);
}

Status writeReference(const std::string &path, const Reference &ref) {
  Writer w;
  w.bytes.append(kMagic, sizeof kMagic);
  const Problem &p = ref.problem;
  for (uint32_t v : {uint32_t(p.n), p.grid.x, p.grid.y, p.grid.z})
    w.put(v);
  for (const HostBuffer *b : {&p.x, &p.y, &p.out, &ref.golden})
    w.buffer(*b);
  w.array(p.scale);
  w.array(p.growth);
  w.array(ref.exact);
  std::vector<uint8_t> domain(p.inFastDomain.begin(), p.inFastDomain.end());
  w.array(domain);
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> f(std::fopen(path.c_str(), "wb"), std::fclose);
  if (!f || std::fwrite(w.bytes.data(), 1, w.bytes.size(), f.get()) != w.bytes.size())
    return Status(StatusCode::InvalidArgument, "cannot write " + path);
  return Status();
}

Result<Reference> readReference(const std::string &path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> f(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!f)
    return Status(StatusCode::NotFound, "no reference file " + path + " (write them with --write-goldens=DIR)");
  std::string bytes;
  char chunk[65536];
  for (size_t got; (got = std::fread(chunk, 1, sizeof chunk, f.get())) > 0;)
    bytes.append(chunk, got);
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return Status(StatusCode::Corrupt, path + " is not a suite reference file");
  Reader r{bytes, sizeof kMagic};
  Reference ref;
  Problem &p = ref.problem;
  p.n = int32_t(r.get<uint32_t>());
  p.grid.x = r.get<uint32_t>();
  p.grid.y = r.get<uint32_t>();
  p.grid.z = r.get<uint32_t>();
  p.x = r.buffer();
  p.y = r.buffer();
  p.out = r.buffer();
  ref.golden = r.buffer();
  p.scale = r.array<double>();
  p.growth = r.array<double>();
  ref.exact = r.array<double>();
  std::vector<uint8_t> domain = r.array<uint8_t>();
  p.inFastDomain.assign(domain.begin(), domain.end());
  size_t count = p.out.count();
  if (!r.ok || r.at != bytes.size() || ref.golden.count() != count || p.scale.size() != count ||
      p.growth.size() != count || ref.exact.size() != count || p.inFastDomain.size() != count)
    return Status(StatusCode::Corrupt, path + " is truncated or inconsistent");
  return ref;
}

} // namespace tessera::suite
