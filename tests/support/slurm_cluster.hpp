#pragma once
// A one-node Slurm cluster on loopback for tests, started and stopped by scripts/slurm_cluster.sh
// (Debian's munge, slurmctld and slurmd as plain processes, no systemd; key, configuration,
// state and spool in a temporary directory; non-default ports). Clients find it through
// SLURM_CONF, which start() sets.

#include <filesystem>
#include <string>

namespace migrate::test {

class SlurmCluster {
 public:
  SlurmCluster() = default;
  ~SlurmCluster();
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  /// Starts the daemons under `dir` and waits until the node is idle. False with `problem()` set
  /// when the packages are missing (`missing()` is then true) or a daemon does not come up.
  bool start(const std::filesystem::path& dir);
  /// Stops the daemons (also done by the destructor).
  void stop();

  bool missing() const { return missing_; }
  const std::string& problem() const { return problem_; }
  const std::filesystem::path& config() const { return config_; }

 private:
  std::filesystem::path dir_;
  std::filesystem::path config_;
  std::string problem_;
  bool missing_ = false;
  bool started_ = false;
};

}  // namespace migrate::test
