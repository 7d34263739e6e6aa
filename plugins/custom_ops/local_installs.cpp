// Local installs in build steps and what the repository's setup.py files build (local_installs.hpp).

#include "local_installs.hpp"

#include <cctype>
#include <set>

#include "byte_regex.hpp"

namespace custom_ops {

namespace {

/// The local directory (or VCS source) the arguments of one `pip install` name, up to the next
/// command.
std::optional<LocalInstall> pipLocalTarget(std::string_view args) {
  static const std::set<std::string> kWithValue = {"-r",
                                                   "--requirement",
                                                   "-c",
                                                   "--constraint",
                                                   "-f",
                                                   "--find-links",
                                                   "-i",
                                                   "--index-url",
                                                   "--extra-index-url",
                                                   "-t",
                                                   "--target",
                                                   "--prefix",
                                                   "--root",
                                                   "--config-settings",
                                                   "-C"};
  std::vector<std::string> tokens;
  std::size_t i = 0;
  while (i < args.size()) {
    while (i < args.size() && std::isspace(static_cast<unsigned char>(args[i]))) ++i;
    std::size_t j = i;
    while (j < args.size() && !std::isspace(static_cast<unsigned char>(args[j]))) ++j;
    if (j > i) tokens.emplace_back(args.substr(i, j - i));
    i = j;
  }
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    std::string t = tokens[k];
    if (t == "&&" || t == "||" || t == ";" || t == "|") break;  // the next command
    if (kWithValue.count(t)) {
      ++k;
      continue;
    }
    if (startsWith(t, "-")) continue;
    while (!t.empty() && (t.front() == '"' || t.front() == '\'')) t.erase(0, 1);
    while (!t.empty() && (t.back() == '"' || t.back() == '\'')) t.pop_back();
    LocalInstall install;
    if (startsWith(t, "git+")) {
      install.target = t.substr(4);
      install.vcs = true;
      return install;
    }
    if (const auto open = t.find('['); open != std::string::npos && endsWith(t, "]")) {
      install.extras = t.substr(open + 1, t.size() - open - 2);
      t.resize(open);
    }
    const bool local = t == "." || startsWith(t, "./") || startsWith(t, "../") || startsWith(t, "/");
    if (local && !endsWith(t, ".txt") && !endsWith(t, ".whl") && !endsWith(t, ".tar.gz")) {
      install.target = t;
      return install;
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<LocalInstall> pipLocalTargets(std::string_view line, bool& open) {
  // pip's own options may stand before the command (`pip --no-cache-dir install`).
  static const RE2 kPipInstall(
      R"(\bpip[0-9.]*(?:[[:space:]]+--?[A-Za-z][\w-]*(?:=\S+)?)*[[:space:]]+install([[:space:]]|$))",
      bytePattern());
  std::vector<LocalInstall> out;
  if (open)
    if (auto install = pipLocalTarget(line)) out.push_back(std::move(*install));
  const std::size_t end = line.find_last_not_of(" \t\r");
  const bool continued = end != std::string_view::npos && line[end] == '\\';
  open = open && out.empty() && continued;
  re2::StringPiece rest(line.data(), line.size());
  while (RE2::FindAndConsume(&rest, kPipInstall)) {
    if (auto install = pipLocalTarget(std::string_view(rest.data(), rest.size())))
      out.push_back(std::move(*install));
    else
      open = continued && std::string_view(rest.data(), rest.size()).find("&&") == std::string_view::npos;
  }
  return out;
}

std::string setupPyVerb(std::string_view line) {
  // RE2: a line of megabytes cannot overflow the stack (std::regex recursed once per character).
  static const RE2 kSetupPy(R"(\bsetup\.py[[:space:]]+(install|build_ext|build|develop|bdist_wheel)\b)",
                            bytePattern());
  std::string verb;
  RE2::PartialMatch(line, kSetupPy, &verb);
  return verb;
}

bool namesCudaWork(std::string_view text) {
  static const RE2 kCudaWork(R"((?i)cuda|nvcc|flash|kernel|peer_mem|nccl|cutlass|gencode|arch_list)",
                             bytePattern());
  static const RE2 kUrl(R"([A-Za-z][\w+.-]*://\S+)", bytePattern());
  std::string rest(text);
  RE2::GlobalReplace(&rest, kUrl, "");
  return RE2::PartialMatch(rest, kCudaWork);
}

bool switchesBuildOn(std::string_view line) {
  static const RE2 kBuildSwitch(
      R"((?:^|[[:space:];&|])([A-Z0-9_]*(?:BUILD|EXT|CUDA|KERNEL|OPS)[A-Z0-9_]*)=(?:"?)(?:1|true|TRUE|True|ON|yes)(?:"?)(?:[[:space:]]|$))",
      bytePattern());
  // A switch that turns the build off (`MINFERENCE_SKIP_CUDA_BUILD=TRUE`, `DISABLE_EXT=1`) is none.
  static const RE2 kOff(R"((?:^|_)(?:SKIP|DISABLE|NO|WITHOUT)(?:_|$))", bytePattern());
  re2::StringPiece rest(line.data(), line.size());
  for (std::string name; RE2::FindAndConsume(&rest, kBuildSwitch, &name);)
    if (!RE2::PartialMatch(name, kOff)) return true;
  return false;
}

bool switchesCudaOff(std::string_view line) {
  static const RE2 kCpuOnly(
      R"((?:^|[[:space:];&|])[A-Z0-9_]*(?:ONLY_CPU|CPU_ONLY|NO_CUDA|SKIP_CUDA|DISABLE_CUDA|WITHOUT_CUDA)[A-Z0-9_]*=(?:"?)(?:1|true|TRUE|True|ON|yes)(?:"?)(?:[[:space:]]|$))",
      bytePattern());
  return RE2::PartialMatch(line, kCpuOnly);
}

std::vector<std::pair<std::size_t, std::string>> cdCommands(std::string_view line) {
  static const RE2 kCd(R"((?:^|[[:space:];&|(])cd[[:space:]]+["']?([^[:space:]"'&;|)]+))", bytePattern());
  std::vector<std::pair<std::size_t, std::string>> out;
  re2::StringPiece rest(line.data(), line.size());
  for (re2::StringPiece target; RE2::FindAndConsume(&rest, kCd, &target);)
    out.emplace_back(static_cast<std::size_t>(target.data() - line.data()),
                     std::string(target.data(), target.size()));
  return out;
}

std::string changeDirectory(std::string cwd, std::string_view target) {
  if (target.empty() || target == "-" || target == "~") return cwd;
  if (target.front() == '/' || target.front() == '$' || target.front() == '~') cwd.clear();
  std::size_t begin = 0;
  while (begin <= target.size()) {
    const std::size_t end = std::min(target.find('/', begin), target.size());
    const std::string_view part = target.substr(begin, end - begin);
    if (part == "..") {
      const auto slash = cwd.rfind('/');
      if (cwd.empty() || baseName(cwd) == "..")
        cwd.append(cwd.empty() ? ".." : "/..");
      else
        cwd.erase(slash == std::string::npos ? 0 : slash);
    } else if (!part.empty() && part != ".") {
      if (!cwd.empty()) cwd += '/';
      cwd.append(part);
    }
    if (end == target.size()) break;
    begin = end + 1;
  }
  return cwd;
}

std::optional<CMakeConfigure> cmakeConfigure(std::string_view line) {
  static const RE2 kCommand(R"((?:^|[;&|(`]|\bthen\b|\bdo\b)[[:space:]]*((?:\S*/)?cmake)[[:space:]]+)",
                            bytePattern());
  re2::StringPiece rest(line.data(), line.size());
  re2::StringPiece command;
  if (!RE2::FindAndConsume(&rest, kCommand, &command)) return std::nullopt;
  CMakeConfigure configure;
  configure.at = static_cast<std::size_t>(command.data() - line.data());
  // Its words, up to the end of the command: quotes and substitutions (`…`, $(…)) stay inside one.
  std::vector<std::string> words;
  std::string word;
  char quote = 0;
  int depth = 0;  // $( … ) nesting
  for (std::size_t i = static_cast<std::size_t>(rest.data() - line.data()); i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
      word += c;
    } else if (c == '\'' || c == '"' || c == '`') {
      quote = c;
      word += c;
    } else if (c == '$' && i + 1 < line.size() && line[i + 1] == '(') {
      ++depth;
      word += c;
    } else if (c == ')' && depth > 0) {
      --depth;
      word += c;
    } else if (depth == 0 && (c == ';' || c == '&' || c == '|' || c == ')' || c == '#')) {
      break;
    } else if (depth == 0 && (c == ' ' || c == '\t' || c == '\r' || c == '\\')) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  // Options that take their value as the next word; `--build`/`--install`/`--open` run no configure.
  static const std::set<std::string> kValued = {"-B", "-G", "-C",       "-D",         "-T",
                                                "-A", "-U", "--preset", "--toolchain"};
  for (std::size_t k = 0; k < words.size(); ++k) {
    const std::string& w = words[k];
    if (w == "--build" || w == "--install" || w == "--open" || w == "-E" || w == "-P" || w == "--version" ||
        w == "--help")
      return std::nullopt;
    if (w == "-S" && k + 1 < words.size()) {
      configure.source = words[k + 1];
      return configure;
    }
    if (w.size() > 2 && w.rfind("-S", 0) == 0) {
      configure.source = w.substr(2);
      return configure;
    }
    if (kValued.count(w)) {
      ++k;
      continue;
    }
    if (w[0] != '-') configure.source = w;  // the last operand is the source (or build) folder
  }
  if (configure.source.size() >= 2 && (configure.source.front() == '"' || configure.source.front() == '\'') &&
      configure.source.back() == configure.source.front())
    configure.source = configure.source.substr(1, configure.source.size() - 2);
  if (configure.source.empty()) return std::nullopt;
  return configure;
}

std::string baseName(const std::string& path) {
  const auto slash = path.rfind('/');
  return path.substr(slash == std::string::npos ? 0 : slash + 1);
}

SetupProjects::SetupProjects(const sdk::WorkspaceView& workspace) {
  for (const auto& file : workspace.files()) {
    if (baseName(file.path) != "setup.py") continue;
    const auto text = workspace.read(file.path);
    if (!text) continue;
    const Builds builds =
        text->find("CUDAExtension") != std::string::npos ? Builds::Cuda
        : text->find("ext_modules") != std::string::npos || text->find("CMakeExtension") != std::string::npos
            ? Builds::Native
            : Builds::Nothing;
    cuda_extension_ = cuda_extension_ || builds == Builds::Cuda;
    if (file.path == "setup.py") {
      root_ = builds;
    } else {
      Builds& most = folders_[baseName(file.path.substr(0, file.path.rfind('/')))];
      most = std::max(most, builds);
    }
  }
}

std::optional<SetupProjects::Builds> SetupProjects::folder(const std::string& name) const {
  const auto it = folders_.find(name);
  if (it == folders_.end()) return std::nullopt;
  return it->second;
}

}  // namespace custom_ops
