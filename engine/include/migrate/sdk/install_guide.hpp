#pragma once
/// Installation guides in Markdown (README.md, INSTALL.md, docs/installation.md): the shell code
/// blocks a user copies into a terminal are the project's setup script. Plugins that read setup
/// scripts (dependencies, extension builds) read these blocks the same way, with the guide's line
/// numbers; the prose around them is not read, so a sentence that names `pip install x` is no step.

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

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

/// Whether a fenced block's info string names a shell (or names nothing). A MyST directive that
/// shows code names its language after it (```{code-block} bash); one that shows other things
/// (```{list-table}, {figure}, {math}, {toctree}, an admonition) holds no code.
inline bool shellInfo(std::string_view info) {
  info = trim(info);
  if (!info.empty() && info[0] == '{') {
    const std::size_t close = info.find('}');
    const std::string directive =
        lower(trim(info.substr(1, close == std::string_view::npos ? 0 : close - 1)));
    if (directive == "code-block" || directive == "code" || directive == "sourcecode")
      info = trim(info.substr(close + 1));
    else
      for (std::string_view other :
           {"list-table", "csv-table", "table",    "figure",   "image",     "math",       "mermaid",
            "toctree",    "note",      "warning",  "tip",      "important", "admonition", "seealso",
            "tab-set",    "tab-item",  "dropdown", "eval-rst", "raw",       "include"})
        if (directive == other) return false;
  }
  const std::string lang = lower(info.substr(0, info.find_first_of(" \t{")));
  return lang.empty() || lang == "bash" || lang == "sh" || lang == "shell" || lang == "console" ||
         lang == "zsh" || lang == "shell-session" || lang == "shellsession";
}

/// Whether a line (trimmed) is an install or build command: a guide's step, not prose or code.
inline bool commandLine(std::string_view t) {
  if (t.rfind("$ ", 0) == 0) t.remove_prefix(2);
  for (std::string_view word : {"pip ",
                                "pip3 ",
                                "python -m pip ",
                                "python3 -m pip ",
                                "python setup.py ",
                                "python3 setup.py ",
                                "conda ",
                                "mamba ",
                                "micromamba ",
                                "uv pip ",
                                "git clone ",
                                "git submodule ",
                                "cd ",
                                "export ",
                                "source ",
                                "bash ",
                                "wget ",
                                "curl ",
                                "apt-get ",
                                "apt ",
                                "sudo ",
                                "mkdir ",
                                "make ",
                                "cmake ",
                                "nvcc "})
    if (t.rfind(word, 0) == 0) return true;
  return t == "make" || t == "cd ..";
}

}  // namespace install_guide_detail

/// Whether a path may be an installation guide once its text is read: a Markdown file.
inline bool mayBeInstallGuide(std::string_view path) {
  const std::string name = install_guide_detail::lower(path.substr(path.rfind('/') + 1));
  return name.size() > 3 && name.compare(name.size() - 3, 3, ".md") == 0;
}

/// Whether a file is the project's installation guide: a Markdown README, an INSTALL file, or a
/// page on installation, getting started or setup.
inline bool isInstallGuide(std::string_view path) {
  if (!mayBeInstallGuide(path)) return false;
  const std::string name = install_guide_detail::lower(path.substr(path.rfind('/') + 1));
  const std::string stem = name.substr(0, name.size() - 3);
  return stem == "readme" || stem.rfind("install", 0) == 0 || stem == "get_started" ||
         stem == "getting_started" || stem == "getting-started" || stem == "setup";
}

/// Whether a Markdown page guides a setup by its headings: an ATX (`## Installation`) or Setext
/// heading, outside code blocks, on installing, setting up or getting started (`## Install`,
/// `# Demo Setup Guide`, `## Quick start`). A model's page in `docs/` with its own installation
/// section (`docker run --gpus all nvcr.io/…` under `## Installation`) is a guide like the README;
/// a page that only documents code or results is not.
inline bool hasSetupHeading(std::string_view text) {
  using install_guide_detail::fenceOf;
  using install_guide_detail::trim;
  auto onSetup = [](std::string_view heading) {
    const std::string h = install_guide_detail::lower(heading);
    for (std::string_view word : {"install", "setup", "set up", "set-up", "getting started", "get started",
                                  "quick start", "quickstart"})
      if (h.find(word) != std::string::npos) return true;
    return false;
  };
  std::string_view open;  // the fence of the code block the line is in
  std::string_view previous;
  for (std::size_t begin = 0; begin <= text.size();) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    const std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    const std::string_view fence = fenceOf(line);
    if (!open.empty()) {
      if (!fence.empty() && fence.size() >= open.size() && fence[0] == open[0] &&
          trim(line).size() == fence.size())
        open = {};
      previous = {};
      continue;
    }
    if (!fence.empty()) {
      open = fence;
      previous = {};
      continue;
    }
    const std::string_view t = trim(line);
    if (!t.empty() && line.find_first_not_of(' ') < 4) {  // not an indented code line
      std::size_t hashes = 0;
      while (hashes < t.size() && t[hashes] == '#') ++hashes;
      if (hashes >= 1 && hashes <= 6 && (hashes == t.size() || t[hashes] == ' ' || t[hashes] == '\t') &&
          onSetup(t.substr(hashes)))
        return true;
      // A Setext heading: a line of text underlined with '=' or '-'.
      if (!previous.empty() && t.find_first_not_of(t[0]) == std::string_view::npos &&
          (t[0] == '=' || (t[0] == '-' && t.size() >= 2)) && onSetup(previous))
        return true;
    }
    previous = t;
  }
  return false;
}

