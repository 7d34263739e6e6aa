#pragma once
/// The host verification runs on: this machine, or one reached over ssh. Both run shell
/// commands in a working directory with a deadline and tell unreachable hosts, refused
/// credentials and missing interpreters apart.

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "migrate/engine/pipeline.hpp"
#include "verify/process_runner.hpp"

namespace migrate::verify {

/// Whether a target can run the verification.
struct Reach {
  std::string status;  ///< "ok" | "unreachable" | "auth-failed" | "interpreter-missing" | "timeout" | "error"
  std::string detail;
};

class TargetHost {
 public:
  virtual ~TargetHost() = default;
  /// "local" or "user@host:port".
  virtual std::string describe() const = 0;
  /// The working directory on the target (replaced by upload()).
  virtual std::string workdir() const = 0;
  /// Reaches the host and runs its interpreter.
  virtual Reach probe(std::chrono::seconds timeout) = 0;
  /// Makes the working directory a copy of local directory `layout`.
  virtual ProcessResult upload(const std::filesystem::path& layout, std::chrono::seconds timeout) = 0;
  /// Runs shell text in the working directory; the deadline holds on the target too.
  virtual ProcessResult run(const std::string& shell, std::chrono::seconds timeout) = 0;
  /// Copies the working directory's `results/` into `layout/results`.
  virtual ProcessResult download(const std::filesystem::path& layout, std::chrono::seconds timeout) = 0;
};

/// The target `spec` describes; `local_workdir` is where a local target works (the layout itself).
std::unique_ptr<TargetHost> makeTarget(const TargetSpec& spec, const std::filesystem::path& local_workdir,
                                       const std::string& project, const std::filesystem::path& log);

/// The verdict on an ssh client's failure (exit 255) from its output.
Reach classifySshFailure(const std::string& output);

}  // namespace migrate::verify
