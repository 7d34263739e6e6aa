// `migrate-pipeline fleet run`: the night — lock, store, which repositories need work, the
// worker pool, interruption and resumption, disk retention, the exit code.

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <iostream>
#include <set>
#include <thread>

#include "acquire/git_session.hpp"
#include "fleet/dashboard.hpp"
#include "fleet/fleet_progress.hpp"
#include "fleet/fleet_spec.hpp"
#include "fleet/fleet_store.hpp"
#include "fleet/k8s_jobs.hpp"
#include "fleet/mirror.hpp"
#include "fleet/repo_job.hpp"
#include "fleet/scheduler_executable.hpp"
#include "fleet/slurm_jobs.hpp"
#include "migrate/engine/fleet.hpp"
#include "migrate/engine/runner.hpp"
#include "migrate/sdk/version.hpp"
#include "time/utc_time.hpp"

namespace migrate {
namespace fs = std::filesystem;
using namespace fleet;

namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};

extern "C" void onStopSignal(int sig) {
  g_signal.store(sig);
  g_stop.store(true);
}

/// An exclusive lock on DIR/fleet.lock for the process's lifetime (flock: released when the
/// process dies, however it dies).
class DirectoryLock {
 public:
  static Result<DirectoryLock> take(const fs::path& dir) {
    const fs::path file = dir / "fleet.lock";
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return makeError("cannot open " + file.string() + ": " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      char holder[128] = {};
      const ssize_t n = ::pread(fd, holder, sizeof holder - 1, 0);
      ::close(fd);
      std::string who = n > 0 ? std::string(holder, static_cast<std::size_t>(n)) : "another process";
      who.erase(who.find_last_not_of("\n ") + 1);
      return makeError("another fleet run is using " + dir.string() + " (" + who +
                       "); wait for it to finish, or use another --output directory");
    }
    const std::string me = "pid " + std::to_string(::getpid()) + ", started " + utcNow() + "\n";
    if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, me.data(), me.size(), 0);
    return DirectoryLock(fd);
  }
  DirectoryLock(DirectoryLock&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  DirectoryLock& operator=(DirectoryLock&&) = delete;
  ~DirectoryLock() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  explicit DirectoryLock(int fd) : fd_(fd) {}
  int fd_;
};

/// Installs the stop handlers for SIGINT and SIGTERM and puts the old ones back at the end.
class StopSignals {
 public:
  StopSignals() {
    g_stop = false;
    g_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = onStopSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

bool badStatus(const std::string& status) {
  return status != "succeeded" && status != "cached";
}

/// The night to run: a new one, the unfinished latest (resumed), or with --rerun failed the
/// latest again. `todo` receives the repositories it still needs.
Result<Night> chooseNight(Store& store, const FleetRunOptions& options, const std::vector<RepoSpec>& repos,
                          std::vector<const RepoSpec*>& todo) {
  auto latest = store.latestNight();
  if (!latest) return latest.error();
  std::optional<Night> night;
  if (!options.night.empty()) {
    auto named = store.nightByLabel(options.night);
    if (!named) return named.error();
    night = named.value();
    if (night && night->state == "completed" && options.rerun != "failed")
      return makeError("night '" + options.night +
                       "' is complete; --rerun failed retries its failures, or choose another --night");
  } else if (options.rerun == "failed") {
    if (!latest.value()) return makeError("--rerun failed: the store has no night yet; run the fleet first");
    night = latest.value();
  } else if (latest.value() && latest.value()->state != "completed") {
    night = latest.value();  // resume the night that was interrupted
  }
  const std::string shard =
      options.shard_count ? std::to_string(options.shard_index) + "/" + std::to_string(options.shard_count)
                          : "";
  if (!night) {
    std::string label = options.night.empty() ? utcNow("%Y-%m-%d") : options.night;
    for (int n = 2; options.night.empty(); ++n) {
      auto taken = store.nightByLabel(label);
      if (!taken) return taken.error();
      if (!taken.value()) break;
      label = utcNow("%Y-%m-%d") + "." + std::to_string(n);
    }
    auto begun = store.beginNight(label, utcNow(), shard, sdk::kSdkVersion, options.manifest.string());
    if (!begun) return begun.error();
    for (const RepoSpec& r : repos) todo.push_back(&r);
    return begun.value();
  }
  auto rows = store.runs(night->id);
  if (!rows) return rows.error();
  std::map<std::string, std::string> status;
  for (const RepoRun& r : rows.value()) status[r.name] = r.status;
  for (const RepoSpec& r : repos) {
    const auto it = status.find(r.name);
    if (it == status.end() || (options.rerun == "failed" && badStatus(it->second))) todo.push_back(&r);
  }
  if (auto st = store.setNightState(night->id, "running", ""); !st) return st.error();
  night->state = "running";
  return night.value();
}

/// Removes output directories of nights older than the last `keep` that no kept row refers to,
/// and mirrors of repositories the manifest no longer lists.
void keepDiskBounded(Store& store, const fs::path& dir, int keep, const FleetSpec& fleet,
                     FleetProgress& progress) {
  auto nights = store.nights();
  if (!nights) return;
  std::vector<std::int64_t> kept;
  std::set<std::string> kept_labels;
  for (auto it = nights->rbegin(); it != nights->rend() && static_cast<int>(kept.size()) < keep; ++it) {
    kept.push_back(it->id);
    kept_labels.insert(it->label);
  }
  auto referenced = store.referencedOutputDirs(kept);
  if (!referenced) return;
  const std::set<std::string> in_use(referenced->begin(), referenced->end());
  std::size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator repo(dir / "repos", ec), end; !ec && repo != end; repo.increment(ec)) {
    for (fs::directory_iterator n(repo->path(), ec); !ec && n != end; n.increment(ec)) {
      const std::string label = n->path().filename().string();
      if (kept_labels.count(label) || in_use.count(outputDirOf(repo->path().filename().string(), label)))
        continue;
      std::error_code rm;
      fs::remove_all(n->path(), rm);
      removed += rm ? 0 : 1;
    }
  }
  std::set<std::string> names;
  for (const RepoSpec& r : fleet.repos) names.insert(r.name + ".git");
  std::size_t pruned = 0;
  ec.clear();
  for (fs::directory_iterator m(dir / "mirrors", ec), end; !ec && m != end; m.increment(ec)) {
    if (names.count(m->path().filename().string())) continue;
    std::error_code rm;
    fs::remove_all(m->path(), rm);
    pruned += rm ? 0 : 1;
  }
  if (removed || pruned)
    progress.note(
        fmt::format("disk: removed {} output directories older than {} nights, {} mirrors of "
                    "repositories no longer in the manifest",
                    removed, keep, pruned));
}

/// DIR/index.html after a night; a failure to write it is reported, the night stands.
void refreshDashboard(const Store& store, const fs::path& dir, FleetProgress& progress) {
  if (auto st = writeDashboard(store, dir); !st)
    progress.note("warning: the dashboard was not written: " + st.error().message);
  else
    progress.note("dashboard: " + (dir / "index.html").string());
}

}  // namespace

