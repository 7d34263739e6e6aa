#include "support/slurm_cluster.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <thread>

#include "support/test_support.hpp"

namespace migrate::test {
namespace {

bool onPath(const std::string& program) {
  return run("command -v " + program).exit_code == 0;
}

void killPidFile(const fs::path& file) {
  std::ifstream in(file);
  pid_t pid = 0;
  if (!(in >> pid) || pid <= 1) return;
  ::kill(pid, SIGTERM);
  for (int i = 0; i < 50 && ::kill(pid, 0) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (::kill(pid, 0) == 0) ::kill(pid, SIGKILL);
}

}  // namespace

SlurmCluster::~SlurmCluster() {
  stop();
}

bool SlurmCluster::start(const fs::path& dir) {
  for (const char* program : {"munged", "slurmctld", "slurmd", "sbatch", "sinfo", "squeue", "scontrol"}) {
    if (!onPath(program) && !fs::exists(fs::path("/usr/sbin") / program)) {
      missing_ = true;
      problem_ = std::string(program) + " is not installed (scripts/setup.sh --with-tests installs Slurm)";
      return false;
    }
  }
  dir_ = dir;
  const fs::path munge = dir / "munge";
  fs::create_directories(munge);
  fs::permissions(munge, fs::perms::owner_all, fs::perm_options::replace);
  {
    std::ofstream key(munge / "key", std::ios::binary);
    std::random_device random;
    for (int i = 0; i < 1024; ++i) key.put(static_cast<char>(random() & 0xff));
  }
  fs::permissions(munge / "key", fs::perms::owner_read, fs::perm_options::replace);
  const std::string socket = (munge / "socket").string();
  CommandResult r =
      run("/usr/sbin/munged --force --key-file=" + quote((munge / "key").string()) +
          " --socket=" + quote(socket) + " --pid-file=" + quote((munge / "munged.pid").string()) +
          " --log-file=" + quote((munge / "munged.log").string()) +
          " --seed-file=" + quote((munge / "seed").string()));
  if (r.exit_code != 0) {
    problem_ = "munged did not start: " + r.output;
    return false;
  }
  started_ = true;
  const int base = 20000 + static_cast<int>(::getpid() % 20000);  // ports of this test process
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const long memory_mb = pages * (page / 1024) / 1024 * 8 / 10;
  for (const char* sub : {"state", "spool", "log"}) fs::create_directories(dir / sub);
  config_ = dir / "slurm.conf";
  std::ofstream conf(config_);
  conf << "ClusterName=migrate-test\nSlurmctldHost=localhost\nSlurmUser=root\nAuthType=auth/munge\n"
       << "CryptoType=crypto/munge\nAuthInfo=socket=" << socket << "\nMpiDefault=none\n"
       << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSelectType=select/cons_tres\n"
       << "SelectTypeParameters=CR_Core_Memory\nJobCompType=jobcomp/none\n"
       << "AccountingStorageType=accounting_storage/none\nJobAcctGatherType=jobacct_gather/none\n"
       << "SchedulerType=sched/builtin\nSchedulerParameters=sched_interval=1\n"
       << "ReturnToService=2\nSlurmctldPort=" << base << "\nSlurmdPort=" << base + 1 << "\n"
       << "StateSaveLocation=" << (dir / "state").string() << "\nSlurmdSpoolDir=" << (dir / "spool").string()
       << "\nSlurmctldPidFile=" << (dir / "slurmctld.pid").string()
       << "\nSlurmdPidFile=" << (dir / "slurmd.pid").string()
       << "\nSlurmctldLogFile=" << (dir / "log/slurmctld.log").string()
       << "\nSlurmdLogFile=" << (dir / "log/slurmd.log").string() << "\nMinJobAge=300\n"
       << "NodeName=localhost NodeAddr=127.0.0.1 CPUs=" << cpus << " RealMemory=" << memory_mb << "\n"
       << "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n";
  conf.close();
  ::setenv("SLURM_CONF", config_.c_str(), 1);
  r = run("/usr/sbin/slurmctld -f " + quote(config_.string()));
  if (r.exit_code != 0) {
    problem_ = "slurmctld did not start: " + r.output;
    return false;
  }
  r = run("/usr/sbin/slurmd -f " + quote(config_.string()));
  if (r.exit_code != 0) {
    problem_ = "slurmd did not start: " + r.output;
    return false;
  }
  for (int i = 0; i < 300; ++i) {
    const std::string state = run("sinfo -h -o %T").output;
    if (state.find("idle") != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  problem_ = "the node did not become idle: " + run("sinfo").output + readFile(dir / "log/slurmctld.log");
  return false;
}

void SlurmCluster::stop() {
  if (!started_) return;
  killPidFile(dir_ / "slurmd.pid");
  killPidFile(dir_ / "slurmctld.pid");
  killPidFile(dir_ / "munge/munged.pid");
  ::unsetenv("SLURM_CONF");
  started_ = false;
}

}  // namespace migrate::test
