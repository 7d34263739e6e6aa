#pragma once
/// The repository's run-time extension builders, seen from the modules that call them
/// (jit_builders.cpp): MONAI's `load_module("gmm", …)` in another module than its
/// cpp_extension.load() of `.cu` sources, StyleGAN's `bias_act._init()` handing `.cu` sources to
/// `custom_ops.get_plugin`.

#include <cstddef>
#include <map>
#include <string_view>
#include <vector>

#include "common.hpp"
#include "glue_summary.hpp"

namespace custom_ops {

/// The top-level functions of a Python file's text that may build an extension at run time (for
/// the glue pass's per-file scan, so kept in its memo).
std::vector<glue::Builder> jitBuilders(std::string_view text);

/// Per file (index in `scans`), its functions that JIT-build a CUDA extension: those that call
/// load() with CUDA evidence in their body, and those that give CUDA sources to a function of the
/// repository that calls load() (a loader). Empty for most repositories.
using CudaBuilders = std::map<std::size_t, std::vector<const glue::Builder*>>;
CudaBuilders cudaBuilders(const std::vector<glue::Scan>& scans);

/// OPS-018 at the calls, in other modules, of a function that JIT-builds a CUDA extension (itself,
/// or through a loader of the repository it gives `.cu` sources), and OPS-038 at the calls into what
/// it returns (`self.ext = load_module("gmm")` … `self.ext.init()`). `files` are the glue pass's
/// summaries with their imports resolved, `builders` cudaBuilders() of their scans. Calls in
/// the builder's own module are the module pass's.
void reportJitBuilderCalls(const sdk::WorkspaceView& workspace, const std::vector<glue::PyFile>& files,
                           const CudaBuilders& builders, const Rules& rules, const Options& options,
                           sdk::FindingSink& sink);

}  // namespace custom_ops
