#pragma once
/// Where a migrate-pipeline finds what it ships — plugins, pipelines, the examples, the SDK's
/// CMake package — relative to its own executable, so one build works from its build tree, from
/// `cmake --install --prefix DIR` and from the Debian packages (docs/packaging.md).

#include <filesystem>
#include <string>
#include <vector>

#include "migrate/engine/result.hpp"

namespace migrate {

/// The directories of one migrate-pipeline: an installation (PREFIX/bin/migrate-pipeline) or a
/// build tree (BUILD/bin/migrate-pipeline with BUILD/CMakeCache.txt).
struct InstallLayout {
  std::filesystem::path executable;    ///< symbolic links resolved
  std::filesystem::path prefix;        ///< the installation prefix, or the build directory
  bool build_tree = false;             ///< a build directory, not an installation
  std::filesystem::path plugin_dir;    ///< the plugins loaded when nothing else is named
  std::filesystem::path data_dir;      ///< PREFIX/share/migrate-pipeline: pipelines/, examples/
  std::filesystem::path pipeline_dir;  ///< the pipelines `run NAME` finds
  /// The SDK's CMake package (installed by migrate-pipeline-dev); empty in a build tree. It may
  /// not exist.
  std::filesystem::path cmake_package_dir;
};

/// The layout of the migrate-pipeline at `executable`, which need not exist.
InstallLayout installLayoutOf(const std::filesystem::path& executable);

/// The layout of this process's executable, found once.
const InstallLayout& installLayout();

/// The names of the shipped pipelines (PIPELINE_DIR/NAME.yaml), sorted.
std::vector<std::string> shippedPipelines(const InstallLayout& layout);

/// The pipeline file meant by `name`: an existing file (relative to `base` when it is not empty,
/// else to the working directory), else the shipped pipeline of that name (`full` or
/// `full.yaml`); an error names the shipped pipelines otherwise.
Result<std::filesystem::path> resolvePipeline(const std::string& name, const InstallLayout& layout,
                                              const std::filesystem::path& base = {});

}  // namespace migrate
