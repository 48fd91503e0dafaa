// Kernel package v3: writer, bounds-checked reader and file I/O. Layout: docs/package-format.md.
#include "tessera/runtime/Package.hpp"

#include <algorithm>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <unistd.h>

namespace tessera {

uint64_t fnv1a64(std::span<const uint8_t> bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t b : bytes) {
    h ^= b;
    h *= 0x100000001b3ull;
  }
  return h;
}

namespace {

constexpr uint8_t kMagic[8] = {'T', 'S', 'P', 'K', 'G', 0, 0, 0};
constexpr size_t kHeaderBytes = 8 + 4 + 4 + 8 + 8;
// Smallest encodings, used to reject absurd counts before allocating anything for them.
constexpr size_t kMinArgBytes = 8 + 1 + 1 + 4;
constexpr size_t kMinArtifactBytes = 1 + 8 + 4 + 4 + 8 + 12 + 4 + 4 + 8;
constexpr size_t kMinKernelBytes = 8 + 4 + 4 + 8 + 4;
constexpr size_t kTensorMapBytes = 4 + 3 * (4 + 8) + 4 + 4 + 4 + 4;

class Writer {
public:
  void u8(uint8_t v) { out_.push_back(v); }
  void u32(uint32_t v) { little(v, 4); }
  void u64(uint64_t v) { little(v, 8); }
  void bytes(const void *p, size_t n) {
    u64(n);
    auto *b = static_cast<const uint8_t *>(p);
    out_.insert(out_.end(), b, b + n);
  }
  void str(const std::string &s) { bytes(s.data(), s.size()); }
  std::vector<uint8_t> take() { return std::move(out_); }

private:
  void little(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  std::vector<uint8_t> out_;
};

// Reads the payload; every read checks what remains and reports the absolute file offset.
class Reader {
public:
  Reader(std::span<const uint8_t> all, size_t start) : all_(all), pos_(start) {}
  size_t pos() const { return pos_; }
  size_t remaining() const { return all_.size() - pos_; }
  const Status &status() const { return status_; }
  bool failed() const { return !status_.ok(); }

  void fail(const std::string &what) { fail(what, pos_); }
  void fail(const std::string &what, size_t at) {
    if (failed()) return;
    status_ = Status(StatusCode::Corrupt, "kernel package: " + what + " at byte offset " + std::to_string(at));
  }

