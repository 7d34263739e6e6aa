#include "migrate/engine/install_layout.hpp"

#include <boost/dll/runtime_symbol_info.hpp>

#include <algorithm>
#include <string_view>

// The directories of an installation relative to its prefix (cmake/MigrateInstallDirs.cmake):
// relative paths only, so nothing of the machine that built it is compiled in.
#if !defined(MIGRATE_INSTALL_BINDIR) || !defined(MIGRATE_INSTALL_PLUGINDIR) || \
    !defined(MIGRATE_INSTALL_DATADIR) || !defined(MIGRATE_INSTALL_CMAKEDIR)
#error "engine/CMakeLists.txt defines the MIGRATE_INSTALL_* directories for this file"
#endif

namespace migrate {
namespace fs = std::filesystem;

namespace {

/// The prefix of an executable installed in `exe_dir`: as many levels up as BINDIR goes down.
fs::path prefixAbove(const fs::path& exe_dir) {
  fs::path prefix = exe_dir;
  for (const fs::path& part : fs::path(MIGRATE_INSTALL_BINDIR).lexically_normal())
    if (!part.empty() && part != ".") prefix = prefix.parent_path();
  return prefix;
}

bool hasYamlSuffix(std::string_view name) {
  for (const std::string_view suffix : {".yaml", ".yml"})
    if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix) return true;
  return false;
}

}  // namespace

InstallLayout installLayoutOf(const fs::path& executable) {
  InstallLayout layout;
  std::error_code ec;
  layout.executable = fs::weakly_canonical(fs::absolute(executable), ec);
  if (ec) layout.executable = fs::absolute(executable).lexically_normal();
  const fs::path exe_dir = layout.executable.parent_path();
  // The build tree: BUILD/bin/ (CMAKE_RUNTIME_OUTPUT_DIRECTORY), BUILD/plugins/, and the shipped
  // files linked under the same relative directory as installed (cmake/MigrateInstallDirs.cmake).
  if (fs::exists(exe_dir.parent_path() / "CMakeCache.txt", ec)) {
    layout.build_tree = true;
    layout.prefix = exe_dir.parent_path();
    layout.plugin_dir = layout.prefix / "plugins";
  } else {
    layout.prefix = prefixAbove(exe_dir);
    layout.plugin_dir = layout.prefix / MIGRATE_INSTALL_PLUGINDIR;
    layout.cmake_package_dir = layout.prefix / MIGRATE_INSTALL_CMAKEDIR;
  }
  layout.data_dir = layout.prefix / MIGRATE_INSTALL_DATADIR;
  layout.pipeline_dir = layout.data_dir / "pipelines";
  return layout;
}

const InstallLayout& installLayout() {
  static const InstallLayout layout = installLayoutOf(boost::dll::program_location().string());
  return layout;
}

std::vector<std::string> shippedPipelines(const InstallLayout& layout) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(layout.pipeline_dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".yaml" && it->is_regular_file(ec))
      names.push_back(it->path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

Result<fs::path> resolvePipeline(const std::string& name, const InstallLayout& layout, const fs::path& base) {
  std::error_code ec;
  const fs::path given = base.empty() ? fs::path(name) : base / name;
  if (name.empty()) return makeError("no pipeline given: a pipeline file or a shipped pipeline's name");
  if (fs::exists(given, ec)) return given;
  const bool bare = name.find('/') == std::string::npos;
  if (bare) {
    const std::string stem = hasYamlSuffix(name) ? fs::path(name).stem().string() : name;
    const fs::path shipped = layout.pipeline_dir / (stem + ".yaml");
    if (fs::is_regular_file(shipped, ec)) return shipped;
  }
  const std::vector<std::string> names = shippedPipelines(layout);
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return makeError(
      "pipeline '" + name + "': no such file" + (bare ? ", and no shipped pipeline of that name" : "") +
      (names.empty() ? " (no pipelines are shipped in " + layout.pipeline_dir.string() + ")"
                     : "; the shipped pipelines (" + layout.pipeline_dir.string() + "): " + list) +
      "; give a pipeline YAML file or one of their names");
}

}  // namespace migrate
