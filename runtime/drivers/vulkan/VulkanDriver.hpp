// Vulkan driver classes: the shared instance, VulkanDriver (discovery), VulkanDevice, VulkanBuffer, VulkanKernel.
#pragma once

#include "Driver.hpp"
#include "vulkan/VulkanFeatures.hpp"
#include "vulkan/VulkanStatus.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>

namespace tessera::vulkan {

/// The process's VkInstance. volk keeps instance-level entry points in globals, so there is one
/// instance per process, shared by every Runtime and Device and destroyed with the last of them.
struct VulkanInstance {
  VkInstance instance = VK_NULL_HANDLE;
  uint32_t apiVersion = 0; // what the instance was created for
  ~VulkanInstance();
  static Result<std::shared_ptr<VulkanInstance>> acquire();
};

struct VulkanPhysical {
  detail::PhysicalDevice info;
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  uint32_t apiVersion = 0;
  uint32_t queueFamily = 0;
  ShaderFeatures features;         // queried once; what checkCapabilities compares against
  std::set<std::string> extensions; // device extensions offered
  std::vector<CoopMatrixFlexibleDimensionsNV> flexible; // VK_NV_cooperative_matrix2's entries
  uint32_t workgroupMatrixInvocations = 0; // cooperativeMatrixWorkgroupScopeMaxWorkgroupSize
};

class VulkanDriver final : public detail::Driver {
public:
  VulkanDriver(std::shared_ptr<VulkanInstance> instance, std::vector<VulkanPhysical> physicals);
  Backend backend() const override { return Backend::Vulkan; }
  const std::vector<detail::PhysicalDevice> &devices() const override { return devices_; }
  Result<std::unique_ptr<detail::DriverDevice>> open(const std::shared_ptr<Driver> &self, uint32_t nativeIndex) override;

private:
  std::shared_ptr<VulkanInstance> instance_;
  std::vector<VulkanPhysical> physicals_;
  std::vector<detail::PhysicalDevice> devices_;
};

class VulkanDevice;

/// A host-visible, coherent, mapped buffer: staging for copies to and from device memory.
struct HostBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void *map = nullptr;
  size_t size = 0;
};

/// One of the device's compute queues; vkQueueSubmit wants one thread at a time on it.
struct VulkanQueue {
  VkQueue handle = VK_NULL_HANDLE;
  std::mutex lock;
};

/// Where an event's timestamp lands once its submission has finished.
struct EventTicks {
  std::atomic<bool> ready{false};
  std::atomic<uint64_t> ticks{0};
};

/// A descriptor pool of a frame: `sets` sets of up to `perSet` storage buffers each.
struct FramePool {
  VkDescriptorPool handle = VK_NULL_HANDLE;
  uint32_t perSet = 0;
  uint32_t used = 0; // sets allocated since the frame was last reset
};

/// One submission of a stream: a command buffer holding one command or a batch of them, with
/// its descriptor pools, timestamp queries and whatever must live (or run on the host) until the
/// device has finished it.
struct VulkanFrame {
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  std::vector<FramePool> pools;              // a launch's set comes from the first with room
  VkQueryPool queries = VK_NULL_HANDLE;      // two timestamps, made on first need
  uint32_t commands = 0;                     // commands recorded (a batch has several)
  size_t timedSlot = ~size_t(0);             // the device timing slot this command fills
  uint64_t timedGeneration = 0;
  std::shared_ptr<EventTicks> eventTicks;    // an event's timestamp (query 0)
  std::vector<std::function<void()>> whenDone; // host work once finished (async downloads)
  std::vector<HostBuffer> staging;           // freed once finished
  std::vector<std::shared_ptr<class VulkanStreamCore>> waitedOn; // streams whose semaphores it waits on
  uint64_t value = 0;                        // the stream's timeline value once finished
};

