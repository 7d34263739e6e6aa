#include "progress/progress.hpp"

#include <algorithm>
#include <cstdio>

namespace migrate {
namespace {

using Clock = std::chrono::steady_clock;

class TerminalProgress final : public Progress {
 public:
  void begin(const std::string& what, std::size_t total) override {
    what_ = what;
    total_ = total;
    done_ = 0;
    last_ = Clock::time_point{};
  }
  void step(const std::string& item) override {
    const std::size_t done = ++done_;
    std::lock_guard<std::mutex> lock(mutex_);
    const auto now = Clock::now();
    if (done != total_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    const int width = 30;
    const int filled = total_ ? static_cast<int>(width * done / total_) : width;
    std::string shown = item.size() > 40 ? "…" + item.substr(item.size() - 39) : item;
    std::fprintf(stderr, "\r\033[K%s [%.*s%*s] %zu/%zu %s", what_.c_str(), filled,
                 "##############################", width - filled, "", done, total_, shown.c_str());
    std::fflush(stderr);
  }
  void end() override {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }

 private:
  std::string what_;
  std::size_t total_ = 0;
  std::atomic<std::size_t> done_{0};
  std::mutex mutex_;
  Clock::time_point last_;
};

class LogProgress final : public Progress {
 public:
  explicit LogProgress(std::function<void(const std::string&)> log) : log_(std::move(log)) {}
  void begin(const std::string& what, std::size_t total) override {
    what_ = what;
    total_ = total;
    done_ = 0;
    next_decile_ = 1;
  }
  void step(const std::string&) override {
    const std::size_t done = ++done_;
    if (total_ == 0) return;
    std::lock_guard<std::mutex> lock(mutex_);
    // One line per tenth reached; a step that crosses several (small totals) writes only the last.
    const std::size_t reached = std::min<std::size_t>(10, done * 10 / total_);
    if (reached < next_decile_) return;
    log_(what_ + ": " + std::to_string(done) + "/" + std::to_string(total_) + " (" +
         std::to_string(reached * 10) + "%)");
    next_decile_ = reached + 1;
  }
  void end() override {}

 private:
  std::function<void(const std::string&)> log_;
  std::string what_;
  std::size_t total_ = 0;
  std::atomic<std::size_t> done_{0};
  std::mutex mutex_;
  std::size_t next_decile_ = 1;
};

}  // namespace

std::unique_ptr<Progress> makeProgress(bool terminal, std::function<void(const std::string&)> log) {
  if (terminal) return std::make_unique<TerminalProgress>();
  return std::make_unique<LogProgress>(std::move(log));
}

}  // namespace migrate
