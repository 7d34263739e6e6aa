#pragma once
/// The cache key of a repository's run: everything that can change its outputs — the resolved
/// commit, the engine (version, toolchain, the executable's digest), each enabled plugin (name,
/// version, library digest, rules), the template overrides, and the effective pipeline after the
/// manifest's overrides (less where the outputs go and how many threads make them).

#include <filesystem>
#include <map>
#include <mutex>
#include <string>

#include "migrate/engine/pipeline.hpp"

namespace migrate::fleet {

class CacheKeys {
 public:
  /// `executable` is the migrate-pipeline the children run.
  explicit CacheKeys(const std::filesystem::path& executable);

  /// The key of running `effective` (its source at `commit`); thread-safe.
  std::string keyFor(const std::string& commit, const PipelineSpec& effective);
  /// The tool's part of that key (all but the commit): when it changes between two nights, the
  /// tool changed (engine, plugins, rules, templates, rule packs, pipeline); thread-safe.
  std::string toolKeyFor(const PipelineSpec& effective);

 private:
  /// The text the keys digest, less the commit.
  std::string toolText(const PipelineSpec& effective);
  /// "name version digest rules:<ids digest>" per plugin of `dir`.
  const std::map<std::string, std::string>& pluginsOf(const std::string& dir);
  const std::string& templatesOf(const std::string& dir);

  std::string engine_;
  std::mutex mutex_;
  std::map<std::string, std::map<std::string, std::string>> plugins_;  ///< by plugin directory
  std::map<std::string, std::string> templates_;                       ///< by templates directory
};

}  // namespace migrate::fleet
