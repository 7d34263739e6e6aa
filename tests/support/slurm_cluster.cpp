#include "support/slurm_cluster.hpp"

#include <cstdlib>

#include "support/test_support.hpp"

namespace migrate::test {

SlurmCluster::~SlurmCluster() {
  stop();
}

bool SlurmCluster::start(const fs::path& dir) {
  dir_ = dir;
  const CommandResult r = run(quote((sourceDir() / "scripts/slurm_cluster.sh").string()) + " start " +
                              quote(dir.string()) + " 2>&1");
  started_ = true;  // whatever came up is stopped again
  if (r.exit_code == 3) missing_ = true;
  if (r.exit_code != 0) {
    problem_ = r.output;
    return false;
  }
  std::string conf = r.output;
  while (!conf.empty() && conf.back() == '\n') conf.pop_back();
  config_ = conf.substr(conf.rfind('\n') == std::string::npos ? 0 : conf.rfind('\n') + 1);
  ::setenv("SLURM_CONF", config_.c_str(), 1);
  return true;
}

void SlurmCluster::stop() {
  if (!started_) return;
  run(quote((sourceDir() / "scripts/slurm_cluster.sh").string()) + " stop " + quote(dir_.string()));
  ::unsetenv("SLURM_CONF");
  started_ = false;
}

}  // namespace migrate::test
