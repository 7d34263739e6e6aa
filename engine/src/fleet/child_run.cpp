#include "fleet/child_run.hpp"

#include <boost/process.hpp>
#include <boost/process/extend.hpp>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

namespace migrate::fleet {
namespace bp = boost::process;
namespace fs = std::filesystem;

std::uint64_t groupResidentBytes(int pgid) {
  static const long page = sysconf(_SC_PAGESIZE);
  std::uint64_t total = 0;
  std::error_code ec;
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(it->path() / "stat");
    std::string stat;
    if (!std::getline(in, stat)) continue;
    // pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    std::string state;
    long ppid = 0, pgrp = 0;
    fields >> state >> ppid >> pgrp;
    if (pgrp != pgid) continue;
    std::string skip;
    for (int i = 0; i < 18; ++i) fields >> skip;  // fields 6..23; rss is field 24
    long rss = 0;
    if (fields >> rss && rss > 0) total += static_cast<std::uint64_t>(rss) * static_cast<std::uint64_t>(page);
  }
  return total;
}

ChildOutcome runChild(const std::vector<std::string>& argv, const fs::path& cwd,
                      const std::vector<std::string>& environment, const fs::path& log,
                      const ChildLimits& limits, const std::atomic<bool>& stop) {
  ChildOutcome out;
  const auto t0 = std::chrono::steady_clock::now();
  bp::environment env = boost::this_process::environment();
  for (const std::string& kv : environment) {
    const std::size_t eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  try {
    bp::group group;
    bp::child child(
        boost::filesystem::path(argv.at(0)), bp::args(std::vector<std::string>(argv.begin() + 1, argv.end())),
        bp::start_dir(boost::filesystem::path(cwd.string())), env, (bp::std_out & bp::std_err) > log.string(),
        bp::std_in < bp::null, group,
        bp::extend::on_exec_setup = [](auto&) { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
    out.started = true;
    const int pgid = child.id();
    auto kill_group = [&] {
      ::kill(-pgid, SIGTERM);
      for (int i = 0; i < 20 && child.running(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::error_code ignored;
      group.terminate(ignored);
    };
    int tick = 0;
    std::error_code ec;
    while (child.running(ec)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (++tick % 2 == 0) {
        const std::uint64_t rss = groupResidentBytes(pgid);
        out.peak_rss_mb = std::max(out.peak_rss_mb, static_cast<double>(rss) / (1024.0 * 1024.0));
        if (rss > limits.memory_bytes) {
          out.out_of_memory = true;
          kill_group();
          break;
        }
      }
      if (std::chrono::steady_clock::now() - t0 > limits.timeout) {
        out.timed_out = true;
        kill_group();
        break;
      }
      if (stop.load()) {
        out.interrupted = true;
        kill_group();
        break;
      }
    }
    child.wait(ec);
    const int status = child.native_exit_code();
    if (!out.timed_out && !out.out_of_memory && !out.interrupted) {
      if (WIFEXITED(status))
        out.exit_code = WEXITSTATUS(status);
      else if (WIFSIGNALED(status))
        out.signal = WTERMSIG(status);
    }
    std::error_code ignored;
    group.terminate(ignored);  // what the run left behind does not outlive it
  } catch (const std::exception& e) {
    out.error = "cannot start " + argv.at(0) + ": " + e.what();
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace migrate::fleet
