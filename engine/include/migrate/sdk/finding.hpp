#pragma once
/// Findings: one place in one file that a migration must touch.

#include <map>
#include <string>
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

  bool autofix() const { return !edits.empty(); }
};

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

/// Where plugins put their results. Implementations are thread-safe per call site: the host
/// gives each worker its own sink.
class FindingSink {
 public:
  virtual ~FindingSink() = default;
  virtual void report(Finding finding) = 0;
  virtual void diagnose(Diagnostic diagnostic) = 0;
};

}  // namespace migrate::sdk
