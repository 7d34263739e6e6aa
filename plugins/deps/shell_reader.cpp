// pip / uv / conda install commands in shell scripts and Dockerfile RUN instructions: the
// packages they install, the indexes and channels they use, the requirements files they read;
// and `git clone` of a CUDA-only package's source.

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "compat_table.hpp"
#include "manifest.hpp"
#include "plugin_support/byte_regex.hpp"
#include "plugin_support/shell_text.hpp"

namespace deps {
namespace {

/// `NAME=…` (the regex `^[A-Za-z_][A-Za-z0-9_]*=`, as a loop: std::regex recursed once per character).
bool startsWithAssignment(std::string_view v) {
  if (v.empty() || !(std::isalpha(static_cast<unsigned char>(v[0])) || v[0] == '_')) return false;
  std::size_t i = 1;
  while (i < v.size() && (std::isalnum(static_cast<unsigned char>(v[i])) || v[i] == '_')) ++i;
  return i < v.size() && v[i] == '=';
}

/// `stem` and then only digits and dots (`pip`, `pip3.10`: the regex `^STEM[0-9.]*$`, as a loop).
bool isVersioned(std::string_view v, std::string_view stem) {
  if (v.substr(0, stem.size()) != stem) return false;
  v.remove_prefix(stem.size());
  return std::all_of(v.begin(), v.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

/// `v` without its variable references (`pip${PYTHON_VERSION}` → `pip`): a program named through
/// a version variable is still that program.
std::string withoutVariables(std::string_view v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] != '$' || i + 1 >= v.size()) {
      out += v[i];
      continue;
    }
    if (v[i + 1] == '{') {
      const std::size_t close = v.find('}', i + 2);
      if (close == std::string_view::npos) return out;
      i = close;
      continue;
    }
    while (i + 1 < v.size() && (std::isalnum(static_cast<unsigned char>(v[i + 1])) || v[i + 1] == '_')) ++i;
  }
  return out;
}

struct Word {
  std::string value;  ///< quotes removed
  std::size_t begin = 0;
  std::size_t end = 0;
  bool op = false;  ///< a control operator (&&, ||, ;, |, &, (, ))
};

bool isBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/// Shell words with their offsets; stops at a comment. Redirections and their targets are dropped.
std::vector<Word> shellWords(std::string_view s, std::size_t from) {
  std::vector<Word> out;
  std::size_t i = from;
  bool drop_next = false;
  while (i < s.size()) {
    while (i < s.size() && isBlank(s[i])) ++i;
    if (i >= s.size()) break;
    const char c = s[i];
    if (c == '#') break;
    if (c == '&' || c == '|' || c == ';' || c == '(' || c == ')') {
      Word w;
      w.op = true;
      w.begin = i;
      w.value = std::string(1, c);
      ++i;
      if ((c == '&' || c == '|') && i < s.size() && s[i] == c) w.value += s[i++];
      w.end = i;
      out.push_back(w);
      continue;
    }
    if (c == '>' || c == '<') {
      ++i;
      while (i < s.size() && (s[i] == '>' || s[i] == '&')) ++i;
      // "2>&1": the target is attached
      if (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      } else {
        drop_next = true;
      }
      continue;
    }
    Word w;
    w.begin = i;
    while (i < s.size() && !isBlank(s[i]) &&
           std::string_view("&|;()<>").find(s[i]) == std::string_view::npos) {
      const char d = s[i];
      if (d == '\'') {
        const auto close = s.find('\'', i + 1);
        const std::size_t stop = close == std::string_view::npos ? s.size() : close;
        w.value += s.substr(i + 1, stop - i - 1);
        i = stop == s.size() ? stop : stop + 1;
      } else if (d == '"') {
        ++i;
        while (i < s.size() && s[i] != '"') {
          if (s[i] == '\\' && i + 1 < s.size()) ++i;
          w.value += s[i++];
        }
        if (i < s.size()) ++i;
      } else if (d == '\\' && i + 1 < s.size()) {
        w.value += s[i + 1];
        i += 2;
      } else if (d == '$' && i + 1 < s.size() && s[i + 1] == '(') {
        // `$(id -u):$(id -g)`: the substitution, blanks and all, is part of the word
        w.value += s[i++];
        int depth = 0;
        do {
          if (s[i] == '(') ++depth;
          if (s[i] == ')') --depth;
          w.value += s[i++];
        } while (i < s.size() && depth > 0);
      } else if (d == '`') {
        const auto close = s.find('`', i + 1);
        const std::size_t stop = close == std::string_view::npos ? s.size() : close + 1;
        w.value += s.substr(i, stop - i);
        i = stop;
      } else {
        // "2>file": a digit right before '>' belongs to the redirection
        if (std::isdigit(static_cast<unsigned char>(d)) && w.value.empty() && i + 1 < s.size() &&
            s[i + 1] == '>')
          break;
        w.value += d;
        ++i;
      }
    }
    w.end = i;
    if (w.end == w.begin) {
      ++i;  // a lone digit before '>' — loop again at the redirection
      continue;
    }
    if (drop_next) {
      drop_next = false;
      continue;
    }
    out.push_back(std::move(w));
  }
  return out;
}

std::string basename(const std::string& s) {
  const auto slash = s.rfind('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

const std::set<std::string, std::less<>> kPipValueOptions{"-r",
                                                          "--requirement",
                                                          "-c",
                                                          "--constraint",
                                                          "-e",
                                                          "--editable",
                                                          "-i",
                                                          "--index-url",
                                                          "--extra-index-url",
                                                          "-f",
                                                          "--find-links",
                                                          "--trusted-host",
                                                          "-t",
                                                          "--target",
                                                          "--prefix",
                                                          "--root",
                                                          "--src",
                                                          "--platform",
                                                          "--python-version",
                                                          "--implementation",
                                                          "--abi",
                                                          "--upgrade-strategy",
                                                          "--cache-dir",
                                                          "--log",
                                                          "--retries",
                                                          "--timeout",
                                                          "--proxy",
                                                          "--progress-bar",
                                                          "--config-settings",
                                                          "-C",
                                                          "--global-option",
                                                          "--install-option",
                                                          "--only-binary",
                                                          "--no-binary",
                                                          "--report",
                                                          "--exists-action",
                                                          "--cert",
                                                          "--client-cert",
                                                          "--python",
                                                          "-p",
                                                          "--index-strategy",
                                                          "--index",
                                                          "--default-index",
                                                          "--torch-backend",
                                                          "--keyring-provider",
                                                          "--group",
                                                          "--extra",
                                                          "--overrides",
                                                          "--build-constraint",
                                                          "--resolution",
                                                          "--prerelease"};

const std::set<std::string, std::less<>> kCondaValueOptions{
    "-c",     "--channel",     "-n",       "--name",     "-p",      "--prefix",
    "--file", "--repodata-fn", "--solver", "--platform", "--subdir"};

class InstallScanner {
 public:
  InstallScanner(const std::string& path, const LogicalLine& line, const migrate::sdk::LineIndex& index,
                 const std::string& source, const std::map<std::string, std::string>& variables,
                 Manifests& out, const std::set<std::string, std::less<>>& pip_wrappers)
      : path_(path),
        line_(line),
        index_(index),
        source_(source),
        variables_(variables),
        out_(out),
        pip_wrappers_(pip_wrappers) {}

  void scan(std::size_t begin) {
    const auto words = shellWords(line_.text, begin);
    std::vector<Word> cmd;
    for (const Word& w : words) {
      if (w.op) {
        command(cmd);
        cmd.clear();
      } else {
        cmd.push_back(w);
      }
    }
    command(cmd);
  }

 private:
  migrate::sdk::SourceRange range(const Word& w) const { return line_.range(index_, w.begin, w.end); }

  /// `${CONDA_RUN} python -m pip install …`, `$SUDO apt-get install …`: a word that is only a
  /// variable, running the program named by the next word (an interpreter held in a variable,
  /// `$python -m pip`, is no prefix: its next word is an option).
  static bool commandPrefix(const std::vector<Word>& w, std::size_t i) {
    if (i + 1 >= w.size() || !withoutVariables(w[i].value).empty() || w[i].value.empty() ||
        w[i].value[0] != '$')
      return false;
    const std::string next = basename(w[i + 1].value);
    return isVersioned(next, "python") || isVersioned(next, "pip") || next == "conda" || next == "mamba" ||
           next == "micromamba" || next == "uv" || next == "apt-get" || next == "apt" || next == "git";
  }

  void command(const std::vector<Word>& w) {
    std::size_t i = 0;
    while (i < w.size()) {
      const std::string& v = w[i].value;
      if (const auto eq = v.find('=');
          eq != std::string::npos && isIndexVariable(v.substr(0, eq)) && startsWithAssignment(v)) {
        // PIP_EXTRA_INDEX_URL=… pip install, UV_TORCH_BACKEND=cu126 uv pip install
        out_.indexes.push_back({path_, range(w[i]), substituteVariables(v.substr(eq + 1), variables_),
                                v.substr(0, eq), source_});
      }
      // WHEEL_URL=".../flash_attn-2.7.4+cu12torch2.6-….whl" (installed later as $WHEEL_URL): the
      // wheel is named where it is written.
      if (const auto eq = v.find('='); eq != std::string::npos && startsWithAssignment(v) && isWheelName(v))
        dependency(w[i], substituteVariables(v.substr(eq + 1), variables_), false);
      if (startsWithAssignment(v) || v == "sudo" || v == "env" || v == "time" || v == "nohup" ||
          v == "exec" || v == "command" || v == "then" || v == "do" || v == "else" || v == "{" ||
          (i > 0 && w[i - 1].value == "sudo" && !v.empty() && v[0] == '-') || commandPrefix(w, i)) {
        ++i;
        continue;
      }
      // `conda run -n env pip install xformers`: the command runs in the environment.
      if ((v == "conda" || v == "mamba" || v == "micromamba") && i + 1 < w.size() &&
          w[i + 1].value == "run") {
        i += 2;
        while (i < w.size() && !w[i].value.empty() && w[i].value[0] == '-') {
          const std::string& o = w[i].value;
          i += (o == "-n" || o == "--name" || o == "-p" || o == "--prefix" || o == "--cwd") ? 2 : 1;
        }
        continue;
      }
      break;
    }
    if (i >= w.size()) return;
    const std::string prog = basename(withoutVariables(w[i].value));
    std::size_t args = 0;
    bool conda = false;
    if (isVersioned(prog, "pip")) {
      args = i + 1;
    } else if (pip_wrappers_.count(prog)) {
      // `run_pip_quiet torch --index-url …/cu128`: the function runs `pip install "$@"`.
      pipArguments(w, i + 1);
      return;
    } else if ((isVersioned(prog, "python") || (prog.empty() && w[i].value.find('$') != std::string::npos)) &&
               i + 2 < w.size() && w[i + 1].value == "-m" &&
               isVersioned(withoutVariables(w[i + 2].value), "pip")) {
      // also an interpreter held in a variable: `$python_executable -m pip install flash_attn`
      args = i + 3;
    } else if ((prog == "uv" || (prog.empty() && w[i].value.find('$') != std::string::npos)) &&
               i + 1 < w.size() && w[i + 1].value == "pip") {
      // also uv held in a variable: `$(UV) pip install flash-attn` in a Makefile recipe
      args = i + 2;
    } else if (prog == "uv" && i + 1 < w.size() && (w[i + 1].value == "sync" || w[i + 1].value == "run")) {
      // The options up to the first other word (`uv run … python -m x` runs x with its own).
      for (std::size_t k = i + 2; k < w.size() && !w[k].value.empty() && w[k].value[0] == '-'; ++k) {
        std::string opt = w[k].value;
        if (const auto [value, word] = optionValue(w, k, opt, kPipValueOptions);
            word && (opt == "--extra" || opt == "--group"))
          extra(*word, value);
      }
      return;
    } else if (prog == "conda" || prog == "mamba" || prog == "micromamba") {
      args = i + 1;
      conda = true;
    } else if (prog == "apt-get" || prog == "apt" || prog == "yum" || prog == "dnf") {
      systemPackages(w, i + 1, true);
      return;
    } else if (prog == "git" && i + 1 < w.size() && w[i + 1].value == "clone") {
      clonedPackage(w, i + 2);
      return;
    } else if (prog == "dpkg-query" || prog == "dpkg") {
      // `dpkg-query -W libnccl2 libnccl-dev`, `dpkg -s cuda-toolkit-12-1`: a step that fails
      // where the package is not installed.
      systemPackages(w, i + 1, false);
      return;
    } else {
      return;
    }
    // Global options before the sub-command.
    while (args < w.size() && !w[args].value.empty() && w[args].value[0] == '-') ++args;
    if (args >= w.size()) return;
    const std::string& sub = w[args].value;
    if (sub != "install" && !(conda && sub == "create")) return;
    if (conda) {
      condaArguments(w, args + 1);
    } else {
      pipArguments(w, args + 1);
    }
  }

  /// The value of option `opt` (the text of w[i]): `--opt=value` (then `opt` loses its value) or,
  /// for options in `takes_value`, the next word (then `i` moves past it). No value: nullptr.
  std::pair<std::string, const Word*> optionValue(
      const std::vector<Word>& w, std::size_t& i, std::string& opt,
      const std::set<std::string, std::less<>>& takes_value) const {
    const auto eq = opt.find('=');
    if (eq != std::string::npos && opt.rfind("--", 0) == 0) {
      std::string value = opt.substr(eq + 1);
      opt = opt.substr(0, eq);
      return {value, &w[i]};
    }
    if (takes_value.count(opt) && i + 1 < w.size()) {
      const Word* word = &w[++i];
      return {substituteVariables(word->value, variables_), word};
    }
    return {{}, nullptr};
  }

  void pipArguments(const std::vector<Word>& w, std::size_t i) {
    for (; i < w.size(); ++i) {
      std::string opt = substituteVariables(w[i].value, variables_);
      if (!opt.empty() && opt[0] == '-') {
        auto [value, value_word] = optionValue(w, i, opt, kPipValueOptions);
        if (!value_word && opt.size() > 2 && opt[1] != '-' &&
            std::string_view("rcefi").find(opt[1]) != std::string_view::npos) {
          value = opt.substr(2);  // -rrequirements.txt
          opt = opt.substr(0, 2);
          value_word = &w[i];
        }
        if (!value_word) continue;
        if (opt == "-r" || opt == "--requirement" || opt == "-c" || opt == "--constraint") {
          out_.includes.push_back({path_, line_.line, value, opt == "-c" || opt == "--constraint", false});
        } else if (opt == "-e" || opt == "--editable") {
          dependency(*value_word, value, true);
        } else if (opt == "--extra" || opt == "--group") {
          extra(*value_word, value);
        } else if (opt == "-i" || opt == "--index-url" || opt == "--extra-index-url" || opt == "-f" ||
                   opt == "--find-links" || opt == "--index" || opt == "--default-index" ||
                   opt == "--torch-backend") {
          const std::string canonical = opt == "-i" ? "--index-url" : opt == "-f" ? "--find-links" : opt;
          out_.indexes.push_back({path_, range(*value_word), value, canonical, source_});
        }
        continue;
      }
      dependency(w[i], opt, false);
    }
  }

  void extra(const Word& word, const std::string& value) {
    // `--extra=${X}` keeps the whole word: the value's own text is after the '='.
    std::string written = word.value;
    if (const auto eq = written.find('='); written.rfind("--", 0) == 0 && eq != std::string::npos)
      written = written.substr(eq + 1);
    out_.extras.push_back({path_, range(word), written, value});
  }

  void dependency(const Word& word, std::string value, bool editable) {
    if (value.empty() || value[0] == '$' || value[0] == '`') return;  // a variable: unknown here
    // `/wheels/${WHEEL}` with `ARG WHEEL=….whl`: the wheel is reported where it is named.
    if (isWheelName(value) && !isWheelName(word.value) && word.value.find('$') != std::string::npos) return;
    // "pytorch-triton==$(cat triton_version.txt)": a version computed by the step; the name stays.
    if (const auto at = value.find("$("); at != std::string::npos) {
      value.resize(at);
      while (!value.empty() && std::string_view("=<>!~ ").find(value.back()) != std::string_view::npos)
        value.pop_back();
    }
    if (ownExtras(word, value)) return;
    auto req = parseRequirement(value);
    if (!req || (editable && (!req->name_from_url || req->local_path))) return;  // -e DIR: own code
    DependencyUse d;
    d.file = path_;
    d.range = range(word);
    d.written = word.value;
    d.req = *req;
    d.source = source_;
    d.section = "pip install";
    d.editable = editable;
    out_.dependencies.push_back(std::move(d));
  }

  /// `pip install -e ".[flash-attn]"`: the project's own tree with extras. An extra named after a
  /// package the table calls unsupported or in need of replacement installs that package (projects
  /// name such extras after what they pull in); it is reported as that dependency, at the word.
  bool ownExtras(const Word& word, const std::string& value) {
    const std::size_t open = value.find('[');
    if (open == std::string::npos || value.back() != ']') return false;
    const std::string tree = value.substr(0, open);
    if (!(tree == "." || tree == ".." || tree.rfind("./", 0) == 0 || tree.rfind("../", 0) == 0 ||
          tree.rfind('/', 0) == 0))
      return false;
    std::stringstream names(value.substr(open + 1, value.size() - open - 2));
    for (std::string name; std::getline(names, name, ',');) {
      name.erase(std::remove_if(name.begin(), name.end(),
                                [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
                 name.end());
      flaggedPackage(word, name, "", "pip install (an extra of the project)");
    }
    return true;
  }

  /// Reports `name` at `word` when the table calls it unsupported or in need of replacement.
  void flaggedPackage(const Word& word, const std::string& name, std::string spec, const char* section) {
    const Lookup look = lookupPackage(name);
    if (!look.flagged()) return;
    DependencyUse d;
    d.file = path_;
    d.range = range(word);
    d.written = word.value;
    d.req.name = name;
    d.req.spec = std::move(spec);
    d.source = source_;
    d.section = section;
    out_.dependencies.push_back(std::move(d));
  }

  /// apt/yum installs and dpkg queries: only the NVIDIA packages (CUDA toolkit, cuDNN, NCCL,
  /// TensorRT) are dependencies of the migration; the others (git, curl, …) are not reported.
  void systemPackages(const std::vector<Word>& w, std::size_t i, bool install) {
    while (i < w.size() && !w[i].value.empty() && w[i].value[0] == '-') ++i;
    if (install && (i >= w.size() || w[i++].value != "install")) return;
    for (; i < w.size(); ++i) {
      const std::string& v = w[i].value;
      if (v.empty() || v[0] == '-' || v[0] == '$') continue;
      const std::string name = v.substr(0, v.find_first_of("=:"));
      flaggedPackage(w[i], name, v.substr(name.size()), "system packages");
    }
  }

  /// `git clone https://github.com/NVIDIA/apex`: a step that fetches a package's source to build
  /// it. Only packages the table calls unsupported or in need of replacement are reported: a clone
  /// of anything else (the project itself, a dataset) is not a dependency of the migration.
  void clonedPackage(const std::vector<Word>& w, std::size_t i) {
    static const std::set<std::string, std::less<>> kWithValue = {"-b",
                                                                  "--branch",
                                                                  "-o",
                                                                  "--origin",
                                                                  "-c",
                                                                  "--config",
                                                                  "--depth",
                                                                  "--reference",
                                                                  "-j",
                                                                  "--jobs",
                                                                  "--filter",
                                                                  "--template",
                                                                  "-u",
                                                                  "--upload-pack",
                                                                  "--shallow-since",
                                                                  "--shallow-exclude",
                                                                  "--separate-git-dir"};
    for (; i < w.size(); ++i) {
      const std::string& v = w[i].value;
      if (!v.empty() && v[0] == '-') {
        if (kWithValue.count(v)) ++i;
        continue;
      }
      const std::string url = substituteVariables(v, variables_);
      if (url.find("://") == std::string::npos && url.rfind("git@", 0) != 0) return;
      const auto req = parseRequirement("git+" + url);
      if (!req || req->name.empty()) return;
      const Lookup look = lookupPackage(req->name);
      if (!look.flagged()) return;
      DependencyUse d;
      d.file = path_;
      d.range = range(w[i]);
      d.written = v;
      d.req = *req;
      d.source = source_;
      d.section = "git clone";
      out_.dependencies.push_back(std::move(d));
      return;
    }
  }

  void condaArguments(const std::vector<Word>& w, std::size_t i) {
    for (; i < w.size(); ++i) {
      std::string opt = substituteVariables(w[i].value, variables_);
      if (!opt.empty() && opt[0] == '-') {
        const auto [value, value_word] = optionValue(w, i, opt, kCondaValueOptions);
        if (value_word && (opt == "-c" || opt == "--channel"))
          out_.indexes.push_back({path_, range(*value_word), value, "channel", source_});
        continue;
      }
      if (opt.empty() || opt[0] == '$') continue;
      auto req = parseCondaSpec(opt);
      if (!req) continue;
      DependencyUse d;
      d.file = path_;
      d.range = range(w[i]);
      d.written = opt;
      d.req = *req;
      d.dialect = SpecDialect::Conda;
      d.source = source_;
      d.section = "conda install";
      d.conda = true;
      out_.dependencies.push_back(std::move(d));
    }
  }

  const std::string& path_;
  const LogicalLine& line_;
  const migrate::sdk::LineIndex& index_;
  const std::string& source_;
  const std::map<std::string, std::string>& variables_;
  Manifests& out_;
  const std::set<std::string, std::less<>>& pip_wrappers_;
};

}  // namespace

bool isIndexVariable(const std::string& name) {
  return name == "PIP_INDEX_URL" || name == "PIP_EXTRA_INDEX_URL" || name == "PIP_FIND_LINKS" ||
         name == "UV_INDEX_URL" || name == "UV_EXTRA_INDEX_URL" || name == "UV_INDEX" ||
         name == "UV_DEFAULT_INDEX" || name == "UV_FIND_LINKS" || name == "UV_TORCH_BACKEND";
}

void readInstallCommands(const std::string& path, const LogicalLine& line, std::size_t begin,
                         const migrate::sdk::LineIndex& index, const std::string& source,
                         const std::map<std::string, std::string>& variables, Manifests& out,
                         const std::set<std::string, std::less<>>& pip_wrappers) {
  InstallScanner(path, line, index, source, variables, out, pip_wrappers).scan(begin);
}

namespace {

/// The script's functions whose body runs `pip install "$@"` (`run_pip_quiet() { … pip install
/// "$@" … }`): a call of one installs its arguments.
std::set<std::string, std::less<>> pipWrappers(const std::vector<LogicalLine>& lines) {
  static const RE2 header(
      R"([[:space:]]*(?:function[[:space:]]+)?([A-Za-z_][A-Za-z0-9_-]*)[[:space:]]*\(\).*)",
      plugin_support::bytePattern());
  static const RE2 forwards(
      R"((?:^|[^A-Za-z0-9_-])(?:pip3?|-m[[:space:]]+pip|uv[[:space:]]+pip)[[:space:]]+install[[:space:]].*\$\{?@)",
      plugin_support::bytePattern());
  std::set<std::string, std::less<>> out;
  std::string current;
  for (const LogicalLine& ll : lines) {
    re2::StringPiece name;
    if (RE2::FullMatch(ll.text, header, &name)) {
      current.assign(name.data(), name.size());
    } else if (!ll.text.empty() && ll.text[0] == '}') {
      current.clear();
    }
    if (!current.empty() && RE2::PartialMatch(ll.text, forwards)) out.insert(current);
    const auto last = ll.text.find_last_not_of(" \t;");
    if (last != std::string::npos && ll.text[last] == '}') current.clear();  // `f() { …; }` on one line
  }
  return out;
}

}  // namespace

/// `module load cuda/11.7`, `ml cuda`, `module swap gcc cuda/12.1`, `spack load cuda@12`: the
/// job script sets up the CUDA toolkit (CANN's set_env.sh on an Ascend cluster).
void readToolkitModules(const std::string& path, const LogicalLine& line, std::size_t begin,
                        const migrate::sdk::LineIndex& index, Manifests& out) {
  static const RE2 cuda_module(
      R"((?i)(?:^|/)(?:cuda|cudatoolkit|cuda-toolkit|cudnn|nccl|nvhpc|nvidia-hpc-sdk)(?:$|[/@\-]))",
      plugin_support::bytePattern());
  const std::vector<Word> words = shellWords(line.text, begin);
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i].op) continue;
    std::size_t args = 0;
    std::string command;
    if ((words[i].value == "module" || words[i].value == "spack") && i + 1 < words.size() &&
        (words[i + 1].value == "load" || words[i + 1].value == "add" || words[i + 1].value == "swap" ||
         words[i + 1].value == "switch")) {
      command = words[i].value + " " + words[i + 1].value;
      args = i + 2;
    } else if (words[i].value == "ml" && (i == 0 || words[i - 1].op)) {
      command = "ml";
      args = i + 1;
    } else {
      continue;
    }
    for (std::size_t j = args; j < words.size() && !words[j].op; ++j) {
      const std::string& w = words[j].value;
      if (w.empty() || w[0] == '-' || !RE2::PartialMatch(w, cuda_module)) continue;
      out.toolkit_modules.push_back({path, line.range(index, words[j].begin, words[j].end), command, w});
    }
    i = args;
  }
}

void readNvidiaAptSteps(const std::string& path, const LogicalLine& line, std::size_t begin,
                        const migrate::sdk::LineIndex& index, Manifests& out) {
  static const RE2 kStep(
      R"((sources\.list\.d/(?:cuda|nvidia)[\w.-]*\.list|https?://developer\.download\.nvidia\.com/compute/(?:cuda|machine-learning)/repos[^\s"';&|]*|https?://nvidia\.github\.io/(?:nvidia-docker|libnvidia-container|nvidia-container-runtime)[^\s"';&|]*|\bcuda-keyring[\w.+-]*|\b(?:cuda|nv-tensorrt|cudnn|nccl)(?:-local)?-repo-[\w.+*-]+|\bnvidia-machine-learning-repo[\w.+-]*))",
      plugin_support::bytePattern());
  if (begin >= line.text.size()) return;
  const std::string_view rest(line.text.data() + begin, line.text.size() - begin);
  std::set<std::uint32_t> lines;
  plugin_support::forEachMatch(kStep, rest, [&](const auto& m) {
    const auto at = static_cast<std::size_t>(m[1].data() - line.text.data());
    const migrate::sdk::SourceRange where = line.range(index, at, at + m[1].size());
    if (lines.insert(where.line).second) out.nvidia_apt.push_back({path, where, plugin_support::str(m[1])});
  });
}

