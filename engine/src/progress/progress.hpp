#pragma once
/// Progress of long work: a redrawn bar on a terminal, periodic log lines otherwise.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace migrate {

class Progress {
 public:
  virtual ~Progress() = default;
  virtual void begin(const std::string& what, std::size_t total) = 0;
  /// Thread-safe: one unit of work done.
  virtual void step(const std::string& item) = 0;
  virtual void end() = 0;
};

/// A bar on stderr when it is a terminal; otherwise a log line at every 10% through `log`.
std::unique_ptr<Progress> makeProgress(bool terminal, std::function<void(const std::string&)> log);

}  // namespace migrate
