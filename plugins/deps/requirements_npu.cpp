// requirements-npu.txt from the deps findings: which declarations go where, and what each
// becomes on an Ascend host (see requirements_npu.hpp and README.md, "Emit").

#include "requirements_npu.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "manifest.hpp"
#include "repo_path.hpp"
#include "requirement_text.hpp"
#include "requirements_npu_lines.hpp"

namespace deps {
namespace {

using migrate::sdk::Finding;
using npu::addComment;
using npu::declared;
using npu::detail;

/// Readers whose declarations are installed with pip from a declaration file; Dockerfile and
/// shell installs are build steps, not declarations.
bool isDeclarationSource(const std::string& source) {
  return source == "requirements" || source == "constraints" || source == "setup.py" ||
         source == "setup.cfg" || source == "pyproject" || source == "conda" || source == "cog";
}

bool isDependencyRule(const std::string& id) {
  return id >= "DEP-001" && id <= "DEP-008" && id.size() == 7;
}

/// One line of the output in the making: a finding, or an index option read from a file.
struct Entry {
  const Finding* finding = nullptr;
  std::string option, url;  ///< an index option that is not a finding (not a CUDA index)
  std::uint32_t line = 0, column = 0;
};

/// The declarations of one section of one file.
struct Bucket {
  DeclarationGroup group;
  std::string file;
  std::size_t first = 0;  ///< order of first appearance
  std::vector<Entry> entries;
};

/// Which file pulls each requirements file in (-r), and the index options of each that are not
/// findings (private or mirror indexes, copied as written).
struct RequirementsFiles {
  std::map<std::string, std::string> included_by;
  std::map<std::string, std::vector<IndexUse>> other_indexes;
};

RequirementsFiles readRequirementsFiles(const std::set<std::string>& files,
                                        const migrate::sdk::WorkspaceView& workspace) {
  RequirementsFiles out;
  for (const auto& file : files) {
    const auto text = workspace.read(file);
    if (!text) continue;
    Manifests m;
    readRequirementsFile(file, *text, false, m);
    for (const auto& inc : m.includes)
      if (auto target = normalizePath(dirOf(file), inc.path)) out.included_by.emplace(*target, file);
    for (auto& x : m.indexes)
      if (!isCudaIndex(x.url)) out.other_indexes[file].push_back(std::move(x));
  }
  return out;
}

}  // namespace

std::optional<NpuRequirements> planNpuRequirements(const std::vector<Finding>& findings,
                                                   const migrate::sdk::WorkspaceView& workspace) {
  std::set<std::string> requirement_files;
  bool any = false;
  for (const Finding& f : findings) {
    const std::string source = detail(f, "source");
    if (!isDeclarationSource(source) || (!isDependencyRule(f.rule_id) && f.rule_id != "DEP-009")) continue;
    if (source == "requirements") requirement_files.insert(f.file);
    any = any || (isDependencyRule(f.rule_id) && source != "constraints");
  }
  if (!any) return std::nullopt;
  const RequirementsFiles files = readRequirementsFiles(requirement_files, workspace);

  // Findings into buckets (file, section), in findings order.
  std::map<std::pair<std::string, std::string>, Bucket> buckets;
  auto bucket = [&](const std::string& file, const std::string& source,
                    const std::string& section) -> Bucket& {
    auto [it, fresh] = buckets.try_emplace({file, section});
    if (fresh) {
      auto inc = files.included_by.find(file);
      it->second.group = groupOf(source, file, section, inc == files.included_by.end() ? "" : inc->second);
      it->second.file = file;
      it->second.first = buckets.size();
    }
    return it->second;
  };
  for (const Finding& f : findings) {
    const std::string source = detail(f, "source");
    if (!isDeclarationSource(source)) continue;
    if (isDependencyRule(f.rule_id)) {
      bucket(f.file, source, detail(f, "section"))
          .entries.push_back({&f, "", "", f.range.line, f.range.column});
    } else if (f.rule_id == "DEP-009") {
      const bool pip_option = detail(f, "option").rfind("-", 0) == 0;
      const std::string section = source == "conda" ? (pip_option ? "pip" : "dependencies") : "";
      bucket(f.file, source, section).entries.push_back({&f, "", "", f.range.line, f.range.column});
    }
  }
  for (const auto& [file, indexes] : files.other_indexes)
    for (const auto& x : indexes)
      bucket(file, "requirements", "")
          .entries.push_back({nullptr, x.option, x.url, x.range.line, x.range.column});

  std::vector<Bucket*> order;
  for (auto& [key, b] : buckets) {
    std::stable_sort(b.entries.begin(), b.entries.end(), [](const Entry& x, const Entry& y) {
      return std::tie(x.line, x.column) < std::tie(y.line, y.column);
    });
    order.push_back(&b);
  }
  std::sort(order.begin(), order.end(), [](const Bucket* a, const Bucket* b) {
    return std::tie(a->group.skipped, a->group.kind, a->first) <
           std::tie(b->group.skipped, b->group.kind, b->first);
  });

  NpuRequirements out;
  std::vector<const Finding*> torch, declared_npu;
  for (const Bucket* b : order)
    for (const Entry& e : b->entries)
      if (e.finding && !b->group.skipped && isDependencyRule(e.finding->rule_id)) {
        if (detail(*e.finding, "package") == "torch") torch.push_back(e.finding);
        if (detail(*e.finding, "package") == "torch-npu") declared_npu.push_back(e.finding);
      }
  out.sections.push_back(npu::torchSection(torch, declared_npu));

  npu::Written written;
  for (const Bucket* b : order) {
    if (b->group.skipped) {
      out.notes.push_back("not merged: " + b->file +
                          " (constraints limit versions; they are not requirements)");
      continue;
    }
    out.sources.push_back(b->group.title);
    npu::SectionLines s;
    for (const Entry& e : b->entries) {
      if (!e.finding) {
        npu::otherIndexOption(e.option, e.url, s, written);
        continue;
      }
      const Finding& f = *e.finding;
      const std::string verdict = detail(f, "verdict");
      if (f.rule_id == "DEP-009") {
        npu::cudaIndexOption(f, s, written);
      } else if (detail(f, "ecosystem") == "conda") {
        npu::condaPackage(f, s);
      } else if (detail(f, "package") == "torch") {
        addComment(s.lines, declared(f) + ": written at the top of this file, paired with torch_npu.");
      } else if (detail(f, "package") == "python") {
        addComment(s.lines, declared(f) + ": the Python version, not a package.");
      } else if (npu::isLocalLocation(detail(f, "url"))) {
        addComment(s.lines, "not written: " + detail(f, "url") + " is a local path (relative to " + f.file +
                                "); install it from the adapted copy of the repository.");
      } else if (!isDistributionName(detail(f, "name"))) {
        addComment(s.lines, "not written: " + declared(f) + " (its name is computed at install time).");
      } else if (f.rule_id == "DEP-008") {
        npu::withoutCudaBuild(f, s, written);
      } else if (verdict == "needs replacement" || verdict == "unsupported") {
        npu::replaceOrRemove(f, s, written);
      } else {
        npu::keepPackage(f, s, written);
      }
    }
    if (!s.conda_kept.empty()) {
      std::string list;
      for (const auto& c : s.conda_kept) list += (list.empty() ? "" : ", ") + c;
      addComment(s.lines, "conda packages that stay in the conda environment unchanged: " + list + ".");
    }
    if (!s.duplicates.empty()) {
      std::string list;
      for (const auto& d : s.duplicates) list += (list.empty() ? "" : ", ") + d;
      addComment(s.lines, "also declared here, written above: " + list + ".");
    }
    out.sections.push_back({b->group.title, std::move(s.lines)});
  }
  return out;
}

}  // namespace deps