/// The state of one stream, shared by the stream and its events: a timeline semaphore counts
/// the stream's finished submissions. Commands are recorded into the stream's open command
/// buffer (a batch) and submitted at once while fewer than two of the stream's submissions are
/// unfinished on the device (work starts at once, as on CUDA); while the device is busier, they
/// wait in the batch, which is submitted when the device gets down to one (a helper thread of
/// the stream waits for that), when it holds kMaxBatch commands, or before any host wait, event
/// or stream wait. Up to kMaxInFlight submissions wait on the device, then the next one waits
/// for the oldest. All members are guarded by `lock_`.
/// A callable borrowed for one call (a stream records through it at once, never keeps it): unlike
/// std::function it never allocates, which a launch would otherwise do for its recorder.
template <class Signature> class FunctionRef;
template <class R, class... Args> class FunctionRef<R(Args...)> {
public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef>>>
  FunctionRef(F &&f) // NOLINT: converts from any callable, as std::function does
      : object_(const_cast<void *>(static_cast<const void *>(std::addressof(f)))),
        call_([](void *o, Args... a) -> R { return (*static_cast<std::remove_reference_t<F> *>(o))(std::forward<Args>(a)...); }) {}
  R operator()(Args... a) const { return call_(object_, std::forward<Args>(a)...); }

private:
  void *object_;
  R (*call_)(void *, Args...);
};

class VulkanStreamCore {
public:
  VulkanStreamCore(VulkanDevice &device, VulkanQueue &queue) : device_(device), queue_(queue) {}
  ~VulkanStreamCore();
  Status init();

  static constexpr size_t kMaxInFlight = 32;
  static constexpr uint32_t kMaxBatch = 64;
  /// Records one command (launch, copy) between full barriers into the stream's batch, and
  /// submits the batch when the device is not busy with two of the stream's submissions. A
  /// recorder that fails must have recorded no work. `timed`: while device timing is on, the
  /// command is its own submission with timestamps around it. With `value`, the batch is
  /// submitted at once and `*value` is the timeline value it signals.
  using Recorder = FunctionRef<Status(VulkanFrame &, VkCommandBuffer)>;
  Status submit(Recorder record, const std::string &what, bool timed, uint64_t *value = nullptr);
  /// Submits a marker after everything so far (with a timestamp into `ticks` where the queue has
  /// timestamps) and returns its timeline value.
  Result<uint64_t> mark(const std::shared_ptr<EventTicks> &ticks);
  /// The next submission waits for `other` to reach `value` (the batch so far is submitted
  /// first, without the wait).
  Status addWait(std::shared_ptr<VulkanStreamCore> other, uint64_t value);
  /// Host waits: until the stream reaches `value` (then finished submissions are retired: their
  /// host work runs and their resources return).
  Status waitFor(uint64_t value);
  Result<bool> reached(uint64_t value);
  /// Submits the batch, then waits for everything submitted.
  Status synchronize();
  /// A descriptor set for `layout` (with `buffers` storage buffers) from the frame's pools.
  Result<VkDescriptorSet> descriptorSet(VulkanFrame &frame, VkDescriptorSetLayout layout, uint32_t buffers);
  VkSemaphore semaphore() const { return semaphore_; }
  VulkanDevice &device() const { return device_; }

private:
  Result<VulkanFrame *> acquireFrameLocked();
  Status ensureQueries(VulkanFrame &frame);
  Status retireLocked(uint64_t reachedValue);
  void resetFrame(VulkanFrame &frame);
  Result<uint64_t> counterValue();
  /// Waits (forever) for the stream's timeline semaphore to reach `value`.
  VkResult waitUntil(uint64_t value);
  /// Retires every submission the device has finished.
  Status retireFinishedLocked();
  Status submitLocked(VulkanFrame &frame, const std::string &what);
  /// Ends and submits the open batch, if any.
  Status flushLocked();
  /// An error of a batch the helper thread submitted, returned once by the next call.
  Status takeDeferredLocked();
  /// The helper thread: submits the open batch once the device is down to one unfinished
  /// submission of this stream.
  void flushWhenIdle();

  VulkanDevice &device_;
  VulkanQueue &queue_;
  std::mutex lock_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkSemaphore semaphore_ = VK_NULL_HANDLE;
  uint64_t submitted_ = 0;                               // the last value a submission signals
  std::deque<std::unique_ptr<VulkanFrame>> inFlight_;   // submitted, in order
  std::vector<std::unique_ptr<VulkanFrame>> free_;
  std::unique_ptr<VulkanFrame> open_;                    // the batch being recorded
  std::string openWhat_;                                 // its first command, for errors
  std::vector<std::pair<std::shared_ptr<VulkanStreamCore>, uint64_t>> pendingWaits_;
  Status deferred_;
  std::thread helper_;                                   // started by the first batch left open
  std::condition_variable wake_;                         // a batch was left open, or stopping
  bool stopping_ = false;
  bool helperFailed_ = false;                            // its wait failed: no more batching
};

