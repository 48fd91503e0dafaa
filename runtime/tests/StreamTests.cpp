// Streams and events on every device x backend present: asynchronous uploads, launches and
// downloads, order across streams through events, event queries and device time, handle errors,
// and the concurrency stress test (several threads on shared and separate streams), which CI also
// runs under ThreadSanitizer (scripts/sanitize.sh thread, build-tsan/).
#include "TestSupport.hpp"

#include <atomic>
#include <thread>

using namespace tessera;
using namespace tessera::test;

namespace {

constexpr uint32_t kBlock = 64; // add_scalar's workgroup size

Kernel addScalar(Device &dev, Module &keep) {
  auto module = dev.load(packageFor(dev));
  REQUIRE_MESSAGE(module.ok(), module.status().toString());
  keep = *module;
  auto k = keep.kernel("add_scalar");
  REQUIRE(k.ok());
  return *k;
}

/// A target opened, with add_scalar loaded on it (the module kept alive beside the kernel).
struct AddScalarOn {
  std::shared_ptr<Device> dev;
  Module module;
  Kernel add;
};

AddScalarOn openWithAddScalar(Runtime &rt, const TargetRef &t) {
  std::shared_ptr<Device> dev = openTarget(rt, t);
  Module module;
  Kernel add = addScalar(*dev, module);
  return {std::move(dev), std::move(module), std::move(add)};
}

Grid gridFor(size_t n) { return {uint32_t((n + kBlock - 1) / kBlock), 1, 1}; }

Stream newStream(Device &dev) {
  auto s = dev.createStream();
  REQUIRE_MESSAGE(s.ok(), s.status().toString());
  return *s;
}

// Exact: add_scalar is one f32 addition per element, the same on every device.
size_t countWrong(const std::vector<float> &in, float s, const std::vector<float> &out) {
  size_t wrong = 0;
  for (size_t i = 0; i < in.size(); ++i) wrong += bitsOf(out[i]) != bitsOf(in[i] + s);
  return wrong;
}

} // namespace

TEST_CASE("stream.async_upload_launch_download") {
  auto rt = runtime();
  for (const TargetRef &t : everyTarget(*rt)) {
    CAPTURE(t.label);
    auto [dev, module, add] = openWithAddScalar(*rt, t);
    const uint32_t seed = freshSeed();
    CAPTURE(seed);
    const size_t n = 5003;
    std::vector<float> host = randomFloats(n, seed), input = host;
    Buffer x = allocateOrFail(*dev, DType::F32, n), y = allocateOrFail(*dev, DType::F32, n);
    REQUIRE(poison(y).ok());
    Stream stream = newStream(*dev);
    CHECK(stream.device() == dev.get());
    REQUIRE(x.uploadAsync(host.data(), n * 4, 0, stream).ok());
    std::fill(host.begin(), host.end(), -1.0f); // uploadAsync has taken the bytes already
    REQUIRE(add.launch(gridFor(n), {x, y, 0.5f, int32_t(n)}, stream).ok());
    std::vector<float> out(n + 1, 0.0f);
    out[n] = 12345.0f; // one past the download: must stay
    REQUIRE(y.downloadAsync(out.data(), n * 4, 0, stream).ok());
    REQUIRE(stream.synchronize().ok());
    CHECK(countWrong(input, 0.5f, {out.begin(), out.begin() + n}) == 0);
    CHECK(out[n] == 12345.0f);

    // A partial download at an offset, seen through an event recorded after it.
    std::vector<float> part(100, 0.0f);
    REQUIRE(y.downloadAsync(part.data(), 400, 4000 * 4, stream).ok());
    auto done = stream.record();
    REQUIRE(done.ok());
    REQUIRE(done->synchronize().ok());
    auto passed = done->query();
    REQUIRE(passed.ok());
    CHECK(*passed);
    for (size_t i = 0; i < part.size(); ++i) CHECK(bitsOf(part[i]) == bitsOf(input[4000 + i] + 0.5f));
  }
}

