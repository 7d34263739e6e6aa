#pragma once
/// Analysis of one Python file: Triton kernels, autotune configs and launches, extension builds
/// (CUDAExtension, load/load_inline), compiled-extension imports and autograd Functions that
/// call custom kernels (OPS-017, OPS-018, OPS-021 … OPS-023, OPS-027, OPS-028).

#include "common.hpp"

namespace custom_ops {

/// Called from worker threads: reads only `module`, `rules` and `options`.
void analyzePython(const sdk::Module& module, const Rules& rules, const Options& options,
                   sdk::FindingSink& sink);

/// True when an import target names a compiled extension module by the usual conventions
/// (`pkg._C`, `amp_C`, `selective_scan_cuda`, `mmcv._ext`, `foo_cuda_ext`).
bool looksLikeExtensionModule(std::string_view target);

/// True for `from X import f` where X names a compiled extension and f is one of its functions
/// (`from monarch_cuda import conv1d_forward`), not a module of its own.
bool fromExtensionModule(const sdk::ImportFact& imp);

}  // namespace custom_ops
