// GPU build settings of shell scripts (OPS-046): a GPU architecture list or a CUDA compiler a
// script sets for the builds it runs (`TORCH_CUDA_ARCH_LIST="6.0;7.0;7.5"`,
// `BASPACHO_CUDA_ARCHS="60;70;75"`, `-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc`). The value is
// reported where it is written: a setting that only appends to the list (`X="${X};8.0"`) or passes
// another variable on (`X='${X}'`, `-DCMAKE_CUDA_ARCHITECTURES=$ARCHS`) is not.

#include <cctype>
#include <string>
#include <string_view>

#include "build_machinery.hpp"
#include "byte_regex.hpp"
#include "migrate/sdk/text_position.hpp"

namespace custom_ops {

namespace {

constexpr const char* kScriptSetting = "OPS-046";

/// Whether `value` is only a variable reference (`$ARCHS`, `${ARCHS}`, `${ARCHS:-8.0}`), or
/// mentions `name` itself (an append: `${TORCH_CUDA_ARCH_LIST};8.0`).
bool passedOn(std::string_view value, std::string_view name) {
  static const RE2 kOnlyVariable(R"(\$(?:\w+|\{[^}]*\}))", bytePattern());
  if (value.empty() || RE2::FullMatch(value, kOnlyVariable)) return true;
  if (name.empty()) return false;
  for (std::size_t at = value.find(name); at != std::string_view::npos; at = value.find(name, at + 1)) {
    const char before = at == 0 ? ' ' : value[at - 1];
    const std::size_t after = at + name.size();
    const bool word_end = after == value.size() ||
                          !(std::isalnum(static_cast<unsigned char>(value[after])) || value[after] == '_');
    if ((before == '$' || before == '{') && word_end) return true;
  }
  return false;
}

std::string unquoted(std::string value) {
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
    return value.substr(1, value.size() - 2);
  return value;
}

}  // namespace

void scanScriptSettings(const std::string& path, std::string_view script, const Rules& rules,
                        sdk::FindingSink& sink) {
  if (script.find("CUDA") == std::string_view::npos) return;
  // A setting in command position: at the start of the line or after ; & | ( `then`/`do`/a case
  // pattern's `)`, optionally exported (`export`, `local`, `declare -x`).
  static const RE2 kSetting(
      R"((?:^|[;&|()]|\bthen\b|\bdo\b|\belse\b)[ \t]*(?:(?:export|local|declare(?:[ \t]+-\w+)*)[ \t]+)?)"
      R"((TORCH_CUDA_ARCH_LIST|CUDAARCHS|CUDACXX|\w*CUDA_ARCH(?:S|_LIST|ITECTURES)?)=("[^"]*"|'[^']*'|[^\s;&|)]*))",
      bytePattern());
  // A CMake definition of the CUDA compiler or architectures anywhere in a command or a value.
  static const RE2 kDefinition(R"(-D(CMAKE_CUDA_(?:COMPILER|ARCHITECTURES))=("[^"]*"|'[^']*'|[^\s"';&|)]*))",
                               bytePattern());
  const sdk::LineIndex lines(script);
  std::size_t pos = 0;
  while (pos < script.size()) {
    std::size_t nl = script.find('\n', pos);
    if (nl == std::string_view::npos) nl = script.size();
    const std::string_view line = script.substr(pos, nl - pos);
    const std::size_t first = line.find_first_not_of(" \t");
    const bool skip = first == std::string_view::npos || line[first] == '#' ||
                      line.substr(first).rfind("echo", 0) == 0 || line.substr(first).rfind("printf", 0) == 0;
    if (!skip && line.find("CUDA") != std::string_view::npos) {
      std::string name, value;
      re2::StringPiece input(line.data(), line.size());
      bool found = false;
      while (!found && RE2::FindAndConsume(&input, kSetting, &name, &value))
        found = !passedOn(unquoted(value), name);
      input = re2::StringPiece(line.data(), line.size());
      while (!found && RE2::FindAndConsume(&input, kDefinition, &name, &value))
        found = !passedOn(unquoted(value), "");
      if (found) {
        const auto start = static_cast<std::uint32_t>(pos + first);
        const std::string shown = name + "=" + unquoted(value);
        if (auto f = rules.make(kScriptSetting, path, lines.range(start, static_cast<std::uint32_t>(nl)),
                                name, {}, {{"value", shown}})) {
          f->details = {{"variable", name}, {"value", unquoted(value)}};
          sink.report(std::move(*f));
        }
      }
    }
    pos = nl + 1;
  }
}

}  // namespace custom_ops