TEST_CASE("stream.events_order_work_across_streams") {
  auto rt = runtime();
  for (const TargetRef &t : everyTarget(*rt)) {
    CAPTURE(t.label);
    auto [dev, module, add] = openWithAddScalar(*rt, t);
    const size_t n = 1 << 16;
    Stream producer = newStream(*dev), consumer = newStream(*dev);
    Buffer x = allocateOrFail(*dev, DType::F32, n), y = allocateOrFail(*dev, DType::F32, n), z = allocateOrFail(*dev, DType::F32, n);
    for (int round = 0; round < 8; ++round) {
      const uint32_t seed = freshSeed();
      CAPTURE(seed);
      std::vector<float> host = randomFloats(n, seed);
      REQUIRE(poison(y).ok());
      REQUIRE(poison(z).ok());
      // producer: x <- host; y <- x + 1 (several times over, so it is still running when the
      // consumer's work is enqueued). consumer: after the event, z <- y + 2.
      REQUIRE(x.uploadAsync(host.data(), n * 4, 0, producer).ok());
      for (int i = 0; i < 4; ++i) REQUIRE(add.launch(gridFor(n), {x, y, 1.0f, int32_t(n)}, producer).ok());
      auto ready = producer.record();
      REQUIRE(ready.ok());
      REQUIRE(consumer.wait(*ready).ok());
      REQUIRE(add.launch(gridFor(n), {y, z, 2.0f, int32_t(n)}, consumer).ok());
      std::vector<float> out(n);
      REQUIRE(z.downloadAsync(out.data(), n * 4, 0, consumer).ok());
      REQUIRE(consumer.synchronize().ok());
      size_t wrong = 0;
      for (size_t i = 0; i < n; ++i) wrong += bitsOf(out[i]) != bitsOf((host[i] + 1.0f) + 2.0f);
      CHECK(wrong == 0);
    }
    // The default stream takes part like any other.
    Stream main = dev->defaultStream();
    REQUIRE(main.valid());
    std::vector<float> host = randomFloats(n, freshSeed());
    REQUIRE(x.uploadAsync(host.data(), n * 4, 0, producer).ok());
    REQUIRE(main.wait(*producer.record()).ok());
    REQUIRE(add.launch(gridFor(n), {x, y, 3.0f, int32_t(n)}).ok()); // no stream: the default one
    std::vector<float> out(n);
    REQUIRE(y.download(std::span<float>(out)).ok());
    CHECK(countWrong(host, 3.0f, out) == 0);
  }
}

// Long chains of dependent launches: each reads what the one before wrote, so the commands a
// stream batches into one submission (Vulkan, while the device is busy) must keep their order and
// their barriers, and every host wait (an event, a synchronize, a stream's end, a cross-stream
// wait) must see the batch submitted.
TEST_CASE("stream.long_chains_keep_order_through_batches") {
  auto rt = runtime();
  for (const TargetRef &t : everyTarget(*rt)) {
    CAPTURE(t.label);
    auto [dev, module, add] = openWithAddScalar(*rt, t);
    const uint32_t seed = freshSeed();
    CAPTURE(seed);
    const size_t n = 1 << 14;
    const std::vector<float> input = randomFloats(n, seed);
    Buffer x = allocateOrFail(*dev, DType::F32, n), y = allocateOrFail(*dev, DType::F32, n);
    REQUIRE(poison(y).ok());
    // Launch i adds step(i), from x to y when i is even and back when odd.
    auto step = [](int i) { return float(i % 7 + 1) * 0.5f; };
    auto chain = [&](Stream &stream, int from, int to) {
      for (int i = from; i < to; ++i) {
        Buffer &in = i % 2 == 0 ? x : y, &out = i % 2 == 0 ? y : x;
        REQUIRE(add.launch(gridFor(n), {in, out, step(i), int32_t(n)}, stream).ok());
      }
    };
    auto expected = [&](int launches) {
      std::vector<float> v = input;
      for (int i = 0; i < launches; ++i)
        for (float &e : v) e = e + step(i);
      return v;
    };
    auto wrong = [](const std::vector<float> &got, const std::vector<float> &want) {
      size_t bad = 0;
      for (size_t i = 0; i < got.size(); ++i) bad += bitsOf(got[i]) != bitsOf(want[i]);
      return bad;
    };

    Stream stream = newStream(*dev);
    REQUIRE(x.uploadAsync(input.data(), n * 4, 0, stream).ok());
    chain(stream, 0, 101); // 101 launches: the result is in y
    std::vector<float> mid(n, -1.0f), last(n, -1.0f);
    REQUIRE(y.downloadAsync(mid.data(), n * 4, 0, stream).ok());
    auto midEvent = stream.record();
    REQUIRE(midEvent.ok());
    chain(stream, 101, 300); // the result is back in x
    auto late = stream.record();
    REQUIRE(late.ok());
    REQUIRE(x.downloadAsync(last.data(), n * 4, 0, stream).ok());
    REQUIRE(midEvent->synchronize().ok());
    CHECK(wrong(mid, expected(101)) == 0);
    REQUIRE(late->synchronize().ok());
    REQUIRE(stream.synchronize().ok());
    CHECK(wrong(last, expected(300)) == 0);

    // A stream dropped with its chain enqueued finishes it first.
    REQUIRE(x.upload(std::span<const float>(input)).ok());
    {
      Stream brief = newStream(*dev);
      chain(brief, 0, 200);
    }
    std::vector<float> out(n);
    REQUIRE(x.download(std::span<float>(out)).ok());
    CHECK(wrong(out, expected(200)) == 0);

    // A stream waits for another's event while work of its own is still batched: the work before
    // the wait runs, the work after it sees the other stream's result.
    Stream producer = newStream(*dev), consumer = newStream(*dev);
    Buffer z = allocateOrFail(*dev, DType::F32, n), w = allocateOrFail(*dev, DType::F32, n);
    REQUIRE(x.uploadAsync(input.data(), n * 4, 0, producer).ok());
    chain(producer, 0, 50); // the result is in x
    auto produced = producer.record();
    REQUIRE(produced.ok());
    REQUIRE(z.uploadAsync(input.data(), n * 4, 0, consumer).ok());
    for (int i = 0; i < 60; ++i) REQUIRE(add.launch(gridFor(n), {z, z, 1.0f, int32_t(n)}, consumer).ok());
    REQUIRE(consumer.wait(*produced).ok());
    REQUIRE(add.launch(gridFor(n), {x, w, 0.25f, int32_t(n)}, consumer).ok());
    std::vector<float> zs(n), ws(n);
    REQUIRE(z.downloadAsync(zs.data(), n * 4, 0, consumer).ok());
    REQUIRE(w.downloadAsync(ws.data(), n * 4, 0, consumer).ok());
    REQUIRE(consumer.synchronize().ok());
    std::vector<float> wantZ = input, wantW = expected(50);
    for (float &e : wantZ)
      for (int i = 0; i < 60; ++i) e = e + 1.0f;
    for (float &e : wantW) e = e + 0.25f;
    CHECK(wrong(zs, wantZ) == 0);
    CHECK(wrong(ws, wantW) == 0);
  }
}

