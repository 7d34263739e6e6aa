#include "fleet/fleet_progress.hpp"

#include <fmt/format.h>

#include <iostream>

#include "time/utc_time.hpp"

namespace migrate::fleet {

FleetProgress::FleetProgress(std::size_t total, bool terminal, bool quiet, const std::filesystem::path& log)
    : total_(total), terminal_(terminal && !quiet), quiet_(quiet), log_(log, std::ios::app) {}

FleetProgress::~FleetProgress() {
  close();
}

void FleetProgress::printLocked(const std::string& line, bool always) {
  log_ << utcNow() << " " << line << "\n" << std::flush;
  if (quiet_ && !always) return;
  if (drawn_) std::cerr << "\r\033[K";
  std::cerr << "fleet: " << line << "\n";
  drawn_ = false;
  if (terminal_) drawLocked();
}

void FleetProgress::drawLocked() {
  std::string line = fmt::format("[{}/{}]", done_, total_);
  for (const auto& [status, n] : by_status_) line += fmt::format(" {} {}", n, status);
  if (!running_.empty()) {
    line += " | running:";
    for (const std::string& r : running_) line += " " + r;
  }
  if (line.size() > 150) line = line.substr(0, 147) + "...";
  std::cerr << "\r\033[K" << line << std::flush;
  drawn_ = true;
}

void FleetProgress::note(const std::string& line) {
  std::lock_guard lock(mutex_);
  printLocked(line, false);
}

void FleetProgress::running(const std::string& repo, bool running) {
  std::lock_guard lock(mutex_);
  if (running)
    running_.insert(repo);
  else
    running_.erase(repo);
  if (terminal_) drawLocked();
}

void FleetProgress::finished(const RepoRun& run) {
  std::lock_guard lock(mutex_);
  running_.erase(run.name);
  ++done_;
  ++by_status_[run.status];
  std::string line = fmt::format("[{}/{}] {} {}", done_, total_, run.name, run.status);
  if (run.status == "succeeded" || run.status == "cached")
    line +=
        fmt::format(" ({} findings, {} fixed, {:.1f} person-days left{})", run.findings, run.findings_fixed,
                    run.effort_days, run.status == "cached" ? "" : fmt::format(", {:.1f} s", run.duration_s));
  else
    line += ": " + run.reason;
  if (run.delivery == "delivered")
    line += "; delivered " + run.delivery_branch + " " + run.delivery_commit.substr(0, 12);
  if (run.delivery == "failed") line += "; " + run.reason;
  const bool failure = run.status != "succeeded" && run.status != "cached";
  printLocked(line, failure || run.delivery == "failed");
}

void FleetProgress::close() {
  std::lock_guard lock(mutex_);
  if (drawn_) std::cerr << "\r\033[K" << std::flush;
  drawn_ = false;
}

}  // namespace migrate::fleet
