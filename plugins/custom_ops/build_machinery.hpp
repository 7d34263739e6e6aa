#pragma once
/// CUDA library submodules in .gitmodules (OPS-037), Dockerfile extension builds (OPS-039), shell
/// script and installation guide builds (OPS-044), shell scripts' GPU build settings (OPS-046) and the
/// cross-file Python glue (extension_glue.cpp); the per-file Python side of the build machinery is
/// in PythonFile (build_machinery.cpp).

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common.hpp"
#include "plugin_support/python_text.hpp"

namespace custom_ops {

using plugin_support::closingBracket;

/// Reports the [submodule] sections of every .gitmodules that bring a CUDA-only library.
void analyzeGitmodules(const sdk::WorkspaceView& workspace, const Rules& rules, sdk::FindingSink& sink);

/// Reports the RUN steps of Dockerfiles that build the repository's CUDA extensions (setup.py
/// install, pip install of a local directory) when a setup.py of the repository has a CUDAExtension.
void analyzeDockerBuilds(const sdk::WorkspaceView& workspace, const Rules& rules, sdk::FindingSink& sink);

/// Reports the lines of shell scripts and of installation guides' shell blocks that build a CUDA
/// extension (script_builds.cpp): a setup.py build or local pip install of a project whose setup.py
/// has a CUDAExtension, followed through the script's `cd`s, or that names CUDA work.
/// Also the Python lines that load, through ctypes, a shared library the scripts' nvcc commands or a
/// CUDA CMake build of the repository write (OPS-045).
void analyzeScriptBuilds(const sdk::WorkspaceView& workspace, const Rules& rules, const Options& options,
                         sdk::FindingSink& sink);

/// A GPU architecture list or CUDA compiler a shell line sets for the script's builds (OPS-046).
struct ScriptSetting {
  std::string variable;  ///< `TORCH_CUDA_ARCH_LIST`, or the CMake definition `CMAKE_CUDA_COMPILER`
  std::string value;     ///< as written, quotes removed
};
/// The setting one line of a shell script makes, from its first non-blank character
/// (script_settings.cpp); nothing for an append to the same list, a value passed on from another
/// variable, or echo/printf text. scanScript walks the lines and reports it.
std::optional<ScriptSetting> scriptSetting(std::string_view line);

/// Reports the constructions of a setup script's own Extension subclass that hands `name` to CMake
/// (`builds`: name and script path), called when a CMake file of the repository compiles CUDA
/// outside any if() block (cmake_extensions.cpp, OPS-017).
void reportCMakeExtensions(const sdk::WorkspaceView& workspace,
                           const std::vector<std::pair<std::string, std::string>>& builds, const Rules& rules,
                           sdk::FindingSink& sink);

/// Python glue that only facts across files reveal (extension_glue.cpp): imports of and calls into
/// extension modules a build script declares (OPS-028, OPS-038), and autograd Functions reaching an
/// extension through helpers of other modules of the repository (OPS-027).
void analyzeExtensionGlue(const sdk::WorkspaceView& workspace, const Rules& rules, const Options& options,
                          sdk::FindingSink& sink);

}  // namespace custom_ops
