#pragma once
/// Installation guides in Markdown (README.md, INSTALL.md, docs/installation.md): the shell code
/// blocks a user copies into a terminal are the project's setup script. Plugins that read setup
/// scripts (dependencies, extension builds) read these blocks the same way, with the guide's line
/// numbers; the prose around them is not read, so a sentence that names `pip install x` is no step.

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace migrate::sdk {

namespace install_guide_detail {

inline std::string_view trim(std::string_view s) {
  const std::size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

inline std::string lower(std::string_view s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// The fence a line opens or closes (``` or ~~~, three or more), or "".
inline std::string_view fenceOf(std::string_view line) {
  const std::string_view t = trim(line);
  if (t.size() < 3 || (t[0] != '`' && t[0] != '~')) return {};
  std::size_t n = 0;
  while (n < t.size() && t[n] == t[0]) ++n;
  return n >= 3 ? t.substr(0, n) : std::string_view();
}

/// Whether a fenced block's info string names a shell (or names nothing).
inline bool shellInfo(std::string_view info) {
  info = trim(info);
  const std::string lang = lower(info.substr(0, info.find_first_of(" \t{")));
  return lang.empty() || lang == "bash" || lang == "sh" || lang == "shell" || lang == "console" ||
         lang == "zsh" || lang == "shell-session" || lang == "shellsession";
}

}  // namespace install_guide_detail

/// Whether a file is the project's installation guide: a Markdown README, an INSTALL file, or a
/// page on installation, getting started or setup.
inline bool isInstallGuide(std::string_view path) {
  const std::string name = install_guide_detail::lower(path.substr(path.rfind('/') + 1));
  const auto dot = name.rfind('.');
  if (dot == std::string::npos || name.substr(dot) != ".md") return false;
  const std::string stem = name.substr(0, dot);
  return stem == "readme" || stem.rfind("install", 0) == 0 || stem == "get_started" ||
         stem == "getting_started" || stem == "getting-started" || stem == "setup";
}

/// The shell code blocks (``` or ~~~ fences with no language, bash, sh, shell, console, zsh) of a
/// Markdown file as one script laid out byte for byte like the file: every other line, the fences
/// and a `$ ` prompt are blanked to spaces, so a position in the script (line, column, byte
/// offset) is the same position in the guide.
inline std::string installGuideScript(std::string_view text) {
  using install_guide_detail::fenceOf;
  using install_guide_detail::trim;
  std::string script;
  std::string_view open;  // the fence of the block we are in, "" outside one
  bool shell = false;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    const std::string_view line = text.substr(begin, end - begin);
    const std::string_view fence = fenceOf(line);
    bool code = false;
    if (open.empty() && !fence.empty()) {
      open = fence;
      shell = install_guide_detail::shellInfo(trim(line).substr(fence.size()));
    } else if (!open.empty() && !fence.empty() && fence.size() >= open.size() && fence[0] == open[0] &&
               trim(line).size() == fence.size()) {
      open = {};
    } else {
      code = !open.empty() && shell;
    }
    if (code) {
      const std::size_t at = script.size();
      script += line;
      const std::size_t first = line.find_first_not_of(" \t");
      if (first != std::string_view::npos && line.substr(first, 2) == "$ ") script[at + first] = ' ';
    } else {
      script.append(line.size(), ' ');
    }
    if (end == text.size()) break;
    script += '\n';
    begin = end + 1;
  }
  return script;
}

}  // namespace migrate::sdk
