// pip's requirements format: requirements*.txt, constraints, the pip: list of environment.yml.

#include <algorithm>
#include <cctype>

#include "manifest.hpp"
#include "migrate/sdk/ci_workflow.hpp"
#include "migrate/sdk/container_recipe.hpp"
#include "migrate/sdk/install_guide.hpp"
#include "plugin_support/shell_text.hpp"

namespace deps {
namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Offset of a pip comment ('#' at the start or after whitespace), or npos.
std::size_t commentStart(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i)
    if (line[i] == '#' && (i == 0 || isSpace(line[i - 1]))) return i;
  return std::string_view::npos;
}

}  // namespace

std::vector<LogicalLine> logicalLines(std::string_view text, bool skip_comment_lines) {
  std::vector<LogicalLine> out;
  LogicalLine cur;
  bool continuing = false;
  std::size_t pos = 0;
  std::uint32_t line_no = 0;
  while (pos <= text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    ++line_no;
    std::size_t stop = end;
    if (stop > pos && text[stop - 1] == '\r') --stop;
    std::string_view content = text.substr(pos, stop - pos);
    const bool comment_only = [&] {
      const auto first = content.find_first_not_of(" \t");
      return first != std::string_view::npos && content[first] == '#';
    }();
    if (continuing && skip_comment_lines && comment_only) {
      // Docker drops comment lines inside a continued instruction.
    } else {
      if (!continuing) {
        cur = LogicalLine{};
        cur.line = line_no;
      } else {
        cur.text += ' ';
        cur.offsets.push_back(static_cast<std::uint32_t>(pos));
      }
      // A comment line of a Dockerfile never continues, whatever it ends with: Docker drops it
      // before it joins lines (`# pip install … \` above a RUN is no part of the RUN).
      // Docker (skip_comment_lines) also continues a line whose backslash has blanks after it.
      std::size_t last = content.size();
      if (skip_comment_lines)
        while (last > 0 && (content[last - 1] == ' ' || content[last - 1] == '\t')) --last;
      const bool continues = !(skip_comment_lines && comment_only) && last > 0 && content[last - 1] == '\\';
      const std::size_t take = continues ? last - 1 : content.size();
      for (std::size_t i = 0; i < take; ++i) {
        cur.text += content[i];
        cur.offsets.push_back(static_cast<std::uint32_t>(pos + i));
      }
      continuing = continues;
      if (!continues) {
        cur.offsets.push_back(static_cast<std::uint32_t>(pos + take));
        out.push_back(std::move(cur));
        cur = LogicalLine{};
      }
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  if (continuing) {
    cur.offsets.push_back(static_cast<std::uint32_t>(text.size()));
    out.push_back(std::move(cur));
  }
  return out;
}

void readRequirementLine(const std::string& path, std::string_view line, std::uint32_t line_no,
                         const RangeOf& range_of, const std::string& source, const std::string& section,
                         Manifests& out) {
  std::size_t b = 0;
  while (b < line.size() && isSpace(line[b])) ++b;
  std::size_t e = line.size();
  while (e > b && isSpace(line[e - 1])) --e;
  if (b >= e) return;
  if (line[b] == '-') {
    std::size_t t = b;
    while (t < e && !isSpace(line[t]) && line[t] != '=') ++t;
    std::string option(line.substr(b, t - b));
    std::size_t vb = t;
    if (option.size() > 2 && option[1] != '-') {  // -rfile.txt
      vb = b + 2;
      option = option.substr(0, 2);
    } else {
      while (vb < e && (isSpace(line[vb]) || line[vb] == '=')) ++vb;
    }
    std::size_t ve = vb;
    while (ve < e && !isSpace(line[ve])) ++ve;
    const std::string value(line.substr(vb, ve - vb));
    if (option == "-r" || option == "--requirement" || option == "-c" || option == "--constraint") {
      if (!value.empty())
        out.includes.push_back({path, line_no, value, option == "-c" || option == "--constraint"});
    } else if (option == "-e" || option == "--editable") {
      // -e takes a path or a VCS URL: a path is the project's own code
      if (auto req = parseRequirement(value); req && req->name_from_url && !req->local_path) {
        DependencyUse d;
        d.file = path;
        d.range = range_of(vb, ve);
        d.written = value;
        d.req = *req;
        d.source = source;
        d.section = section;
        d.editable = true;
        out.dependencies.push_back(std::move(d));
      }
    } else if (option == "-i" || option == "--index-url" || option == "--extra-index-url" || option == "-f" ||
               option == "--find-links") {
      if (!value.empty()) {
        const std::string canonical = option == "-i"   ? "--index-url"
                                      : option == "-f" ? "--find-links"
                                                       : option;
        out.indexes.push_back({path, range_of(vb, ve), value, canonical, source});
      }
    }
    return;
  }
  // Per-requirement options (--hash=…, --config-settings …) end the requirement.
  // The first `\s--?[A-Za-z]` in [b, e), as a loop (std::regex recursed; \s is ECMAScript's).
  const auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
  };
  const auto letter = [&](std::size_t i) {
    return i < e && std::isalpha(static_cast<unsigned char>(line[i]));
  };
  std::size_t req_end = e;
  for (std::size_t i = b; i + 1 < e; ++i)
    if (space(line[i]) && line[i + 1] == '-' &&
        (letter(i + 2) || (i + 2 < e && line[i + 2] == '-' && letter(i + 3)))) {
      req_end = i;
      break;
    }
  while (req_end > b && isSpace(line[req_end - 1])) --req_end;
  const std::string_view written = line.substr(b, req_end - b);
  auto req = parseRequirement(written);
  if (!req) {
    out.diagnostics.push_back({migrate::sdk::Severity::Info, "unparsed-requirement", path, line_no,
                               "not read as a requirement: " + std::string(written)});
    return;
  }
  DependencyUse d;
  d.file = path;
  d.range = range_of(b, req_end);
  d.written = std::string(written);
  d.req = *req;
  d.source = source;
  d.section = section;
  out.dependencies.push_back(std::move(d));
}

void readRequirementsFile(const std::string& path, std::string_view text, bool constraints, Manifests& out) {
  const migrate::sdk::LineIndex index(text);
  for (const LogicalLine& ll : logicalLines(text)) {
    std::string_view line = ll.text;
    line = line.substr(0, commentStart(line));
    readRequirementLine(
        path, line, ll.line, [&](std::size_t b, std::size_t e) { return ll.range(index, b, e); },
        constraints ? "constraints" : "requirements", "", out);
  }
}

bool requirementsByNameOnly(std::string_view path) {
  const std::string p = lower(path);
  const auto slash = p.rfind('/');
  const std::string name = p.substr(slash == std::string::npos ? 0 : slash + 1);
  const std::string dir = slash == std::string::npos ? "" : p.substr(0, slash);
  const std::string parent = dir.substr(dir.rfind('/') == std::string::npos ? 0 : dir.rfind('/') + 1);
  const auto dot = name.rfind('.');
  if (dot == std::string::npos) return false;
  const std::string stem = name.substr(0, dot);
  const std::string ext = name.substr(dot);
  if (ext != ".txt" && ext != ".in") return false;
  auto says = [](const std::string& word) {
    return word.find("depend") != std::string::npos || word == "deps" || word.rfind("deps_", 0) == 0 ||
           word.rfind("deps-", 0) == 0;
  };
  return says(stem) || says(parent);
}

bool looksLikeRequirements(std::string_view text) {
  int requirements = 0;
  for (const LogicalLine& ll : logicalLines(text)) {
    std::string_view line = ll.text;
    line = line.substr(0, commentStart(line));
    while (!line.empty() && isSpace(line.front())) line.remove_prefix(1);
    while (!line.empty() && isSpace(line.back())) line.remove_suffix(1);
    if (line.empty() || line.front() == '-') continue;  // pip options: -r, -f, --index-url
    if (!parseRequirement(line)) return false;
    ++requirements;
  }
  return requirements > 0;
}

bool dockerfileByNameOnly(std::string_view path) {
  const std::string p = lower(path);
  const auto slash = p.rfind('/');
  const std::string name = p.substr(slash == std::string::npos ? 0 : slash + 1);
  const std::string dir = slash == std::string::npos ? "" : p.substr(0, slash);
  if (name.find('.') != std::string::npos) return false;  // a script, a config, a source file
  return name.find("docker") != std::string::npos || dir.find("docker") != std::string::npos;
}

ManifestKind manifestKind(std::string_view path) {
  const std::string p = lower(path);
  const auto slash = p.rfind('/');
  const std::string name = slash == std::string::npos ? p : p.substr(slash + 1);
  const std::string dir = slash == std::string::npos ? "" : p.substr(0, slash);
  const std::string parent = dir.substr(dir.rfind('/') == std::string::npos ? 0 : dir.rfind('/') + 1);
  const auto dot = name.rfind('.');
  const std::string stem = dot == std::string::npos ? name : name.substr(0, dot);
  const std::string ext = dot == std::string::npos ? "" : name.substr(dot);
  if (name == "setup.cfg") return ManifestKind::SetupCfg;
  if (name == "pyproject.toml") return ManifestKind::Pyproject;
  if (plugin_support::isDockerfile(path)) return ManifestKind::Dockerfile;
  if (name == "cog.yaml" || name == "cog.yml") return ManifestKind::CogConfig;
  if (name == "makefile" || name == "gnumakefile" || ext == ".mk") return ManifestKind::Makefile;
  if (migrate::sdk::isCiWorkflow(path)) return ManifestKind::CiWorkflow;
  if (migrate::sdk::isContainerRecipePath(path)) return ManifestKind::ContainerRecipe;
  if (ext == ".yml" || ext == ".yaml") {
    if (stem.find("environment") != std::string::npos || stem.find("conda") != std::string::npos ||
        stem == "env" || stem.rfind("env-", 0) == 0 || stem.rfind("env_", 0) == 0 ||
        stem.rfind("env.", 0) == 0)  // env.gpu.yml, env.cpu.yml
      return ManifestKind::CondaEnvironment;
    return ManifestKind::OtherYaml;
  }
  if (ext == ".sh" || ext == ".bash" || ext == ".zsh" || ext == ".slurm" || ext == ".sbatch")
    return ManifestKind::Shell;
  // The installation guide of the project: its README, an INSTALL file, a docs page on
  // installation or getting started (Markdown only; the shell blocks are read).
  if (migrate::sdk::isInstallGuide(path)) return ManifestKind::InstallDoc;
  // rye writes its locks in pip's format (requirements.lock, requirements-dev.lock).
  if (ext == ".txt" || ext == ".in" || ext == ".pip" || ext == ".lock") {
    if (stem.rfind("constraint", 0) == 0) return ManifestKind::Constraints;
    // "requirment" is a common misspelling of the name (RVC's requirments_cu118_py312.txt).
    for (const char* word : {"requirement", "requirment"})
      if (stem.find(word) != std::string::npos || parent.find(word) != std::string::npos)
        return ManifestKind::Requirements;
  }
  // A file named only `requirements` (no extension), in pip's format (Cream's).
  if (name == "requirements") return ManifestKind::Requirements;
  return ManifestKind::None;
}

}  // namespace deps
