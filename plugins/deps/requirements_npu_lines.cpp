// The lines one declaration becomes in requirements-npu.txt (see requirements_npu_lines.hpp).

#include "requirements_npu_lines.hpp"

#include <algorithm>

#include "compat_table.hpp"
#include "requirement.hpp"
#include "requirement_text.hpp"

namespace deps::npu {
namespace {

/// True for a poetry declaration: its specifier is in poetry's dialect (^, ~, bare versions).
bool isPoetry(const Finding& f) {
  return detail(f, "section").rfind("tool.poetry", 0) == 0;
}

/// Adds `line` unless an equal line was written before; then it is listed as a duplicate.
void addActive(SectionLines& out, Written& written, const std::string& line) {
  if (written.active.insert(line).second) {
    out.lines.push_back(line);
  } else {
    out.duplicates.push_back(line);
  }
}

/// Extras without the CUDA ones ("cuda12,gpu,foo" → "foo").
std::string withoutCudaExtras(const std::string& extras) {
  std::string out;
  std::size_t b = 0;
  while (b <= extras.size()) {
    const std::size_t e = std::min(extras.find(',', b), extras.size());
    const std::string item = extras.substr(b, e - b);
    if (!item.empty() && cudaTag(item).empty() && item.find("cuda") == std::string::npos &&
        !hasGpuExtra(item))
      out += (out.empty() ? "" : ",") + item;
    b = e + 1;
  }
  return out;
}

/// The table's replacement as the start of a comment: "use X. ", or the reason of a
/// "remove it (reason)" entry.
std::string instead(const std::string& replacement) {
  if (replacement.empty()) return {};
  if (replacement.rfind("remove it", 0) != 0) return "use " + replacement + ". ";
  std::string reason(trim(std::string_view(replacement).substr(9)));
  if (reason.size() >= 2 && reason.front() == '(' && reason.back() == ')')
    reason = reason.substr(1, reason.size() - 2);
  return reason.empty() ? std::string() : reason + ". ";
}

}  // namespace

std::string detail(const Finding& f, const std::string& key) {
  auto it = f.details.find(key);
  return it == f.details.end() ? std::string() : it->second;
}

std::string at(const Finding& f) {
  return f.file + ":" + std::to_string(f.range.line);
}

void addComment(std::vector<std::string>& lines, const std::string& text) {
  for (auto& l : commentLines(text)) lines.push_back(std::move(l));
}

std::string declared(const Finding& f) {
  if (detail(f, "ecosystem") == "conda") {
    const std::string channel = detail(f, "channel"), build = detail(f, "build");
    return (channel.empty() ? "" : channel + "::") + detail(f, "name") + detail(f, "spec") +
           (build.empty() ? "" : "=" + build);
  }
  const std::string spec = detail(f, "spec");
  return requirementLine(detail(f, "name"), detail(f, "extras"),
                         isPoetry(f) && !spec.empty() ? " " + spec : spec, detail(f, "url"),
                         detail(f, "marker"));
}

std::string pep440Spec(const Finding& f, std::string& problem) {
  std::string spec = detail(f, "spec");
  if (isComputedSpec(spec)) {
    problem = "its version '" + spec + "' is computed at install time: pin it by hand";
    return {};
  }
  if (isPoetry(f) && !spec.empty()) {
    if (auto pep = poetryToPep440(spec)) return *pep;
    problem = "the poetry constraint '" + spec + "' has no pip equivalent: pin it by hand";
    return {};
  }
  return spec;
}

bool isLocalLocation(const std::string& url) {
  if (url.empty()) return false;
  const auto req = parseRequirement(url);
  return req && req->local_path;
}

void replaceOrRemove(const Finding& f, SectionLines& out, Written& written) {
  const Lookup look = lookupRequirement(detail(f, "name"), detail(f, "extras"));
  const std::string requirement = look.package ? std::string(look.package->npu_requirement) : std::string();
  const std::string kit = look.package ? std::string(look.package->kit_note) : std::string();
  const std::string package = detail(f, "package");
  const bool first = written.explained.insert(package).second;
  const std::string why =
      instead(detail(f, "replacement")) + detail(f, "note") + (kit.empty() ? "" : " " + kit);
  if (requirement == "keep") {
    std::string problem;
    const std::string line = requirementLine(detail(f, "name"), detail(f, "extras"), pep440Spec(f, problem),
                                             detail(f, "url"), detail(f, "marker"));
    if (first) addComment(out.lines, declared(f) + ": kept (" + detail(f, "verdict") + "): " + why);
    if (!problem.empty()) addComment(out.lines, detail(f, "name") + ": " + problem);
    addActive(out, written, detail(f, "editable") == "true" ? "-e " + detail(f, "url") : line);
  } else if (!requirement.empty()) {
    const std::string line = requirementLine(requirement, "", "", "", detail(f, "marker"));
    if (written.active.count(line)) {
      addComment(out.lines, declared(f) + " → " + requirement + " (written above).");
      return;
    }
    addComment(out.lines, declared(f) + " → " + requirement + " (" + detail(f, "verdict") +
                              "): " + detail(f, "note") + (kit.empty() ? "" : " " + kit));
    addActive(out, written, line);
  } else if (first) {
    addComment(out.lines, "removed " + declared(f) + " (" + detail(f, "verdict") + "): " + why);
  } else {
    addComment(out.lines, "removed " + declared(f) + " (" + detail(f, "verdict") + "; reason above).");
  }
}

void withoutCudaBuild(const Finding& f, SectionLines& out, Written& written) {
  std::string problem;
  const std::string url = detail(f, "url");
  const bool cuda_url = !url.empty() && !cudaTag(url).empty();
  const std::string line = requirementLine(detail(f, "name"), withoutCudaExtras(detail(f, "extras")),
                                           cuda_url ? "" : withoutLocalVersion(pep440Spec(f, problem)),
                                           cuda_url ? "" : url, detail(f, "marker"));
  addComment(out.lines, declared(f) + ": the CUDA build (" + detail(f, "cuda") + ") is not carried over; " +
                            line + " installs the CPU / aarch64 build from the package index.");
  if (!problem.empty()) addComment(out.lines, detail(f, "name") + ": " + problem);
  addActive(out, written, line);
}

void keepPackage(const Finding& f, SectionLines& out, Written& written) {
  std::string problem;
  const std::string spec = pep440Spec(f, problem);
  const std::string line = detail(f, "editable") == "true"
                               ? "-e " + detail(f, "url")
                               : requirementLine(detail(f, "name"), detail(f, "extras"), spec,
                                                 detail(f, "url"), detail(f, "marker"));
  if (written.active.count(line)) {
    out.duplicates.push_back(line);
    return;
  }
  const std::string note = detail(f, "note");
  if (!note.empty() && written.explained.insert(detail(f, "package")).second)
    addComment(out.lines, detail(f, "name") + ": " + note);
  if (!problem.empty()) addComment(out.lines, detail(f, "name") + ": " + problem);
  addActive(out, written, line);
}

void condaPackage(const Finding& f, SectionLines& out) {
  const std::string verdict = detail(f, "verdict");
  if (detail(f, "package") == "torch") {
    addComment(out.lines,
               "conda package " + declared(f) +
                   ": install torch with pip instead, paired with torch_npu (top of this file), and "
                   "remove it from the conda environment.");
  } else if (verdict == "needs replacement" || verdict == "unsupported") {
    addComment(out.lines, "conda package " + declared(f) + " (" + verdict +
                              "): " + instead(detail(f, "replacement")) + detail(f, "note") +
                              " Remove it from the conda environment.");
  } else {
    out.conda_kept.push_back(declared(f));
  }
}

void cudaIndexOption(const Finding& f, SectionLines& out, Written& written) {
  const std::string option = detail(f, "option"), url = detail(f, "url"),
                    replacement = detail(f, "replacement");
  const bool pip_option = option.rfind("-", 0) == 0;
  const std::string original = option == "channel" || option == "channels" ? "conda channel " + url
                               : pip_option                                ? option + " " + url
                                                                           : option + " = " + url;
  if (pip_option && replacement.rfind("http", 0) == 0) {
    addComment(out.lines, original + ": serves CUDA builds (" + detail(f, "cuda") +
                              "); replaced by the CPU index, " +
                              "torch's build for x86 hosts (aarch64 hosts get torch from PyPI).");
    addActive(out, written, option + " " + replacement);
  } else {
    addComment(out.lines, "removed " + original + ": serves CUDA builds; use " + replacement + ".");
  }
}

void otherIndexOption(const std::string& option, const std::string& url, SectionLines& out,
                      Written& written) {
  addActive(out, written, option + " " + url);
}

}  // namespace deps::npu
