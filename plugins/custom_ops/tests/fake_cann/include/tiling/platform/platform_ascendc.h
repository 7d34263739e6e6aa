// Fake platform query for the custom_ops emit tests (not CANN's): the calls the host scaffolds make.
#pragma once

#include <cstdint>

namespace platform_ascendc {

enum class CoreMemType { UB };

class PlatformAscendC {
 public:
  explicit PlatformAscendC(const void* platform_info);
  void GetCoreMemSize(CoreMemType type, std::uint64_t& bytes);
  std::uint32_t GetCoreNumAiv();
};

}  // namespace platform_ascendc
