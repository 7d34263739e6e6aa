#include "fleet/slurm_jobs.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <thread>

#include "fleet/fleet_store.hpp"
#include "migrate/engine/fleet.hpp"
#include "migrate/engine/runner.hpp"
#include "verify/process_runner.hpp"

namespace migrate::fleet {
namespace fs = std::filesystem;
namespace {

using verify::runProcess;
using verify::shellQuote;

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

/// Runs a Slurm client command; the error names the command and what it printed.
Result<std::string> client(const std::vector<std::string>& argv, int timeout_seconds = 60) {
  verify::ProcessOptions options;
  options.timeout = std::chrono::seconds(timeout_seconds);
  const verify::ProcessResult r = runProcess(argv, options);
  std::string command;
  for (const std::string& a : argv) command += (command.empty() ? "" : " ") + a;
  if (!r.started) return makeError(command + ": " + trimmed(r.output) + " (is Slurm's client installed?)");
  if (r.timed_out) return makeError(command + ": no answer within " + std::to_string(timeout_seconds) + " s");
  if (r.exit_code != 0)
    return makeError(command + " failed (exit " + std::to_string(r.exit_code) + "): " + trimmed(r.output));
  return trimmed(r.output);
}

/// Rows recorded so far across the shard stores, for progress.
std::size_t recordedRows(const SlurmOptions& o) {
  std::size_t rows = 0;
  std::error_code ec;
  for (fs::directory_iterator it(o.dir / "shards", ec), end; !ec && it != end; it.increment(ec)) {
    if (!fs::is_regular_file(it->path() / "fleet.db", ec)) continue;
    auto store = Store::open(it->path() / "fleet.db");
    if (!store) continue;
    auto night = store->nightByLabel(o.night);
    if (!night || !night.value()) continue;
    if (auto runs = store->runs(night.value()->id)) rows += runs->size();
  }
  return rows;
}

std::string header(const SlurmOptions& o, const std::string& name, const std::string& output) {
  std::string h = "#!/bin/sh\n#SBATCH --job-name=" + name + "\n#SBATCH --output=" + output + "\n";
  if (!o.partition.empty()) h += "#SBATCH --partition=" + o.partition + "\n";
  return h;
}

}  // namespace

std::string slurmArrayScript(const SlurmOptions& o) {
  const std::string n = std::to_string(o.shards);
  std::string s = header(o, "migrate-fleet-" + o.night, (o.dir / "slurm/shard-%a.out").string());
  s.append("#SBATCH --array=1-").append(n);
  if (o.array_limit > 0) s.append("%").append(std::to_string(o.array_limit));
  s += "\n";
  s += "# The fleet's night " + o.night + ": task I runs shard I of " + n +
       " into its own store. Written by migrate-pipeline (docs/fleet.md); submit it with sbatch.\n"
       "# A shard whose night completed with failed repositories (exit 6) has done its job: the merge\n"
       "# job and the dashboard report them.\n";
  s += shellQuote(o.executable.string()) + " fleet run " + shellQuote(o.manifest.string()) + " --output " +
       shellQuote(o.dir.string()) + "/shards/\"$SLURM_ARRAY_TASK_ID\" --shard \"$SLURM_ARRAY_TASK_ID\"/" + n +
       " --night " + shellQuote(o.night) + " -q\n";
  s += "status=$?\nif [ \"$status\" -eq 6 ]; then exit 0; fi\nexit \"$status\"\n";
  return s;
}

std::string slurmMergeScript(const SlurmOptions& o) {
  std::string s = header(o, "migrate-fleet-" + o.night + "-merge", (o.dir / "slurm/merge.out").string());
  s +=
      "# Merges the shard stores of the night " + o.night +
      " into the fleet's store and writes the dashboard; submitted with --dependency=afterany on the array.\n"
      "# Repositories that no shard recorded (a task died) are recorded as failed.\n";
  s += "exec " + shellQuote(o.executable.string()) + " fleet merge --output " + shellQuote(o.dir.string()) +
       " --manifest " + shellQuote(o.manifest.string()) + " --night " + shellQuote(o.night) + " " +
       shellQuote(o.dir.string()) + "/shards/*\n";
  return s;
}

int runSlurmNight(const SlurmOptions& o) {
  // Nothing is written or submitted unless the cluster answers.
  if (auto version = client({"sbatch", "--version"}); !version) {
    std::cerr << "error: --scheduler slurm: " << version.error().message << "\n";
    return kExitUsage;
  }
  auto ping = client({"scontrol", "ping"}, 15);  // Slurm's own message timeout is 10 s
  if (!ping || ping->find("UP") == std::string::npos) {
    std::cerr << "error: --scheduler slurm: the controller does not answer: "
              << (ping ? "scontrol ping: " + ping.value() : ping.error().message) << "\n";
    return kExitUsage;
  }
  std::error_code ec;
  fs::create_directories(o.dir / "slurm", ec);
  fs::create_directories(o.dir / "shards", ec);
  for (const auto& [file, text] : {std::pair<std::string, std::string>{"fleet.sbatch", slurmArrayScript(o)},
                                   {"merge.sbatch", slurmMergeScript(o)}}) {
    std::ofstream out(o.dir / "slurm" / file, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) {
      std::cerr << "error: cannot write " << (o.dir / "slurm" / file).string() << "\n";
      return kExitUsage;
    }
  }
  auto array = client({"sbatch", "--parsable", (o.dir / "slurm/fleet.sbatch").string()});
  if (!array) {
    std::cerr << "error: " << array.error().message << "\n";
    return kExitUsage;
  }
  const std::string array_id = array->substr(0, array->find(';'));
  auto merge = client(
      {"sbatch", "--parsable", "--dependency=afterany:" + array_id, (o.dir / "slurm/merge.sbatch").string()});
  if (!merge) {
    std::cerr << "error: " << merge.error().message << " (the array " << array_id
              << " is submitted; merge it by hand: sbatch --dependency=afterany:" << array_id << " "
              << (o.dir / "slurm/merge.sbatch").string() << ")\n";
    return kExitUsage;
  }
  const std::string merge_id = merge->substr(0, merge->find(';'));
  std::cerr << "fleet: submitted the night " << o.night << " to Slurm: array " << array_id << " (" << o.shards
            << " shards), merge job " << merge_id << "; the tasks run " << o.executable.string() << "\n";
  if (!o.wait) return kExitOk;

  std::size_t shown = static_cast<std::size_t>(-1);
  for (;;) {
    auto queued = client({"squeue", "-h", "-j", array_id + "," + merge_id, "-o", "%i %T"});
    const std::size_t rows = recordedRows(o);
    if (rows != shown && !o.quiet)
      std::cerr << "fleet: slurm: " << rows << " repositories recorded by the shards\n";
    shown = rows;
    if (queued && queued->find(merge_id) == std::string::npos) break;  // the merge job has finished
    std::this_thread::sleep_for(std::chrono::seconds(2));
  }
  auto store = Store::open(o.dir / "fleet.db");
  auto night = store ? store->nightByLabel(o.night) : Result<std::optional<Night>>(store.error());
  if (!night || !night.value()) {
    std::cerr << "error: the merge job left no night " << o.night << " in " << (o.dir / "fleet.db").string()
              << "; see " << (o.dir / "slurm/merge.out").string() << "\n";
    return kExitFleetStore;
  }
  auto runs = store->runs(night.value()->id);
  if (!runs) {
    std::cerr << "error: " << runs.error().message << "\n";
    return kExitFleetStore;
  }
  const auto failed = std::count_if(runs->begin(), runs->end(), [](const RepoRun& r) {
    return r.status != "succeeded" && r.status != "cached";
  });
  std::cerr << "fleet: night " << o.night << " merged: " << runs->size() << " repositories, " << failed
            << " not succeeded; details: migrate-pipeline fleet status " << o.dir.string() << "\n";
  return failed ? int{kExitReposFailed} : int{kExitOk};
}

}  // namespace migrate::fleet
