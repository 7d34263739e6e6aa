#pragma once
/// CUDA library submodules in .gitmodules (OPS-037) and Dockerfile extension builds (OPS-039); the Python
/// side of the build machinery is in PythonFile (build_machinery.cpp).

#include "common.hpp"

namespace custom_ops {

/// Reports the [submodule] sections of every .gitmodules that bring a CUDA-only library.
void analyzeGitmodules(const sdk::WorkspaceView& workspace, const Rules& rules, sdk::FindingSink& sink);

/// Reports the RUN steps of Dockerfiles that build the repository's CUDA extensions (setup.py
/// install, pip install of a local directory) when a setup.py of the repository has a CUDAExtension.
void analyzeDockerBuilds(const sdk::WorkspaceView& workspace, const Rules& rules, sdk::FindingSink& sink);

}  // namespace custom_ops
