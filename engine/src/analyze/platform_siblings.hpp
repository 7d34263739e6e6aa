#pragma once
/// Per-platform classes: a repository that implements one of its own base classes once per
/// device (`CudaPlatform(Platform)` beside `NpuPlatform(Platform)`) picks the NPU one on an NPU,
/// so what the CUDA one names is off the NPU path.

#include <string_view>

#include "migrate/engine/model.hpp"

namespace migrate {

/// The device a class name names as a word of it (`CudaPlatform`, `CUDA_Accelerator`,
/// `HcclCommunicator`): CUDA's stack, the NPU's, or neither.
enum class NamedDevice { None, Cuda, Npu };
NamedDevice deviceNamedBy(std::string_view class_name);

/// Drops the findings inside a class named for CUDA whose base, a class of the repository, also
/// has a subclass named for the NPU; one info diagnostic per such class says what was left out.
/// Works on the modules' summaries, so it holds the same with and without the analysis cache.
void dropPerPlatformClassFindings(MigrationModel& model);

}  // namespace migrate
