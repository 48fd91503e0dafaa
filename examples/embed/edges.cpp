// edges: an image filter that embeds Tessera. It reads a PNG, finds its edges on the best GPU
// present (or lavapipe, Mesa's CPU Vulkan driver) with one tile kernel, and writes them as a
// grayscale PNG: white where the brightness changes fast.
//
//   edges photo.png edges.png            # the filter
//   edges --check photo.png edges.png    # also compares every pixel with the same filter on the CPU
//   edges --timings photo.png edges.png  # also prints the cold and warm start times
//   edges --make-test-image=test.png 320x240   # a picture to try it on
//
// The kernel lives in edges_kernels.cpp, compiled when the app is built into edges_kernels.hpp
// (typed launch functions, the package embedded): at run time only the Tessera runtime is needed.
#include "edges_block.hpp"
#include "edges_kernels.hpp"

#include <png.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using Clock = std::chrono::steady_clock;

static double millisecondsSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

/// The same filter on the CPU, pixel for pixel.
static std::vector<uint8_t> edgesOnCpu(const std::vector<uint8_t> &rgba, int W, int H) {
  auto lum = [&](int y, int x) {
    y = std::clamp(y, 0, H - 1), x = std::clamp(x, 0, W - 1);
    const uint8_t *p = &rgba[(size_t(y) * W + x) * 4];
    return (p[0] * 77 + p[1] * 150 + p[2] * 29) >> 8;
  };
  std::vector<uint8_t> out(size_t(W) * H);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      int gx = lum(y - 1, x + 1) + 2 * lum(y, x + 1) + lum(y + 1, x + 1) - (lum(y - 1, x - 1) + 2 * lum(y, x - 1) + lum(y + 1, x - 1));
      int gy = lum(y + 1, x - 1) + 2 * lum(y + 1, x) + lum(y + 1, x + 1) - (lum(y - 1, x - 1) + 2 * lum(y - 1, x) + lum(y - 1, x + 1));
      out[size_t(y) * W + x] = uint8_t(std::min(std::abs(gx) + std::abs(gy), 255));
    }
  return out;
}

static bool readPng(const char *path, std::vector<uint8_t> &rgba, int &W, int &H) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path)) {
    std::fprintf(stderr, "edges: cannot read %s: %s\n", path, image.message);
    return false;
  }
  image.format = PNG_FORMAT_RGBA;
  rgba.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, rgba.data(), 0, nullptr)) {
    std::fprintf(stderr, "edges: cannot decode %s: %s\n", path, image.message);
    return false;
  }
  W = int(image.width), H = int(image.height);
  return true;
}

static bool writePng(const char *path, const uint8_t *pixels, int W, int H, uint32_t format) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = uint32_t(W), image.height = uint32_t(H), image.format = format;
  if (!png_image_write_to_file(&image, path, 0, pixels, 0, nullptr)) {
    std::fprintf(stderr, "edges: cannot write %s: %s\n", path, image.message);
    return false;
  }
  return true;
}

/// A picture with edges to find: a soft gradient, a bright disc and a dark square.
static int makeTestImage(const char *path, int W, int H) {
  std::vector<uint8_t> rgba(size_t(W) * H * 4);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      uint8_t *p = &rgba[(size_t(y) * W + x) * 4];
      double dx = x - W * 0.4, dy = y - H * 0.5;
      bool disc = dx * dx + dy * dy < 0.09 * W * H, square = x > W * 0.65 && x < W * 0.9 && y > H * 0.2 && y < H * 0.6;
      p[0] = uint8_t(disc ? 240 : square ? 20 : 60 + 120 * x / W);
      p[1] = uint8_t(disc ? 200 : square ? 30 : 80 + 100 * y / H);
      p[2] = uint8_t(disc ? 40 : square ? 90 : 140);
      p[3] = 255;
    }
  if (!writePng(path, rgba.data(), W, H, PNG_FORMAT_RGBA)) return 1;
  std::printf("edges: wrote a %dx%d test image to %s\n", W, H, path);
  return 0;
}