  uint64_t little(int n, const char *what) {
    if (failed()) return 0;
    if (remaining() < static_cast<size_t>(n)) {
      fail(std::string("truncated ") + what + " (needs " + std::to_string(n) + " bytes, " +
           std::to_string(remaining()) + " left)");
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(all_[pos_ + i]) << (8 * i);
    pos_ += n;
    return v;
  }
  uint8_t u8(const char *what) { return static_cast<uint8_t>(little(1, what)); }
  uint32_t u32(const char *what) { return static_cast<uint32_t>(little(4, what)); }
  uint64_t u64(const char *what) { return little(8, what); }

  std::span<const uint8_t> blob(const char *what) {
    size_t at = pos_;
    uint64_t n = little(8, what);
    if (failed()) return {};
    if (n > remaining()) {
      fail(std::string(what) + " length " + std::to_string(n) + " exceeds the " +
               std::to_string(remaining()) + " bytes that remain",
           at);
      return {};
    }
    auto s = all_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  std::string str(const char *what) {
    auto b = blob(what);
    return std::string(b.begin(), b.end());
  }
  // A count of items that each need at least `minBytes`: anything larger cannot be real.
  uint32_t count(const char *what, size_t minBytes) {
    size_t at = pos_;
    uint32_t n = u32(what);
    if (!failed() && static_cast<uint64_t>(n) * minBytes > remaining())
      fail(std::string(what) + " " + std::to_string(n) + " cannot fit in the " +
               std::to_string(remaining()) + " bytes that remain",
           at);
    return failed() ? 0 : n;
  }

private:
  std::span<const uint8_t> all_;
  size_t pos_;
  Status status_;
};

bool validArgKind(uint8_t v) { return v == uint8_t(ArgKind::Buffer) || v == uint8_t(ArgKind::Scalar); }
bool validDType(uint8_t v) { return sizeOf(static_cast<DType>(v)) != 0; }
bool validTargetKind(uint8_t v) { return v == uint8_t(TargetKind::PTX) || v == uint8_t(TargetKind::SPIRV); }

HostScalar readHostScalar(Reader &r, const char *what) {
  HostScalar v;
  v.arg = static_cast<int32_t>(r.u32(what));
  v.value = static_cast<int64_t>(r.u64(what));
  return v;
}

void readTensorMap(Reader &r, TensorMapSpec &m, size_t argCount) {
  size_t at = r.pos();
  m.buffer = r.u32("tensor map buffer");
  if (!r.failed() && m.buffer >= argCount)
    r.fail("tensor map buffer argument " + std::to_string(m.buffer) + " of a kernel with " + std::to_string(argCount) +
               " arguments",
           at);
  for (HostScalar *v : {&m.rows, &m.cols, &m.rowStride}) {
    at = r.pos();
    *v = readHostScalar(r, "tensor map scalar");
    if (!r.failed() && v->arg >= int32_t(argCount))
      r.fail("tensor map scalar argument " + std::to_string(v->arg) + " of a kernel with " + std::to_string(argCount) +
                 " arguments",
             at);
  }
  m.boxRows = r.u32("tensor map box rows");
  m.boxCols = r.u32("tensor map box columns");
  at = r.pos();
  m.swizzleBytes = r.u32("tensor map swizzle");
  if (!r.failed() && m.swizzleBytes != 0 && m.swizzleBytes != 32 && m.swizzleBytes != 64 && m.swizzleBytes != 128)
    r.fail("tensor map swizzle of " + std::to_string(m.swizzleBytes) + " bytes (0, 32, 64 or 128)", at);
  at = r.pos();
  m.rank = r.u32("tensor map rank");
  if (!r.failed() && m.rank != 2 && m.rank != 3) r.fail("tensor map rank " + std::to_string(m.rank) + " (2 or 3)", at);
}

void readArtifact(Reader &r, Artifact &a, uint32_t version, size_t argCount) {
  size_t at = r.pos();
  uint8_t kind = r.u8("artifact target kind");
  if (!r.failed() && !validTargetKind(kind)) r.fail("unknown artifact target kind " + std::to_string(kind), at);
  a.target.kind = static_cast<TargetKind>(kind);
  a.target.chip = r.str("artifact chip");
  a.target.ptxVersion = r.u32("artifact ptxVersion");
  a.target.subgroupSize = r.u32("artifact subgroupSize");
  a.entryPoint = r.str("artifact entry point");
  for (auto &b : a.blockSize) b = r.u32("artifact block size");
  a.sharedMemBytes = r.u32("artifact sharedMemBytes");
  a.pushConstantBytes = r.u32("artifact pushConstantBytes");
  auto code = r.blob("artifact code");
  a.code.assign(code.begin(), code.end());
  if (version < 2) return;
  uint32_t maps = r.count("tensor map count", kTensorMapBytes);
  for (uint32_t i = 0; i < maps && !r.failed(); ++i) {
    TensorMapSpec m;
    readTensorMap(r, m, argCount);
    a.tensorMaps.push_back(m);
  }
  if (version < 3) return;
  uint32_t divisible = r.count("divisible argument count", version >= 4 ? 8 : 4);
  for (uint32_t i = 0; i < divisible && !r.failed(); ++i) {
    size_t at = r.pos();
    uint32_t arg = r.u32("divisible argument");
    if (!r.failed() && arg >= argCount)
      r.fail("divisible argument " + std::to_string(arg) + " of a kernel with " + std::to_string(argCount) + " arguments",
             at);
    a.divisibleArgs.push_back(arg);
    if (version < 4) continue; // every divisor kSpecializedDivisor
    at = r.pos();
    uint32_t divisor = r.u32("argument divisor");
    if (!r.failed() && divisor < 2)
      r.fail("argument divisor " + std::to_string(divisor) + " (at least 2)", at);
    a.divisors.push_back(divisor);
  }
  // One form for "every divisor kSpecializedDivisor": no list.
  if (std::all_of(a.divisors.begin(), a.divisors.end(), [](uint32_t d) { return d == kSpecializedDivisor; }))
    a.divisors.clear();
}

void readKernel(Reader &r, KernelEntry &k, uint32_t version) {
  k.name = r.str("kernel name");
  uint32_t argCount = r.count("argument count", kMinArgBytes);
  for (uint32_t i = 0; i < argCount && !r.failed(); ++i) {
    ArgSpec arg;
    arg.name = r.str("argument name");
    size_t at = r.pos();
    uint8_t kind = r.u8("argument kind");
    if (!r.failed() && !validArgKind(kind)) r.fail("unknown argument kind " + std::to_string(kind), at);
    at = r.pos();
    uint8_t dtype = r.u8("argument dtype");
    if (!r.failed() && !validDType(dtype)) r.fail("unknown argument dtype " + std::to_string(dtype), at);
    arg.kind = static_cast<ArgKind>(kind);
    arg.dtype = static_cast<DType>(dtype);
    arg.abiSlot = r.u32("argument abiSlot");
    k.args.push_back(std::move(arg));
  }
  k.numWarps = r.u32("numWarps");
  k.tileIR = r.str("tile IR");
  uint32_t artifactCount = r.count("artifact count", kMinArtifactBytes);
  for (uint32_t i = 0; i < artifactCount && !r.failed(); ++i) {
    Artifact a;
    readArtifact(r, a, version, k.args.size());
    k.artifacts.push_back(std::move(a));
  }
}

uint64_t readLittle(std::span<const uint8_t> b, size_t at, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(b[at + i]) << (8 * i);
  return v;
}

} // namespace

bool hasSoftDenormals(const std::string &chip) {
  std::string_view suffix = kSoftDenormalsSuffix;
  return chip.size() >= suffix.size() && chip.compare(chip.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool hasCoopMatrix(const std::string &chip) { return chip.find(kCoopMatrixSuffix) != std::string::npos; }
bool hasMmaLanes(const std::string &chip) { return chip.find(kMmaLanesSuffix) != std::string::npos; }
bool hasCoopBF16(const std::string &chip) { return chip.find(kCoopBF16Suffix) != std::string::npos; }
bool hasWorkgroupMatrices(const std::string &chip) { return chip.find(kWorkgroupMatrixSuffix) != std::string::npos; }

const Artifact *KernelEntry::find(TargetKind kind, uint32_t subgroupSize) const {
  // An exact subgroup match wins; an artifact recorded with subgroupSize 0 runs at any size.
  const Artifact *any = nullptr;
  for (const Artifact &a : artifacts) {
    if (a.target.kind != kind || !a.divisibleArgs.empty()) continue; // (a specialized variant)
    if (a.target.subgroupSize == subgroupSize) return &a;
    if (a.target.subgroupSize == 0 && !any) any = &a;
  }
  return any;
}

const KernelEntry *Package::find(std::string_view name) const {
  for (const KernelEntry &k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

std::vector<uint8_t> serializePackage(const Package &pkg) {
  Writer p;
  p.u32(static_cast<uint32_t>(pkg.kernels.size()));
  for (const KernelEntry &k : pkg.kernels) {
    p.str(k.name);
    p.u32(static_cast<uint32_t>(k.args.size()));
    for (const ArgSpec &a : k.args) {
      p.str(a.name);
      p.u8(static_cast<uint8_t>(a.kind));
      p.u8(static_cast<uint8_t>(a.dtype));
      p.u32(a.abiSlot);
    }
    p.u32(k.numWarps);
    p.str(k.tileIR);
    p.u32(static_cast<uint32_t>(k.artifacts.size()));
    for (const Artifact &a : k.artifacts) {
      p.u8(static_cast<uint8_t>(a.target.kind));
      p.str(a.target.chip);
      p.u32(a.target.ptxVersion);
      p.u32(a.target.subgroupSize);
      p.str(a.entryPoint);
      for (uint32_t b : a.blockSize) p.u32(b);
      p.u32(a.sharedMemBytes);
      p.u32(a.pushConstantBytes);
      p.bytes(a.code.data(), a.code.size());
      p.u32(static_cast<uint32_t>(a.tensorMaps.size()));
      for (const TensorMapSpec &m : a.tensorMaps) {
        p.u32(m.buffer);
        for (const HostScalar &v : {m.rows, m.cols, m.rowStride}) {
          p.u32(static_cast<uint32_t>(v.arg));
          p.u64(static_cast<uint64_t>(v.value));
        }
        p.u32(m.boxRows);
        p.u32(m.boxCols);
        p.u32(m.swizzleBytes);
        p.u32(m.rank);
      }
      p.u32(static_cast<uint32_t>(a.divisibleArgs.size()));
      for (size_t i = 0; i < a.divisibleArgs.size(); ++i) {
        p.u32(a.divisibleArgs[i]);
        p.u32(a.divisorOf(i));
      }
    }
  }
  std::vector<uint8_t> payload = p.take();

  Writer h;
  for (uint8_t m : kMagic) h.u8(m);
  h.u32(kPackageFormatVersion);
  h.u32(0); // flags
  h.u64(payload.size());
  h.u64(fnv1a64(payload));
  std::vector<uint8_t> out = h.take();
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

Result<Package> parsePackage(std::span<const uint8_t> bytes) {
  if (bytes.size() < kHeaderBytes)
    return Status(StatusCode::Corrupt, "kernel package is " + std::to_string(bytes.size()) +
                                           " bytes, shorter than the " + std::to_string(kHeaderBytes) +
                                           "-byte header (truncated, or not a Tessera kernel package)");
  if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return Status(StatusCode::Corrupt, "not a Tessera kernel package (the file does not start with \"TSPKG\")");
  uint32_t version = static_cast<uint32_t>(readLittle(bytes, 8, 4));
  if (version > kPackageFormatVersion)
    return Status(StatusCode::Unsupported,
                  "package format version " + std::to_string(version) + " is newer than this runtime reads (" +
                      std::to_string(kPackageFormatVersion) +
                      "); rebuild the package with this Tessera or update the runtime");
  if (version == 0) return Status(StatusCode::Corrupt, "kernel package has format version 0, which never existed");
  uint32_t flags = static_cast<uint32_t>(readLittle(bytes, 12, 4));
  if (flags != 0)
    return Status(StatusCode::Unsupported, "kernel package sets flags 0x" + [&] {
      char buf[16];
      std::snprintf(buf, sizeof buf, "%x", flags);
      return std::string(buf);
    }() + " that format version " + std::to_string(version) + " does not define; update the runtime");
  uint64_t payloadBytes = readLittle(bytes, 16, 8);
  uint64_t actual = bytes.size() - kHeaderBytes;
  if (payloadBytes != actual)
    return Status(StatusCode::Corrupt,
                  std::string(payloadBytes > actual ? "truncated" : "trailing bytes in") +
                      " kernel package: header says the payload is " + std::to_string(payloadBytes) +
                      " bytes (file " + std::to_string(kHeaderBytes + payloadBytes) + " bytes), but " +
                      std::to_string(actual) + " follow the header (file " + std::to_string(bytes.size()) +
                      " bytes)");
  uint64_t checksum = readLittle(bytes, 24, 8);
  if (checksum != fnv1a64(bytes.subspan(kHeaderBytes)))
    return Status(StatusCode::Corrupt, "kernel package checksum mismatch: the payload was modified or damaged");

  Reader r(bytes, kHeaderBytes);
  Package pkg;
  uint32_t kernelCount = r.count("kernel count", kMinKernelBytes);
  for (uint32_t i = 0; i < kernelCount && !r.failed(); ++i) {
    KernelEntry k;
    readKernel(r, k, version);
    pkg.kernels.push_back(std::move(k));
  }
  if (!r.failed() && r.remaining() != 0) r.fail(std::to_string(r.remaining()) + " unread bytes after the last kernel");
  if (r.failed()) return r.status();
  return pkg;
}

Result<Package> readPackageFile(const std::string &path) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    int err = errno;
    return Status(err == ENOENT ? StatusCode::NotFound : StatusCode::InvalidArgument,
                  "cannot open kernel package '" + path + "': " + std::strerror(err));
  }
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) bytes.insert(bytes.end(), chunk, chunk + n);
  bool bad = std::ferror(f);
  std::fclose(f);
  if (bad) return Status(StatusCode::InvalidArgument, "cannot read kernel package '" + path + "'");
  Result<Package> pkg = parsePackage(bytes);
  if (!pkg) return Status(pkg.status().code(), "'" + path + "': " + pkg.status().message());
  return pkg;
}

Status writePackageFile(const std::string &path, const Package &pkg) {
  std::vector<uint8_t> bytes = serializePackage(pkg);
  if (Status s = writeFileAtomically(path, bytes); !s)
    return Status(StatusCode::InvalidArgument, "cannot write kernel package '" + path + "': " + s.message());
  return Status::success();
}

Status writeFileAtomically(const std::string &path, std::span<const uint8_t> bytes) {
  static std::atomic<uint64_t> counter{0};
  std::string tmp = path + ".tmp" + std::to_string(::getpid()) + "." + std::to_string(counter++) + "." +
                    std::to_string(std::random_device{}());
  FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f) return Status(StatusCode::Unavailable, "cannot create '" + tmp + "': " + std::strerror(errno));
  bool ok = bytes.empty() || std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    return Status(StatusCode::Unavailable, "cannot write '" + path + "': " + std::strerror(err));
  }
  return Status::success();
}

} // namespace tessera
