// VkResult names and the one macro through which every Vulkan call reports failure as a Status.
#pragma once

#include "tessera/runtime/Status.hpp"

#include <volk.h>

#include <string>

namespace tessera::vulkan {

/// "VK_ERROR_DEVICE_LOST"; "VkResult <n>" for codes newer than this table.
std::string vkResultName(VkResult r);
/// A DriverError Status: "<function> failed: <NAME><, while context>".
Status vkStatus(VkResult r, const char *callText, const std::string &context = {});

} // namespace tessera::vulkan

/// Evaluates a Vulkan call and returns a Status from the enclosing function unless it gives VK_SUCCESS.
#define TESSERA_VK_TRY(call)                                                                      \
  do {                                                                                            \
    VkResult tesseraVkResult_ = (call);                                                           \
    if (tesseraVkResult_ != VK_SUCCESS) return ::tessera::vulkan::vkStatus(tesseraVkResult_, #call); \
  } while (0)

/// Same, with words saying what the call was for ("creating the pipeline of kernel 'add'").
#define TESSERA_VK_TRY_CTX(call, context)                                                         \
  do {                                                                                            \
    VkResult tesseraVkResult_ = (call);                                                           \
    if (tesseraVkResult_ != VK_SUCCESS)                                                           \
      return ::tessera::vulkan::vkStatus(tesseraVkResult_, #call, (context));                    \
  } while (0)
