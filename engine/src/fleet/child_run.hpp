#pragma once
/// One repository's `migrate-pipeline run` as a child process: its own process group, a
/// wall-clock timeout and a memory limit that kill the whole group, its peak memory measured.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace migrate::fleet {

struct ChildLimits {
  std::chrono::seconds timeout{1800};
  std::uint64_t memory_bytes = 4ULL << 30;  ///< resident memory of the whole process group
};

/// How the child ended.
struct ChildOutcome {
  bool started = false;
  int exit_code = -1;  ///< when it exited by itself
  int signal = 0;      ///< when a signal ended it (and we did not)
  bool timed_out = false;
  bool out_of_memory = false;  ///< killed at the limit by us
  bool interrupted = false;    ///< killed because `stop` was set
  double seconds = 0.0;
  double peak_rss_mb = 0.0;  ///< the process group's resident memory, sampled
  std::string error;         ///< why it did not start
};

/// Runs `argv` in `cwd` with `environment` ("K=V") added, stdout and stderr appended to `log`.
/// Checks the timeout and `stop` every 100 ms, the group's memory every 200 ms; a child killed for them gets
/// SIGTERM, then SIGKILL for everything left in its group two seconds later. The child also dies when this
/// thread does.
ChildOutcome runChild(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                      const std::vector<std::string>& environment, const std::filesystem::path& log,
                      const ChildLimits& limits, const std::atomic<bool>& stop);

/// Resident memory of every process in process group `pgid`, in bytes (from /proc).
std::uint64_t groupResidentBytes(int pgid);

}  // namespace migrate::fleet
