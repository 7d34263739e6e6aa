#pragma once
/// The custom_ops plugin's emit hook: Ascend C operator scaffolds and their build script for the
/// repository's CUDA kernels, notes for its Triton kernels, npu_ops.py sections and manual work.

#include <cstdint>
#include <string>
#include <vector>

#include "migrate/sdk/emit.hpp"

namespace custom_ops {

namespace sdk = migrate::sdk;

/// Writes what the run's custom_ops findings call for into the kit (see README.md, "Emit").
void emitCustomOps(sdk::EmitContext& context);

/// One CUDA kernel (an OPS-001 finding) as the emit stage sees it.
struct CudaKernel {
  const sdk::Finding* finding = nullptr;
  std::string name;             ///< the kernel as written (`bias_gelu_forward_kernel`)
  std::string op_type;          ///< the Ascend C operator type (`BiasGeluForwardCustom`)
  std::string file_stem;        ///< its file names and kernel function (`bias_gelu_forward_custom`)
  std::string signature;        ///< the CUDA parameter list, parentheses included
  std::string template_params;  ///< `<typename scalar_t>` or empty
};

/// The CUDA kernels of the findings, in findings order, each with a unique operator type.
std::vector<CudaKernel> cudaKernelsOf(const std::vector<sdk::Finding>& findings);

/// Writes ascend_ops/<OpType>/ for each kernel, ascend_ops/README.md and build_ascend_ops.sh.
void writeAscendOps(sdk::EmitContext& context, const std::vector<CudaKernel>& kernels);

/// Writes triton_notes.md for the OPS-021 findings (Triton kernels); nothing when there are none.
/// Returns the number of kernels described.
std::size_t writeTritonNotes(sdk::EmitContext& context);

/// The value of a finding's detail, or "".
std::string detailOf(const sdk::Finding& finding, const std::string& key);

/// The npu_ops.py section that wraps a torch_npu fused op for a kernel category, or "".
std::string npuOpsSectionFor(const std::string& category);

/// The kit's npu_ops.py function for a kernel category (`npu_ops.rms_norm`), or "".
std::string npuOpsFunctionFor(const std::string& category);

}  // namespace custom_ops