static int fail(const char *what, const tessera::Status &s) {
  std::fprintf(stderr, "edges: %s: %s\n", what, s.toString().c_str());
  return 1;
}

int main(int argc, char **argv) {
  bool check = false, timings = false;
  std::vector<const char *> files;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--check")) check = true;
    else if (!std::strcmp(argv[i], "--timings")) timings = true;
    else if (!std::strncmp(argv[i], "--make-test-image=", 18)) {
      int W = 320, H = 240;
      if (i + 1 < argc && (std::sscanf(argv[i + 1], "%dx%d", &W, &H) != 2 || W < 1 || H < 1))
        return std::fprintf(stderr, "edges: the test image needs a size like 320x240, got %s\n", argv[i + 1]), 1;
      return makeTestImage(argv[i] + 18, W, H);
    } else files.push_back(argv[i]);
  }
  if (files.size() != 2)
    return std::fprintf(stderr, "usage: edges [--check] [--timings] in.png out.png\n"
                                "       edges --make-test-image=out.png [WxH]\n"), 1;

  std::vector<uint8_t> rgba;
  int W = 0, H = 0;
  if (!readPng(files[0], rgba, W, H)) return 1;

  Clock::time_point start = Clock::now();
  auto runtime = tessera::Runtime::create();
  if (!runtime) return fail("runtime", runtime.status());
  auto device = (*runtime)->openDefault();
  if (!device) return fail("device", device.status());
  tessera::Device &dev = **device;
  const double openMs = millisecondsSince(start);
  start = Clock::now();
  auto kernels = edges_kernels::Kernels::load(dev); // the package embedded in edges_kernels.hpp
  if (!kernels) return fail("load", kernels.status());
  const double loadMs = millisecondsSince(start);

  auto in = dev.allocate(tessera::DType::U8, rgba.size());
  auto out = dev.allocate(tessera::DType::U8, size_t(W) * H);
  if (!in || !out) return fail("allocate", !in ? in.status() : out.status());
  if (auto s = in->upload(std::span<const uint8_t>(rgba)); !s) return fail("upload", s);
  const tessera::Grid grid{uint32_t((W + kEdgesBlock - 1) / kEdgesBlock), uint32_t(H)};
  double launchMs[2] = {0, 0};
  for (double &ms : launchMs) { // the second launch (warm) only with --timings
    start = Clock::now();
    if (auto s = kernels->edges(grid, *in, *out, int32_t(W), int32_t(H)); !s) return fail("launch", s);
    if (auto s = dev.synchronize(); !s) return fail("synchronize", s);
    ms = millisecondsSince(start);
    if (!timings) break;
  }
  std::vector<uint8_t> result(size_t(W) * H);
  if (auto s = out->download(std::span<uint8_t>(result)); !s) return fail("download", s);
  if (!writePng(files[1], result.data(), W, H, PNG_FORMAT_GRAY)) return 1;

  size_t lit = size_t(std::count_if(result.begin(), result.end(), [](uint8_t v) { return v >= 128; }));
  std::printf("edges: %dx%d on %s: %zu edge pixels, written to %s\n", W, H, dev.describe().c_str(), lit, files[1]);
  if (timings)
    std::printf("edges: timings: runtime + device open %.2f ms, package load %.2f ms, first launch %.2f ms, "
                "second launch %.2f ms (each launch waited for)\n",
                openMs, loadMs, launchMs[0], launchMs[1]);
  if (check) {
    std::vector<uint8_t> cpu = edgesOnCpu(rgba, W, H);
    size_t differ = 0;
    for (size_t i = 0; i < cpu.size(); ++i) differ += cpu[i] != result[i];
    if (differ) return std::fprintf(stderr, "edges: %zu of %zu pixels differ from the CPU\n", differ, cpu.size()), 1;
    std::printf("edges: every pixel identical to the CPU's\n");
  }
  return 0;
}
