// Where migrate-pipeline finds what it ships, relative to its own executable: installed trees,
// build trees and symbolic links on fake prefixes; pipelines by name; the executable the fleet's
// schedulers run and the scripts that name it.
#include <gtest/gtest.h>

#include "fleet/k8s_jobs.hpp"
#include "fleet/scheduler_executable.hpp"
#include "fleet/slurm_jobs.hpp"
#include "migrate/engine/install_layout.hpp"
#include "support/test_support.hpp"

namespace migrate {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using test::writeFile;

/// A prefix as `cmake --install` lays it out (tests/CMakeLists.txt passes the build's directories).
fs::path fakeInstall(const fs::path& prefix) {
  writeFile(prefix / MIGRATE_INSTALL_BINDIR / "migrate-pipeline", "");
  writeFile(prefix / MIGRATE_INSTALL_DATADIR / "pipelines/full.yaml", "version: 1\n");
  writeFile(prefix / MIGRATE_INSTALL_DATADIR / "pipelines/analyze-only.yaml", "version: 1\n");
  writeFile(prefix / MIGRATE_INSTALL_DATADIR / "pipelines/README.txt", "not a pipeline\n");
  return prefix / MIGRATE_INSTALL_BINDIR / "migrate-pipeline";
}

TEST(InstallLayout, AnInstalledExecutableFindsEverythingBelowItsPrefix) {
  TempDir tmp;
  const fs::path prefix = tmp / "opt/mp";
  const InstallLayout layout = installLayoutOf(fakeInstall(prefix));
  EXPECT_FALSE(layout.build_tree);
  EXPECT_EQ(layout.prefix, prefix);
  EXPECT_EQ(layout.executable, prefix / MIGRATE_INSTALL_BINDIR / "migrate-pipeline");
  EXPECT_EQ(layout.plugin_dir, prefix / MIGRATE_INSTALL_PLUGINDIR);
  EXPECT_EQ(layout.pipeline_dir, prefix / MIGRATE_INSTALL_DATADIR / "pipelines");
  EXPECT_EQ(layout.data_dir, prefix / MIGRATE_INSTALL_DATADIR);
  EXPECT_EQ(layout.cmake_package_dir, prefix / MIGRATE_INSTALL_CMAKEDIR);
  EXPECT_EQ(shippedPipelines(layout), (std::vector<std::string>{"analyze-only", "full"}));
}

TEST(InstallLayout, ASymbolicLinkToTheExecutableIsFollowedToItsPrefix) {
  TempDir tmp;
  const fs::path exe = fakeInstall(tmp / "opt/mp");
  fs::create_directories(tmp / "usr/local/bin");
  fs::create_symlink(exe, tmp / "usr/local/bin/migrate-pipeline");
  const InstallLayout layout = installLayoutOf(tmp / "usr/local/bin/migrate-pipeline");
  EXPECT_EQ(layout.prefix, tmp / "opt/mp");
  EXPECT_EQ(layout.executable, exe);
}

TEST(InstallLayout, ABuildTreeIsRecognisedByItsCMakeCache) {
  TempDir tmp;
  writeFile(tmp / "build/CMakeCache.txt", "");
  writeFile(tmp / "build/bin/migrate-pipeline", "");
  const InstallLayout layout = installLayoutOf(tmp / "build/bin/migrate-pipeline");
  EXPECT_TRUE(layout.build_tree);
  EXPECT_EQ(layout.prefix, tmp / "build");
  EXPECT_EQ(layout.plugin_dir, tmp / "build/plugins");
  EXPECT_EQ(layout.pipeline_dir, tmp / "build" / MIGRATE_INSTALL_DATADIR / "pipelines");
  EXPECT_TRUE(layout.cmake_package_dir.empty());
  // This test's own build tree links the shipped pipelines there (cmake/MigrateInstallDirs.cmake).
  const InstallLayout self = installLayout();
  EXPECT_TRUE(self.build_tree);
  EXPECT_EQ(shippedPipelines(self), (std::vector<std::string>{"analyze-only", "full"}));
  EXPECT_TRUE(fs::is_regular_file(self.pipeline_dir / "full.yaml"));
}

TEST(InstallLayout, PipelinesResolveAsFilesFirstThenByShippedName) {
  TempDir tmp;
  const InstallLayout layout = installLayoutOf(fakeInstall(tmp / "prefix"));
  const fs::path shipped = layout.pipeline_dir / "full.yaml";
  auto byName = resolvePipeline("full", layout, tmp / "work");
  ASSERT_TRUE(byName.ok()) << byName.error().message;
  EXPECT_EQ(byName.value(), shipped);
  auto withSuffix = resolvePipeline("analyze-only.yaml", layout, tmp / "work");
  ASSERT_TRUE(withSuffix.ok()) << withSuffix.error().message;
  EXPECT_EQ(withSuffix.value(), layout.pipeline_dir / "analyze-only.yaml");
  // A file of that name where the path is relative to wins over the shipped pipeline.
  writeFile(tmp / "work/full.yaml", "version: 1\n");
  auto local = resolvePipeline("full.yaml", layout, tmp / "work");
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local.value(), tmp / "work/full.yaml");
  auto path = resolvePipeline((tmp / "work/full.yaml").string(), layout);
  ASSERT_TRUE(path.ok());
  EXPECT_EQ(path.value(), tmp / "work/full.yaml");
}

