// GPU build settings of shell scripts (OPS-046), read a line at a time by scanScript
// (script_builds.cpp): a GPU architecture list or a CUDA compiler a script sets for the builds it runs
// (`TORCH_CUDA_ARCH_LIST="6.0;7.0;7.5"`, `BASPACHO_CUDA_ARCHS="60;70;75"`,
// `-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc`). The value is reported where it is written: a setting
// that only appends to the list (`X="${X};8.0"`) or passes another variable on (`X='${X}'`,
// `-DCMAKE_CUDA_ARCHITECTURES=$ARCHS`) is not.

#include <cctype>
#include <optional>
#include <string>
#include <string_view>

#include "build_machinery.hpp"
#include "byte_regex.hpp"

namespace custom_ops {

namespace {

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

std::optional<ScriptSetting> scriptSetting(std::string_view line) {
  if (line.find("CUDA") == std::string_view::npos || line.rfind("echo", 0) == 0 ||
      line.rfind("printf", 0) == 0)
    return std::nullopt;
  // A setting in command position: at the start of the line or after ; & | ( `then`/`do`/a case
  // pattern's `)`, optionally exported (`export`, `local`, `declare -x`).
  static const RE2 kSetting(
      R"((?:^|[;&|()]|\bthen\b|\bdo\b|\belse\b)[ \t]*(?:(?:export|local|declare(?:[ \t]+-\w+)*)[ \t]+)?)"
      R"((TORCH_CUDA_ARCH_LIST|CUDAARCHS|CUDACXX|\w*CUDA_ARCH(?:S|_LIST|ITECTURES)?)=("[^"]*"|'[^']*'|[^\s;&|)]*))",
      bytePattern());
  // A CMake definition of the CUDA compiler or architectures anywhere in a command or a value.
  static const RE2 kDefinition(R"(-D(CMAKE_CUDA_(?:COMPILER|ARCHITECTURES))=("[^"]*"|'[^']*'|[^\s"';&|)]*))",
                               bytePattern());
  std::string name, value;
  re2::StringPiece input(line.data(), line.size());
  while (RE2::FindAndConsume(&input, kSetting, &name, &value))
    if (!passedOn(unquoted(value), name)) return ScriptSetting{name, unquoted(value)};
  input = re2::StringPiece(line.data(), line.size());
  while (RE2::FindAndConsume(&input, kDefinition, &name, &value))
    if (!passedOn(unquoted(value), "")) return ScriptSetting{name, unquoted(value)};
  return std::nullopt;
}

}  // namespace custom_ops
