#pragma once
/// `fleet run --scheduler slurm`: the night as a Slurm job array — one task per shard, each
/// running `fleet run --shard I/N` into DIR/shards/I — and a merge job that depends on the array
/// (`afterany`), merges the shard stores into DIR/fleet.db (repositories no shard recorded become
/// failed) and writes the dashboard. Submitted with sbatch; followed from the stores until the
/// merge job leaves the queue. The cluster schedules; we only write and submit its job files.

#include <filesystem>
#include <string>

namespace migrate::fleet {

struct SlurmOptions {
  std::filesystem::path manifest;    ///< absolute, on the shared file system
  std::filesystem::path dir;         ///< the fleet directory, absolute, on the shared file system
  std::filesystem::path executable;  ///< this migrate-pipeline, as the nodes reach it
  std::string night;                 ///< the night's label, the same for every shard
  int shards = 4;
  int array_limit = 0;    ///< tasks at once (`%K`); 0: no limit
  std::string partition;  ///< empty: the cluster's default
  bool wait = true;       ///< follow the night and return its exit code
  bool quiet = false;
};

/// DIR/slurm/fleet.sbatch: the job array.
std::string slurmArrayScript(const SlurmOptions& options);
/// DIR/slurm/merge.sbatch: the merge job.
std::string slurmMergeScript(const SlurmOptions& options);

/// Checks that sbatch exists and the controller answers, writes both scripts, submits them and,
/// with `wait`, follows the night; returns the exit code (`fleet run`'s, for the merged night).
int runSlurmNight(const SlurmOptions& options);

}  // namespace migrate::fleet
