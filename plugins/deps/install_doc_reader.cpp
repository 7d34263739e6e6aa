// Installation instructions in Markdown (README.md, INSTALL.md, docs/installation.md): the shell
// code blocks a user copies into a terminal install what the project runs on, as a setup script
// would. The fenced blocks (``` or ~~~) that hold shell (no language, bash, sh, shell, console,
// zsh) are read as one shell script, line numbers kept; the prose around them is not read, so a
// sentence that names `pip install flash-attn` is not a step. A `$ ` prompt is dropped.

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include "manifest.hpp"
#include "requirement.hpp"

namespace deps {

namespace {

/// The fence a line opens or closes (``` or ~~~, three or more), or "".
std::string_view fenceOf(std::string_view line) {
  const std::string_view t = trim(line);
  if (t.size() < 3 || (t[0] != '`' && t[0] != '~')) return {};
  std::size_t n = 0;
  while (n < t.size() && t[n] == t[0]) ++n;
  return n >= 3 ? t.substr(0, n) : std::string_view();
}

/// Whether a fenced block's info string names a shell (or names nothing).
bool shellInfo(std::string_view info) {
  info = trim(info);
  const std::string_view word = info.substr(0, info.find_first_of(" \t{"));
  std::string lang;
  for (char c : word) lang += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lang.empty() || lang == "bash" || lang == "sh" || lang == "shell" || lang == "console" ||
         lang == "zsh" || lang == "shell-session" || lang == "shellsession";
}

/// The shell code blocks of a Markdown file as one script, every other line left empty (so line
/// numbers stay those of the file).
std::string installDocScript(std::string_view text) {
  std::string script;
  std::string_view open;  // the fence of the block we are in, "" outside one
  bool shell = false;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    const std::string_view line = text.substr(begin, end - begin);
    const std::string_view fence = fenceOf(line);
    if (open.empty() && !fence.empty()) {
      open = fence;
      shell = shellInfo(trim(line).substr(fence.size()));
    } else if (!open.empty() && !fence.empty() && fence.size() >= open.size() && fence[0] == open[0] &&
               trim(line).size() == fence.size()) {
      open = {};
    } else if (!open.empty() && shell) {
      std::string_view code = line;
      const std::string_view t = trim(code);
      if (t.rfind("$ ", 0) == 0) code = t.substr(2);
      script += code;
    }
    if (end == text.size()) break;
    script += '\n';
    begin = end + 1;
  }
  return script;
}

}  // namespace

void readInstallDoc(const std::string& path, std::string_view text, Manifests& out) {
  readShellScript(path, installDocScript(text), out);
}

}  // namespace deps
