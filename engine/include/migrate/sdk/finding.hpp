#pragma once
/// Findings: one place in one file that a migration must touch.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "migrate/sdk/source_range.hpp"

namespace migrate::sdk {

enum class Severity { Info, Warning, Error };
enum class Level { Low, Medium, High };

/// Replace bytes [start_byte, end_byte) of the finding's file with `replacement`.
struct Edit {
  std::uint32_t start_byte = 0;
  std::uint32_t end_byte = 0;
  std::string replacement;
};

struct Finding {
  std::string rule_id;
  std::string domain;
  std::string file;  ///< relative to the repository root, '/' separated
  SourceRange range;
  std::string api;           ///< as written in the source
  std::string resolved_api;  ///< after alias resolution; empty when nothing resolves
  std::string message;
  std::string npu_alternative;
  Severity severity = Severity::Warning;
  Level confidence = Level::Medium;
  Level difficulty = Level::Medium;
  double effort_days = 0.0;
  std::vector<Edit> edits;  ///< empty: no automatic fix
  /// Facts a later stage needs (e.g. attention arguments); string values, sorted keys.
  std::map<std::string, std::string> details;
  /// Task phases that reach this place (names from the pipeline's plan.phases); set by the plan
  /// stage, empty before it or when no entry point reaches the file.
  std::vector<std::string> phases;

  bool autofix() const { return !edits.empty(); }
};

/// The `details` key (value "dependency") that makes a plugin's finding a row of the dependency
/// matrix instead of a place to change: a dependency whose verdict needs nothing (compatible, not
/// involved). The engine moves such findings from the findings into MigrationModel::dependencies:
/// the report's dependency table and findings.json's `dependencies` list show them; findings,
/// bottlenecks and SARIF results do not.
inline constexpr const char* kRowDetail = "row";

/// True for a finding that is a dependency-matrix row only (`details.row == "dependency"`).
inline bool isDependencyRow(const Finding& f) {
  const auto it = f.details.find(kRowDetail);
  return it != f.details.end() && it->second == "dependency";
}

/// A problem the run met that is not a finding: a file that does not parse, a skipped binary file.
struct Diagnostic {
  Severity severity = Severity::Warning;
  std::string code;  ///< stable kebab-case identifier, e.g. "parse-error"
  std::string file;  ///< relative path, or empty for run-level diagnostics
  std::uint32_t line = 0;
  std::string message;
};

inline const char* toString(Severity s) {
  switch (s) {
    case Severity::Info:
      return "info";
    case Severity::Warning:
      return "warning";
    case Severity::Error:
      return "error";
  }
  return "warning";
}

inline const char* toString(Level l) {
  switch (l) {
    case Level::Low:
      return "low";
    case Level::Medium:
      return "medium";
    case Level::High:
      return "high";
  }
  return "medium";
}

/// The Severity `toString` names ("info", "warning", "error"); nullopt for any other text.
inline std::optional<Severity> severityFromString(std::string_view s) {
  if (s == "info") return Severity::Info;
  if (s == "warning") return Severity::Warning;
  if (s == "error") return Severity::Error;
  return std::nullopt;
}

/// The Level `toString` names ("low", "medium", "high"); nullopt for any other text.
inline std::optional<Level> levelFromString(std::string_view s) {
  if (s == "low") return Level::Low;
  if (s == "medium") return Level::Medium;
  if (s == "high") return Level::High;
  return std::nullopt;
}

/// A rule's data as the plugin's rules/*.yaml declares it, for findings a plugin reports from
/// its own code (rules with `match: {custom: ...}`).
struct RuleInfo {
  std::string id;
  std::string title;
  std::string domain;
  std::string message;          ///< may hold {api}, {npu}, {value}, {note} placeholders
  std::string npu_alternative;  ///< likewise
  Severity severity = Severity::Warning;
  Level confidence = Level::Medium;
  Level difficulty = Level::Medium;
  double effort_days = 0.0;
};

/// Replaces `{key}` by `vars[key]` for every key present in `vars`; other text is kept.
inline std::string expandPlaceholders(const std::string& tmpl,
                                      const std::map<std::string, std::string>& vars) {
  std::string out;
  for (std::size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] == '{') {
      const std::size_t close = tmpl.find('}', i);
      if (close != std::string::npos) {
        auto it = vars.find(tmpl.substr(i + 1, close - i - 1));
        if (it != vars.end()) {
          out += it->second;
          i = close;
          continue;
        }
      }
    }
    out += tmpl[i];
  }
  return out;
}

/// A finding of `rule` at `range` of `file`, its message and alternative expanded with `vars`
/// (plus {api} = `api` unless given).
inline Finding findingFrom(const RuleInfo& rule, std::string file, const SourceRange& range, std::string api,
                           std::string resolved_api = {}, std::map<std::string, std::string> vars = {}) {
  vars.emplace("api", resolved_api.empty() ? api : resolved_api);
  Finding f;
  f.rule_id = rule.id;
  f.domain = rule.domain;
  f.file = std::move(file);
  f.range = range;
  f.api = std::move(api);
  f.resolved_api = std::move(resolved_api);
  f.message = expandPlaceholders(rule.message, vars);
  f.npu_alternative = expandPlaceholders(rule.npu_alternative, vars);
  f.severity = rule.severity;
  f.confidence = rule.confidence;
  f.difficulty = rule.difficulty;
  f.effort_days = rule.effort_days;
  return f;
}

/// Where plugins put their results. Implementations are thread-safe per call site: the host
/// gives each worker its own sink.
class FindingSink {
 public:
  virtual ~FindingSink() = default;
  virtual void report(Finding finding) = 0;
  virtual void diagnose(Diagnostic diagnostic) = 0;
};

}  // namespace migrate::sdk
