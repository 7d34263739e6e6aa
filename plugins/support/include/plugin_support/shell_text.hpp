#pragma once
/// Lines of shell scripts (and Dockerfile RUN steps) as the plugins that read launch scripts see
/// them: the code before a comment, and whether the line only prints text.

#include <cctype>
#include <string>
#include <string_view>

#include "plugin_support/byte_regex.hpp"

namespace plugin_support {

/// A Makefile by its name (`Makefile`, `makefile`, `GNUmakefile`, `*.mk`): its recipes are shell
/// lines.
inline bool isMakefile(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::string_view name = path.substr(slash == std::string_view::npos ? 0 : slash + 1);
  return name == "Makefile" || name == "makefile" || name == "GNUmakefile" ||
         (name.size() > 3 && name.substr(name.size() - 3) == ".mk");
}

/// A Dockerfile by its name, any case (`Dockerfile`, `Dockerfile.gpu`, `Dockerfile-ubuntu`,
/// `Dockerfile_cu121`, `train.dockerfile`, `Containerfile`): its RUN steps are shell lines.
inline bool isDockerfile(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  std::string name(path.substr(slash == std::string_view::npos ? 0 : slash + 1));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto starts = [&](std::string_view p) { return name.rfind(p, 0) == 0; };
  return name == "dockerfile" || name == "containerfile" || starts("dockerfile.") || starts("dockerfile-") ||
         starts("dockerfile_") ||
         (name.size() > 11 && name.compare(name.size() - 11, 11, ".dockerfile") == 0);
}

/// Length of the part of `line` before a comment: a '#' at the start or after white space,
/// outside quotes.
inline std::size_t shellCodeLength(std::string_view line) {
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == '\\' && quote == '"') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
      return i;
    }
  }
  return line.size();
}

/// `echo ...`, `printf ...` (also after `RUN` in a Dockerfile): output text, not settings. Except
/// an assignment written into a file (`echo "NCCL_P2P_DISABLE=1" >> ~/.deepspeed_env`, `echo 'export
/// CUDA_HOME=…' >> ~/.bashrc`): an environment file a launcher or shell reads back.
inline bool isShellOutputCommand(std::string_view code) {
  static const RE2 kOutput(
      R"(^[[:space:]]*(?:RUN[[:space:]]+)?(?:sudo[[:space:]]+)?(?:echo|printf)(?:[[:space:]]|$))",
      bytePattern());
  static const RE2 kSettingToFile(
      R"((?:echo|printf)[[:space:]]+(?:-\w+[[:space:]]+)*["']?(?:export[[:space:]]+)?[A-Z_][A-Z0-9_]*=[^>|;&]*>>?[[:space:]]*[^&[:space:]])",
      bytePattern());
  const re2::StringPiece text(code.data(), code.size());
  return RE2::PartialMatch(text, kOutput) && !RE2::PartialMatch(text, kSettingToFile);
}

/// Calls `fn(offset, code)` for each line of `text` that is not an echo/printf: `code` is the line
/// before its comment, `offset` where the line starts in `text`.
template <class Fn>
void forEachShellCodeLine(std::string_view text, Fn&& fn) {
  for (std::size_t offset = 0; offset <= text.size();) {
    std::size_t end = text.find('\n', offset);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(offset, end - offset);
    const std::string code(line.substr(0, shellCodeLength(line)));
    if (!isShellOutputCommand(code)) fn(offset, code);
    offset = end + 1;
  }
}

}  // namespace plugin_support
