#pragma once
/// Local installs in build steps (a Dockerfile's RUN, a shell script, an installation guide): the
/// `pip install` of a directory of the repository, and what the repository's setup.py files build,
/// by folder, so a step can tell a CUDA extension build from a pure-Python install.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common.hpp"

namespace custom_ops {

/// What one `pip install …` of a local directory builds: the directory (".", "-e ./pkg",
/// "/src/ext") and the extras it asks for (`.[compile]` → "compile").
struct LocalInstall {
  std::string target;
  std::string extras;
  bool vcs = false;  ///< a source checkout (`pkg @ git+https://…`), built like a local directory
};

/// Every local install of a line: each `pip install` on it (`pip install -e . && pip install -e .[x]`).
/// With `open`, the line continues a `pip install … \` whose packages had not come yet; it is left
/// set when this line does the same.
std::vector<LocalInstall> pipLocalTargets(std::string_view line, bool& open);

/// The setup.py command a line runs (`python setup.py develop` → "develop"; install, build_ext,
/// build, bdist_wheel), or "".
std::string setupPyVerb(std::string_view line);

/// Whether a text names CUDA work (cuda, nvcc, flash, kernel, nccl, cutlass, gencode, arch_list…):
/// `--cuda_ext`, `TORCH_CUDA_ARCH_LIST=…`. A URL does not count: a wheel index
/// (`-f https://…/jax_cuda_releases.html`) says where wheels come from, not what is built.
bool namesCudaWork(std::string_view text);

/// Whether a command switches an extension build on (`BUILD_EXT=1`, `DS_BUILD_OPS=1`, `FORCE_CUDA=1`).
bool switchesBuildOn(std::string_view line);

/// Whether a command switches the CUDA part of a build off (`FORCE_ONLY_CPU=1`, `CPU_ONLY=1`,
/// `NO_CUDA=1`, `SKIP_CUDA_BUILD=TRUE`): what it builds is CPU code.
bool switchesCudaOff(std::string_view line);

/// What the repository's setup.py files build: a CUDAExtension, other native code (ext_modules, a
/// CMake build, which a CUDA toolkit image compiles with nvcc when its CMakeLists asks), or nothing.
class SetupProjects {
 public:
  enum class Builds { Nothing, Native, Cuda };
  explicit SetupProjects(const sdk::WorkspaceView& workspace);
  /// Some setup.py of the repository builds a CUDAExtension.
  bool cudaExtension() const { return cuda_extension_; }
  /// What the root's setup.py builds, when there is one.
  const std::optional<Builds>& root() const { return root_; }
  /// What the setup.py of a folder with this name builds (the most, when several folders have it).
  std::optional<Builds> folder(const std::string& name) const;
  /// Whether a setup.py sits in some folder other than the root.
  bool anyFolder() const { return !folders_.empty(); }

 private:
  bool cuda_extension_ = false;
  std::optional<Builds> root_;
  std::map<std::string, Builds> folders_;  // folder name of each other setup.py → what it builds
};

/// The `cd` commands of a line or step: where each target starts in it, and the target.
std::vector<std::pair<std::size_t, std::string>> cdCommands(std::string_view line);

/// The folder a script is in after `cd target`, from the folder it was in ("" where it started).
/// An absolute path or one through a variable (`$DIR/bundlesdf/mycuda`) replaces it; `..` leaves
/// the last folder, or goes above the start ("..").
std::string changeDirectory(std::string cwd, std::string_view target);

/// The source directory a CMake configure step on the line names, as written (`cmake ..` → "..",
/// `cmake -S csrc -B build` → "csrc", `cmake -DX=\`python -c '…'\` ..` → ".."), and where the
/// command starts in the line; nothing for a line that runs no configure (`cmake --build build`,
/// `cmake --install .`, `apt-get install cmake`: a package name is no command).
struct CMakeConfigure {
  std::size_t at = 0;
  std::string source;
};
std::optional<CMakeConfigure> cmakeConfigure(std::string_view line);

/// The last part of a '/'-separated path.
std::string baseName(const std::string& path);

}  // namespace custom_ops