TEST(InstallLayout, AnUnknownPipelineNamesTheShippedOnes) {
  TempDir tmp;
  const InstallLayout layout = installLayoutOf(fakeInstall(tmp / "prefix"));
  auto unknown = resolvePipeline("fulll", layout, tmp / "work");
  ASSERT_FALSE(unknown.ok());
  const std::string& m = unknown.error().message;
  EXPECT_NE(m.find("pipeline 'fulll': no such file, and no shipped pipeline of that name"), std::string::npos)
      << m;
  EXPECT_NE(m.find(layout.pipeline_dir.string() + "): analyze-only, full"), std::string::npos) << m;
  auto missing = resolvePipeline("configs/full.yaml", layout, tmp / "work");
  ASSERT_FALSE(missing.ok()) << "a path is never looked up among the shipped pipelines";
  EXPECT_EQ(missing.error().message.find("no shipped pipeline of that name"), std::string::npos);
  const InstallLayout empty = installLayoutOf(tmp / "bare/bin/migrate-pipeline");
  auto none = resolvePipeline("full", empty);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no pipelines are shipped in"), std::string::npos)
      << none.error().message;
}

TEST(SchedulerExecutable, TheInstalledExecutableUnlessOneIsGiven) {
  TempDir tmp;
  const InstallLayout installed = installLayoutOf(fakeInstall(tmp / "usr"));
  for (const char* scheduler : {"local", "slurm", "k8s"})
    EXPECT_EQ(fleet::schedulerExecutable({}, scheduler, installed), installed.executable) << scheduler;
  const fs::path given = "/opt/migrate/bin/migrate-pipeline";
  for (const char* scheduler : {"local", "slurm", "k8s"})
    EXPECT_EQ(fleet::schedulerExecutable(given, scheduler, installed), given) << scheduler;
  // A relative path is the submitting machine's, except in an image.
  EXPECT_EQ(fleet::schedulerExecutable("bin/mp", "slurm", installed), fs::current_path() / "bin/mp");
  EXPECT_EQ(fleet::schedulerExecutable("bin/mp", "k8s", installed), fs::path("bin/mp"));
  EXPECT_EQ(fleet::schedulerExecutable("migrate-pipeline", "slurm", installed), fs::path("migrate-pipeline"));
}

TEST(SchedulerExecutable, FromABuildTreeKubernetesPodsRunTheImagesOwn) {
  TempDir tmp;
  writeFile(tmp / "build/CMakeCache.txt", "");
  const InstallLayout build = installLayoutOf(tmp / "build/bin/migrate-pipeline");
  EXPECT_EQ(fleet::schedulerExecutable({}, "k8s", build), fs::path("migrate-pipeline"));
  EXPECT_EQ(fleet::schedulerExecutable({}, "slurm", build), tmp / "build/bin/migrate-pipeline");
}

TEST(SchedulerExecutable, TheJobScriptsCallTheExecutable) {
  const std::string exe = "/opt/migrate pipeline/bin/migrate-pipeline";
  fleet::SlurmOptions slurm;
  slurm.manifest = "/shared/fleet.yaml";
  slurm.dir = "/shared/fleet";
  slurm.executable = exe;
  slurm.night = "n1";
  for (const std::string& script : {fleet::slurmArrayScript(slurm), fleet::slurmMergeScript(slurm)})
    EXPECT_NE(script.find("'" + exe + "' fleet "), std::string::npos) << script;
  fleet::K8sOptions k8s;
  k8s.manifest = "/fleet/fleet.yaml";
  k8s.dir = "/fleet/out";
  k8s.night = "n1";
  k8s.executable = exe;
  for (const std::string& job : {fleet::k8sShardJob(k8s), fleet::k8sMergeJob(k8s)})
    EXPECT_NE(job.find("'" + exe + "' fleet "), std::string::npos) << job;
}

}  // namespace
}  // namespace migrate
