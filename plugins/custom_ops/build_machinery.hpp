#pragma once
/// CUDA library submodules in .gitmodules (OPS-037), Dockerfile extension builds (OPS-039) and the
/// cross-file Python glue (extension_glue.cpp); the per-file Python side of the build machinery is
/// in PythonFile (build_machinery.cpp).

#include "common.hpp"
#include "plugin_support/python_text.hpp"

namespace custom_ops {

using plugin_support::closingBracket;

/// Reports the [submodule] sections of every .gitmodules that bring a CUDA-only library.
void analyzeGitmodules(const sdk::WorkspaceView& workspace, const Rules& rules, sdk::FindingSink& sink);

/// Reports the RUN steps of Dockerfiles that build the repository's CUDA extensions (setup.py
/// install, pip install of a local directory) when a setup.py of the repository has a CUDAExtension.
void analyzeDockerBuilds(const sdk::WorkspaceView& workspace, const Rules& rules, sdk::FindingSink& sink);

/// Python glue that only facts across files reveal (extension_glue.cpp): imports of and calls into
/// extension modules a build script declares (OPS-028, OPS-038), and autograd Functions reaching an
/// extension through helpers of other modules of the repository (OPS-027).
void analyzeExtensionGlue(const sdk::WorkspaceView& workspace, const Rules& rules, const Options& options,
                          sdk::FindingSink& sink);

}  // namespace custom_ops