void readGpuContainerRuns(const std::string& path, const LogicalLine& line, std::size_t begin,
                          const migrate::sdk::LineIndex& index, Manifests& out) {
  // docker's options that take no value: every other option before the image takes one (`-v x`).
  static const std::set<std::string> kFlags = {
      "-i",          "-t",       "-it",           "-ti",    "-d",
      "-dit",        "--rm",     "--privileged",  "--init", "-P",
      "--read-only", "--detach", "--interactive", "--tty",  "--no-healthcheck"};
  const std::vector<Word> words = shellWords(line.text, begin);
  auto option = [](const std::string& v) { return !v.empty() && v[0] == '-'; };
  auto report = [&](const Word& w) {
    const migrate::sdk::SourceRange where = line.range(index, w.begin, w.end);
    for (const auto& g : out.gpu_containers)
      if (g.file == path && g.range.line == where.line) return;
    out.gpu_containers.push_back({path, where, line.text.substr(w.begin, w.end - w.begin)});
  };
  bool command_start = true;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const Word& w = words[i];
    if (w.op) {
      command_start = true;
      continue;
    }
    if (!command_start) continue;
    if (w.value == "sudo" || w.value == "exec" || w.value.find('=') != std::string::npos) continue;
    command_start = false;
    if (w.value == "nvidia-docker") {
      report(w);
      continue;
    }
    // `apptainer exec --nv img.sif …` (also singularity's): the host's NVIDIA GPUs and driver
    // libraries bound into the container.
    if ((w.value == "apptainer" || w.value == "singularity") && i + 1 < words.size() &&
        (words[i + 1].value == "exec" || words[i + 1].value == "run" || words[i + 1].value == "shell" ||
         words[i + 1].value == "instance")) {
      for (std::size_t j = i + 2; j < words.size() && !words[j].op; ++j)
        if (words[j].value == "--nv" || words[j].value == "--nvccli") {
          report(words[j]);
          break;
        }
      continue;
    }
    if (w.value != "docker" && w.value != "podman") continue;
    std::size_t j = i + 1;
    // `docker pull IMAGE` (`docker image pull`): the image a guide fetches to run the project in.
    if (j < words.size() && words[j].value == "image") ++j;
    if (j < words.size() && words[j].value == "pull") {
      for (++j; j < words.size() && !words[j].op && option(words[j].value); ++j)
        if (words[j].value == "--platform") ++j;  // its value
      if (j < words.size() && !words[j].op && !words[j].value.empty() &&
          words[j].value.find('$') == std::string::npos)
        out.images.push_back({path, line.range(index, words[j].begin, words[j].end), words[j].value,
                              words[j].value, "docker pull"});
      continue;
    }
    if (j < words.size() && words[j].value == "container") ++j;
    if (j >= words.size() || (words[j].value != "run" && words[j].value != "create")) continue;
    bool gpus = false;
    for (++j; j < words.size() && !words[j].op && option(words[j].value); ++j) {
      const std::string& o = words[j].value;
      const bool runtime_next = o == "--runtime" && j + 1 < words.size() && words[j + 1].value == "nvidia";
      // An NVIDIA device node passed in by hand (`--device /dev/nvidia0`, `--device=/dev/nvidiactl`).
      const bool nvidia_node =
          o.rfind("--device=/dev/nvidia", 0) == 0 ||
          (o == "--device" && j + 1 < words.size() && words[j + 1].value.rfind("/dev/nvidia", 0) == 0);
      if (!gpus && (o == "--gpus" || o.rfind("--gpus=", 0) == 0 || o == "--runtime=nvidia" || runtime_next ||
                    nvidia_node)) {
        report(words[j]);
        gpus = true;
      }
      if (kFlags.count(o) == 0 && o.find('=') == std::string::npos) ++j;  // the option's value
    }
    // The image, after the options: DEP-010 judges it as it judges a Dockerfile's FROM.
    if (j < words.size() && !words[j].op && !words[j].value.empty() &&
        words[j].value.find('$') == std::string::npos) {
      const std::string& image = words[j].value;
      out.images.push_back(
          {path, line.range(index, words[j].begin, words[j].end), image, image, "docker run"});
    }
  }
}

