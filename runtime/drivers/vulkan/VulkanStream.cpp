// Vulkan streams: commands are recorded into batches, each batch one submission signalling the
// stream's timeline semaphore, submitted at once while the device is not busy with the stream's
// work and otherwise when it gets down to one unfinished submission (a helper thread waits for
// that); events are timeline values; finished submissions are retired (timestamps read, async
// downloads copied to the host, resources recycled) by whichever thread sees them finished.
#include "vulkan/VulkanDriver.hpp"

#include <algorithm>
#include <system_error>

namespace tessera::vulkan {

namespace {

// Each command is ordered against everything submitted before it on its queue and made visible
// to the next command and to mapped host reads: one full barrier on each side.
void fullBarrier(const VolkDeviceTable &vk, VkCommandBuffer cmd) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_HOST_READ_BIT;
  vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                          VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, nullptr,
                          0, nullptr);
}

constexpr uint64_t kForever = UINT64_MAX;

} // namespace

Status VulkanStreamCore::init() {
  const VolkDeviceTable &vk = device_.vk();
  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = device_.queueFamily();
  TESSERA_VK_TRY_CTX(vk.vkCreateCommandPool(device_.handle(), &pool, nullptr, &pool_), "creating a stream on " + device_.name());
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  type.initialValue = 0;
  VkSemaphoreCreateInfo semaphore{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  semaphore.pNext = &type;
  TESSERA_VK_TRY_CTX(vk.vkCreateSemaphore(device_.handle(), &semaphore, nullptr, &semaphore_),
                     "creating a stream's timeline semaphore on " + device_.name());
  return Status::success();
}

VulkanStreamCore::~VulkanStreamCore() {
  const VolkDeviceTable &vk = device_.vk();
  VkDevice dev = device_.handle();
  auto release = [&](VulkanFrame &f) {
    resetFrame(f);
    for (FramePool &p : f.pools) vk.vkDestroyDescriptorPool(dev, p.handle, nullptr);
    if (f.queries) vk.vkDestroyQueryPool(dev, f.queries, nullptr);
  };
  {
    std::lock_guard<std::mutex> lock(lock_);
    stopping_ = true;
    (void)flushLocked(); // the stream's owner synchronized; an event's last owner may not have
  }
  wake_.notify_all();
  if (helper_.joinable()) helper_.join(); // its wait ends once the device has the work done
  if (semaphore_ && submitted_) {
    (void)waitUntil(submitted_);
  }
  (void)retireLocked(submitted_); // no other thread holds a core that is being destroyed
  for (auto &f : inFlight_) release(*f); // only where the device was lost
  for (auto &f : free_) release(*f);
  if (pool_) vk.vkDestroyCommandPool(dev, pool_, nullptr);
  if (semaphore_) vk.vkDestroySemaphore(dev, semaphore_, nullptr);
}

Result<uint64_t> VulkanStreamCore::counterValue() {
  uint64_t value = 0;
  TESSERA_VK_TRY_CTX(device_.getSemaphoreCounterValue(device_.handle(), semaphore_, &value),
                     "reading a stream's progress on " + device_.name());
  return value;
}

VkResult VulkanStreamCore::waitUntil(uint64_t value) {
  VkSemaphoreWaitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  wait.semaphoreCount = 1;
  wait.pSemaphores = &semaphore_;
  wait.pValues = &value;
  return device_.waitSemaphores(device_.handle(), &wait, kForever);
}

Status VulkanStreamCore::retireFinishedLocked() {
  Result<uint64_t> now = counterValue();
  if (!now) return now.status();
  return retireLocked(*now);
}

void VulkanStreamCore::resetFrame(VulkanFrame &f) {
  const VolkDeviceTable &vk = device_.vk();
  for (HostBuffer &b : f.staging) device_.destroy(b);
  f.staging.clear();
  f.whenDone.clear();
  f.waitedOn.clear();
  f.eventTicks.reset();
  f.timedSlot = ~size_t(0);
  f.commands = 0;
  f.value = 0;
  for (FramePool &p : f.pools)
    if (p.used) {
      vk.vkResetDescriptorPool(device_.handle(), p.handle, 0);
      p.used = 0;
    }
  if (f.cmd) vk.vkResetCommandBuffer(f.cmd, 0);
}

Status VulkanStreamCore::retireLocked(uint64_t reachedValue) {
  const VolkDeviceTable &vk = device_.vk();
  Status status;
  while (!inFlight_.empty() && inFlight_.front()->value <= reachedValue) {
    std::unique_ptr<VulkanFrame> f = std::move(inFlight_.front());
    inFlight_.pop_front();
    const bool timed = f->timedSlot != ~size_t(0);
    if (f->queries && (timed || f->eventTicks)) {
      uint64_t ticks[2] = {};
      VkResult r = vk.vkGetQueryPoolResults(device_.handle(), f->queries, 0, timed ? 2 : 1, sizeof ticks, ticks,
                                            sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
      if (r != VK_SUCCESS && status) status = vkStatus(r, "vkGetQueryPoolResults()", "reading timestamps on " + device_.name());
      if (r == VK_SUCCESS && timed) device_.fillTimedSlot(f->timedSlot, f->timedGeneration, device_.ticksToSeconds(ticks[0], ticks[1]));
      if (r == VK_SUCCESS && f->eventTicks) {
        f->eventTicks->ticks = ticks[0];
        f->eventTicks->ready = true;
      }
    }
    for (const std::function<void()> &done : f->whenDone) done();
    resetFrame(*f);
    free_.push_back(std::move(f));
  }
  return status;
}

Result<VulkanFrame *> VulkanStreamCore::acquireFrameLocked() {
  if (!inFlight_.empty()) {
    if (Status s = retireFinishedLocked(); !s) return s;
  }
  if (free_.empty() && inFlight_.size() >= kMaxInFlight) {
    // Back-pressure: wait for the oldest submission (the device is kMaxInFlight commands behind).
    uint64_t oldest = inFlight_.front()->value;
    TESSERA_VK_TRY_CTX(waitUntil(oldest), "waiting for a stream on " + device_.name());
    if (Status s = retireLocked(oldest); !s) return s;
  }
  if (free_.empty()) {
    auto f = std::make_unique<VulkanFrame>();
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool_;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    TESSERA_VK_TRY_CTX(device_.vk().vkAllocateCommandBuffers(device_.handle(), &alloc, &f->cmd),
                       "allocating a command buffer on " + device_.name());
    free_.push_back(std::move(f));
  }
  return free_.back().get();
}

Result<VkDescriptorSet> VulkanStreamCore::descriptorSet(VulkanFrame &f, VkDescriptorSetLayout layout, uint32_t buffers) {
  const VolkDeviceTable &vk = device_.vk();
  VkDevice dev = device_.handle();
  const std::string what = "allocating a descriptor set on " + device_.name();
  constexpr uint32_t kSetsPerPool = 16;
  auto room = std::find_if(f.pools.begin(), f.pools.end(),
                           [&](const FramePool &p) { return p.perSet >= buffers && p.used < kSetsPerPool; });
  if (room == f.pools.end()) {
    FramePool p;
    p.perSet = std::max(buffers, 16u);
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, p.perSet * kSetsPerPool};
    VkDescriptorPoolCreateInfo pool{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pool.maxSets = kSetsPerPool;
    pool.poolSizeCount = 1;
    pool.pPoolSizes = &size;
    TESSERA_VK_TRY_CTX(vk.vkCreateDescriptorPool(dev, &pool, nullptr, &p.handle), what);
    f.pools.push_back(p);
    room = f.pools.end() - 1;
  }
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = room->handle;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  TESSERA_VK_TRY_CTX(vk.vkAllocateDescriptorSets(dev, &alloc, &set), what);
  ++room->used;
  return set;
}

Status VulkanStreamCore::ensureQueries(VulkanFrame &f) {
  if (f.queries) return Status::success();
  VkQueryPoolCreateInfo query{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  query.queryType = VK_QUERY_TYPE_TIMESTAMP;
  query.queryCount = 2;
  TESSERA_VK_TRY_CTX(device_.vk().vkCreateQueryPool(device_.handle(), &query, nullptr, &f.queries),
                     "creating timestamp queries on " + device_.name());
  return Status::success();
}

Status VulkanStreamCore::submitLocked(VulkanFrame &f, const std::string &what) {
  std::vector<VkSemaphore> waits;
  std::vector<uint64_t> waitValues;
  std::vector<VkPipelineStageFlags> stages;
  for (auto &[core, value] : pendingWaits_) {
    waits.push_back(core->semaphore());
    waitValues.push_back(value);
    stages.push_back(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  }
  const uint64_t signal = submitted_ + 1;
  VkTimelineSemaphoreSubmitInfo timeline{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  timeline.waitSemaphoreValueCount = uint32_t(waitValues.size());
  timeline.pWaitSemaphoreValues = waitValues.data();
  timeline.signalSemaphoreValueCount = 1;
  timeline.pSignalSemaphoreValues = &signal;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.pNext = &timeline;
  submit.waitSemaphoreCount = uint32_t(waits.size());
  submit.pWaitSemaphores = waits.data();
  submit.pWaitDstStageMask = stages.data();
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &f.cmd;
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &semaphore_;
  {
    std::lock_guard<std::mutex> queueLock(queue_.lock);
    TESSERA_VK_TRY_CTX(device_.vk().vkQueueSubmit(queue_.handle, 1, &submit, VK_NULL_HANDLE), what + " on " + device_.name());
  }
  submitted_ = signal;
  f.value = signal;
  for (auto &wait : pendingWaits_) f.waitedOn.push_back(std::move(wait.first));
  pendingWaits_.clear();
  return Status::success();
}

Status VulkanStreamCore::takeDeferredLocked() {
  Status s = std::move(deferred_);
  deferred_ = Status();
  return s;
}

Status VulkanStreamCore::flushLocked() {
  if (!open_) return Status::success();
  std::unique_ptr<VulkanFrame> f = std::move(open_);
  const std::string what = f->commands > 1 ? openWhat_ + " and " + std::to_string(f->commands - 1) + " more commands"
                                           : openWhat_;
  Status s;
  if (VkResult ended = device_.vk().vkEndCommandBuffer(f->cmd); ended != VK_SUCCESS)
    s = vkStatus(ended, "vkEndCommandBuffer()", what);
  if (s) s = submitLocked(*f, what);
  if (!s) {
    // The batch's commands are lost; its resources go back (its timing slots keep their 0).
    resetFrame(*f);
    free_.push_back(std::move(f));
    return s;
  }
  inFlight_.push_back(std::move(f));
  return Status::success();
}

Status VulkanStreamCore::submit(Recorder record, const std::string &what, bool timed, uint64_t *value) {
  std::unique_lock<std::mutex> lock(lock_);
  if (Status s = takeDeferredLocked(); !s) return s;
  const VolkDeviceTable &vk = device_.vk();
  size_t slot = ~size_t(0);
  uint64_t generation = 0;
  if (timed && device_.hasTimestamps()) std::tie(slot, generation) = device_.reserveTimedSlot();
  const bool stamp = slot != ~size_t(0);
  // A timed command is a submission of its own: its timestamps bracket it alone.
  if (stamp)
    if (Status s = flushLocked(); !s) return s;
  if (!open_) {
    Result<VulkanFrame *> acquired = acquireFrameLocked();
    if (!acquired) return acquired.status();
    VulkanFrame &f = **acquired;
    if (stamp)
      if (Status s = ensureQueries(f); !s) return s;
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    TESSERA_VK_TRY_CTX(vk.vkBeginCommandBuffer(f.cmd, &begin), what);
    if (stamp) vk.vkCmdResetQueryPool(f.cmd, f.queries, 0, 2);
    fullBarrier(vk, f.cmd);
    open_ = std::move(free_.back());
    free_.pop_back();
    openWhat_ = what;
  }
  VulkanFrame &f = *open_;
  if (stamp) {
    std::tie(f.timedSlot, f.timedGeneration) = std::pair(slot, generation);
    // ALL_COMMANDS: each timestamp is written once every earlier command has finished.
    vk.vkCmdWriteTimestamp(f.cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, f.queries, 0);
  }
  Status recorded = record(f, f.cmd);
  if (!recorded) {
    if (f.commands == 0) { // nothing else in the batch: its command buffer goes back
      resetFrame(f);
      free_.push_back(std::move(open_));
    }
    return recorded; // a reserved timing slot keeps its 0
  }
  if (stamp) vk.vkCmdWriteTimestamp(f.cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, f.queries, 1);
  fullBarrier(vk, f.cmd);
  ++f.commands;
  // Submit now unless the device has two of this stream's submissions unfinished: then the
  // batch waits for the helper thread (or fills up).
  size_t unfinished = inFlight_.size();
  if (unfinished >= 2) {
    if (Status s = retireFinishedLocked(); !s) return s;
    unfinished = inFlight_.size();
  }
  if (value || stamp || unfinished < 2 || f.commands >= kMaxBatch || helperFailed_ || stopping_) {
    if (Status s = flushLocked(); !s) return s;
    if (value) *value = submitted_;
    return Status::success();
  }
  if (!helper_.joinable()) {
    try {
      helper_ = std::thread([this] { flushWhenIdle(); });
    } catch (const std::system_error &) { // no thread to be had: every command is submitted at once
      helperFailed_ = true;
      return flushLocked();
    }
  }
  lock.unlock();
  wake_.notify_one();
  return Status::success();
}

void VulkanStreamCore::flushWhenIdle() {
  std::unique_lock<std::mutex> lock(lock_);
  while (!stopping_) {
    if (!open_) {
      wake_.wait(lock);
      continue;
    }
    // Wait (unlocked: enqueues go on) until at most one submission is unfinished.
    uint64_t target = submitted_ > 0 ? submitted_ - 1 : 0;
    lock.unlock();
    VkResult r = waitUntil(target);
    lock.lock();
    if (r != VK_SUCCESS) {
      if (deferred_) deferred_ = vkStatus(r, "vkWaitSemaphores()", "waiting for a stream of " + device_.name());
      helperFailed_ = true; // from now on every command is submitted at once
      if (Status s = flushLocked(); !s && deferred_) deferred_ = s;
      return;
    }
    Result<uint64_t> now = counterValue();
    if (!now) {
      if (deferred_) deferred_ = now.status();
      helperFailed_ = true;
      return;
    }
    if (open_ && submitted_ - *now <= 1)
      if (Status s = flushLocked(); !s && deferred_) deferred_ = s;
  }
}

Result<uint64_t> VulkanStreamCore::mark(const std::shared_ptr<EventTicks> &ticks) {
  const bool stamp = device_.hasTimestamps();
  uint64_t value = 0;
  Status s = submit(
      [&](VulkanFrame &f, VkCommandBuffer cmd) {
        if (!stamp) return Status::success();
        const VolkDeviceTable &vk = device_.vk();
        if (Status s = ensureQueries(f); !s) return s;
        vk.vkCmdResetQueryPool(cmd, f.queries, 0, 1);
        vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, f.queries, 0);
        f.eventTicks = ticks;
        return Status::success();
      },
      "recording an event", false, &value); // submitted at once: the event's value is its submission's
  if (!s) return s;
  return value;
}

Status VulkanStreamCore::addWait(std::shared_ptr<VulkanStreamCore> other, uint64_t value) {
  std::lock_guard<std::mutex> lock(lock_);
  if (Status s = flushLocked(); !s) return s; // the work enqueued so far does not wait
  pendingWaits_.emplace_back(std::move(other), value);
  return Status::success();
}

Status VulkanStreamCore::waitFor(uint64_t value) {
  if (value > 0) {
    // Without the lock: other threads keep enqueueing while this one waits.
    TESSERA_VK_TRY_CTX(waitUntil(value), "waiting for a stream of " + device_.name());
  }
  std::lock_guard<std::mutex> lock(lock_);
  return retireFinishedLocked();
}

Result<bool> VulkanStreamCore::reached(uint64_t value) {
  std::lock_guard<std::mutex> lock(lock_);
  Result<uint64_t> now = counterValue();
  if (!now) return now.status();
  if (*now < value) return false;
  if (Status s = retireLocked(*now); !s) return s;
  return true;
}

Status VulkanStreamCore::synchronize() {
  // Flush and wait even after an error: callers free buffers and kernels once this returns.
  uint64_t last;
  Status deferred, flushed;
  {
    std::lock_guard<std::mutex> lock(lock_);
    deferred = takeDeferredLocked();
    flushed = flushLocked();
    last = submitted_;
  }
  Status waited = waitFor(last);
  if (!deferred) return deferred;
  if (!flushed) return flushed;
  return waited;
}

// ---- the public-facing stream and event ----

VulkanStream::~VulkanStream() { (void)core_->synchronize(); }

Result<std::unique_ptr<detail::DriverEvent>> VulkanStream::record() {
  auto ticks = std::make_shared<EventTicks>();
  Result<uint64_t> value = core_->mark(ticks);
  if (!value) return value.status();
  return std::unique_ptr<detail::DriverEvent>(std::make_unique<VulkanEvent>(core_->device(), core_, *value, ticks));
}

Status VulkanStream::wait(detail::DriverEvent &event) {
  auto &e = static_cast<VulkanEvent &>(event);
  if (e.core() == core_) return Status::success(); // already in stream order
  return core_->addWait(e.core(), e.value());
}

Result<double> VulkanEvent::secondsSince(detail::DriverEvent &start) {
  auto &from = static_cast<VulkanEvent &>(start);
  if (Status s = from.synchronize(); !s) return s;
  if (Status s = synchronize(); !s) return s;
  if (!from.ticks_->ready || !ticks_->ready)
    return Status(StatusCode::Unsupported, "secondsSince: " + device_.name() +
                                               " via vulkan has no timestamp queries on its compute queue");
  return device_.ticksToSeconds(from.ticks_->ticks, ticks_->ticks);
}

} // namespace tessera::vulkan
