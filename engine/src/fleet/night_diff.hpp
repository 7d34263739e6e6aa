#pragma once
/// `fleet diff`: what changed between two nights, per repository — the findings new, fixed and
/// persisting (by fingerprint, so a finding that only moved lines persists) and why the results
/// could move: the repository's commit changed, the tool changed (the cache key's tool part:
/// engine, plugins, rules, templates, rule packs, pipeline), both, or neither.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fleet/fleet_store.hpp"
#include "migrate/engine/result.hpp"

namespace migrate::fleet {

/// One repository between the two nights.
struct RepoDiff {
  std::string name;
  /// "code", "tool", "code and tool", "neither", "new" (no row in the first night), "removed"
  /// (none in the second), "unknown" (a row written before the store kept the tool's key), or
  /// "not comparable" (a run of either night did not succeed; `note` says which).
  std::string why;
  std::string note;
  std::string from_commit, to_commit;
  std::vector<FoundFinding> added, fixed, persisting;  ///< fixed: gone from the code (not the emit's fixes)
};

struct NightDiff {
  Night from, to;
  std::vector<RepoDiff> repos;  ///< by name
};

/// The diff of night `from` to night `to`, of every repository or only `repo`.
Result<NightDiff> diffNights(const Store& store, const Night& from, const Night& to,
                             const std::optional<std::string>& repo);

/// The same, one repository at a time, by name, to `each` (which may keep what it needs and let
/// the lists go: memory stays that of one repository).
Status forEachRepoDiff(const Store& store, const Night& from, const Night& to,
                       const std::optional<std::string>& repo, const std::function<void(RepoDiff&&)>& each);

/// The diff as "md" (a summary table, then each repository's new and fixed findings), "csv" (one
/// row per finding: change, repo, file, line, rule, fingerprint, why) or "json" (docs/fleet.md).
std::string formatDiff(const NightDiff& diff, const std::string& format);

}  // namespace migrate::fleet
