#include "plan/entry_points.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "migrate/sdk/glob.hpp"

namespace migrate {
namespace {

using sdk::EntryPoint;

bool isTestModule(const std::string& path) {
  const std::string base = path.substr(path.rfind('/') + 1);
  return base != "__init__.py" && base != "conftest.py" && isTestPath(path);
}

std::string dirOf(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

std::string lexicallyJoined(const std::string& dir, const std::string& rel) {
  std::vector<std::string> parts;
  std::istringstream in((dir.empty() ? "" : dir + "/") + rel);
  for (std::string part; std::getline(in, part, '/');) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
  return out;
}

class ModuleLookup {
 public:
  explicit ModuleLookup(const std::vector<ModuleSummary>& modules) : modules_(modules) {}
  /// A module by path (relative to the root or to `from_dir`, else the unique one with that name).
  std::optional<std::size_t> byPath(const std::string& path, const std::string& from_dir) const {
    for (const std::string& candidate : {lexicallyJoined("", path), lexicallyJoined(from_dir, path)})
      for (std::size_t i = 0; i < modules_.size(); ++i)
        if (modules_[i].path == candidate) return i;
    std::optional<std::size_t> unique;
    const std::string suffix = "/" + lexicallyJoined("", path);
    for (std::size_t i = 0; i < modules_.size(); ++i)
      if (("/" + modules_[i].path).ends_with(suffix)) {
        if (unique) return std::nullopt;
        unique = i;
      }
    return unique;
  }
  /// A module by dotted name ("pkg.mod", also under src/).
  std::optional<std::size_t> byName(const std::string& dotted) const {
    for (std::size_t i = 0; i < modules_.size(); ++i)
      if (modules_[i].dotted_name == dotted || modules_[i].dotted_name == "src." + dotted) return i;
    return std::nullopt;
  }

 private:
  const std::vector<ModuleSummary>& modules_;
};

/// "name = pkg.mod:func" → {name, pkg.mod}. RE2 (bytes; [[:space:]] is ECMAScript's \s): a line of
/// setup.cfg or pyproject.toml of megabytes cannot overflow the stack as std::regex did.
std::optional<std::pair<std::string, std::string>> consoleScript(const std::string& text) {
  static const RE2 shape(
      R"([[:space:]]*([A-Za-z0-9_.\-]+)[[:space:]]*=[[:space:]]*["']?[[:space:]]*([A-Za-z_][\w.]*)[[:space:]]*(?::[[:space:]]*[A-Za-z_][\w.]*)?[[:space:]]*["']?[[:space:]]*,?[[:space:]]*)",
      RE2::Latin1);
  std::string name, module;
  if (!RE2::FullMatch(text, shape, &name, &module)) return std::nullopt;
  return std::make_pair(name, module);
}

/// Console-script lines of setup.cfg's [options.entry_points] console_scripts and
/// pyproject.toml's [project.scripts] / [tool.poetry.scripts].
std::vector<std::string> declaredScripts(const std::string& file, const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string section;
  bool in_console = false;
  for (std::string line; std::getline(in, line);) {
    const auto b = line.find_first_not_of(" \t");
    if (b == std::string::npos || line[b] == '#' || line[b] == ';') continue;
    if (line[b] == '[') {
      section =
          line.substr(b, line.find(']') == std::string::npos ? std::string::npos : line.find(']') - b + 1);
      in_console = false;
      continue;
    }
    if (file.ends_with("setup.cfg") && section == "[options.entry_points]") {
      if (line.rfind("console_scripts", b) == b) {
        in_console = true;
        const auto eq = line.find('=');
        const std::string rest = line.substr(eq + 1);
        if (rest.find_first_not_of(" \t\r") != std::string::npos) out.push_back(rest);
        continue;
      }
      if (b == 0) in_console = false;
      if (in_console) out.push_back(line);
    } else if (file.ends_with("pyproject.toml") &&
               (section == "[project.scripts]" || section == "[tool.poetry.scripts]")) {
      out.push_back(line);
    }
  }
  return out;
}

std::vector<std::string> shellLines(const std::string& text) {
  std::vector<std::string> lines;
  std::string current;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto hash = line.find_first_not_of(" \t");
    if (hash != std::string::npos && line[hash] == '#' && current.empty()) continue;
    if (!line.empty() && line.back() == '\\') {
      current += line.substr(0, line.size() - 1) + " ";
      continue;
    }
    lines.push_back(current + line);
    current.clear();
  }
  if (!current.empty()) lines.push_back(current);
  return lines;
}

