// Steps a Python file hands to a container image builder (Modal's `Image`): the base image of
// `.from_registry("…")`, shell steps of `.run_commands("apt-get install -y libcudnn8", …)`, and the
// packages of `.apt_install(…)` / `.pip_install(…)` / `.uv_pip_install(…)`. Each string is read as
// the step it becomes (a FROM, a shell line, `apt-get install`, `pip install`), and what the step
// installs is reported at the string, as the deps readers report it in a Dockerfile.
//
// Install scripts written in Python hand pip its arguments through a helper of their own
// (`run_pip("install --pre tensorrt==9.0.1 …")`): the first argument of a function whose name is
// pip's (`run_pip`, `pip_install`, `pip`) that starts with `install ` is read as `pip install …`.
// An f-string's holes are filled from the file's string assignments to that name
// (`cudnn_name = f"nvidia-cudnn-cu{cu}==8.9.4.25"` … `run_pip(f"install {cudnn_name}")`), and a
// package named there is reported at that assignment, where its name is written; a hole nobody
// assigns stays `{}`, which names no package.
//
// A requirement checker installs what its first argument names when it is missing (Ultralytics'
// `check_requirements("nvidia-tensorrt", cmds="-U --index-url …")`, copied into many YOLO
// repositories): that string is read as `pip install '…'`.

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "manifest.hpp"
#include "migrate/sdk/text_position.hpp"

namespace deps {

using migrate::sdk::Module;
using migrate::sdk::StringContext;
using migrate::sdk::StringFact;

namespace {

/// The last dotted component of a callee (`pkg.pip_utils.run_pip` → `run_pip`).
std::string_view lastComponent(std::string_view callee) {
  const auto dot = callee.rfind('.');
  return dot == std::string_view::npos ? callee : callee.substr(dot + 1);
}

/// A function that runs pip with its first argument: named `pip`, or `pip` joined to a verb by an
/// underscore (`run_pip`, `pip_install`, `_run_pip`).
bool pipRunner(std::string_view name) {
  while (!name.empty() && name.front() == '_') name.remove_prefix(1);
  if (name == "pip") return true;
  const auto at = name.find("pip");
  if (at == std::string_view::npos) return false;
  const bool starts = at == 0 && name.size() > 3 && name[3] == '_';
  const bool ends = at + 3 == name.size() && at > 0 && name[at - 1] == '_';
  return starts || ends;
}

/// A function that pip-installs the requirements it is given when they are missing:
/// `check_requirements`, `install_requirements`, `ensure_requirements` (and the singular).
bool requirementChecker(std::string_view name) {
  while (!name.empty() && name.front() == '_') name.remove_prefix(1);
  for (std::string_view verb : {"check_", "install_", "ensure_"}) {
    if (name.substr(0, verb.size()) != verb) continue;
    const std::string_view rest = name.substr(verb.size());
    return rest == "requirements" || rest == "requirement";
  }
  return false;
}

/// `{name}` holes of an f-string's source text, in order ("" for a hole that is not a plain name).
std::vector<std::string> holeNames(std::string_view written) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < written.size(); ++i) {
    if (written[i] != '{') continue;
    if (i + 1 < written.size() && written[i + 1] == '{') {
      ++i;
      continue;
    }
    const auto close = written.find('}', i);
    if (close == std::string_view::npos) break;
    std::string_view hole = written.substr(i + 1, close - i - 1);
    const bool plain = !hole.empty() && std::all_of(hole.begin(), hole.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    out.push_back(plain ? std::string(hole) : std::string());
    i = close;
  }
  return out;
}

/// An f-string's value with its holes filled, and where each filled hole came from.
struct Filled {
  struct Fill {
    std::size_t begin = 0, end = 0;  ///< bytes of `value` the hole became
    const StringFact* from = nullptr;
  };
  std::string value;
  std::vector<Fill> fills;
};

/// The value of an f-string with each hole that names a string assigned earlier in the file
/// replaced by that string (the nearest assignment before the use).
Filled filledValue(const Module& module, const StringFact& s) {
  if (!s.fstring) return {s.value, {}};
  const std::vector<std::string> names = holeNames(module.text(s.range));
  Filled out;
  std::size_t hole = 0;
  for (std::size_t i = 0; i < s.value.size(); ++i) {
    if (s.value.compare(i, 2, "{}") != 0 || hole >= names.size()) {
      out.value += s.value[i];
      continue;
    }
    const StringFact* bound = nullptr;
    for (const StringFact& a : module.strings())
      if (a.context == StringContext::Assignment && !names[hole].empty() && a.name == names[hole] &&
          a.range.start_byte < s.range.start_byte)
        bound = &a;
    if (bound) {
      out.fills.push_back({out.value.size(), out.value.size() + bound->value.size(), bound});
      out.value += bound->value;
    } else {
      out.value += "{}";
    }
    ++hole;
    ++i;
  }
  return out;
}

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
    if (s.context != StringContext::PositionalArg || s.value.empty()) continue;
    const bool first = s.method.empty() && s.arg_index == 0;
    const bool runner = first && pipRunner(lastComponent(s.callee));
    const bool checker = first && !s.fstring && requirementChecker(lastComponent(s.callee));
    if (s.method.empty() && !runner && !checker) continue;
    const bool image = s.method == "from_registry" && s.arg_index == 0;
    std::string step;
    Filled filled;
    constexpr std::size_t kPip = 4;  // "pip " before the runner's argument
    if (runner) {
      filled = filledValue(module, s);
      if (filled.value.rfind("install ", 0) == 0) step = "pip " + filled.value;
    } else if (checker) {
      step = shellStep("pip_install", s.value);
    } else if (!image) {
      step = shellStep(s.method, s.value);
    }
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
      const std::size_t at = d.range.start_byte;  // in the step's text
      d.range = where;
      // A package named by a filled hole is reported where its name is written (the assignment).
      for (const Filled::Fill& f : filled.fills)
        if (at >= kPip && at - kPip >= f.begin && at - kPip < f.end)
          d.range = stringValueRange(module, *f.from, *index).value_or(f.from->range);
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
