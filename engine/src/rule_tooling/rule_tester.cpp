#include "rule_tooling/rule_tester.hpp"

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "analyze/analyzer.hpp"
#include "emit/source_edits.hpp"
#include "progress/progress.hpp"

namespace migrate::rules {
namespace fs = std::filesystem;
namespace {

/// A directory removed with everything in it when the object goes.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (fs::temp_directory_path() / "migrate-snippet-XXXXXX").string();
    if (mkdtemp(tmpl.data())) path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

bool writeFile(const fs::path& file, const std::string& text) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  std::ofstream out(file, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

struct SnippetRun {
  std::vector<sdk::Finding> findings;  ///< of the rule, in the snippet's own file
  std::vector<sdk::Diagnostic> diagnostics;
  std::string error;  ///< the snippet could not be written
};

SnippetRun analyze(const LoadedPlugin& plugin, const Rule& rule, const Snippet& s, const std::string& code) {
  SnippetRun out;
  ScratchDir dir;
  if (dir.path().empty() || !writeFile(dir.path() / s.file, code)) {
    out.error = "cannot write the snippet into a temporary directory";
    return out;
  }
  for (const auto& [path, content] : s.others) writeFile(dir.path() / path, content);
  Workspace ws = buildInventory(dir.path(), {}, out.diagnostics);
  MigrationModel model;
  auto progress = makeProgress(false, [](const std::string&) {});
  analyzeWorkspace(ws, {{&plugin}}, {.jobs = 1}, *progress, model);
  for (auto& f : model.findings)
    if (f.rule_id == rule.id && f.file == s.file) out.findings.push_back(std::move(f));
  out.diagnostics.insert(out.diagnostics.end(), model.diagnostics.begin(), model.diagnostics.end());
  return out;
}

std::string lineList(const std::vector<int>& lines) {
  std::string out;
  for (int l : lines) out += (out.empty() ? "" : ", ") + std::to_string(l);
  return "[" + out + "]";
}

std::vector<int> linesOf(const std::vector<sdk::Finding>& findings) {
  std::vector<int> lines;
  for (const auto& f : findings) lines.push_back(static_cast<int>(f.range.line));
  return lines;
}

/// "plugins/device/rules/x.yaml" from a rule's "plugins/device/rules/x.yaml:12:5".
std::string fileOf(const std::string& source) {
  std::string s = source;
  for (int i = 0; i < 2; ++i) {
    const auto colon = s.rfind(':');
    if (colon == std::string::npos || s.find_first_not_of("0123456789", colon + 1) != std::string::npos ||
        colon + 1 == s.size())
      break;
    s.resize(colon);
  }
  return s;
}

}  // namespace

std::size_t snippetCount(const Rule& rule) {
  return rule.invalid.size() + rule.valid.size();
}

std::vector<SnippetFailure> testSnippets(const LoadedPlugin& plugin, const Rule& rule) {
  std::vector<SnippetFailure> failures;
  const std::string file = fileOf(rule.source);
  if (rule.invalid.empty())
    failures.push_back({rule.id, rule.source, "rule", "",
                        "has no invalid snippet: add code it must report under tests: invalid:"});
  if (rule.valid.empty())
    failures.push_back({rule.id, rule.source, "rule", "",
                        "has no valid snippet: add code it must not report under tests: valid:"});
  for (const Snippet& s : rule.invalid) {
    const std::string where = file + ":" + std::to_string(s.yaml_line);
    auto fail = [&](const std::string& code, const std::string& message) {
      failures.push_back({rule.id, where, "invalid", code, message});
    };
    const SnippetRun run = analyze(plugin, rule, s, s.code);
    if (!run.error.empty()) {
      fail(s.code, run.error);
      continue;
    }
    for (const auto& d : run.diagnostics)
      if (d.code == "plugin-error") fail(s.code, "plugin error: " + d.message);
    const std::vector<int> found = linesOf(run.findings);
    if (s.count && run.findings.size() != static_cast<std::size_t>(*s.count))
      fail(s.code, "expected " + std::to_string(*s.count) + " finding(s) of " + rule.id + ", found " +
                       std::to_string(found.size()) + " on lines " + lineList(found));
    else if (!s.count && run.findings.empty())
      fail(s.code, "expected at least one finding of " + rule.id + ", found none");
    if (!s.lines.empty() && found != s.lines)
      fail(s.code, "expected findings of " + rule.id + " on lines " + lineList(s.lines) +
                       ", found on lines " + lineList(found));
    // Applying the fixes removes exactly the fixed findings and keeps the code parseable.
    std::vector<const sdk::Finding*> pointers;
    for (const auto& f : run.findings) pointers.push_back(&f);
    std::vector<std::size_t> applied;
    const std::string after = emit::applyFixes(s.code, pointers, &applied);
    if (applied.empty()) continue;
    const SnippetRun again = analyze(plugin, rule, s, after);
    const std::size_t expected_left = run.findings.size() - applied.size();
    if (again.findings.size() != expected_left)
      fail(after, "after its fixes, expected " + std::to_string(expected_left) + " finding(s) of " + rule.id +
                      " left, found " + std::to_string(again.findings.size()) + " on lines " +
                      lineList(linesOf(again.findings)));
    for (const auto& d : again.diagnostics)
      if (d.code == "parse-error") fail(after, "its fixes broke the code: " + d.message);
  }
  for (const Snippet& s : rule.valid) {
    const std::string where = file + ":" + std::to_string(s.yaml_line);
    const SnippetRun run = analyze(plugin, rule, s, s.code);
    if (!run.error.empty()) {
      failures.push_back({rule.id, where, "valid", s.code, run.error});
      continue;
    }
    if (!run.findings.empty())
      failures.push_back({rule.id, where, "valid", s.code,
                          "expected no finding of " + rule.id + ", found " +
                              std::to_string(run.findings.size()) + " on lines " +
                              lineList(linesOf(run.findings)) + " (" + run.findings.front().message + ")"});
  }
  return failures;
}

}  // namespace migrate::rules