bool parseShard(const std::string& text, int& index, int& count) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) return false;
  try {
    std::size_t a = 0, b = 0;
    index = std::stoi(text.substr(0, slash), &a);
    count = std::stoi(text.substr(slash + 1), &b);
    if (a != slash || b != text.size() - slash - 1) return false;
  } catch (const std::exception&) {
    return false;
  }
  return count >= 1 && count <= 10000 && index >= 1 && index <= count;
}

bool inShard(const std::string& name, int index, int count) {
  const std::uint64_t h = std::stoull(digest(name).substr(0, 15), nullptr, 16);
  return static_cast<int>(h % static_cast<std::uint64_t>(count)) == index - 1;
}

int runFleet(const FleetRunOptions& options) {
  auto loaded = loadFleet(options.manifest);
  if (!loaded) {
    std::cerr << "error: " << loaded.error().message << "\n";
    return kExitUsage;
  }
  const FleetSpec& fleet = loaded.value();
  std::vector<RepoSpec> repos;
  for (const std::string& name : options.only)
    if (std::none_of(fleet.repos.begin(), fleet.repos.end(),
                     [&](const RepoSpec& r) { return r.name == name; })) {
      std::cerr << "error: --only " << name << ": no repository of that name in " << options.manifest.string()
                << "\n";
      return kExitUsage;
    }
  for (const RepoSpec& r : fleet.repos) {
    if (!options.only.empty() &&
        std::find(options.only.begin(), options.only.end(), r.name) == options.only.end())
      continue;
    if (options.shard_count && !inShard(r.name, options.shard_index, options.shard_count)) continue;
    if (auto spec = checkRepoPipeline(fleet, r); !spec) {
      std::cerr << "error: " << spec.error().message << "\n";
      return kExitUsage;
    }
    repos.push_back(r);
  }

  const fs::path dir = fs::absolute(options.output).lexically_normal();
  if (options.scheduler == "k8s") {
    K8sOptions k8s;
    k8s.manifest = fs::absolute(options.manifest).lexically_normal();
    k8s.dir = dir;
    k8s.night = options.night.empty() ? utcNow("%Y-%m-%d") : options.night;
    k8s.shards = options.shards;
    k8s.parallelism = options.parallelism;
    k8s.image = options.image;
    k8s.claim = options.claim;
    k8s.cpu = options.cpu;
    k8s.memory = options.memory;
    k8s.executable = schedulerExecutable(options.executable, "k8s", installLayout()).string();
    return writeKubernetesNight(k8s);
  }
  if (options.scheduler == "slurm") {
    SlurmOptions slurm;
    slurm.manifest = fs::absolute(options.manifest).lexically_normal();
    slurm.dir = dir;
    slurm.executable = schedulerExecutable(options.executable, "slurm", installLayout());
    slurm.night = options.night.empty() ? utcNow("%Y-%m-%d") : options.night;
    slurm.shards = options.shards;
    slurm.array_limit = options.array_limit;
    slurm.partition = options.partition;
    slurm.wait = !options.no_wait;
    slurm.quiet = options.quiet;
    return runSlurmNight(slurm);
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::cerr << "error: cannot create the fleet directory " << dir.string() << ": " << ec.message() << "\n";
    return kExitUsage;
  }
  auto dir_lock = DirectoryLock::take(dir);
  if (!dir_lock) {
    std::cerr << "error: " << dir_lock.error().message << "\n";
    return kExitFleetBusy;
  }
  auto opened = Store::open(dir / "fleet.db");
  if (!opened) {
    std::cerr << "error: " << opened.error().message << "\n";
    return kExitFleetStore;
  }
  Store& store = opened.value();
  std::vector<const RepoSpec*> todo;
  auto chosen = chooseNight(store, options, repos, todo);
  if (!chosen) {
    std::cerr << "error: " << chosen.error().message << "\n";
    return options.rerun == "failed" || !options.night.empty() ? int{kExitUsage} : int{kExitFleetStore};
  }
  const Night night = chosen.value();

  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const int jobs = options.jobs > 0 ? options.jobs : static_cast<int>(cores);
  FleetProgress progress(todo.size(), options.terminal, options.quiet, dir / "fleet.log");
  progress.note(fmt::format("night {} ({}){}: {} of {} repositories to do, {} at once{}", night.id,
                            night.label, night.shard.empty() ? "" : " shard " + night.shard, todo.size(),
                            repos.size(), jobs,
                            options.rerun.empty() ? "" : " (--rerun " + options.rerun + ")"));

  StopSignals signals;
  // libgit2 stays initialised until the workers are gone: its per-thread error state is freed
  // when a thread ends, which it can only do while the library is up.
  const git::Session git_session;
  CacheKeys keys(schedulerExecutable(options.executable, "local", installLayout()));
  std::counting_semaphore<1024> fetch_slots(fleet.fetch.concurrency);
  std::counting_semaphore<1024> run_slots(jobs);
  std::mutex store_mutex;
  std::string store_error;
  NightContext context{fleet,
                       dir,
                       night,
                       schedulerExecutable(options.executable, "local", installLayout()),
                       std::max(1, static_cast<int>(cores) / jobs),
                       options.rerun != "all",
                       keys,
                       fetch_slots,
                       run_slots,
                       g_stop,
                       [&](const std::string& name) -> std::optional<RepoRun> {
                         std::lock_guard lock(store_mutex);
                         auto last = store.lastRun(name, night.id);
                         return last ? last.value() : std::nullopt;
                       },
                       [&](const std::string& name, bool running) { progress.running(name, running); }};
  const auto t0 = std::chrono::steady_clock::now();
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < todo.size() && !g_stop.load(); i = next++) {
      std::optional<RepoRun> run = runRepository(context, *todo[i]);
      if (!run) continue;  // interrupted: no result, the next `fleet run` does it again
      std::lock_guard lock(store_mutex);
      if (auto st = store.recordRun(night.id, *run); !st) {
        store_error = st.error().message;
        g_stop = true;
        continue;
      }
      progress.finished(*run);
    }
  };
  std::vector<std::thread> workers;
  const int pool = std::min<int>(static_cast<int>(todo.size()), std::max(jobs, fleet.fetch.concurrency));
  for (int w = 0; w < pool; ++w) workers.emplace_back(worker);
  for (std::thread& t : workers) t.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (!store_error.empty()) {
    progress.close();
    std::cerr << "error: " << store_error << "\n";
    (void)store.setNightState(night.id, "interrupted", "");
    return kExitFleetStore;
  }
  if (g_stop.load()) {
    (void)store.setNightState(night.id, "interrupted", "");
    refreshDashboard(store, dir, progress);
    progress.note(
        fmt::format("night {} ({}) interrupted by signal {} after {:.1f} s; its recorded results are kept: "
                    "`migrate-pipeline fleet run` again completes it",
                    night.id, night.label, g_signal.load(), seconds));
    progress.close();
    return 128 + g_signal.load();
  }
  if (auto st = store.setNightState(night.id, "completed", utcNow()); !st) {
    std::cerr << "error: " << st.error().message << "\n";
    return kExitFleetStore;
  }
  keepDiskBounded(store, dir, fleet.keep_nights, fleet, progress);
  refreshDashboard(store, dir, progress);
  auto rows = store.runs(night.id);
  if (!rows) {
    std::cerr << "error: " << rows.error().message << "\n";
    return kExitFleetStore;
  }
  std::map<std::string, int> by_status;
  for (const RepoRun& r : rows.value()) ++by_status[r.status];
  std::string counts;
  for (const auto& [status, n] : by_status)
    counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + status;
  progress.close();
  const bool failures =
      std::any_of(rows->begin(), rows->end(), [](const RepoRun& r) { return badStatus(r.status); });
  const std::string summary = fmt::format(
      "night {} ({}) completed in {:.1f} s: {} repositories: {}; details: migrate-pipeline fleet status {}",
      night.id, night.label, seconds, rows->size(), counts.empty() ? "none" : counts, dir.string());
  progress.note(summary);
  if (options.quiet) std::cerr << "fleet: " << summary << "\n";
  return failures ? int{kExitReposFailed} : int{kExitOk};
}

}  // namespace migrate
