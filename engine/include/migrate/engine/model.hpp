#pragma once
/// The MigrationModel: what a run knows. Each stage reads it and adds its own part.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "migrate/engine/plan.hpp"
#include "migrate/engine/python_layout.hpp"
#include "migrate/engine/workspace.hpp"
#include "migrate/sdk/emit.hpp"
#include "migrate/sdk/finding.hpp"

namespace migrate {

struct StageRecord {
  std::string name;
  std::string status;  ///< completed | failed | not_available | skipped
  std::string detail;
  double seconds = 0.0;
  /// What the stage took over from the previous output instead of making it again (emit: files
  /// of adapted/; verify: checks), of `total`; 0 of 0 when it made everything.
  std::size_t kept = 0;
  std::size_t total = 0;
};

struct PluginRecord {
  std::string name;
  std::string version;
  std::string domain;
  std::size_t rules = 0;
  std::string file;
};

/// A domain a rule pack declares: its findings get their own group in the report.
struct DomainRecord {
  std::string name;
  std::string title;
  std::string pack;  ///< the pack that declares it
};

/// A rule of an active plugin, as findings.json and the SARIF output describe it.
struct RuleRecord {
  std::string plugin;
  sdk::RuleInfo info;
  /// The rule's API has no NPU counterpart (rule key `no_npu_counterpart`): its findings are
  /// unsupported_apis.csv's rows. Kept here, not in sdk::RuleInfo, so that the plugin ABI stays.
  bool no_npu_counterpart = false;
};

struct InventoryStats {
  std::size_t files = 0;         ///< files selected for analysis
  std::size_t python_files = 0;  ///< of which Python
  std::size_t python_parsed = 0;
  std::size_t python_cached = 0;  ///< of the parsed, taken from the analysis cache (not written out)
  std::uint64_t bytes = 0;
  std::uint64_t python_lines = 0;
  std::size_t skipped = 0;  ///< binary, oversized, escaping symlinks, unreadable
};

/// A file the emit stage wrote into the output directory (the adapted tree counts as one entry).
struct EmittedFile {
  std::string path;  ///< relative to the output directory
  std::string kind;  ///< "support-module" | "patch" | "adapted-tree" | "verification" | "plugin:<name>"
  bool operator==(const EmittedFile&) const = default;
};

/// A repository file the adaptation changed or added.
struct AdaptedFile {
  std::string path;    ///< repository-relative (the _npu sibling's path in the siblings layout)
  std::string status;  ///< "modified" | "added"
  std::size_t edits = 0;
  std::size_t todos = 0;
};

/// What the emit stage produced (emit.json).
struct EmitResult {
  bool computed = false;
  std::string project;        ///< the name file headers carry
  std::string original_root;  ///< the analysed tree (the verification's reference copy)
  std::string layout;         ///< "copy" | "siblings"
  std::string adapted_dir;    ///< relative to the output directory
  std::vector<EmittedFile> files;
  std::vector<AdaptedFile> adapted;
  std::vector<sdk::ManualWork> manual_work;  ///< sorted: file, line, rule id
  std::vector<std::string> npu_ops_sections;
  std::size_t edits_applied = 0;
  std::size_t findings_fixed = 0;
  std::size_t conflicts = 0;                ///< findings whose edits overlapped others (manual work instead)
  std::vector<std::size_t> fixed_findings;  ///< indices into MigrationModel::findings, ascending
  std::size_t tree_files = 0;               ///< files and links placed in the adapted tree
  std::size_t tree_reused = 0;  ///< of those, kept or linked from the previous emit (not in emit.json)
  /// Whether the emit stage applied the fix of finding `index`.
  bool isFixed(std::size_t index) const {
    return std::binary_search(fixed_findings.begin(), fixed_findings.end(), index);
  }
  /// Adapted modules the verification imports (dotted names): modules inside a directory or
  /// with a `__main__` guard, so that importing runs no script; never setup.py.
  std::vector<std::string> modules;
};

/// One check of the verification (a line of verify_results.jsonl, with hints added).
struct CheckResult {
  std::string stage;
  std::string check;
  std::string status;  ///< passed | failed | skipped | error
  std::string detail;
  double duration = 0.0;
  std::string output;              ///< the tail of the check's output
  std::vector<std::string> hints;  ///< known CANN / torch_npu errors found in the output, explained
  /// The check compared with the same check on the original tree (verify/outcomes.hpp): passed |
  /// introduced | pre-existing | environment | fixed | skipped | error. Only `introduced` (and
  /// `error`: the verification could not run the check) is the migration's fault.
  std::string outcome;
  std::string reference_status;  ///< the check on the original tree; "" when it ran only on the adapted one
  std::string reference_detail;
  std::string cause;       ///< environment: what the target lacks; else why the outcome was given
  bool reference = false;  ///< a record of the original tree (folded into its adapted check when read)
  /// introduced: the edits that break it ("ACME-001 at shop/core.py:5", verify/attribution.hpp)
  std::vector<std::string> broken_by;
  std::string attribution;  ///< how the edits were found ("found in 7 re-runs …"), or why not
  /// Kept from the previous verification: its inputs did not change (verify/reuse.hpp).
  bool reused = false;
  std::string file;  ///< a pytest test's file, relative to its tree (verify_pytest_plugin.py)
  /// The migration's fault: introduced, or not run (a verify.json without outcomes: failed or error).
  bool broken() const {
    return outcome.empty() ? status == "failed" || status == "error"
                           : outcome == "introduced" || outcome == "error";
  }
};

/// The outcomes of a check against the original tree, in the order counts are shown.
inline constexpr const char* kCheckOutcomes[] = {"passed", "introduced", "pre-existing", "environment",
                                                 "fixed",  "skipped",    "error"};

/// What the verify stage found (verify.json).
struct VerifyResult {
  bool computed = false;
  std::string target;  ///< the target's name
  std::string host;    ///< "local" or "user@host:port"
  /// completed | unreachable | auth-failed | interpreter-missing | timeout | error
  std::string status;
  std::string detail;
  std::vector<CheckResult> checks;
  double seconds = 0.0;
  std::size_t count(const std::string& check_status) const {
    std::size_t n = 0;
    for (const auto& c : checks) n += c.status == check_status ? 1 : 0;
    return n;
  }
  /// Checks kept from the previous verification (their inputs did not change).
  std::size_t reused() const {
    std::size_t n = 0;
    for (const auto& c : checks) n += c.reused ? 1 : 0;
    return n;
  }
  std::size_t outcomes(const std::string& outcome) const {
    std::size_t n = 0;
    for (const auto& c : checks) n += c.outcome == outcome ? 1 : 0;
    return n;
  }
  /// True when the checks carry outcomes (a verify.json written before them has none).
  bool compared() const {
    for (const auto& c : checks)
      if (!c.outcome.empty()) return true;
    return false;
  }
  /// "49 passed, 0 introduced, 7 skipped": the outcomes that occur, and always `introduced`.
  std::string outcomeCounts() const {
    std::string out;
    for (const char* outcome : kCheckOutcomes)
      if (const std::size_t n = outcomes(outcome); n > 0 || std::string(outcome) == "introduced")
        out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + outcome;
    return out;
  }
  /// The checks that are the migration's fault (CheckResult::broken).
  std::size_t broken() const {
    std::size_t n = 0;
    for (const auto& c : checks) n += c.broken() ? 1 : 0;
    return n;
  }
  /// passed (every stage ran, nothing introduced, nothing left unrun), failed (something
  /// introduced), or incomplete (the verification did not finish, or could not run a check).
  std::string verdict() const {
    if (status != "completed") return "incomplete";
    if (outcomes("introduced") > 0) return "failed";
    return broken() > 0 ? "incomplete" : "passed";
  }
};

struct MigrationModel {
  std::string tool_version;
  std::string pipeline_name;
  std::string pipeline_file;
  std::string started_at;  ///< UTC, ISO 8601
  SourceInfo source;
  std::vector<PluginRecord> plugins;
  std::vector<RuleRecord> rules;      ///< every rule of the active plugins, sorted by id
  std::vector<DomainRecord> domains;  ///< declared by the run's rule packs, in pack order
  InventoryStats inventory;
  std::vector<sdk::Finding> findings;  ///< sorted: file, line, column, rule id
  /// Dependencies that need no change (sdk::isDependencyRow): rows of the dependency matrix, not
  /// findings; sorted like the findings.
  std::vector<sdk::Finding> dependencies;
  std::vector<sdk::Diagnostic> diagnostics;
  std::vector<StageRecord> stages;
  std::vector<ModuleSummary> modules;  ///< one per parsed Python file, sorted by path
  /// Where emit may insert lines into the Python files the file analysis reported on (taken from
  /// the analysis' syntax tree; emit parses the other files it edits itself).
  std::map<std::string, PythonLayout> layouts;
  PlanResult plan;
  EmitResult emit;
  VerifyResult verify;
};

/// Sorts findings (file, line, column, rule id, end; then fix, confidence, text), merging the
/// findings of one rule at one place into one; sorts modules (path) and diagnostics (file, line, code).
void sortModel(MigrationModel& model);

/// Moves the dependency-matrix rows (sdk::isDependencyRow) from `findings` to `dependencies`,
/// keeping both in order; run once after the analysis.
void separateDependencyRows(MigrationModel& model);

}  // namespace migrate
