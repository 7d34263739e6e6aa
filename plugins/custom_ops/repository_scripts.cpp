// The repository's shell scripts that build steps run, and which build CUDA code (repository_scripts.hpp).

#include "repository_scripts.hpp"

#include <algorithm>

#include "byte_regex.hpp"
#include "local_installs.hpp"

namespace custom_ops {

std::string RepositoryScripts::runBy(std::string_view line) const {
  static const RE2 kRuns(
      R"((?:^|[[:space:];&|])(?:(?:bash|sh|source|\.)[[:space:]]+)?((?:\.{0,2}/)?[\w./-]*\w\.sh)\b)",
      bytePattern());
  // `./build.sh --clean-all` removes what a build left; it builds nothing.
  static const RE2 kClean(R"((?:^|[[:space:]])(?:--?)?clean[\w-]*(?:[[:space:]]|$))", bytePattern());
  std::string written;
  const re2::StringPiece text(line.data(), line.size());
  if (!RE2::PartialMatch(text, kRuns, &written) || RE2::PartialMatch(text, kClean)) return {};
  while (startsWith(written, "./")) written.erase(0, 2);
  if (const auto it = resolved_.find(written); it != resolved_.end()) return it->second;
  return resolved_[written] = resolve(written);
}

std::string RepositoryScripts::resolve(const std::string& written) const {
  // As written from the repository's root; else the one file whose path ends with the written
  // path's last two parts (`/app/repo/scripts/x.sh` → scripts/x.sh).
  std::string suffix = written;
  if (const auto last = written.rfind('/'); last != std::string::npos && last > 0)
    if (const auto before = written.rfind('/', last - 1); before != std::string::npos)
      suffix = written.substr(before + 1);
  std::string found;
  for (const auto& f : workspace_.files()) {
    if (f.path == written) return f.path;
    if (suffix.find('/') != std::string::npos && (f.path == suffix || endsWith(f.path, "/" + suffix))) {
      if (!found.empty()) return {};
      found = f.path;
    }
  }
  return found;
}

bool RepositoryScripts::buildsCuda(const std::string& script) const {
  if (const auto it = builds_cuda_.find(script); it != builds_cuda_.end()) return it->second;
  bool build = false, cuda = false;
  if (const auto text = workspace_.read(script)) {
    static const RE2 kBuild(
        R"((?:^|[;&|(`]|\bthen\b|\bdo\b|\$\{?\w+\}?)[[:space:]]*(?:\S*/)?(?:cmake|make|ninja|nvcc)(?:[[:space:]]|$))",
        bytePattern());
    static const RE2 kProse(R"(^[[:space:]]*(?:#|echo\b|printf\b))", bytePattern());
    static const RE2 kDeviceSelection(R"(CUDA_VISIBLE_DEVICES|CUDA_DEVICE_ORDER)", bytePattern());
    std::size_t pos = 0;
    bool pip_open = false;
    while (pos < text->size() && !(build && cuda)) {
      std::size_t nl = text->find('\n', pos);
      if (nl == std::string::npos) nl = text->size();
      std::string line = text->substr(pos, nl - pos);
      pos = nl + 1;
      if (RE2::PartialMatch(line, kProse)) continue;
      RE2::GlobalReplace(&line, kDeviceSelection, "");
      cuda = cuda || namesCudaWork(line);
      if (build) continue;
      const auto installs = pipLocalTargets(line, pip_open);
      build = !setupPyVerb(line).empty() || RE2::PartialMatch(line, kBuild) ||
              std::any_of(installs.begin(), installs.end(), [](const LocalInstall& in) { return !in.vcs; });
    }
  }
  return builds_cuda_[script] = build && cuda;
}

}  // namespace custom_ops