TEST_CASE("stream.event_time_and_device_timing_on_several_streams") {
  auto rt = runtime();
  for (const TargetRef &t : everyTarget(*rt)) {
    CAPTURE(t.label);
    auto [dev, module, add] = openWithAddScalar(*rt, t);
    const size_t n = 1 << 18;
    Buffer x = allocateOrFail(*dev, DType::F32, n), y = allocateOrFail(*dev, DType::F32, n);
    std::vector<float> host = randomFloats(n, freshSeed());
    REQUIRE(x.upload(std::span<const float>(host)).ok());
    Stream a = newStream(*dev), b = newStream(*dev);
    auto start = a.record();
    REQUIRE(start.ok());
    for (int i = 0; i < 3; ++i) REQUIRE(add.launch(gridFor(n), {x, y, 1.0f, int32_t(n)}, a).ok());
    auto end = a.record();
    REQUIRE(end.ok());
    auto seconds = end->secondsSince(*start);
    REQUIRE_MESSAGE(seconds.ok(), seconds.status().toString());
    CHECK(*seconds > 0.0);
    CHECK(*seconds < 10.0);
    MESSAGE(t.label << ": three launches over 2^18 between two events: " << *seconds * 1e6 << " us");

    // Device timing counts the work of every stream.
    REQUIRE(dev->beginTiming().ok());
    REQUIRE(add.launch(gridFor(n), {x, y, 1.0f, int32_t(n)}, a).ok());
    REQUIRE(add.launch(gridFor(n), {x, y, 1.0f, int32_t(n)}, b).ok());
    REQUIRE(y.copyFrom(x, b).ok());
    REQUIRE(add.launch(gridFor(n), {x, y, 1.0f, int32_t(n)}).ok());
    auto timed = dev->endTiming();
    REQUIRE(timed.ok());
    REQUIRE(timed->size() == 4);
    for (double s : *timed) CHECK(s > 0.0);
  }
}

TEST_CASE("stream.errors") {
  auto rt = runtime();
  auto targets = everyTarget(*rt);
  REQUIRE(!targets.empty());
  std::shared_ptr<Device> one = openTarget(*rt, targets[0]), other = openTarget(*rt, targets[0]);
  Module module;
  Kernel add = addScalar(*one, module);
  Buffer x = allocateOrFail(*one, DType::F32, 64), y = allocateOrFail(*one, DType::F32, 64);
  Stream foreign = newStream(*other), mine = newStream(*one);
  float host[64] = {};

  Status s = add.launch({1, 1, 1}, {x, y, 1.0f, int32_t(64)}, foreign);
  CHECK(codeOf(s) == codeName(StatusCode::InvalidArgument));
  CHECK(contains(s.message(), "the stream belongs to another Device"));
  s = x.uploadAsync(host, sizeof host, 0, foreign);
  CHECK(contains(s.message(), "uploadAsync: the stream belongs to another Device"));
  s = y.copyFrom(x, foreign);
  CHECK(contains(s.message(), "copyFrom: the stream belongs to another Device"));
  s = x.downloadAsync(host, sizeof host + 4, 0, mine);
  CHECK(contains(s.message(), "does not fit in a buffer of 256 bytes"));
  s = x.uploadAsync(nullptr, 4, 0, mine);
  CHECK(contains(s.message(), "null host pointer"));
  s = add.launch({1, 1, 1}, {x, y, 1.0f, int32_t(64)}, Stream{});
  CHECK(contains(s.message(), "empty Stream handle"));

  auto event = foreign.record();
  REQUIRE(event.ok());
  s = mine.wait(*event);
  CHECK(codeOf(s) == codeName(StatusCode::InvalidArgument));
  CHECK(contains(s.message(), "the event was recorded on another Device"));
  auto mineEvent = mine.record();
  REQUIRE(mineEvent.ok());
  CHECK(contains(mineEvent->secondsSince(*event).status().message(), "different devices"));
  CHECK(contains(Event{}.synchronize().message(), "empty Event handle"));
  CHECK(contains(mine.wait(Event{}).message(), "empty Event handle"));
  CHECK(contains(Stream{}.synchronize().message(), "empty Stream handle"));
  CHECK(Stream{}.device() == nullptr);
  CHECK(!Device{}.defaultStream().valid());
}

