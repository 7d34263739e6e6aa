#pragma once
/// What the build knows about itself (generated at build time by cmake/MigrateBuildInfo.cmake).

namespace migrate::build_info {

/// The git commit the executable was built from ("-dirty": with uncommitted changes), or "unknown".
extern const char* const kGitCommit;

}  // namespace migrate::build_info