void readInlinePythonImports(const std::string& path, const LogicalLine& line, std::size_t begin,
                             const migrate::sdk::LineIndex& index, Manifests& out) {
  if (line.text.find("-c", begin) == std::string::npos ||
      line.text.find("import", begin) == std::string::npos ||
      plugin_support::isShellOutputCommand(std::string_view(line.text).substr(begin)))  // echo python -c …
    return;
  static const RE2 kInline(
      R"re((?:^|[[:space:];&|(`])(?:\S*/)?python[0-9.]*[[:space:]]+-c[[:space:]]*(?:"([^"]*)"|'([^']*)'))re",
      plugin_support::bytePattern());
  static const RE2 kImport(
      R"((?:^|[;\n][[:space:]]*)(?:import[[:space:]]+([\w., \t]+)|from[[:space:]]+([\w.]+)[[:space:]]+import\b))",
      plugin_support::bytePattern());
  static const RE2 kModule(R"(([A-Za-z_][\w.]*)(?:[[:space:]]+as[[:space:]]+\w+)?)",
                           plugin_support::bytePattern());
  auto keep = [&](re2::StringPiece module) {
    const auto at = static_cast<std::size_t>(module.data() - line.text.data());
    out.config_targets.push_back({path, line.range(index, at, at + module.size()),
                                  std::string(module.data(), module.size()), "inline python"});
  };
  re2::StringPiece rest(line.text.data() + begin, line.text.size() - begin);
  re2::StringPiece dq, sq;
  while (RE2::FindAndConsume(&rest, kInline, &dq, &sq)) {
    re2::StringPiece statements = dq.data() ? dq : sq;
    re2::StringPiece names, from;
    while (RE2::FindAndConsume(&statements, kImport, &names, &from)) {
      if (from.data()) {
        keep(from);
        continue;
      }
      // `import a, b as c`: each name up to the next comma.
      std::string_view list(names.data(), names.size());
      for (std::size_t start = 0; start < list.size();) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        re2::StringPiece part(list.data() + start, comma - start), module;
        if (RE2::PartialMatch(part, kModule, &module)) keep(module);
        start = comma + 1;
      }
    }
  }
}