// Several threads at once: each with a stream of its own, all also sharing one stream (and the
// default stream), events between them, buffers and streams made and dropped on the way, and one
// thread calling Device::synchronize. Every result is checked exactly.
TEST_CASE("stress.threads_on_shared_and_separate_streams") {
  auto rt = runtime();
  for (const TargetRef &t : everyTarget(*rt)) {
    CAPTURE(t.label);
    auto [dev, module, add] = openWithAddScalar(*rt, t);
    Stream shared = newStream(*dev);
    const uint32_t baseSeed = freshSeed();
    CAPTURE(baseSeed);
    constexpr int kThreads = 6, kRounds = 12;
    std::atomic<int> failures{0}, checked{0};
    std::vector<std::string> errors(kThreads);
    auto worker = [&](int id) {
      auto fail = [&](const std::string &what) {
        if (failures++ == 0 || errors[id].empty()) errors[id] = what;
      };
      auto own = dev->createStream();
      if (!own) return fail(own.status().toString());
      for (int round = 0; round < kRounds; ++round) {
        const size_t n = 1000 + 97 * size_t(id) + 13 * size_t(round);
        std::vector<float> host = randomFloats(n, baseSeed + uint32_t(id * 1000 + round));
        auto x = dev->allocate(DType::F32, n), y = dev->allocate(DType::F32, n), z = dev->allocate(DType::F32, n);
        if (!x || !y || !z) return fail("allocate");
        // Even rounds: everything on the thread's own stream. Odd: the first step on the shared
        // stream (or the default one), the second on the own stream after an event.
        Stream first = round % 2 == 0 ? *own : (round % 4 == 1 ? shared : dev->defaultStream());
        const float s1 = float(id + 1), s2 = float(round) * 0.25f;
        Status st = x->uploadAsync(host.data(), n * 4, 0, first);
        if (st) st = add.launch(gridFor(n), {*x, *y, s1, int32_t(n)}, first);
        if (st && first.impl_ != own->impl_) {
          auto e = first.record();
          st = e ? own->wait(*e) : e.status();
        }
        if (st) st = add.launch(gridFor(n), {*y, *z, s2, int32_t(n)}, *own);
        std::vector<float> out(n, -7.0f);
        if (st) st = z->downloadAsync(out.data(), n * 4, 0, *own);
        Result<Event> done = st ? own->record() : Result<Event>(st);
        if (done) st = round % 3 == 0 ? own->synchronize() : done->synchronize();
        else st = done.status();
        if (!st) return fail(st.toString());
        for (size_t i = 0; i < n; ++i)
          if (bitsOf(out[i]) != bitsOf((host[i] + s1) + s2))
            return fail("wrong value at " + std::to_string(i) + " in round " + std::to_string(round));
        ++checked;
        if (round == kRounds / 2) { // a stream made and dropped mid-flight
          auto extra = dev->createStream();
          if (!extra) return fail(extra.status().toString());
          if (Status e = x->uploadAsync(host.data(), n * 4, 0, *extra); !e) return fail(e.toString());
        }
      }
    };
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) threads.emplace_back(worker, i);
    std::atomic<bool> stop{false};
    std::thread syncer([&] {
      while (!stop)
        if (Status s = dev->synchronize(); !s) {
          failures++;
          return;
        }
    });
    for (std::thread &th : threads) th.join();
    stop = true;
    syncer.join();
    for (int i = 0; i < kThreads; ++i) CHECK_MESSAGE(errors[i].empty(), "thread " << i << ": " << errors[i]);
    CHECK(failures == 0);
    CHECK(checked == kThreads * kRounds);
  }
}
