#pragma once
/// The repository's own shell scripts that build steps run (`./build.sh --arch 80`, `RUN bash
/// scripts/install_ext.sh`), and which of them build CUDA code themselves: a step that runs such a
/// script builds CUDA code too, whatever the repository's setup.py says (a CMake-driven build).

#include <map>
#include <string>
#include <string_view>

#include "common.hpp"

namespace custom_ops {

class RepositoryScripts {
 public:
  explicit RepositoryScripts(const sdk::WorkspaceView& workspace) : workspace_(workspace) {}
  /// The repository script a command line runs (`bash scripts/x.sh`, `sh ./x.sh`, `./tools/build.sh
  /// --arch 80`, an absolute path under an image's copy of the repository), as a path of the
  /// repository, or "". Not a run that only cleans (`./build.sh --clean-all`).
  std::string runBy(std::string_view line) const;
  /// Whether the script builds CUDA code: a build command on one of its lines (setup.py, a local
  /// pip install, cmake, make, ninja, nvcc) and CUDA work named on another command line (nvcc, an
  /// architecture list, gencode, the CUDA toolkit's path; not device selection). Comments and
  /// echo/printf lines are prose.
  bool buildsCuda(const std::string& script) const;

 private:
  /// The repository's file a script path written in a command names, or "".
  std::string resolve(const std::string& written) const;

  const sdk::WorkspaceView& workspace_;
  mutable std::map<std::string, std::string> resolved_;  // written path → resolve(), looked up once
  mutable std::map<std::string, bool> builds_cuda_;      // script → buildsCuda, read once
};

}  // namespace custom_ops