/// Words of a shell line: split at blanks outside quotes, quotes removed.
std::vector<std::string> shellWords(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : line) {
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        word += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

/// python, python2, python3, python3.11 (the regex `python[23](\.\d+)?`, as a loop).
bool isPython(const std::string& base) {
  if (base == "python") return true;
  if (base.size() < 7 || base.compare(0, 6, "python") != 0 || (base[6] != '2' && base[6] != '3'))
    return false;
  if (base.size() == 7) return true;
  return base[7] == '.' && base.size() > 8 &&
         std::all_of(base.begin() + 8, base.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

bool isTestPath(const std::string& path) {
  return sdk::globMatch("**/test_*.py", path) || sdk::globMatch("**/*_test.py", path) ||
         sdk::globMatch("**/tests/**", path) || sdk::globMatch("**/test/**", path);
}

std::vector<LaunchCommand> parseLaunchLine(const std::string& line) {
  std::vector<LaunchCommand> out;
  const std::vector<std::string> tokens = shellWords(line);
  std::string launcher;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    if (t == "|" || t == "&&" || t == ";" || t == "||") {
      launcher.clear();
      continue;
    }
    const std::string base = t.substr(t.rfind('/') + 1);
    if (launcher.empty()) {
      if (isPython(base))
        launcher = "python";
      else if (base == "torchrun" || base == "deepspeed" || base == "mpirun" || base == "srun" ||
               base == "horovodrun")
        launcher = base;
      else if (base == "accelerate" && i + 1 < tokens.size() && tokens[i + 1] == "launch")
        launcher = "accelerate";
      continue;
    }
    if (t == "-m" && i + 1 < tokens.size()) {
      const std::string module = tokens[++i];
      if (module == "torch.distributed.launch" || module == "torch.distributed.run") {
        launcher = module;
        continue;
      }
      out.push_back({launcher, "-m " + module});
      launcher.clear();
    } else if (t.size() > 3 && t.ends_with(".py") && t.find('$') == std::string::npos && t[0] != '-') {
      out.push_back({launcher, t});
      launcher.clear();
    } else if (launcher == "mpirun" || launcher == "srun" || launcher == "horovodrun") {
      if (isPython(base)) continue;  // mpirun ... python train.py: the launcher stays mpirun
    }
  }
  return out;
}

std::vector<EntryPoint> findEntryPoints(const std::vector<ModuleSummary>& modules,
                                        const sdk::WorkspaceView& workspace) {
  const ModuleLookup lookup(modules);
  std::vector<EntryPoint> entries;
  for (std::size_t i = 0; i < modules.size(); ++i) {
    const ModuleSummary& m = modules[i];
    if (isTestModule(m.path))
      entries.push_back({EntryPoint::Kind::TestModule, m.path, m.path, "", {i}, {m.path}});
    else if (m.main_block)
      entries.push_back({EntryPoint::Kind::MainBlock, m.path, m.path, "", {i}, {m.path}});
  }
  auto addConsole = [&](const std::string& file, const std::string& text) {
    const auto script = consoleScript(text);
    if (!script) return;
    EntryPoint e{EntryPoint::Kind::ConsoleScript,          script->first, file, "", {},
                 {file, "console_script:" + script->first}};
    if (const auto i = lookup.byName(script->second)) {
      e.modules.push_back(*i);
      e.labels.push_back(modules[*i].path);
    }
    entries.push_back(std::move(e));
  };
  for (const ModuleSummary& m : modules)
    for (const std::string& s : m.console_scripts) addConsole(m.path, s);
  for (const auto& f : workspace.files()) {
    const std::string base = f.path.substr(f.path.rfind('/') + 1);
    const bool declares = base == "setup.cfg" || base == "pyproject.toml";
    const bool shell = f.language == sdk::Language::Shell;
    if (!declares && !shell) continue;
    const auto text = workspace.read(f.path);
    if (!text) continue;
    if (declares) {
      for (const std::string& line : declaredScripts(f.path, *text)) addConsole(f.path, line);
      continue;
    }
    for (const std::string& line : shellLines(*text))
      for (const LaunchCommand& cmd : parseLaunchLine(line)) {
        EntryPoint e{EntryPoint::Kind::LaunchScript,      f.path, f.path, cmd.launcher, {},
                     {f.path, "launcher:" + cmd.launcher}};
        const std::optional<std::size_t> target = cmd.target.rfind("-m ", 0) == 0
                                                      ? lookup.byName(cmd.target.substr(3))
                                                      : lookup.byPath(cmd.target, dirOf(f.path));
        if (target) {
          e.modules.push_back(*target);
          e.labels.push_back(modules[*target].path);
        }
        entries.push_back(std::move(e));
      }
  }
  if (entries.empty())  // a library: its top-level packages are how it is used
    for (std::size_t i = 0; i < modules.size(); ++i) {
      const std::string& d = modules[i].dotted_name;
      const std::string name = d.rfind("src.", 0) == 0 ? d.substr(4) : d;
      if (modules[i].path.ends_with("__init__.py") && !name.empty() && name.find('.') == std::string::npos)
        entries.push_back({EntryPoint::Kind::Library,
                           name,
                           modules[i].path,
                           "",
                           {i},
                           {modules[i].path, "library:" + name}});
    }
  std::sort(entries.begin(), entries.end(), [](const EntryPoint& a, const EntryPoint& b) {
    return std::tie(a.kind, a.name, a.file, a.launcher, a.modules) <
           std::tie(b.kind, b.name, b.file, b.launcher, b.modules);
  });
  entries.erase(std::unique(entries.begin(), entries.end(),
                            [](const EntryPoint& a, const EntryPoint& b) {
                              return a.kind == b.kind && a.name == b.name && a.file == b.file &&
                                     a.launcher == b.launcher && a.modules == b.modules;
                            }),
                entries.end());
  return entries;
}

}  // namespace migrate
