#pragma once
/// The fleet's store: DIR/fleet.db, an embedded SQLite database (WAL mode) holding every night
/// and one row per repository per night with its stage results and finding counts. Written by
/// one process at a time (the fleet lock), one transaction per finished repository, so a killed
/// night leaves a consistent store that the next `fleet run` resumes. Schema: docs/fleet.md.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "migrate/engine/result.hpp"

struct sqlite3;

namespace migrate::fleet {

/// Version of the store's schema (the `meta` table's `schema_version`); bumped on incompatible
/// changes. A store with a newer version is refused with a message naming both versions.
inline constexpr int kStoreSchemaVersion = 4;

/// One night: a `fleet run` over the manifest, possibly resumed after an interruption.
struct Night {
  std::int64_t id = 0;
  std::string label;        ///< unique, e.g. "2026-11-26" (also the repositories' output folder name)
  std::string started_at;   ///< UTC, ISO 8601 ("2026-11-26T02:00:00Z")
  std::string finished_at;  ///< empty until the night completed
  std::string state;        ///< "running" | "interrupted" | "completed"
  std::string shard;        ///< "" for the whole manifest, else "I/N"
  std::string tool_version;
  std::string manifest;  ///< the manifest's path as given
};

/// Findings of one rule in one repository's run.
struct FindingCount {
  std::string rule;
  std::string domain;
  std::string severity;      ///< "info" | "warning" | "error"
  std::int64_t total = 0;    ///< findings of this rule
  std::int64_t fixed = 0;    ///< of which the emit stage fixed
  double effort_days = 0.0;  ///< person-days of the work the rule leaves (places not fixed)
};

/// A dependency whose verdict blocks or needs work ("unsupported", "needs replacement").
struct BlockingDep {
  std::string package;
  std::string verdict;
  std::string replacement;
  std::int64_t places = 0;  ///< findings that name it
};

/// What a rule is, as a run's findings.json says (the store keeps the latest).
struct RuleInfoRow {
  std::string rule;
  std::string title;
  std::string domain;
  bool no_counterpart = false;  ///< its API has no NPU counterpart
};

/// One finding of a run, as the store tracks it across nights.
struct FoundFinding {
  std::string fingerprint;  ///< report/fingerprints.hpp
  std::string rule;
  std::string file;
  std::int64_t line = 0;
  bool fixed = false;  ///< the emit stage fixed it
};

/// One stage of the child run (findings.json's `stages`).
struct StageRow {
  std::string stage;
  std::string status;  ///< completed | failed | not_available | skipped
  std::string detail;
  double seconds = 0.0;
  /// Taken over from the repository's previous output (emit: files of adapted/; verify: checks), of `total`.
  std::int64_t kept = 0;
  std::int64_t total = 0;
};

/// One repository in one night.
struct RepoRun {
  std::int64_t night = 0;  ///< the row's night, set by the store's reads (recordRun takes it as an argument)
  std::string name;
  std::string source;  ///< as the manifest gives it (URL or path)
  std::string ref;     ///< the requested ref; empty: the remote's default branch
  std::string commit;  ///< the resolved commit SHA; for a plain directory "tree:<digest>"
  /// "succeeded" | "failed" | "timed_out" | "out_of_memory" | "cached"
  std::string status;
  std::string reason;            ///< one line a person can act on; empty when succeeded/cached
  std::optional<int> exit_code;  ///< the child's exit code; none when it did not exit (killed, cached)
  double duration_s = 0.0;       ///< wall time of fetch + run (of the decision, for cached)
  double peak_rss_mb = 0.0;      ///< the child's process group, peak resident memory
  std::string cache_key;         ///< hex digest; empty when none could be computed
  std::string tool_key;          ///< the key's part without the commit (CacheKeys::toolKeyFor)
  std::string output_dir;        ///< relative to the fleet directory ('/'-separated); may be empty
  std::optional<std::int64_t> cached_from;  ///< cached: the night whose run this row carries over
  std::int64_t findings = 0;                ///< all findings of the run
  std::int64_t findings_fixed = 0;          ///< of which fixed by the emit stage
  double effort_days = 0.0;                 ///< person-days of the work left (remaining bottleneck places)
  std::string verdict;        ///< the assessment's verdict for the chosen goal; empty without one
  std::string verify_status;  ///< verify.json's status ("completed", "unreachable", ...); empty: not run
  std::int64_t checks_passed = 0;
  std::int64_t checks_failed = 0;  ///< failed and errored checks
  std::int64_t checks_skipped = 0;
  std::string started_at;   ///< UTC, ISO 8601
  std::string finished_at;  ///< UTC, ISO 8601
  /// "" (no delivery), "delivered", "unchanged" (same adaptation as delivered before), "nothing"
  /// (an empty patch) or "failed" (`reason` says why; the run itself succeeded).
  std::string delivery;
  std::string delivery_branch;  ///< the remote branch
  std::string delivery_commit;  ///< the commit on it
  std::vector<StageRow> stages;
  std::vector<FindingCount> counts;  ///< sorted by rule
  /// The verification's checks by outcome (passed, introduced, pre-existing, environment, fixed,
  /// skipped, error: those that occur); empty when the checks carry no outcomes.
  std::map<std::string, std::int64_t> outcomes;
  /// Per rule, how many of the run's `introduced` checks its edits broke (verify.json `broken_by`).
  std::map<std::string, std::int64_t> broken_rules;
  /// Every finding, recorded by recordRun; read back only by foundFindings (and merges), not by
  /// runs(): a night's rows stay small.
  std::vector<FoundFinding> found;
  std::vector<BlockingDep> blocking_deps;  ///< sorted by package
  /// The rules of the run's findings, recorded by recordRun into the store's rule_info (read back
  /// by ruleInfo, not by runs()).
  std::vector<RuleInfoRow> rule_info;
  /// What the plan's verdict was judged from (fleet/what_if.hpp, JSON); recorded by recordRun,
  /// read back only by planInputs (and merges). Empty: none (a cached row, a run without a plan).
  std::string plan_inputs;
};

/// A night with its rows counted (what `fleet history` prints and the dashboard charts).
struct NightSummary {
  Night night;
  std::int64_t repos = 0;
  std::int64_t succeeded = 0;
  std::int64_t failed = 0;  ///< "failed" rows only
  std::int64_t timed_out = 0;
  std::int64_t out_of_memory = 0;
  std::int64_t cached = 0;
  std::int64_t findings = 0;  ///< sum over the night's rows (cached rows included)
  std::int64_t findings_fixed = 0;
  double effort_days = 0.0;  ///< sum of effort left
};

class Store {
 public:
  /// Opens `file`, creating it and its schema when missing; WAL mode, foreign keys on, a busy
  /// timeout. Refuses a file that is not a SQLite database, or one whose schema version is newer
  /// than kStoreSchemaVersion, with a message naming the file and what to do.
  static Result<Store> open(const std::filesystem::path& file);

  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  const std::filesystem::path& file() const { return file_; }