class VulkanStream final : public detail::DriverStream {
public:
  explicit VulkanStream(std::shared_ptr<VulkanStreamCore> core) : core_(std::move(core)) {}
  ~VulkanStream() override;
  Result<std::unique_ptr<detail::DriverEvent>> record() override;
  Status wait(detail::DriverEvent &event) override;
  Status synchronize() override { return core_->synchronize(); }
  VulkanStreamCore &core() { return *core_; }

private:
  std::shared_ptr<VulkanStreamCore> core_;
};

class VulkanEvent final : public detail::DriverEvent {
public:
  VulkanEvent(VulkanDevice &device, std::shared_ptr<VulkanStreamCore> core, uint64_t value,
              std::shared_ptr<EventTicks> ticks)
      : device_(device), core_(std::move(core)), value_(value), ticks_(std::move(ticks)) {}
  Result<bool> query() override { return core_->reached(value_); }
  Status synchronize() override { return core_->waitFor(value_); }
  Result<double> secondsSince(detail::DriverEvent &start) override;
  const std::shared_ptr<VulkanStreamCore> &core() const { return core_; }
  uint64_t value() const { return value_; }

private:
  VulkanDevice &device_;
  std::shared_ptr<VulkanStreamCore> core_;
  uint64_t value_;
  std::shared_ptr<EventTicks> ticks_;
};

class VulkanDevice final : public detail::DriverDevice {
public:
  VulkanDevice(std::shared_ptr<detail::Driver> driver, std::shared_ptr<VulkanInstance> instance, VulkanPhysical physical)
      : driver_(std::move(driver)), instance_(std::move(instance)), physical_(std::move(physical)) {}
  ~VulkanDevice() override;
  /// Creates the VkDevice, its queues, the default stream and the pipeline cache.
  Status init();
  const ShaderFeatures &features() const { return physical_.features; }

  /// SPIR-V for this subgroup size: "vulkan1.3+coopmat" where cooperative matrices pass
  /// coopMatrixCheck, else "vulkan1.1"; "+soft-denormals" added where f32 denormals are neither
  /// promised nor measured kept (runs the denormal probe once).
  TargetDesc target() override;
  /// Prefers the artifact whose denormal handling fits the device (native where f32 denormals
  /// are kept, software where they are flushed), then any that runs; among those, code with
  /// cooperative matrices where coopMatrixCheck passes (never where it does not).
  Result<const Artifact *> selectArtifact(const KernelEntry &kernel) override;
  Result<std::unique_ptr<detail::DriverBuffer>> allocate(size_t bytes) override;
  Result<std::unique_ptr<detail::DriverKernel>> loadKernel(const KernelEntry &kernel, const Artifact &artifact) override;
  Status synchronize() override;
  detail::DriverStream &defaultStream() override { return *defaultStream_; }
  Result<std::unique_ptr<detail::DriverStream>> createStream() override;
  std::string denormalSupport() override;
  Status beginTiming() override;
  Result<std::vector<double>> endTiming() override;
  Status copy(detail::DriverStream &stream, detail::DriverBuffer &dst, detail::DriverBuffer &src, size_t bytes) override;

  /// The denormal probe's result (VulkanDenormProbe.cpp): run once, the first time a module needs
  /// a DenormPreserve width the driver does not promise (or a report asks), then cached.
  const DenormMeasurement &denormMeasurement();
  /// Per width ([0] = 16, [1] = 32, [2] = 64): whether the probe found denormals kept.
  std::array<bool, 3> measuredDenormPreserve() { return denormMeasurement().preserved; }
  /// Whether f32 denormals survive this device's float instructions (promised, or measured).
  bool keepsF32Denormals() { return features().denormPreserve[1] || measuredDenormPreserve()[1]; }

