#pragma once
/// The migrate-pipeline a fleet's children, Slurm tasks or Kubernetes pods run.

#include <filesystem>
#include <string>

#include "migrate/engine/install_layout.hpp"

namespace migrate::fleet {

/// `--executable` when given; else this migrate-pipeline's own path (installed, e.g.
/// /usr/bin/migrate-pipeline, or in a build tree on a file system the Slurm nodes share). A
/// Kubernetes pod runs an image, never a build directory: from a build tree, its default is
/// `migrate-pipeline` on the image's PATH, and a given path is kept as written (the image's).
/// Local children need a file here: a bare name is looked up on PATH, a relative path made
/// absolute; Slurm tasks run on the nodes: a bare name is kept for their PATH.
std::filesystem::path schedulerExecutable(const std::filesystem::path& given, const std::string& scheduler,
                                          const InstallLayout& self);

}  // namespace migrate::fleet
