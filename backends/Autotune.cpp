// Autotuner: the fastest configuration by device timing, cached per device and shape bucket.
#include "tessera/autotune.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace tessera {

namespace {

constexpr const char *kCacheHeader = "# tessera autotune cache v1";

/// Tabs and line breaks would break the file's layout: they become spaces.
std::string clean(std::string s) {
  std::replace_if(s.begin(), s.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
  return s;
}

std::string defaultCacheFile() {
  std::string base = cacheDirectory();
  return base.empty() ? base : base + "/autotune.txt";
}

/// The entries of a cache file: none when it is absent or not ours, and corrupt lines skipped.
std::map<std::string, std::string> readCache(const std::string &file) {
  std::map<std::string, std::string> entries;
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line) || line != kCacheHeader) return entries;
  while (std::getline(in, line))
    if (size_t tab = line.find('\t'); tab != std::string::npos && tab != 0 && tab + 1 != line.size())
      entries.emplace(line.substr(0, tab), line.substr(tab + 1));
  return entries;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

int64_t TuneConfig::get(const std::string &name) const {
  for (const auto &[k, v] : params)
    if (k == name) return v;
  return 0;
}

std::string TuneConfig::key() const {
  std::string s;
  for (const auto &[k, v] : params) s += k + "=" + std::to_string(v) + ",";
  return s + "warps=" + std::to_string(numWarps);
}

std::string shapeBucket(std::initializer_list<int64_t> dims) {
  std::string s;
  for (int64_t d : dims) {
    int64_t p = 1;
    while (p < d) p *= 2;
    s += (s.empty() ? "" : "x") + std::to_string(p);
  }
  return s;
}

Autotuner::Autotuner(std::string cacheFile) : file_(cacheFile == "-" ? "" : cacheFile.empty() ? defaultCacheFile() : cacheFile) {}

void Autotuner::load() {
  if (loaded_) return;
  loaded_ = true;
  if (!file_.empty()) cache_ = readCache(file_);
}

Status Autotuner::save() {
  if (file_.empty()) return Status::success();
  // Entries another process wrote since this one read the file are kept (ours win on a tie).
  std::map<std::string, std::string> merged = cache_;
  merged.merge(readCache(file_));
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(file_).parent_path(), ec);
  std::string text = std::string(kCacheHeader) + "\n";
  for (const auto &[k, v] : merged) text += k + "\t" + v + "\n";
  if (Status s = writeFileAtomically(file_, std::span<const uint8_t>(reinterpret_cast<const uint8_t *>(text.data()), text.size())); !s)
    return Status(StatusCode::Unavailable, "autotune: " + s.message());
  return Status::success();
}

Result<Tuned> Autotuner::tune(Device &device, const std::string &kernelName, const std::string &bucket,
                              std::span<const TuneConfig> configs, const Build &build, const Launch &launch, int reps,
                              int warmup) {
  if (configs.empty()) return Status(StatusCode::InvalidArgument, "autotune '" + kernelName + "': no configurations");
  if (reps < 1) return Status(StatusCode::InvalidArgument, "autotune '" + kernelName + "': reps must be at least 1");
  const BackendInfo &bi = device.backendInfo();
  const std::string cacheKey = clean(device.info().name + "|" + toString(device.backend()) + "|" + bi.driverVersion +
                                     "|" + kernelName + "|" + bucket);
  // One configuration: traced, compiled for the device and loaded.
  auto prepare = [&](const TuneConfig &c, Tuned &t) -> Status {
    Result<TracedKernel> k = build(c);
    if (!k) return k.status();
    Result<Package> pkg = compile(*k, device.target());
    if (!pkg) return pkg.status();
    Result<Module> m = device.load(*pkg);
    if (!m) return m.status();
    Result<Kernel> kernel = m->kernel(k->name());
    if (!kernel) return kernel.status();
    t.config = c;
    t.module = *m;
    t.kernel = *kernel;
    return Status::success();
  };

  std::string cached;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    load();
    if (auto it = cache_.find(cacheKey); it != cache_.end()) cached = it->second;
  }
  for (const TuneConfig &c : configs)
    if (!cached.empty() && c.key() == cached) {
      Tuned t;
      t.fromCache = true;
      if (Status s = prepare(c, t); s) return t;
      break; // the cached winner no longer builds here: measure again
    }

  Tuned best;
  double bestSeconds = 0;
  std::vector<std::pair<std::string, double>> seconds;
  std::vector<std::pair<std::string, std::string>> skipped;
  for (const TuneConfig &c : configs) {
    Tuned t;
    Status s = prepare(c, t);
    for (int i = 0; s && i < warmup; ++i) s = launch(t.kernel, c);
    if (s) s = device.synchronize();
    Result<std::vector<double>> times = Status();
    if (s) {
      s = device.beginTiming();
      for (int i = 0; s && i < reps; ++i) s = launch(t.kernel, c);
      times = device.endTiming(); // always ends the timing, also after a failed launch
      if (s && !times) s = times.status();
    }
    if (!s) {
      skipped.push_back({c.key(), s.toString()});
      continue;
    }
    // The launch callback may launch several kernels: a repetition is all of them.
    const size_t perRep = std::max<size_t>(times->size() / size_t(reps), 1);
    std::vector<double> perRepSeconds;
    for (size_t i = 0; i + perRep <= times->size(); i += perRep) {
      double sum = 0;
      for (size_t j = i; j < i + perRep; ++j) sum += (*times)[j];
      perRepSeconds.push_back(sum);
    }
    const double m = median(perRepSeconds);
    seconds.push_back({c.key(), m});
    if (!best.kernel.entry_ || m < bestSeconds) {
      best = std::move(t);
      bestSeconds = m;
    }
  }
  if (!best.kernel.entry_) {
    std::string why;
    for (const auto &[k, reason] : skipped) why += "\n  " + k + ": " + reason;
    return Status(StatusCode::Unsupported, "autotune '" + kernelName + "' on " + device.describe() +
                                               ": no configuration ran" + why);
  }
  best.seconds = std::move(seconds);
  best.skipped = std::move(skipped);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    cache_[cacheKey] = best.config.key();
    if (Status s = save(); !s) best.skipped.push_back({"(cache)", s.toString()});
  }
  return best;
}

} // namespace tessera
