#pragma once
/// A fleet manifest (format 1) as typed, validated structs: the pipeline every repository runs,
/// the defaults, and the repositories (inline and from `repos_file`). See docs/fleet.md.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "migrate/engine/pipeline.hpp"
#include "migrate/engine/result.hpp"

namespace migrate::fleet {

/// One repository of the fleet, with the defaults applied.
struct RepoSpec {
  std::string name;    ///< unique; letters, digits, '.', '_', '-' (it names directories)
  std::string source;  ///< as written: a git URL, or a path (relative to the manifest)
  /// A git URL as written, or the source's absolute path (a git repository or a plain directory).
  std::string location;
  bool local = false;  ///< `location` is a path on this machine
  std::string ref;     ///< branch, tag or commit; empty: the remote's default branch
  std::chrono::seconds timeout{1800};
  std::uint64_t memory_bytes = 4ULL << 30;
  std::vector<std::string> stages;  ///< empty: the pipeline's own
  std::vector<Override> sets;       ///< `defaults.set`, then the repository's `set`
  std::string where;                ///< "fleet.yaml:12:5" or "repos.csv:3", for messages
};

/// How mirrors are fetched (`fetch:`).
struct FetchSpec {
  int concurrency = 4;                      ///< fetches at once
  int attempts = 3;                         ///< tries per fetch when the error is transient
  std::chrono::milliseconds backoff{2000};  ///< wait before the second try, doubled after
};

/// Delivery branches (`deliver:`, opt-in): where each adapted repository is pushed.
struct DeliverSpec {
  bool enabled = false;
  /// The remote URL; `{name}` is replaced by the repository's name; "source" pushes back to the
  /// repository's own source.
  std::string remote;
  std::string branch = "npu-migration/{date}";  ///< `{date}`: the night's label; `{name}`: the repository
  std::string author_name = "migrate-pipeline";
  std::string author_email = "migrate-pipeline@localhost";
};

struct FleetSpec {
  std::filesystem::path file;      ///< the manifest, absolute
  std::filesystem::path pipeline;  ///< absolute
  int keep_nights = 7;             ///< nights whose output directories are kept
  FetchSpec fetch;
  DeliverSpec deliver;
  std::vector<RepoSpec> repos;  ///< manifest order, then repos_file's
};

/// Reads and validates a manifest. Errors name file:line:column (repos_file: file:line), what
/// was expected and a hint; duplicate names name both places.
Result<FleetSpec> loadFleet(const std::filesystem::path& file);

/// "500ms", "90s", "30m", "2h", "1h30m" or plain seconds.
Result<std::chrono::milliseconds> parseDuration(const std::string& text);
/// "4GiB", "512MiB", "64KiB", "4G", "512M" (binary units) or plain bytes.
Result<std::uint64_t> parseMemory(const std::string& text);

/// "30m", "1h30m", "45s": the shortest way parseDuration reads back.
std::string formatDuration(std::chrono::seconds d);
/// "4 GiB", "512 MiB".
std::string formatMemory(std::uint64_t bytes);

}  // namespace migrate::fleet