/// A whole image reference of a registry that serves CUDA images: `nvidia/cuda:TAG`,
/// `nvcr.io/nvidia/NAME:TAG`, `pytorch/pytorch:TAG` (a tag is required: `pytorch/pytorch` alone is
/// a repository name, not an image).
bool isCudaImageReference(const std::string& v) {
  static const RE2 kRef(R"((?:docker\.io/)?(?:nvidia/cuda|nvcr\.io/nvidia/[\w.-]+|pytorch/pytorch):[\w.-]+)",
                        plugin_support::bytePattern());
  // Every code string of every Python file comes here: only the registries' prefixes reach RE2.
  const std::string_view r = std::string_view(v).substr(v.rfind("docker.io/", 0) == 0 ? 10 : 0);
  const bool registry = r.rfind("nvidia/cuda:", 0) == 0 || r.rfind("nvcr.io/nvidia/", 0) == 0 ||
                        r.rfind("pytorch/pytorch:", 0) == 0;
  return registry && v.size() < 200 && RE2::FullMatch(v, kRef);
}

void containerSetting(const std::string& path, const migrate::sdk::SourceRange& range,
                      const std::string& value, Manifests& out) {
  if (isCudaImageReference(value)) out.images.push_back({path, range, value, value});
  if (value == "nvidia-docker") out.gpu_containers.push_back({path, range, value});
}