  /// Starts a night (state "running"). Fails when `label` is taken.
  Result<Night> beginNight(const std::string& label, const std::string& started_at, const std::string& shard,
                           const std::string& tool_version, const std::string& manifest);
  /// Sets a night's state; "completed" also sets finished_at, any other state clears it.
  Status setNightState(std::int64_t night, const std::string& state, const std::string& finished_at);
  Result<std::optional<Night>> night(std::int64_t id) const;
  Result<std::optional<Night>> nightByLabel(const std::string& label) const;
  /// The night with the highest id; nullopt for an empty store.
  Result<std::optional<Night>> latestNight() const;
  /// Every night, oldest first.
  Result<std::vector<Night>> nights() const;

  /// Records one repository's run in one transaction, replacing an earlier row of the same
  /// repository in the same night (with its stages and counts).
  Status recordRun(std::int64_t night, const RepoRun& run);
  /// The rows of a night, sorted by repository name, with stages and counts.
  Result<std::vector<RepoRun>> runs(std::int64_t night) const;
  /// The repository's row in the latest night before `before_night` (exclusive; 0 = any night)
  /// that has a row for it; nullopt when none.
  Result<std::optional<RepoRun>> lastRun(const std::string& name, std::int64_t before_night = 0) const;
  /// Every night with its counts, oldest first.
  Result<std::vector<NightSummary>> history() const;
  /// Per night id, the findings new and fixed (gone from the code) against each repository's
  /// previous row, by fingerprint, as `fleet diff` counts them: only repositories whose two rows
  /// both succeeded (or are cached); a cached row changes nothing. Nights without any are absent.
  Result<std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>>> newAndFixedPerNight() const;
  /// The findings of `repo`'s run in `night`, by fingerprint; a cached row's are those of the
  /// run it carries over.
  Result<std::vector<FoundFinding>> foundFindings(std::int64_t night, const std::string& repo) const;
  /// Per repository of `night`, what its plan's verdict was judged from (RepoRun::plan_inputs); a
  /// cached row's are those of the run it carries over. Repositories without any are absent.
  Result<std::map<std::string, std::string>> planInputs(std::int64_t night) const;
  /// What the store knows of each rule (the latest run that reported it), by rule id.
  Result<std::map<std::string, RuleInfoRow>> ruleInfo() const;
  /// Every output_dir the rows of `nights` reference, distinct and sorted; empty ones left out
  /// (for disk retention).
  Result<std::vector<std::string>> referencedOutputDirs(const std::vector<std::int64_t>& nights) const;

  /// Copies every night and row of `shard` into this store: nights are matched by label
  /// (created when missing, with the shard's state and times; a night is "completed" only when
  /// every merged shard's night is), rows replace rows of the same repository and night, and
  /// each row's output_dir is rewritten by `rebase` (shard-relative → this store's relative).
  /// A row's cached_from is translated to this store's night of the same label (none when the
  /// shard has no such night). One transaction: on failure this store is left as it was.
  Status mergeFrom(const Store& shard, const std::function<std::string(const std::string&)>& rebase);

 private:
  explicit Store(std::filesystem::path file, sqlite3* db);
  std::filesystem::path file_;
  sqlite3* db_ = nullptr;
};

}  // namespace migrate::fleet
