// Steps a Python file hands to a container image builder (Modal's `Image`): the base image of
// `.from_registry("…")`, shell steps of `.run_commands("apt-get install -y libcudnn8", …)`, and the
// packages of `.apt_install(…)` / `.pip_install(…)` / `.uv_pip_install(…)`. Each string is read as
// the step it becomes (a FROM, a shell line, `apt-get install`, `pip install`), and what the step
// installs is reported at the string, as the deps readers report it in a Dockerfile.

#include <optional>
#include <string>
#include <string_view>

#include "manifest.hpp"
#include "migrate/sdk/text_position.hpp"

namespace deps {

using migrate::sdk::Module;
using migrate::sdk::StringContext;
using migrate::sdk::StringFact;

namespace {

/// The shell step a builder method makes of one string argument, or "" for other methods.
std::string shellStep(const std::string& method, const std::string& value) {
  if (method == "run_commands") return value;
  const bool quotable = value.find('\'') == std::string::npos;
  if ((method == "apt_install") && quotable) return "apt-get install -y '" + value + "'";
  if ((method == "pip_install" || method == "uv_pip_install") && quotable)
    return "pip install '" + value + "'";
  return {};
}

}  // namespace

void readEmbeddedCommands(const Module& module, Manifests& out) {
  const std::string path(module.path());
  std::optional<migrate::sdk::LineIndex> index;
  for (const StringFact& s : module.strings()) {
    if (s.context != StringContext::PositionalArg || s.method.empty() || s.value.empty()) continue;
    const bool image = s.method == "from_registry" && s.arg_index == 0;
    const std::string step = image ? std::string() : shellStep(s.method, s.value);
    if (!image && step.empty()) continue;
    if (!index) index.emplace(module.source());
    const migrate::sdk::SourceRange where = stringValueRange(module, s, *index).value_or(s.range);
    if (image) {
      out.images.push_back({path, where, s.value, s.value});
      continue;
    }
    Manifests step_found;
    readShellScript(path, step, step_found);
    for (auto& d : step_found.dependencies) {
      d.range = where;
      out.dependencies.push_back(std::move(d));
    }
    for (auto& x : step_found.indexes) {
      x.range = where;
      x.url_range = {};
      out.indexes.push_back(std::move(x));
    }
    for (auto& a : step_found.nvidia_apt) {
      a.range = where;
      out.nvidia_apt.push_back(std::move(a));
    }
    for (auto& g : step_found.gpu_containers) {
      g.range = where;
      out.gpu_containers.push_back(std::move(g));
    }
    for (auto& t : step_found.toolkit_modules) {
      t.range = where;
      out.toolkit_modules.push_back(std::move(t));
    }
  }
}

}  // namespace deps