const RE2& cudaPathPattern() {
  static const RE2 kPath(
      R"(/usr/local/(?:cuda|nvidia)\b[\w.+/-]*|[\w.${}/-]*/triton/backends/nvidia\b[\w./-]*)",
      plugin_support::bytePattern());
  return kPath;
}

void namedWheel(const std::string& path, const migrate::sdk::SourceRange& range, const std::string& written,
                const std::string& resolved, const std::string& source, const std::string& section,
                Manifests& out) {
  auto req = parseRequirement(resolved);
  if (!req) return;
  DependencyUse d;
  d.file = path;
  d.range = range;
  d.written = written;
  d.req = *req;
  d.source = source;
  d.section = section;
  out.dependencies.push_back(std::move(d));
}

void readShellScript(const std::string& path, std::string_view text, Manifests& out) {
  const migrate::sdk::LineIndex index(text);
  // Simple assignments (`NAME=value`, `export NAME=value`), substituted in later install commands.
  // RE2: a line of megabytes cannot overflow the stack (std::regex recursed once per character).
  static const RE2 assignment(
      R"([[:space:]]*(?:export[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*)=("[^"$`]*"|'[^']*'|[^[:space:]"'$`;&|]*)[[:space:]]*)",
      plugin_support::bytePattern());
  std::map<std::string, std::string> variables;
  const std::vector<LogicalLine> lines = logicalLines(text);
  const auto pip_wrappers = pipWrappers(lines);
  for (const LogicalLine& ll : lines) {
    const auto first = ll.text.find_first_not_of(" \t");
    if (first == std::string::npos || ll.text[first] == '#') continue;
    re2::StringPiece name, value;
    if (RE2::FullMatch(ll.text, assignment, &name, &value)) {
      const std::string key(name.data(), name.size());
      std::string v(value.data(), value.size());
      if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'')) v = v.substr(1, v.size() - 2);
      variables[key] = v;
      const auto at = static_cast<std::size_t>(value.data() - ll.text.data());
      if (isIndexVariable(key))
        out.indexes.push_back({path, ll.range(index, at, at + value.size()), v, key, "shell"});
      // `WHEEL=flash_attn-…+cu12….whl`, installed later as $WHEEL: the wheel is a dependency where
      // it is named (the install of `$WHEEL` is not reported again).
      if (isWheelName(v))
        namedWheel(path, ll.range(index, at, at + value.size()), v, v, "shell", "pip install", out);
      containerSetting(path, ll.range(index, at, at + value.size()), v, out);
      continue;
    }
    readToolkitModules(path, ll, first, index, out);
    readNvidiaAptSteps(path, ll, first, index, out);
    readGpuContainerRuns(path, ll, first, index, out);
    readInlinePythonImports(path, ll, first, index, out);
    if (ll.text.find("install") == std::string::npos && ll.text.find("dpkg") == std::string::npos &&
        ll.text.find("clone") == std::string::npos && ll.text.find("uv sync") == std::string::npos &&
        ll.text.find("create") == std::string::npos &&  // `conda create -n env pytorch-cuda=11.7 …`
        std::none_of(pip_wrappers.begin(), pip_wrappers.end(),
                     [&](const std::string& f) { return ll.text.find(f) != std::string::npos; }))
      continue;
    readInstallCommands(path, ll, first, index, "shell", variables, out, pip_wrappers);
  }
  cudaExtras("shell", {}, out);
}

}  // namespace deps
