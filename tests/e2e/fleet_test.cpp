// `migrate-pipeline fleet`: real git repositories made here (local paths and file:// URLs, new
// commits between nights), real child processes, a real SQLite store.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <yaml-cpp/yaml.h>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "support/test_support.hpp"

namespace migrate::test {
namespace {

using nlohmann::json;

/// A git repository with one Python file whose synchronize calls the test plugin reports.
void commitRepo(const fs::path& repo, int calls, const std::string& extra = "",
                const std::string& message = "work") {
  std::string code = "import torch\n";
  for (int i = 0; i < calls; ++i) code += "torch.cuda.synchronize()\n";
  writeFile(repo / "model.py", code + extra);
  const std::string git = "git -C " + quote(repo.string()) + " -c user.name=t -c user.email=t@example.org ";
  if (!fs::exists(repo / ".git")) {
    ASSERT_EQ(run(git + "init -q -b main").exit_code, 0);
  }
  ASSERT_EQ(run(git + "add -A && " + git + "commit -q -m " + quote(message)).exit_code, 0);
}

/// Whether a process whose command line names `dir` (a directory whose name starts with a
/// letter) still runs; pgrep's own shell must not match, hence the bracket.
bool processMentions(const fs::path& dir) {
  const std::string name = dir.filename().string();
  const std::string pattern = (dir.parent_path() / ("[" + name.substr(0, 1) + "]" + name.substr(1))).string();
  return run("pgrep -f " + quote(pattern)).exit_code == 0;
}

class FleetTest : public ::testing::Test {
 protected:
  FleetTest() {
    writeFile(dir_ / "pipeline.yaml",
              "version: 1\nsource: {path: .}\nplugin_dir: " + quote(testPluginDir().string()) +
                  "\nplugins: [misbehaving]\nstages: [analyze, plan, emit, report]\n");
  }
  /// Writes fleet.yaml with `repos` (YAML list items) and `extra` top-level keys.
  void manifest(const std::string& repos, const std::string& extra = "") {
    writeFile(dir_ / "fleet.yaml",
              "format: 1\npipeline: pipeline.yaml\ndefaults: {timeout: 2m, memory: 1GiB}\n" + extra +
                  "repos:\n" + repos);
  }
  CommandResult fleet(const std::string& args) { return run(quote(cli().string()) + " fleet " + args); }
  CommandResult night(const std::string& flags = "") {
    return fleet("run " + quote((dir_ / "fleet.yaml").string()) + " --output " + quote(out().string()) + " " +
                 flags);
  }
  json status(const std::string& flags = "") {
    const CommandResult r = fleet("status " + quote(out().string()) + " --format json " + flags);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return json::parse(r.output, nullptr, false);
  }
  static std::map<std::string, json> byName(const json& s) {
    std::map<std::string, json> out;
    for (const json& r : s["repos"]) out[r["name"].get<std::string>()] = r;
    return out;
  }
  fs::path out() const { return dir_ / "fleet"; }
  TempDir dir_;
};

TEST_F(FleetTest, ColdNightThenUnchangedThenOneChanged) {
  commitRepo(dir_ / "src/alpha", 2);
  commitRepo(dir_ / "src/beta", 1);
  writeFile(dir_ / "src/plain/train.py", "import torch\ntorch.cuda.synchronize()\n");  // not a git repository
  manifest(
      "  - {name: alpha, source: src/alpha}\n"
      "  - {name: beta, source: 'file://" +
      (dir_ / "src/beta").string() +
      "'}\n"
      "  - {name: plain, source: src/plain}\n");

  CommandResult r = night("--jobs 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  json s = status();
  EXPECT_EQ(s["night"], 1);
  auto repos = byName(s);
  ASSERT_EQ(repos.size(), 3u);
  for (const auto& [name, repo] : repos) {
    EXPECT_EQ(repo["status"], "succeeded") << name << ": " << repo.dump();
    EXPECT_TRUE(fs::exists(fs::path(repo["output_dir"].get<std::string>()) / "findings.json")) << name;
    EXPECT_GT(repo["duration_s"].get<double>(), 0.0);
  }
  EXPECT_EQ(repos["alpha"]["findings"], 2);
  EXPECT_EQ(repos["alpha"]["findings_by_domain"]["testing"], 2);
  EXPECT_EQ(repos["alpha"]["findings_fixed"], 2);  // the rule's fix, applied by the emit stage
  EXPECT_EQ(repos["beta"]["findings"], 1);
  EXPECT_EQ(repos["alpha"]["commit"].get<std::string>().size(), 40u);
  EXPECT_EQ(repos["plain"]["commit"].get<std::string>().rfind("tree:", 0), 0u);
  // Each repository's output is its own, and names its own source.
  const std::string alpha_findings =
      readFile(fs::path(repos["alpha"]["output_dir"].get<std::string>()) / "findings.json");
  EXPECT_NE(alpha_findings.find((dir_ / "src/alpha").string()), std::string::npos);
  EXPECT_EQ(alpha_findings.find("src/beta"), std::string::npos);
  EXPECT_TRUE(fs::is_directory(out() / "mirrors/alpha.git"));
  EXPECT_TRUE(fs::is_directory(out() / "mirrors/beta.git"));
  EXPECT_FALSE(fs::exists(out() / "mirrors/plain.git"));
  // The report stayed in the output directory: nothing was written where the fleet ran.
  EXPECT_FALSE(fs::exists(test::reportIn(fs::current_path())));

  r = night();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  s = status();
  EXPECT_EQ(s["night"], 2);
  auto cached = byName(s);
  for (const auto& [name, repo] : cached) {
    EXPECT_EQ(repo["status"], "cached") << name;
    EXPECT_EQ(repo["cached_from"], 1) << name;
    EXPECT_EQ(repo["findings"], repos[name]["findings"]) << name;
    EXPECT_EQ(repo["output_dir"], repos[name]["output_dir"]) << name;  // the run that made them
  }

  commitRepo(dir_ / "src/beta", 3, "", "more synchronize");
  writeFile(dir_ / "src/plain/extra.py", "import torch\ntorch.cuda.synchronize()\n");
  r = night();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto third = byName(status());
  EXPECT_EQ(third["alpha"]["status"], "cached");
  EXPECT_EQ(third["beta"]["status"], "succeeded");
  EXPECT_EQ(third["beta"]["findings"], 3);
  EXPECT_NE(third["beta"]["commit"], repos["beta"]["commit"]);
  EXPECT_EQ(third["plain"]["status"], "succeeded");
  EXPECT_EQ(third["plain"]["findings"], 2);
  // Its emit started from night 1's kit: train.py's adaptation is kept, extra.py's is new.
  const json& kept = third["plain"]["reused"]["emit"];
  EXPECT_GE(kept["kept"].get<int>(), 1) << third["plain"].dump();
  EXPECT_LT(kept["kept"].get<int>(), kept["of"].get<int>()) << third["plain"].dump();
  EXPECT_EQ(repos["plain"]["reused"], json::object()) << "night 1 made everything";

  // Night 1 still reads as it was; history has the three nights.
  EXPECT_EQ(byName(status("--night 1"))["beta"]["findings"], 1);
  const CommandResult h = fleet("history " + quote(out().string()) + " --format json");
  ASSERT_EQ(h.exit_code, 0) << h.output;
  const json history = json::parse(h.output);
  ASSERT_EQ(history["nights"].size(), 3u);
  EXPECT_EQ(history["nights"][1]["cached"], 3);
  EXPECT_EQ(history["nights"][2]["findings"], 7);
  const CommandResult csv = fleet("status " + quote(out().string()) + " --format csv");
  EXPECT_EQ(csv.output.rfind("name,commit,status", 0), 0u) << csv.output;
  const CommandResult table = fleet("status " + quote(out().string()));
  EXPECT_NE(table.output.find("beta"), std::string::npos);

  // --rerun all ignores the cache.
  r = night("--rerun all");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const auto& [name, repo] : byName(status())) EXPECT_EQ(repo["status"], "succeeded") << name;
}

TEST_F(FleetTest, BrokenRepositoriesAreRecordedWhileTheOthersFinish) {
  commitRepo(dir_ / "src/good", 1);
  commitRepo(dir_ / "src/crash", 1, "# MIGRATE_TEST_CRASH\n");
  commitRepo(dir_ / "src/hang", 1, "# MIGRATE_TEST_HANG\n");
  commitRepo(dir_ / "src/hog", 1, "# MIGRATE_TEST_HOG\n");
  manifest(
      "  - {name: good, source: src/good}\n"
      "  - {name: missing, source: 'file://" +
      (dir_ / "src/nowhere").string() +
      "'}\n"
      "  - {name: badref, source: src/good, ref: no-such-branch}\n"
      "  - {name: crash, source: src/crash}\n"
      "  - {name: hang, source: src/hang, timeout: 3s}\n"
      "  - {name: hog, source: src/hog, memory: 256MiB}\n");
  const CommandResult r = night("--jobs 3");
  EXPECT_EQ(r.exit_code, 6) << r.output;
  const json s = status();
  auto repos = byName(s);
  ASSERT_EQ(repos.size(), 6u) << s.dump(2);
  EXPECT_EQ(repos["good"]["status"], "succeeded");
  EXPECT_EQ(repos["missing"]["status"], "failed");
  EXPECT_EQ(repos["missing"]["reason"].get<std::string>().rfind("clone failed: ", 0), 0u) << repos["missing"];
  EXPECT_EQ(repos["badref"]["status"], "failed");
  EXPECT_NE(repos["badref"]["reason"].get<std::string>().find("ref 'no-such-branch' not found"),
            std::string::npos);
  EXPECT_NE(repos["badref"]["reason"].get<std::string>().find("branches: main"), std::string::npos);
  EXPECT_EQ(repos["crash"]["status"], "failed");
  EXPECT_EQ(repos["crash"]["reason"], "plugin misbehaving on model.py in analyzeModule crashed (SIGSEGV)");
  EXPECT_EQ(repos["hang"]["status"], "timed_out");
  EXPECT_EQ(repos["hang"]["reason"], "killed after 3s (timeout; raise it in the manifest)");
  EXPECT_EQ(repos["hog"]["status"], "out_of_memory") << repos["hog"];
  EXPECT_GE(repos["hog"]["peak_rss_mb"].get<double>(), 256.0);
  // The crash is in the child's run.log too, for the people reading it.
  EXPECT_NE(readFile(fs::path(repos["crash"]["output_dir"].get<std::string>()) / "run.log")
                .find("fatal: plugin misbehaving on model.py"),
            std::string::npos);
  // Nothing the killed runs started is left running.
  EXPECT_FALSE(processMentions(out() / "repos/hang"));

  // --rerun failed retries only the failures, in the same night.
  manifest(
      "  - {name: good, source: src/good}\n"
      "  - {name: missing, source: src/good}\n"
      "  - {name: badref, source: src/good, ref: main}\n"
      "  - {name: crash, source: src/crash}\n"
      "  - {name: hang, source: src/hang, timeout: 3s}\n"
      "  - {name: hog, source: src/hog, memory: 256MiB}\n");
  const std::string good_started = readFile(out() / "fleet.log");
  const CommandResult again = night("--rerun failed --only good,missing,badref");
  EXPECT_EQ(again.exit_code, 6) << again.output;  // crash, hang and hog still failed in this night
  auto retried = byName(status());
  EXPECT_EQ(status()["night"], 1);
  EXPECT_EQ(retried["missing"]["status"], "succeeded");
  EXPECT_EQ(retried["badref"]["status"], "succeeded");
  EXPECT_EQ(retried["good"]["duration_s"], repos["good"]["duration_s"]);  // not run again
}

TEST_F(FleetTest, TransientNetworkErrorsAreRetriedWithBackoff) {
  // Nothing listens on 127.0.0.1:9: a refused connection, as from a server restarting.
  manifest(
      "  - {name: net, source: 'http://127.0.0.1:9/repo.git'}\n"
      "  - {name: gone, source: 'file://" +
          (dir_ / "nowhere").string() + "'}\n",
      "fetch: {attempts: 3, backoff: 300ms}\n");
  const auto t0 = std::chrono::steady_clock::now();
  const CommandResult r = night();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 6) << r.output;
  auto repos = byName(status());
  EXPECT_NE(repos["net"]["reason"].get<std::string>().find("(after 3 tries)"), std::string::npos)
      << repos["net"];
  EXPECT_EQ(repos["gone"]["reason"].get<std::string>().find("tries"), std::string::npos) << repos["gone"];
  EXPECT_GE(seconds, 0.9);  // 300 ms, then 600 ms between the tries
}

TEST_F(FleetTest, AShallowCloneAsSourceSaysWhatToDo) {
  commitRepo(dir_ / "src/full", 1);
  commitRepo(dir_ / "src/full", 2, "", "second");
  ASSERT_EQ(run("git clone -q --depth 1 " + quote("file://" + (dir_ / "src/full").string()) + " " +
                quote((dir_ / "src/shallow").string()))
                .exit_code,
            0);
  ASSERT_TRUE(fs::exists(dir_ / "src/shallow/.git/shallow"));
  manifest("  - {name: shallow, source: src/shallow}\n");
  const CommandResult r = night();
  EXPECT_EQ(r.exit_code, 6) << r.output;
  const json repo = byName(status())["shallow"];
  EXPECT_EQ(repo["status"], "failed");
  EXPECT_NE(
      repo["reason"].get<std::string>().find("is a shallow clone, which libgit2 cannot fetch from: run `git "
                                             "fetch --unshallow` there"),
      std::string::npos)
      << repo.dump();
}

TEST_F(FleetTest, SourceUrlsAreRewrittenByTheUsersInsteadOf) {
  // The fleet applies url.<base>.insteadOf itself (libgit2 1.5's own leaks memory per configuration
  // entry, see fleet/mirror.hpp): a rewritten URL still reaches the repository, and the mirror
  // still names the manifest's URL.
  commitRepo(dir_ / "src/alpha", 2);
  writeFile(dir_ / "home/.gitconfig", "[url \"file://" + (dir_ / "src").string() +
                                          "/\"]\n\tinsteadOf = https://git.example.invalid/\n");
  manifest("  - {name: alpha, source: 'https://git.example.invalid/alpha'}\n");
  const CommandResult r =
      run("HOME=" + quote((dir_ / "home").string()) + " " + quote(cli().string()) + " fleet run " +
          quote((dir_ / "fleet.yaml").string()) + " --output " + quote(out().string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto repos = byName(status());
  EXPECT_EQ(repos["alpha"]["status"], "succeeded") << repos["alpha"];
  EXPECT_EQ(repos["alpha"]["findings"], 2);
  EXPECT_EQ(
      run("git -C " + quote((out() / "mirrors/alpha.git").string()) + " config remote.origin.url").output,
      "https://git.example.invalid/alpha\n");
}

TEST_F(FleetTest, KilledNightResumesAndASecondRunIsRefused) {
  for (const char* name : {"r1", "r2", "r3"}) commitRepo(dir_ / "src" / name, 1);
  commitRepo(dir_ / "src/slow", 1, "# MIGRATE_TEST_HANG\n");
  manifest(
      "  - {name: r1, source: src/r1}\n  - {name: slow, source: src/slow, timeout: 4s}\n"
      "  - {name: r2, source: src/r2}\n  - {name: r3, source: src/r3}\n");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string manifest_path = (dir_ / "fleet.yaml").string();
    const std::string out_path = out().string();
    const std::string exe = cli().string();
    execl(exe.c_str(), exe.c_str(), "fleet", "run", manifest_path.c_str(), "--output", out_path.c_str(),
          "--jobs", "1", "-q", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until the slow repository runs, then try a second run and stop the first.
  const fs::path slow_log = out() / "repos/slow";
  for (int i = 0; i < 300 && !fs::exists(slow_log); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(fs::exists(slow_log));
  const CommandResult second = night();
  EXPECT_EQ(second.exit_code, 7) << second.output;
  EXPECT_NE(second.output.find("another fleet run is using"), std::string::npos) << second.output;
  kill(pid, SIGTERM);
  int status_code = 0;
  waitpid(pid, &status_code, 0);
  ASSERT_TRUE(WIFEXITED(status_code));
  EXPECT_EQ(WEXITSTATUS(status_code), 128 + SIGTERM);
  json s = status();
  EXPECT_EQ(s["state"], "interrupted");
  auto before = byName(s);
  EXPECT_LT(before.size(), 4u) << s.dump(2);
  EXPECT_EQ(before.count("slow"), 0u);  // cut short: no result, it runs again on resume
  for (const auto& [name, repo] : before) EXPECT_EQ(repo["status"], "succeeded") << name;
  EXPECT_FALSE(processMentions(slow_log));  // the child died with its night

  const CommandResult resumed = night();
  EXPECT_EQ(resumed.exit_code, 6) << resumed.output;  // slow times out
  s = status();
  EXPECT_EQ(s["night"], 1);
  EXPECT_EQ(s["state"], "completed");
  auto after = byName(s);
  ASSERT_EQ(after.size(), 4u);
  for (const auto& [name, repo] : before) EXPECT_EQ(after[name]["started_at"], repo["started_at"]) << name;
  EXPECT_EQ(after["slow"]["status"], "timed_out");
  EXPECT_EQ(after["r2"]["status"], "succeeded");
  EXPECT_EQ(after["r3"]["status"], "succeeded");
}

TEST_F(FleetTest, ShardsAreDisjointAndMergeIntoOneStore) {
  std::string repos;
  for (int i = 0; i < 6; ++i) {
    const std::string name = "repo" + std::to_string(i);
    commitRepo(dir_ / "src" / name, i);
    repos += "  - {name: " + name + ", source: src/" + name + "}\n";
  }
  manifest(repos);
  std::set<std::string> seen;
  std::vector<std::string> shard_dirs;
  for (int s = 1; s <= 3; ++s) {
    const fs::path shard = dir_ / ("shard" + std::to_string(s));
    shard_dirs.push_back(quote(shard.string()));
    const CommandResult r =
        fleet("run " + quote((dir_ / "fleet.yaml").string()) + " --output " + quote(shard.string()) +
              " --night 2026-11-26 --shard " + std::to_string(s) + "/3");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const CommandResult st = fleet("status " + quote(shard.string()) + " --format json");
    const json shard_status = json::parse(st.output);
    for (const json& repo : shard_status["repos"])
      EXPECT_TRUE(seen.insert(repo["name"].get<std::string>()).second) << repo["name"] << " in two shards";
  }
  EXPECT_EQ(seen.size(), 6u);
  std::string args = "merge --output " + quote(out().string());
  for (const std::string& d : shard_dirs) args += " " + d;
  const CommandResult merged = fleet(args);
  ASSERT_EQ(merged.exit_code, 0) << merged.output;
  const json s = status();
  EXPECT_EQ(s["label"], "2026-11-26");
  EXPECT_EQ(s["state"], "completed");
  ASSERT_EQ(s["repos"].size(), 6u);
  for (const json& repo : s["repos"]) {
    EXPECT_EQ(repo["status"], "succeeded");
    EXPECT_TRUE(fs::exists(fs::path(repo["output_dir"].get<std::string>()) / "findings.json"))
        << repo["output_dir"];
  }
  EXPECT_EQ(byName(s)["repo5"]["findings"], 5);
}

TEST_F(FleetTest, OldOutputsAndMirrorsOfRemovedRepositoriesAreRemoved) {
  commitRepo(dir_ / "src/kept", 1);
  commitRepo(dir_ / "src/changing", 1);
  manifest("  - {name: kept, source: src/kept}\n  - {name: changing, source: src/changing}\n",
           "keep_nights: 2\n");
  for (int n = 0; n < 3; ++n) {
    if (n > 0) commitRepo(dir_ / "src/changing", n + 1, "", "night " + std::to_string(n));
    ASSERT_EQ(night().exit_code, 0);
  }
  // changing ran in all three nights: its first output is gone. kept ran in night 1 only, and
  // the kept nights' cached rows still point there: it stays.
  std::size_t changing_dirs = 0;
  for (const auto& e : fs::directory_iterator(out() / "repos/changing"))
    changing_dirs += e.is_directory() ? 1 : 0;
  EXPECT_EQ(changing_dirs, 2u);
  EXPECT_TRUE(
      fs::exists(fs::path(byName(status())["kept"]["output_dir"].get<std::string>()) / "findings.json"));

  manifest("  - {name: kept, source: src/kept}\n", "keep_nights: 2\n");
  ASSERT_EQ(night().exit_code, 0);
  EXPECT_FALSE(fs::exists(out() / "mirrors/changing.git"));
  EXPECT_TRUE(fs::exists(out() / "mirrors/kept.git"));
}

TEST_F(FleetTest, TheExampleManifestRunsAndIsCachedTheSecondNight) {
  const std::string example = quote((sourceDir() / "pipelines/fleet-example.yaml").string());
  CommandResult r = fleet("run " + example + " --output " + quote(out().string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  json s = status();
  ASSERT_EQ(s["repos"].size(), 4u);
  for (const json& repo : s["repos"]) {
    EXPECT_EQ(repo["status"], "succeeded") << repo;
    const fs::path dir = repo["output_dir"].get<std::string>();
    EXPECT_TRUE(fs::exists(test::reportIn(dir))) << dir;
    EXPECT_TRUE(fs::exists(dir / "npu_migration.patch")) << dir;
    EXPECT_GT(repo["findings"].get<int>(), 0) << repo;
    EXPECT_FALSE(repo["verdict"].get<std::string>().empty()) << repo;  // phase_matrix ran
  }
  r = fleet("run " + example + " --output " + quote(out().string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  s = status();
  for (const json& repo : s["repos"]) EXPECT_EQ(repo["status"], "cached") << repo;
}

TEST_F(FleetTest, AdaptationsAreDeliveredAsBranchesOnTheirRemotes) {
  commitRepo(dir_ / "src/alpha", 2);
  commitRepo(dir_ / "src/beta", 1);
  // alpha's owners have a remote to receive the branch; beta's does not exist.
  ASSERT_EQ(run("git clone -q --bare " + quote((dir_ / "src/alpha").string()) + " " +
                quote((dir_ / "remotes/alpha.git").string()))
                .exit_code,
            0);
  const std::string git = "git -C " + quote((dir_ / "remotes/alpha.git").string()) + " ";
  const std::string main_before = run(git + "rev-parse main").output;
  manifest("  - {name: alpha, source: src/alpha}\n  - {name: beta, source: src/beta}\n",
           "deliver: {remote: 'file://" + (dir_ / "remotes").string() +
               "/{name}.git', branch: 'npu-migration/{date}'}\n");

  CommandResult r = night("--night nightly-1");
  ASSERT_EQ(r.exit_code, 0) << r.output;  // a delivery that fails fails nothing else
  auto repos = byName(status());
  ASSERT_EQ(repos["alpha"]["delivery"]["state"], "delivered") << repos["alpha"];
  EXPECT_EQ(repos["alpha"]["delivery"]["branch"], "npu-migration/nightly-1");
  const std::string delivered = repos["alpha"]["delivery"]["commit"];
  EXPECT_EQ(run(git + "rev-parse npu-migration/nightly-1").output, delivered + "\n");
  EXPECT_EQ(run(git + "rev-parse npu-migration/nightly-1^").output,
            repos["alpha"]["commit"].get<std::string>() + "\n");  // based on the analysed commit
  EXPECT_EQ(run(git + "rev-parse main").output, main_before);     // the default branch untouched
  const std::string adapted = run(git + "show npu-migration/nightly-1:model.py").output;
  EXPECT_NE(adapted.find("torch.npu.synchronize()"), std::string::npos) << adapted;
  EXPECT_NE(run(git + "show -s --format=%B npu-migration/nightly-1").output.find("Adaptation Status"),
            std::string::npos);  // the report's summary as the message
  EXPECT_EQ(repos["beta"]["status"], "succeeded");
  EXPECT_EQ(repos["beta"]["delivery"]["state"], "failed");
  EXPECT_EQ(repos["beta"]["reason"].get<std::string>().rfind("delivery failed: pushing to file://", 0), 0u)
      << repos["beta"];

  // The same adaptation again makes no new commit and no new branch.
  ASSERT_EQ(night("--night nightly-2 --rerun all").exit_code, 0);
  repos = byName(status());
  EXPECT_EQ(repos["alpha"]["delivery"]["state"], "unchanged");
  EXPECT_EQ(repos["alpha"]["delivery"]["commit"], delivered);
  EXPECT_NE(run(git + "rev-parse --verify -q npu-migration/nightly-2").exit_code, 0);

  // A new commit of alpha: a new branch based on it.
  commitRepo(dir_ / "src/alpha", 3, "", "more");
  ASSERT_EQ(night("--night nightly-3").exit_code, 0);
  repos = byName(status());
  EXPECT_EQ(repos["alpha"]["delivery"]["state"], "delivered");
  EXPECT_EQ(run(git + "rev-parse npu-migration/nightly-3^").output,
            repos["alpha"]["commit"].get<std::string>() + "\n");
  EXPECT_EQ(run(git + "rev-parse main").output, main_before);
}

TEST_F(FleetTest, KubernetesJobsRunTheShardsAndTheMergeGivesTheLocalResult) {
  std::string repos;
  for (int i = 0; i < 5; ++i) {
    const std::string name = "repo" + std::to_string(i);
    commitRepo(dir_ / "src" / name, i + 1);
    repos += "  - {name: " + name + ", source: src/" + name + "}\n";
  }
  manifest(repos);
  // The pods run the executable given (the image's); this one, for the test to play the cluster.
  const CommandResult w = night(
      "--scheduler k8s --shards 3 --parallelism 2 --image registry.example/mp:1 "
      "--claim fleet-pvc --cpu 1 --memory 2Gi --night 2026-11-26 --executable " +
      quote(cli().string()));
  ASSERT_EQ(w.exit_code, 0) << w.output;
  EXPECT_FALSE(fs::exists(out() / "fleet.db"));  // nothing ran here
  const YAML::Node shards = YAML::LoadFile((out() / "k8s/fleet-job.yaml").string());
  EXPECT_EQ(shards["kind"].as<std::string>(), "Job");
  EXPECT_EQ(shards["metadata"]["name"].as<std::string>(), "migrate-fleet-2026-11-26");
  const YAML::Node spec = shards["spec"];
  EXPECT_EQ(spec["completionMode"].as<std::string>(), "Indexed");
  EXPECT_EQ(spec["completions"].as<int>(), 3);
  EXPECT_EQ(spec["parallelism"].as<int>(), 2);
  EXPECT_EQ(spec["backoffLimitPerIndex"].as<int>(), 1);
  const YAML::Node pod = spec["template"]["spec"];
  EXPECT_EQ(pod["restartPolicy"].as<std::string>(), "Never");
  const YAML::Node c = pod["containers"][0];
  EXPECT_EQ(c["image"].as<std::string>(), "registry.example/mp:1");
  EXPECT_EQ(c["resources"]["limits"]["memory"].as<std::string>(), "2Gi");
  EXPECT_EQ(c["resources"]["requests"]["cpu"].as<std::string>(), "1");
  EXPECT_EQ(c["volumeMounts"][0]["mountPath"].as<std::string>(), out().string());
  EXPECT_EQ(pod["volumes"][0]["persistentVolumeClaim"]["claimName"].as<std::string>(), "fleet-pvc");
  const std::string script = c["args"][0].as<std::string>();
  EXPECT_NE(script.find("JOB_COMPLETION_INDEX"), std::string::npos);
  EXPECT_NE(script.find(quote(cli().string()) + " fleet run "), std::string::npos) << script;
  const YAML::Node merge = YAML::LoadFile((out() / "k8s/fleet-merge-job.yaml").string());
  EXPECT_EQ(merge["metadata"]["name"].as<std::string>(), "migrate-fleet-2026-11-26-merge");
  const std::string merge_script =
      merge["spec"]["template"]["spec"]["containers"][0]["args"][0].as<std::string>();

  EXPECT_NE(merge_script.find(quote(cli().string()) + " fleet merge "), std::string::npos) << merge_script;
  // Without --executable, a build tree's jobs run migrate-pipeline from the image's PATH.
  const CommandResult from_build =
      fleet("run " + quote((dir_ / "fleet.yaml").string()) + " --output " + quote((dir_ / "k8s2").string()) +
            " --scheduler k8s --night 2026-11-26");
  ASSERT_EQ(from_build.exit_code, 0) << from_build.output;
  const std::string image_script =
      YAML::LoadFile(
          (dir_ / "k8s2/k8s/fleet-job.yaml").string())["spec"]["template"]["spec"]["containers"][0]["args"][0]
          .as<std::string>();
  EXPECT_NE(image_script.find("\n'migrate-pipeline' fleet run "), std::string::npos) << image_script;

  // Run the containers' scripts as the cluster would: each index, then the merge.
  for (int index = 0; index < 3; ++index) {
    const CommandResult shard =
        run("JOB_COMPLETION_INDEX=" + std::to_string(index) + " sh -c " + quote(script));
    ASSERT_EQ(shard.exit_code, 0) << shard.output;
  }
  const CommandResult merged = run("sh -c " + quote(merge_script));
  ASSERT_EQ(merged.exit_code, 0) << merged.output;
  EXPECT_TRUE(fs::exists(out() / "index.html"));
  const json k8s = status();
  EXPECT_EQ(k8s["label"], "2026-11-26");
  EXPECT_EQ(k8s["state"], "completed");

  // The same fleet run here: the same repositories, statuses, commits and findings.
  const fs::path local = dir_ / "local";
  ASSERT_EQ(
      fleet("run " + quote((dir_ / "fleet.yaml").string()) + " --output " + quote(local.string())).exit_code,
      0);
  const json here = json::parse(fleet("status " + quote(local.string()) + " --format json").output);
  auto a = byName(k8s), b = byName(here);
  ASSERT_EQ(a.size(), 5u);
  ASSERT_EQ(b.size(), 5u);
  for (const auto& [name, repo] : b)
    for (const char* key : {"status", "commit", "findings", "findings_fixed", "effort_days"})
      EXPECT_EQ(a[name][key], repo[key]) << name << " " << key;
}

TEST_F(FleetTest, BadManifestsAndArgumentsStopBeforeAnythingRuns) {
  commitRepo(dir_ / "src/a", 1);
  manifest("  - {name: a, source: src/a, set: {verify.target: nowhere}}\n");
  CommandResult r = night();
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("fleet.yaml:5:12: repository 'a':"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("verify.target"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out()));
  manifest("  - {name: a, source: src/a}\n");
  EXPECT_EQ(night("--only b").exit_code, 2);
  EXPECT_EQ(night("--shard 4/3").exit_code, 2);
  EXPECT_EQ(night("--rerun failed").exit_code, 2);  // no night to retry yet
  r = fleet("status " + quote((dir_ / "nothing").string()));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("has no fleet.db"), std::string::npos) << r.output;
  writeFile(out() / "fleet.db", "not a database at all, but long enough to look like a file header....");
  r = night();
  EXPECT_EQ(r.exit_code, 8) << r.output;
  EXPECT_NE(r.output.find("is not a fleet store"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace migrate::test
