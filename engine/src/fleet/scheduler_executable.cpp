#include "fleet/scheduler_executable.hpp"

#include <boost/process/search_path.hpp>

namespace migrate::fleet {
namespace fs = std::filesystem;

fs::path schedulerExecutable(const fs::path& given, const std::string& scheduler, const InstallLayout& self) {
  if (given.empty())
    return self.build_tree && scheduler == "k8s" ? fs::path("migrate-pipeline") : self.executable;
  if (scheduler == "k8s") return given;
  if (given.string().find('/') != std::string::npos) return fs::absolute(given).lexically_normal();
  if (scheduler == "slurm") return given;
  const auto found = boost::process::search_path(given.string());
  return found.empty() ? given : fs::path(found.string());
}

}  // namespace migrate::fleet
