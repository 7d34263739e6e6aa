#pragma once
/// Fleet runs: one `migrate-pipeline run` child process per repository of a manifest, every
/// night, incrementally, with the results in one SQLite store (DIR/fleet.db). See docs/fleet.md.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace migrate {

/// Exit codes of the `fleet` commands besides 0 and 2 (documented in docs/fleet.md).
enum FleetExitCode : int {
  kExitReposFailed =
      6,                ///< the night completed, and some repositories failed, timed out or ran out of memory
  kExitFleetBusy = 7,   ///< another `fleet run` holds the fleet directory
  kExitFleetStore = 8,  ///< the store cannot be opened, read or written
  // An interrupted night exits with 128 + the signal (130 for SIGINT, 143 for SIGTERM).
};

struct FleetRunOptions {
  std::filesystem::path manifest;
  std::filesystem::path output;   ///< the fleet directory
  int jobs = 0;                   ///< repositories at once; 0: the number of cores
  std::vector<std::string> only;  ///< repository names; empty: all
  std::string rerun;    ///< "": incremental; "failed": retry the latest night's failures; "all": no cache
  int shard_index = 0;  ///< 1-based; 0: the whole manifest
  int shard_count = 0;
  std::string night;  ///< the night's label; empty: today's UTC date (resumes an unfinished night)
  std::filesystem::path executable;  ///< the migrate-pipeline the children run; empty: this one
  /// "local" runs the night here; "slurm" submits it as a job array (one task per shard) and a
  /// dependent merge job; "k8s" writes DIR/k8s/fleet-job.yaml (an Indexed Job, one index per
  /// shard) and fleet-merge-job.yaml for a Kubernetes cluster to run, and runs nothing.
  std::string scheduler = "local";
  int shards = 4;                                 ///< slurm, k8s: shards of the night
  int array_limit = 0;                            ///< slurm: array tasks at once (0: no limit)
  std::string partition;                          ///< slurm: empty = the default partition
  bool no_wait = false;                           ///< slurm: submit and return
  int parallelism = 2;                            ///< k8s: shards at once
  std::string image = "migrate-pipeline:latest";  ///< k8s: the container image
  std::string claim = "migrate-fleet";  ///< k8s: the PersistentVolumeClaim mounted at the fleet directory
  std::string cpu = "2";                ///< k8s: requests and limits per shard
  std::string memory = "8Gi";
  bool terminal = false;  ///< redraw one progress line (stderr is a terminal)
  bool quiet = false;     ///< only failures and the summary
};

/// `migrate-pipeline fleet run`: returns the process exit code. Never throws.
int runFleet(const FleetRunOptions& options);

/// `migrate-pipeline fleet status DIR`: the repositories of night `night` (0: the latest) as
/// "table", "json" or "csv" on stdout.
int fleetStatus(const std::filesystem::path& dir, std::int64_t night, const std::string& format);

/// `migrate-pipeline fleet diff DIR [--from LABEL] [--to LABEL] [--repo NAME]`: the findings new,
/// fixed and persisting between two nights (default: the latest and the one before it), and why
/// each repository's results could move (its code, the tool, both), as "md", "csv" or "json".
int fleetDiff(const std::filesystem::path& dir, const std::string& from, const std::string& to,
              const std::string& repo, const std::string& format);

/// `migrate-pipeline fleet report DIR [--night LABEL]`: what blocks the most repositories of a
/// night (default: the latest) — rules and dependencies ranked by repositories, effort by domain,
/// and what solving each of the top ones would do to the verdicts — as "md", "csv" or "json".
int fleetReport(const std::filesystem::path& dir, const std::string& night, const std::string& format);

/// `migrate-pipeline fleet history DIR`: one row per night.
int fleetHistory(const std::filesystem::path& dir, const std::string& format);

/// `migrate-pipeline fleet dashboard DIR`: writes DIR/index.html from the store; a missing or
/// damaged store gives a page that says so (exit 0), an unwritable page exits 8.
int fleetDashboard(const std::filesystem::path& dir);

/// `migrate-pipeline fleet merge --output DIR SHARD_DIR... [--manifest FLEET.yaml --night LABEL]`:
/// the shard stores combined into DIR/fleet.db (nights matched by label, output directories
/// relative to DIR), then the dashboard. With a manifest and a night, the manifest's repositories
/// that no shard recorded in that night are recorded as failed, and the night is completed.
int fleetMerge(const std::filesystem::path& output, const std::vector<std::filesystem::path>& shards,
               const std::filesystem::path& manifest = {}, const std::string& night = {});

/// Parses "I/N" (1 ≤ I ≤ N ≤ 10000); false when malformed.
bool parseShard(const std::string& text, int& index, int& count);

/// Whether repository `name` belongs to shard `index` of `count`: a stable hash of the name,
/// so the slices are disjoint, cover the manifest and do not move when it is reordered.
bool inShard(const std::string& name, int index, int count);

}  // namespace migrate
