#pragma once
/// The replacement path and effort of a custom kernel, guessed from its name and what its body
/// uses. Shared by CUDA kernels and Triton kernels.

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace custom_ops {

/// What to replace a kernel with on the NPU.
struct KernelAdvice {
  std::string category;          ///< elementwise, reduction, rms_norm, attention, gemm, … or "other"
  std::string kind;              ///< native_torch | torch_npu_op | ascend_c | triton_ascend
  std::string replacement_path;  ///< one line: what to write instead
  double effort_days = 0;
};

/// Lowercase word tokens of an identifier: `biasGeluForward_kernel` → bias, gelu, forward, kernel.
std::vector<std::string> nameTokens(std::string_view name);

/// "bias gelu forward" from `bias_gelu_forward_kernel` (kernel/cuda/triton noise words dropped,
/// fwd/bwd spelled out).
std::string describeName(std::string_view name);

/// Advice for a CUDA `__global__` kernel; `features` are what the body uses (shared_memory,
/// warp_intrinsics, inline_ptx, tensor_cores, atomics, …).
KernelAdvice adviseCudaKernel(std::string_view name, const std::set<std::string>& features);

/// Advice for a Triton kernel; `features` as collected from its body (dot, atomics, tma,
/// block_ptr, grid_stride_loop, autotune, …).
KernelAdvice adviseTritonKernel(std::string_view name, const std::set<std::string>& features);

}  // namespace custom_ops
