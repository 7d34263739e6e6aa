#pragma once
/// Delivery: a repository's adaptation as a branch its owners can review. The run's
/// npu_migration.patch is applied (libgit2) to the analysed commit in the repository's mirror,
/// committed with the report's executive summary as the message, and pushed to the manifest's
/// remote as `deliver.branch`. The default branch is never written; an adaptation equal to the
/// last delivered one makes no new commit.

#include <atomic>
#include <filesystem>
#include <string>

#include "fleet/fleet_spec.hpp"
#include "migrate/engine/result.hpp"

namespace migrate::fleet {

/// What a delivery did.
struct Delivery {
  std::string state;   ///< "delivered" | "unchanged" (same adaptation as last time) | "nothing" (empty patch)
  std::string branch;  ///< the remote branch
  std::string commit;  ///< the commit on it (the earlier one when unchanged)
  std::string remote;  ///< the URL pushed to
};

/// Delivers the run in `out` (its npu_migration.patch and CodeReview report) of repository `repo`,
/// analysed at `commit` in `mirror`, for night `label`. Errors ("delivery failed: ...") name the
/// step and the remote.
Result<Delivery> deliver(const DeliverSpec& spec, const RepoSpec& repo, const std::filesystem::path& mirror,
                         const std::string& commit, const std::filesystem::path& out,
                         const std::string& label, const std::atomic<bool>& stop);

/// The branch name for `repo` and night `label`: `{name}` and `{date}` of `pattern` replaced.
std::string deliveryBranch(const std::string& pattern, const std::string& repo, const std::string& label);

}  // namespace migrate::fleet
