// Makefiles that build and start the project's containers (pyro's docker/Makefile): variables
// holding a CUDA image or the nvidia-docker wrapper, and recipe lines read as the shell steps they
// are (NVIDIA apt steps, `docker run --runtime=nvidia`, pip installs with the Makefile's simple
// variables substituted). Compiler settings in Makefiles are the custom_ops plugin's (OPS-040).

#include <map>
#include <string>
#include <string_view>

#include <re2/re2.h>

#include "manifest.hpp"
#include "migrate/sdk/text_position.hpp"
#include "plugin_support/byte_regex.hpp"

namespace deps {
namespace {

/// A recipe line as the shell reads it: make's `$(NAME)` written as `${NAME}` (the same length, so
/// positions hold); `$(shell …)` and other functions stay as they are.
LogicalLine asShellLine(LogicalLine ll) {
  static constexpr std::string_view kNameChars =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_";
  for (std::size_t at = ll.text.find("$("); at != std::string::npos; at = ll.text.find("$(", at + 2)) {
    const std::size_t close = ll.text.find(')', at);
    if (close == std::string::npos) break;
    const std::string_view name = std::string_view(ll.text).substr(at + 2, close - at - 2);
    if (name.empty() || name.find_first_not_of(kNameChars) != std::string_view::npos) continue;
    ll.text[at + 1] = '{';
    ll.text[close] = '}';
  }
  return ll;
}

}  // namespace

void readMakefile(const std::string& path, std::string_view text, Manifests& out) {
  const migrate::sdk::LineIndex index(text);
  // `NAME = value`, `NAME := value`, `NAME ?= value`, `export NAME=value`: the value up to a comment.
  static const RE2 kAssignment(
      R"((?:export[ \t]+)?([A-Za-z_][\w.-]*)[ \t]*[:?+!]?=[ \t]*([^#\s]+)[ \t]*(?:#.*)?)",
      plugin_support::bytePattern());
  std::map<std::string, std::string> variables;  // simple values, substituted in pip installs
  for (const LogicalLine& ll : logicalLines(text)) {
    if (!ll.text.empty() && ll.text[0] == '\t') {
      // A recipe line: make's prefixes (@ silent, - ignore errors, + always run) before the command.
      const auto first = ll.text.find_first_not_of("\t @-+");
      if (first == std::string::npos || ll.text[first] == '#') continue;
      readNvidiaAptSteps(path, ll, first, index, out);
      readGpuContainerRuns(path, ll, first, index, out);
      readInlinePythonImports(path, ll, first, index, out);
      if (ll.text.find("install") != std::string::npos)
        readInstallCommands(path, asShellLine(ll), first, index, "shell", variables, out, {});
      continue;
    }
    re2::StringPiece name, value;
    if (!RE2::FullMatch(ll.text, kAssignment, &name, &value)) continue;
    std::string v(value.data(), value.size());
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
      v = v.substr(1, v.size() - 2);
    if (v.find('$') == std::string::npos) variables[std::string(name.data(), name.size())] = v;
    const auto at = static_cast<std::size_t>(value.data() - ll.text.data());
    containerSetting(path, ll.range(index, at, at + value.size()), v, out);
  }
}

}  // namespace deps
