#pragma once
/// One repository's part of a night: bring its source up to date (mirror fetch or directory
/// digest), key it, and either carry the previous result over (`cached`) or run it as a child.

#include <atomic>
#include <filesystem>
#include <functional>
#include <semaphore>
#include <string>
#include <vector>

#include "fleet/cache_key.hpp"
#include "fleet/fleet_spec.hpp"
#include "fleet/fleet_store.hpp"

namespace migrate::fleet {

/// What the jobs of one night share.
struct NightContext {
  const FleetSpec& fleet;
  std::filesystem::path dir;  ///< the fleet directory, absolute
  Night night;
  std::filesystem::path executable;
  int child_jobs = 1;     ///< --jobs of each child
  bool use_cache = true;  ///< false with --rerun all
  CacheKeys& keys;
  std::counting_semaphore<1024>& fetch_slots;
  std::counting_semaphore<1024>& run_slots;
  const std::atomic<bool>& stop;
  /// The repository's row in the latest earlier night (serialised by the caller).
  std::function<std::optional<RepoRun>(const std::string&)> previous;
  /// A child is about to start (true) or has ended (false).
  std::function<void(const std::string&, bool)> running;
};

/// The pipeline overrides a repository's run gets besides its source: no report copy outside
/// the output directory, the manifest's stages, then `defaults.set` and the repository's `set`.
std::vector<Override> repoOverrides(const RepoSpec& repo);

/// Loads the manifest's pipeline with the repository's overrides and a stand-in source, so
/// that a bad `set` is reported before the night starts.
Result<PipelineSpec> checkRepoPipeline(const FleetSpec& fleet, const RepoSpec& repo);

/// Runs the repository's part of the night; nullopt when `stop` interrupted it (no result).
std::optional<RepoRun> runRepository(const NightContext& night, const RepoSpec& repo);

/// The output directory of `repo` in night `label`, relative to the fleet directory.
std::string outputDirOf(const std::string& repo, const std::string& label);

}  // namespace migrate::fleet
