// Which block of requirements-npu.txt a declaration goes to: runtime, optional extras, build or
// development (see requirements_npu.hpp and README.md, "Emit").

#include <cctype>
#include <set>

#include "requirements_npu.hpp"

namespace deps {
namespace {

/// Lowercase words of a path or section name ("requirements/test-gpu.txt" → requirements, test, gpu, txt).
std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

/// Names that mark development, test, documentation or CI dependencies.
bool marksDevelopment(const std::string& text) {
  static const std::set<std::string> kWords{
      "dev",       "devel", "develop",   "development", "test",  "tests",
      "testing",   "lint",  "linting",   "docs",        "doc",   "documentation",
      "ci",        "bench", "benchmark", "benchmarks",  "style", "typing",
      "typecheck", "qa",    "format",    "formatting",  "check", "mypy"};
  for (const auto& w : words(text))
    if (kWords.count(w)) return true;
  return false;
}

/// The name of an optional group: X of extras_require[X], optional-dependencies.X,
/// dependency-groups.X, poetry's group.X.dependencies, pixi's feature.X.…; empty otherwise.
std::string optionalGroupName(const std::string& section) {
  if (section.rfind("extras_require[", 0) == 0 && section.back() == ']')
    return section.substr(15, section.size() - 16);
  for (const std::string prefix :
       {"project.optional-dependencies.", "dependency-groups.", "tool.poetry.group.", "tool.pixi.feature."}) {
    if (section.rfind(prefix, 0) != 0) continue;
    const std::string rest = section.substr(prefix.size());
    return rest.substr(0, rest.find('.'));
  }
  return {};
}

/// The part of a file's path that says whether it holds development dependencies: the whole
/// path, or only the file name for a file another one includes (its includer decides the rest:
/// `ci/pins.lst` pulled in by requirements.txt is installed with the runtime).
std::string developmentHint(const std::string& file, const std::string& included_by) {
  if (included_by.empty()) return file;
  const auto slash = file.rfind('/');
  return slash == std::string::npos ? file : file.substr(slash + 1);
}

}  // namespace

DeclarationGroup groupOf(const std::string& source, const std::string& file, const std::string& section,
                         const std::string& included_by) {
  DeclarationGroup g;
  std::string where = file + (section.empty() ? "" : " " + section);
  if (!included_by.empty()) where += " (included by " + included_by + ")";
  const std::string optional = optionalGroupName(section);
  if (source == "constraints" || section.find("constraint") != std::string::npos ||
      section.find("override") != std::string::npos) {
    g.skipped = true;
  } else if (section == "setup_requires" || section.rfind("build-system", 0) == 0 ||
             section.find("build-dependencies") != std::string::npos) {
    g.kind = GroupKind::Build;
  } else if (section == "tests_require" || marksDevelopment(section) ||
             section.rfind("tool.hatch.envs.", 0) == 0 ||
             ((source == "requirements" || source == "conda") &&
              marksDevelopment(developmentHint(file, included_by)))) {
    g.kind = GroupKind::Development;
  } else if (!optional.empty()) {
    g.kind = GroupKind::Extra;
  }
  switch (g.kind) {
    case GroupKind::Runtime:
      g.title = "runtime: " + where;
      break;
    case GroupKind::Extra:
      g.title = "optional '" + optional + "': " + where;
      break;
    case GroupKind::Build:
      g.title = "build: " + where;
      break;
    case GroupKind::Development:
      g.title = "development and test: " + where;
      break;
  }
  return g;
}

}  // namespace deps
