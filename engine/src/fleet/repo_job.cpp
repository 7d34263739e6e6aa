#include "fleet/repo_job.hpp"
#include "emit/emit_state.hpp"

#include <yaml-cpp/yaml.h>

#include <chrono>

#include "emit/emit_state.hpp"
#include "fleet/child_run.hpp"
#include "fleet/delivery.hpp"
#include "fleet/mirror.hpp"
#include "fleet/run_record.hpp"
#include "time/utc_time.hpp"

namespace migrate::fleet {
namespace fs = std::filesystem;
namespace {

/// `text` as a YAML scalar that reads back as exactly this string.
std::string yamlString(const std::string& text) {
  YAML::Emitter e;
  e << YAML::DoubleQuoted << text;
  return e.c_str();
}

/// Where the run's source comes from: a plain directory as it is, else the mirror at `commit`.
std::vector<Override> sourceOverrides(const RepoSpec& repo, bool directory, const std::string& commit,
                                      const fs::path& mirror) {
  if (directory)
    return {{"source.url", "null"},
            {"source.ref", "null"},
            {"source.mirror", "null"},
            {"source.path", yamlString(repo.location)}};
  return {{"source.path", "null"},
          {"source.url", yamlString(repo.location)},
          {"source.ref", yamlString(commit)},
          {"source.mirror", mirror.empty() ? "null" : yamlString(mirror.string())}};
}

using Clock = std::chrono::steady_clock;

}  // namespace

std::string outputDirOf(const std::string& repo, const std::string& label) {
  return "repos/" + repo + "/" + label;
}

std::vector<Override> repoOverrides(const RepoSpec& repo) {
  std::vector<Override> out{{"report.directory", "\"\""}};
  if (!repo.stages.empty()) {
    std::string list;
    for (const std::string& s : repo.stages) list += (list.empty() ? "" : ", ") + s;
    out.push_back({"stages", "[" + list + "]"});
  }
  out.insert(out.end(), repo.sets.begin(), repo.sets.end());
  return out;
}

Result<PipelineSpec> checkRepoPipeline(const FleetSpec& fleet, const RepoSpec& repo) {
  std::vector<Override> overrides = repoOverrides(repo);
  for (Override& o : sourceOverrides(repo, repo.local, "HEAD", {})) overrides.push_back(std::move(o));
  auto spec = loadPipeline(fleet.pipeline, overrides);
  if (!spec) return makeError(repo.where + ": repository '" + repo.name + "': " + spec.error().message);
  return spec;
}

std::optional<RepoRun> runRepository(const NightContext& night, const RepoSpec& repo) {
  const auto t0 = Clock::now();
  RepoRun run;
  run.name = repo.name;
  run.source = repo.source;
  run.ref = repo.ref;
  run.started_at = utcNow();
  auto finish = [&](std::string status, std::string reason) {
    run.status = std::move(status);
    run.reason = std::move(reason);
    run.duration_s = std::chrono::duration<double>(Clock::now() - t0).count();
    run.finished_at = utcNow();
    return run;
  };

  // The source, up to date.
  const bool directory = repo.local && !isGitRepository(repo.location);
  fs::path mirror;
  if (directory) {
    auto d = directoryDigest(repo.location);
    if (!d) return finish("failed", "source not found: " + d.error().message);
    run.commit = d.value();
  } else {
    mirror = night.dir / "mirrors" / (repo.name + ".git");
    night.fetch_slots.acquire();
    auto state = updateMirror(mirror, repo.location, repo.ref, night.fleet.fetch, night.stop);
    night.fetch_slots.release();
    if (night.stop.load()) return std::nullopt;
    if (!state) return finish("failed", state.error().message);
    run.commit = state->commit;
  }

  // Its effective pipeline and key.
  run.output_dir = outputDirOf(repo.name, night.night.label);
  const fs::path out = night.dir / run.output_dir;
  std::vector<Override> overrides = repoOverrides(repo);
  for (Override& o : sourceOverrides(repo, directory, run.commit, mirror)) overrides.push_back(std::move(o));
  overrides.push_back({"output", yamlString(out.string())});
  overrides.push_back({"work_dir", "null"});
  overrides.push_back({"jobs", std::to_string(night.child_jobs)});
  auto spec = loadPipeline(night.fleet.pipeline, overrides);
  if (!spec) return finish("failed", "pipeline error: " + spec.error().message);
  run.cache_key = night.keys.keyFor(run.commit, spec.value());
  run.tool_key = night.keys.toolKeyFor(spec.value());

  if (night.use_cache) {
    const std::optional<RepoRun> last = night.previous(repo.name);
    if (last && (last->status == "succeeded" || last->status == "cached") &&
        last->cache_key == run.cache_key) {
      RepoRun cached = *last;
      cached.status = "cached";
      cached.reason.clear();
      cached.cached_from = last->cached_from ? last->cached_from : std::optional<std::int64_t>(last->night);
      cached.source = repo.source;
      cached.ref = repo.ref;
      cached.started_at = run.started_at;
      cached.exit_code.reset();
      cached.peak_rss_mb = 0.0;
      cached.duration_s = std::chrono::duration<double>(Clock::now() - t0).count();
      cached.finished_at = utcNow();
      return cached;
    }
  }

  // The emit starts from the repository's last kit (a file it already holds is hard-linked, not
  // written); not part of the key: the kit is the same either way.
  if (const std::optional<RepoRun> last = night.previous(repo.name); last && !last->output_dir.empty()) {
    const fs::path base = night.dir / last->output_dir;
    std::error_code ec;
    if (base != out && fs::exists(base / emit::kEmitStateFile, ec))
      overrides.push_back({"emit.base", yamlString(base.string())});
  }

  // The run, as a child process of its own.
  night.run_slots.acquire();
  struct Release {
    std::counting_semaphore<1024>& slots;
    ~Release() { slots.release(); }
  } release{night.run_slots};
  if (night.stop.load()) return std::nullopt;
  std::error_code ec;
  fs::remove_all(out, ec);  // a run that an interruption cut short
  fs::create_directories(out / "_tmp", ec);
  if (ec) return finish("failed", "cannot create " + out.string() + ": " + ec.message());
  std::vector<std::string> argv{night.executable.string(), "run", night.fleet.pipeline.string(), "-q"};
  for (const Override& o : overrides) {
    argv.push_back("--set");
    argv.push_back(o.key + "=" + o.value);
  }
  night.running(repo.name, true);
  const ChildLimits limits{repo.timeout, repo.memory_bytes};
  const fs::path log = out / "fleet-child.log";
  const ChildOutcome outcome =
      runChild(argv, out, {"TMPDIR=" + (out / "_tmp").string()}, log, limits, night.stop);
  night.running(repo.name, false);
  if (outcome.interrupted) return std::nullopt;
  fs::remove_all(out / "_tmp", ec);
  run.peak_rss_mb = outcome.peak_rss_mb;
  std::string unreadable;
  const bool read = readOutputs(out, run, unreadable);
  classifyOutcome(outcome, limits, log, run);
  if (run.status == "succeeded" && !read) {
    run.status = "failed";
    run.reason = "the run's outputs cannot be read: " + unreadable;
  }
  if (run.status == "succeeded" && night.fleet.deliver.enabled && !directory) {
    auto delivered =
        deliver(night.fleet.deliver, repo, mirror, run.commit, out, night.night.label, night.stop);
    if (!delivered) {
      run.delivery = "failed";
      run.reason = delivered.error().message;  // the run stands; only the branch is missing
    } else {
      run.delivery = delivered->state;
      run.delivery_branch = delivered->branch;
      run.delivery_commit = delivered->commit;
    }
  }
  run.duration_s = std::chrono::duration<double>(Clock::now() - t0).count();
  run.finished_at = utcNow();
  return run;
}

}  // namespace migrate::fleet