/// Whether a file is read as an installation guide: a guide by its name, or a Markdown page with a
/// heading on setup (hasSetupHeading).
inline bool isInstallGuide(std::string_view path, std::string_view text) {
  return isInstallGuide(path) || (mayBeInstallGuide(path) && hasSetupHeading(text));
}

/// The shell code of a Markdown file as one script laid out byte for byte like the file: the
/// shell code blocks (``` or ~~~ fences with no language, bash, sh, shell, console, zsh), and also
/// the blocks a guide writes as commands without saying so: a fence of another language (```python
/// over `pip install -e .[train]`), an indented code block, or a list item, whose lines are all
/// install or build commands (pip, conda, git clone, cd, python setup.py, …). Every other line, the
/// fences and a `$ ` prompt are blanked to spaces, so a position in the script (line, column, byte
/// offset) is the same position in the guide.
inline std::string installGuideScript(std::string_view text) {
  using install_guide_detail::commandLine;
  using install_guide_detail::fenceOf;
  using install_guide_detail::trim;
  struct Line {
    std::size_t begin;
    std::string_view text;
  };
  std::vector<Line> lines;
  for (std::size_t begin = 0; begin <= text.size();) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    lines.push_back({begin, text.substr(begin, end - begin)});
    begin = end + 1;
  }
  // Whether lines [from, to) are commands only: at least one, and every line blank, a comment or
  // a command.
  auto commandsOnly = [&](std::size_t from, std::size_t to) {
    bool any = false;
    for (std::size_t k = from; k < to; ++k) {
      const std::string_view t = trim(lines[k].text);
      if (t.empty() || t[0] == '#') continue;
      if (!commandLine(t)) return false;
      any = true;
    }
    return any;
  };
  enum class Kind : char { Prose, Code, ListItem };  // a list item: code after its marker
  std::vector<Kind> kind(lines.size(), Kind::Prose);
  std::size_t i = 0;
  while (i < lines.size()) {
    const std::string_view open = fenceOf(lines[i].text);
    if (!open.empty()) {
      std::size_t close = i + 1;
      while (close < lines.size()) {
        const std::string_view f = fenceOf(lines[close].text);
        if (!f.empty() && f.size() >= open.size() && f[0] == open[0] &&
            trim(lines[close].text).size() == f.size())
          break;
        ++close;
      }
      const bool shell = install_guide_detail::shellInfo(trim(lines[i].text).substr(open.size())) ||
                         commandsOnly(i + 1, close);
      if (shell)
        for (std::size_t k = i + 1; k < close; ++k) kind[k] = Kind::Code;
      i = close + 1;
      continue;
    }
    // An indented code block (four spaces or a tab, after a blank line) of commands only.
    const std::string_view l = lines[i].text;
    const bool indented = l.rfind("    ", 0) == 0 || l.rfind("\t", 0) == 0;
    if (indented && !trim(l).empty() && i > 0 && trim(lines[i - 1].text).empty()) {
      std::size_t end = i;
      while (end < lines.size() && (trim(lines[end].text).empty() || lines[end].text.rfind("    ", 0) == 0 ||
                                    lines[end].text.rfind("\t", 0) == 0))
        ++end;
      if (commandsOnly(i, end))
        for (std::size_t k = i; k < end; ++k) kind[k] = Kind::Code;
      i = end;
      continue;
    }
    // A list item that is a command (`* pip install -r requirements.txt`).
    const std::string_view t = trim(l);
    if (t.size() > 2 && (t[0] == '*' || t[0] == '-' || t[0] == '+') && t[1] == ' ' &&
        commandLine(trim(t.substr(2))))
      kind[i] = Kind::ListItem;
    ++i;
  }
  std::string script;
  script.reserve(text.size());
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const std::string_view line = lines[k].text;
    const std::size_t at = script.size();
    if (kind[k] == Kind::ListItem) {  // the marker blanked
      const std::size_t marker = line.find_first_not_of(" \t");
      script.append(marker + 1, ' ');
      script += line.substr(marker + 1);
    } else if (kind[k] == Kind::Code) {
      script += line;
      const std::size_t first = line.find_first_not_of(" \t");
      if (first != std::string_view::npos && line.substr(first, 2) == "$ ") script[at + first] = ' ';
    } else {
      script.append(line.size(), ' ');
    }
    if (k + 1 < lines.size()) script += '\n';
  }
  return script;
}

}  // namespace migrate::sdk