  /// Cooperative matrices: whether code for chip vulkan1.3+coopmat may run here (the feature and
  /// the shape reported, and the self-test exact), run once on first need, then kept.
  const CoopMatrixCheck &coopMatrixCheck();
  std::string matrixUnits() override { return coopMatrixCheck().detail; }
  uint32_t workgroupMatrixInvocations(bool bf16) override {
    return coopMatrixCheck().workgroup && (!bf16 || coopMatrixCheck().bf16) ? physical_.workgroupMatrixInvocations : 0;
  }
  /// Code on workgroup-scope matrices, where their self-test passed.
  bool runsVariant(const Artifact &a) override {
    return a.target.kind == TargetKind::SPIRV && hasWorkgroupMatrices(a.target.chip) && coopMatrixCheck().workgroup &&
           (!hasCoopBF16(a.target.chip) || coopMatrixCheck().bf16) &&
           uint64_t(a.blockSize[0]) * a.blockSize[1] * a.blockSize[2] <= physical_.workgroupMatrixInvocations;
  }

  /// Records one command on the default stream and waits for it (synchronous copies, the probe).
  Status submitAndWait(const std::function<void(VkCommandBuffer)> &record, const std::string &what);
  /// A memory type allowed by `typeBits` with all of `want`, preferring ones that also have `prefer`.
  std::optional<uint32_t> findMemoryType(uint32_t typeBits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags prefer) const;
  VkMemoryPropertyFlags memoryFlags(uint32_t type) const { return memory_.memoryTypes[type].propertyFlags; }
  Result<HostBuffer> createHostBuffer(size_t bytes);
  void destroy(HostBuffer &buffer);
  /// The device's shared staging buffer for synchronous copies, at least `bytes` (at most
  /// kStagingBytes) large, with its lock held by the caller (`stagingLock()`).
  Status ensureStaging(size_t bytes);
  std::mutex &stagingLock() { return stagingLock_; }

  /// Device timing (beginTiming/endTiming): a slot for one timed command, or ~0 when timing is off.
  std::pair<size_t, uint64_t> reserveTimedSlot();
  void fillTimedSlot(size_t slot, uint64_t generation, double seconds);
  /// Seconds between two raw timestamps of this device's queues.
  double ticksToSeconds(uint64_t begin, uint64_t end) const;
  bool hasTimestamps() const { return timestampBits_ != 0; }
  PFN_vkWaitSemaphores waitSemaphores = nullptr;             // core 1.2 or the KHR extension
  PFN_vkGetSemaphoreCounterValue getSemaphoreCounterValue = nullptr;

  /// The device's pipeline cache (VK_NULL_HANDLE when none could be made): kernels' pipelines
  /// are created through it. It is read at init from the cache directory's file for this
  /// device's pipelineCacheUUID, vendor, device and driver, and written back (whole, through a
  /// temporary file) when the device closes, if it grew.
  VkPipelineCache pipelineCache() const { return pipelineCache_; }
  /// Whether kernels' pipelines capture the driver's statistics (Kernel::statistics).
  bool pipelineStatistics() const { return pipelineStatistics_; }
  /// Launches push their buffers' descriptors into the command buffer (VK_KHR_push_descriptor,
  /// FeatureChain::pushDescriptors) instead of writing a set each.
  bool pushDescriptors() const { return pushDescriptors_; }

  static constexpr size_t kStagingBytes = 64u << 20;
  const VolkDeviceTable &vk() const { return vk_; }
  VkDevice handle() const { return device_; }
  uint32_t queueFamily() const { return physical_.queueFamily; }
  const std::string &name() const { return physical_.info.name; }
  VkBuffer stagingBuffer() const { return staging_.buffer; }
  void *stagingMap() const { return staging_.map; }
  size_t stagingSize() const { return staging_.size; }

private:
  /// Loads and launches the probe shader on this device and compares its outputs bit for bit.
  DenormMeasurement runDenormProbe();
  /// Loads and launches the cooperative-matrix self-test and compares D = A x B + C exactly.
  CoopMatrixCheck runCoopMatrixProbe();
  std::optional<CoopMatrixCheck> coopMatrixCheck_;

