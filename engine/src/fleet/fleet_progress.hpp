#pragma once
/// The night's progress: on a terminal one redrawn line (done/total, running repositories by
/// name, counts by status); otherwise a plain line per finished repository. Every line also
/// goes to DIR/fleet.log. Thread-safe.

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "fleet/fleet_store.hpp"

namespace migrate::fleet {

class FleetProgress {
 public:
  FleetProgress(std::size_t total, bool terminal, bool quiet, const std::filesystem::path& log);
  ~FleetProgress();

  /// A message of the runner (not about one repository).
  void note(const std::string& line);
  /// A repository's child started (true) or ended (false).
  void running(const std::string& repo, bool running);
  /// A repository's row was recorded.
  void finished(const RepoRun& run);
  /// Clears the redrawn line (before the summary).
  void close();

 private:
  void drawLocked();
  void printLocked(const std::string& line, bool always);

  std::mutex mutex_;
  std::size_t total_;
  std::size_t done_ = 0;
  bool terminal_;
  bool quiet_;
  bool drawn_ = false;
  std::set<std::string> running_;
  std::map<std::string, std::size_t> by_status_;
  std::ofstream log_;
};

}  // namespace migrate::fleet
