#pragma once
/// Which branches of a module the NPU never takes: the third room of the values layer
/// (docs/architecture.md, "Analysis layers"). Code under `if torch.version.hip:`,
/// `if is_xla_installed():` (or MPS, XPU, HPU), `if is_torch_cuda_available():` (a helper named
/// for the CUDA test, which the kit does not rename) or `if ... and not is_npu_available():`, the
/// other branches of `if is_npu_available():`, the rest of a block after an early
/// `if is_npu_available(): … return`, and a CUDA branch (`if torch.cuda.is_available():`,
/// `if HAS_CUDA:`) of a chain that has an NPU branch runs on another platform — consecutive `if`
/// statements at one level count as one chain; a CUDA name there is no CUDA binding of the NPU
/// path.

#include <string_view>

namespace migrate::values {

enum class PlatformTest {
  Neither,  ///< anything else: both paths may run on an NPU
  OffNpu,   ///< the branch is taken only off the NPU (ROCm/HIP, or the NPU excluded)
  NpuOnly,  ///< the branch is taken only on the NPU: the other branches of its chain are off it
  Cuda,     ///< a lone CUDA test: off the NPU when another branch of its chain is the NPU's
};

/// Classifies the text of an `if`/`elif` condition. Only `and`-chains are read: a condition with
/// `or` may hold on any platform.
PlatformTest classifyCondition(std::string_view condition);

/// Whether a function's name says it serves another vendor's device (`_infer_amd_arch`,
/// `is_rocm_build`, `xpu_setup`): a word of the name is amd, rocm, hip, xpu, mps, xla, tpu or hpu.
bool namesOtherPlatform(std::string_view function_name);

}  // namespace migrate::values
