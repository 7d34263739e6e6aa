#include "migrate/engine/plugin_scaffold.hpp"

#include <fstream>
#include <iostream>
#include <utility>
#include <vector>

#include "emit/template_store.hpp"
#include "migrate/engine/install_layout.hpp"
#include "migrate/engine/plugin_host.hpp"
#include "migrate/engine/runner.hpp"
#include "migrate/sdk/version.hpp"
#include "rules/rule_set.hpp"
#include "scaffold/scaffold_names.hpp"

namespace migrate {
namespace fs = std::filesystem;
namespace {

/// The project's files: the template (templates/new_plugin/<template>.mustache) and where its
/// text goes, relative to the project.
std::vector<std::pair<std::string, std::string>> projectFiles(const std::string& plugin) {
  return {{"CMakeLists.txt", "CMakeLists.txt"},
          {"plugin.cpp", plugin + "_plugin.cpp"},
          {"rules.yaml", "rules/" + plugin + ".yaml"},
          {"README.md", "README.md"},
          {"pipeline.yaml", "pipeline.yaml"},
          {"gitignore", ".gitignore"},
          {"tests/run_sample.cmake", "tests/run_sample.cmake"},
          {"tests/sample_repo/train.py", "tests/sample_repo/train.py"}};
}

/// Why the plugin migrate-pipeline loads by default would clash with this one (same name or
/// domain, rule ids with its prefix), or empty. Nothing to say when they cannot be loaded.
std::string clashWithLoadedPlugins(const scaffold::ScaffoldNames& names) {
  const fs::path dir = defaultPluginDir();
  auto catalog = discoverPlugins(dir);
  if (!catalog) return "";
  for (const LoadedPlugin& p : catalog->plugins) {
    const std::string where = p.info.name + " " + p.info.version + " in " + dir.string();
    if (p.info.name == names.snake || p.info.domain == names.snake)
      return "a plugin named or of domain '" + names.snake + "' is loaded already (" + where +
             "); a second one would be refused";
    for (const rules::Rule& r : p.rules->rules())
      if (r.id.rfind(names.prefix + "-", 0) == 0)
        return "its rule ids would start with " + names.prefix + "-, like " + r.id + " of " + where;
  }
  return "";
}

/// "0.4" of "0.4.0": the SDK version find_package asks for (the package accepts its minor version).
std::string sdkMinorVersion() {
  const std::string v = sdk::kSdkVersion;
  return v.substr(0, v.rfind('.'));
}

/// How the next steps tell CMake where the SDK is: the prefix this migrate-pipeline is installed
/// in, or how to install the SDK when it runs from a build tree or its package is missing.
std::string prefixAdvice() {
  const InstallLayout& layout = installLayout();
  if (layout.build_tree)
    return "-DCMAKE_PREFIX_PATH=PREFIX   # after `cmake --install <migrate-pipeline's build> --prefix "
           "PREFIX`";
  std::error_code ec;
  if (!fs::is_directory(layout.cmake_package_dir, ec))
    return "-DCMAKE_PREFIX_PATH=" + layout.prefix.string() + "   # after installing the SDK there (" +
           layout.cmake_package_dir.string() + " is missing): apt-get install migrate-pipeline-dev";
  return "-DCMAKE_PREFIX_PATH=" + layout.prefix.string();
}

}  // namespace

int newPlugin(const std::string& name, const fs::path& dir) {
  const auto names = scaffold::scaffoldNames(name);
  if (!names) {
    std::cerr
        << "error: '" << name
        << "' is not a plugin name: letters, digits, '-' and '_', starting with a letter (e.g. acme-gpu)\n";
    return kExitUsage;
  }
  if (const std::string clash = clashWithLoadedPlugins(*names); !clash.empty()) {
    std::cerr << "error: plugin name '" << name << "': " << clash << "; choose another name\n";
    return kExitUsage;
  }
  sdk::TemplateData data;
  data.set("name", names->name)
      .set("plugin", names->snake)
      .set("module", names->snake)
      .set("prefix", names->prefix)
      .set("class_name", names->pascal + "Plugin")
      .set("sdk_version", sdkMinorVersion());
  const emit::TemplateStore templates;  // the built-in ones only
  std::vector<std::pair<fs::path, std::string>> files;
  for (const auto& [tmpl, path] : projectFiles(names->snake)) {
    auto text = templates.render("new_plugin/" + tmpl, data, names->name);
    if (!text) {  // a template of this build is broken: no skeleton rather than half of one
      std::cerr << "error: " << text.error().message << "\n";
      return kExitUsage;
    }
    files.emplace_back(path, std::move(text.value()));
  }

  const fs::path root = (dir.empty() ? fs::current_path() : dir) / name;
  std::error_code ec;
  if (!dir.empty()) fs::create_directories(dir, ec);
  if (!ec && !fs::create_directory(root, ec) && !ec) {
    std::cerr << "error: " << root.string() << " exists; choose another name or --dir\n";
    return kExitUsage;
  }
  if (ec) {
    std::cerr << "error: cannot create " << root.string() << ": " << ec.message() << "\n";
    return kExitUsage;
  }
  for (const auto& [path, text] : files) {
    const fs::path file = root / path;
    fs::create_directories(file.parent_path(), ec);
    std::ofstream out(file, std::ios::binary);
    out << text;
    if (ec || !out) {
      std::cerr << "error: cannot write " << file.string() << "; nothing kept\n";
      out.close();
      fs::remove_all(root, ec);  // created above, by this call
      return kExitUsage;
    }
  }
  const std::string& plugin = names->snake;
  std::cout << "wrote " << root.string() << ": plugin " << plugin << " (domain " << plugin << "), rules "
            << names->prefix << "-001 (data) and " << names->prefix << "-100 (the hook in " << plugin
            << "_plugin.cpp)\n";
  for (const auto& [path, text] : files) std::cout << "  " << path.string() << "\n";
  std::cout << "next steps (the compiler must be the one `migrate-pipeline --version` names):\n"
            << "  cd " << root.string() << "\n"
            << "  cmake -B build " << prefixAdvice() << "\n"
            << "  cmake --build build\n"
            << "  ctest --test-dir build      # the rules' snippets, and a run on tests/sample_repo\n"
            << "  migrate-pipeline run pipeline.yaml --plugin-dir build/plugins --source REPOSITORY\n";
  return kExitOk;
}

}  // namespace migrate