  std::shared_ptr<detail::Driver> driver_;
  std::shared_ptr<VulkanInstance> instance_;
  VulkanPhysical physical_;
  std::optional<DenormMeasurement> denormMeasurement_;
  /// Reads the pipeline cache file (ignoring one that is missing, truncated or corrupt) and
  /// creates the VkPipelineCache; savePipelineCache writes it back.
  void openPipelineCache(const VkPhysicalDeviceProperties &props);
  void savePipelineCache();
  VkPipelineCache pipelineCache_ = VK_NULL_HANDLE;
  bool pipelineStatistics_ = false;
  bool pushDescriptors_ = false;
  std::string cacheKey_; // cacheKeyOf(this device's properties)
  std::string pipelineCacheFile_;
  size_t pipelineCacheLoaded_ = 0; // bytes read at init: written back only when it grew
  VkDevice device_ = VK_NULL_HANDLE;
  VolkDeviceTable vk_{};
  std::vector<std::unique_ptr<VulkanQueue>> queues_; // of the compute family; streams take turns
  std::unique_ptr<VulkanStream> defaultStream_;      // on queues_[0]
  std::mutex streamsLock_;                           // guards streams_ and nextQueue_
  std::vector<std::weak_ptr<VulkanStreamCore>> streams_; // every stream's core, for synchronize()
  size_t nextQueue_ = 1;
  std::recursive_mutex probeLock_;                   // the denormal probe runs once
  uint32_t timestampBits_ = 0;              // the queue family's timestampValidBits (0: no timestamps)
  std::mutex timingLock_;                   // guards the three below
  bool timing_ = false;
  uint64_t timingGeneration_ = 0;           // slots of an earlier session are not filled
  std::vector<double> timed_;               // seconds of each timed command since beginTiming
  VkPhysicalDeviceMemoryProperties memory_{};
  VkPhysicalDeviceLimits limits_{};
  std::mutex stagingLock_;
  HostBuffer staging_;
  friend class VulkanKernel;
};

class VulkanBuffer final : public detail::DriverBuffer {
public:
  explicit VulkanBuffer(VulkanDevice &device) : device_(device) {}
  ~VulkanBuffer() override;
  Status init(size_t bytes);
  Status upload(const void *src, size_t bytes, size_t offsetBytes) override;
  Status download(void *dst, size_t bytes, size_t offsetBytes) override;
  Status uploadAsync(detail::DriverStream &stream, const void *src, size_t bytes, size_t offsetBytes) override;
  Status downloadAsync(detail::DriverStream &stream, void *dst, size_t bytes, size_t offsetBytes) override;
  VkBuffer handle() const { return buffer_; }

private:
  VulkanDevice &device_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  void *mapped_ = nullptr; // set when the memory is host-visible and coherent (lavapipe, ReBAR)
  size_t bytes_ = 0;
};

class VulkanKernel final : public detail::DriverKernel {
public:
  VulkanKernel(VulkanDevice &device, const KernelEntry &kernel, const Artifact &artifact)
      : device_(device), kernel_(kernel), artifact_(artifact), launchWhat_("launching kernel '" + kernel.name + "'") {}
  ~VulkanKernel() override;
  Status init();
  Status launch(detail::DriverStream &stream, Grid grid, std::span<const detail::LaunchArg> args) override;
  std::vector<KernelStatistic> statistics() override;

private:
  VulkanDevice &device_;
  const KernelEntry &kernel_;
  const Artifact &artifact_;
  const std::string launchWhat_; // built once, not at every launch
  VkShaderModule shader_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout setLayout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipelineLayout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE; // with specialization constants: the first one built
  /// Arguments the code reads as specialization constants (SpecId = argument index; the compiler's
  /// SpecializeScalars.cpp): a pipeline per set of their values, built at the first launch with it.
  std::vector<uint32_t> specArgs_;
  std::mutex specializedMutex_;
  std::map<std::vector<uint32_t>, VkPipeline> specialized_;
  Result<VkPipeline> createPipeline(const std::vector<uint32_t> &specValues);
  uint32_t bufferCount_ = 0; // each launch writes a descriptor set of its stream's submission
  bool pushed_ = false;      // or pushes its descriptors (VulkanDevice::pushDescriptors; at most 32 buffers)
};

/// "1.3.230".
std::string formatVulkanVersion(uint32_t v);
/// What identifies a device and its driver in cache file names: vendor, device, driver version
/// and pipelineCacheUUID ("10de-2335-91bf4000-<32 hex digits>").
std::string cacheKeyOf(const VkPhysicalDeviceProperties &props);
/// Parses "vulkan1.1" into VK_MAKE_API_VERSION(0, 1, 1, 0); false if it is not that form.
bool parseVulkanChip(const std::string &chip, uint32_t &version);

} // namespace tessera::vulkan
