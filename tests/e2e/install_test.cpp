// The installed tree (`cmake --install --strip`, as the Debian packages are made): it works from
// any prefix, moved after installation too, with nothing of the build; the shipped pipelines run
// by name; the fleet's job files call the installed executable; the man page and bash completion.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "migrate/sdk/version.hpp"
#include "support/test_support.hpp"

namespace migrate {
namespace {

namespace fs = std::filesystem;
using test::quote;
using test::readFile;
using test::run;
using test::TempDir;
using test::writeFile;

class InstalledTree : public ::testing::Test {
 protected:
  InstalledTree() {
    const auto r = run(quote(MIGRATE_CMAKE_COMMAND) + " --install " + quote(test::binaryDir().string()) +
                       " --strip --prefix " + quote((tmp_ / "installed").string()));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    // Moved after installation: nothing may depend on where it was installed.
    fs::create_directories(tmp_ / "moved");
    fs::rename(tmp_ / "installed", prefix());
    fs::create_directories(work());
  }
  fs::path prefix() const { return tmp_ / "moved/prefix"; }
  fs::path work() const { return tmp_ / "work"; }
  std::string cli() const { return quote((prefix() / MIGRATE_INSTALL_BINDIR / "migrate-pipeline").string()); }
  /// A command run in the work directory, away from the checkout and the build.
  test::CommandResult inWork(const std::string& command) const {
    return run("cd " + quote(work().string()) + " && " + command);
  }
  std::string completions(const std::string& words) const {
    const fs::path script = prefix() / "share/bash-completion/completions/migrate-pipeline";
    return inWork("PATH=" + quote((prefix() / MIGRATE_INSTALL_BINDIR).string()) + ":\"$PATH\" bash -c " +
                  quote("source " + quote(script.string()) + "; COMP_WORDS=(" + words +
                        "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _migrate_pipeline; "
                        "printf '%s\\n' \"${COMPREPLY[@]}\""))
        .output;
  }
  TempDir tmp_;
};

TEST_F(InstalledTree, VersionNamesTheCommitTheAbiAndItsOwnDirectories) {
  const auto v = run(cli() + " --version");
  ASSERT_EQ(v.exit_code, 0) << v.output;
  EXPECT_EQ(v.output.rfind(std::string("migrate-pipeline ") + sdk::kSdkVersion + "\n", 0), 0u) << v.output;
  const auto head = run("git -C " + quote(test::sourceDir().string()) + " rev-parse --short=12 HEAD");
  if (head.exit_code == 0) {  // a checkout: the commit the build was made from
    EXPECT_NE(v.output.find("\ncommit: " + head.output.substr(0, 12)), std::string::npos) << v.output;
  }
  EXPECT_NE(v.output.find("\nplugin ABI: " + std::to_string(sdk::kAbiVersion) + " (" + MIGRATE_TOOLCHAIN_TAG +
                          ")\n"),
            std::string::npos)
      << v.output;
  EXPECT_NE(v.output.find("\nplugins: " + (prefix() / MIGRATE_INSTALL_PLUGINDIR).string() + "\n"),
            std::string::npos)
      << v.output;
  EXPECT_NE(
      v.output.find("\npipelines: " + (prefix() / MIGRATE_INSTALL_DATADIR / "pipelines").string() + "\n"),
      std::string::npos)
      << v.output;
}

TEST_F(InstalledTree, RunsTheShippedPipelineByNameOnTheShippedExample) {
  const auto plugins = inWork(cli() + " plugins");
  ASSERT_EQ(plugins.exit_code, 0) << plugins.output;
  EXPECT_NE(plugins.output.find("device 0.1.0  domain=device"), std::string::npos) << plugins.output;
  const auto dump = inWork(cli() + " config dump full");
  ASSERT_EQ(dump.exit_code, 0) << dump.output;
  EXPECT_NE(dump.output.find((prefix() / MIGRATE_INSTALL_DATADIR / "examples/gpt_cuda").string()),
            std::string::npos)
      << "full.yaml's source is the shipped example: " << dump.output;
  const auto r =
      inWork(cli() + " run full --stages analyze,plan,emit --output out --set 'report.directory=\"\"'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("analyze: 15/15 (100%)"), std::string::npos) << r.output;
  const auto findings = nlohmann::json::parse(readFile(work() / "out/findings.json"));
  EXPECT_GT(findings["findings"].size(), 50u);
  EXPECT_TRUE(fs::exists(work() / "out/npu_migration.patch"));
  const auto pack = inWork(cli() + " rules test " +
                           quote((prefix() / MIGRATE_INSTALL_DATADIR / "examples/rule_pack").string()));
  EXPECT_EQ(pack.exit_code, 0) << pack.output;
  EXPECT_NE(pack.output.find("all passed"), std::string::npos) << pack.output;
}

TEST_F(InstalledTree, AnUnknownPipelineNameListsTheShippedOnes) {
  const auto r = inWork(cli() + " run fulll");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(
      r.output.find("error: pipeline 'fulll': no such file, and no shipped pipeline of that name; "
                    "the shipped pipelines (" +
                    (prefix() / MIGRATE_INSTALL_DATADIR / "pipelines").string() + "): analyze-only, full"),
      std::string::npos)
      << r.output;
}

#ifndef MIGRATE_SANITIZED_BUILD  // AddressSanitizer's metadata names the sources (tests/CMakeLists.txt)
TEST_F(InstalledTree, NothingOfTheBuildOrTheCheckoutIsInTheInstalledBinaries) {
  const std::string build = test::binaryDir().string(), source = test::sourceDir().string();
  std::size_t checked = 0;
  for (const auto& entry : fs::recursive_directory_iterator(prefix())) {
    if (!entry.is_regular_file() ||
        !(entry.path().extension() == ".so" || entry.path().filename() == "migrate-pipeline"))
      continue;
    const std::string bytes = readFile(entry.path());
    EXPECT_EQ(bytes.find(build), std::string::npos) << entry.path() << " names the build directory";
    EXPECT_EQ(bytes.find(source), std::string::npos) << entry.path() << " names the checkout";
    ++checked;
  }
  EXPECT_GE(checked, 8u) << "the executable and the seven plugins";
}
#endif

TEST_F(InstalledTree, KubernetesJobsCallTheInstalledExecutableAndManifestsNameShippedPipelines) {
  writeFile(work() / "src/a/train.py", "import torch\ntorch.cuda.synchronize()\n");
  writeFile(work() / "fleet.yaml", "format: 1\npipeline: full\nrepos:\n  - {name: a, source: src/a}\n");
  const auto r = inWork(cli() + " fleet run fleet.yaml --output fleet --scheduler k8s --night n1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string exe = (prefix() / MIGRATE_INSTALL_BINDIR / "migrate-pipeline").string();
  for (const char* file : {"fleet/k8s/fleet-job.yaml", "fleet/k8s/fleet-merge-job.yaml"})
    EXPECT_NE(readFile(work() / file).find("'" + exe + "' fleet "), std::string::npos)
        << readFile(work() / file);
  const auto given = inWork(cli() + " fleet run fleet.yaml --output fleet2 --scheduler k8s --night n1" +
                            " --executable /usr/bin/migrate-pipeline");
  ASSERT_EQ(given.exit_code, 0) << given.output;
  EXPECT_NE(readFile(work() / "fleet2/k8s/fleet-job.yaml").find("'/usr/bin/migrate-pipeline' fleet run"),
            std::string::npos);
  // And a local night with the shipped pipeline by name.
  const auto local = inWork(cli() + " fleet run fleet.yaml --output fleet3 -q");
  EXPECT_EQ(local.exit_code, 0) << local.output;
}

TEST_F(InstalledTree, BashCompletesSubcommandsFlagsChoicesAndShippedPipelines) {
  EXPECT_EQ(completions("migrate-pipeline fl"), "fleet\n");
  EXPECT_EQ(completions("migrate-pipeline fleet run x.yaml --sch"), "--scheduler\n");
  EXPECT_EQ(completions("migrate-pipeline fleet run x.yaml --scheduler ''"), "local\nslurm\nk8s\n");
  EXPECT_EQ(completions("migrate-pipeline run an"), "analyze-only\n");
  writeFile(work() / "full-local.yaml", "");
  EXPECT_EQ(completions("migrate-pipeline config dump ful"), "full\nfull-local.yaml\n");
}

TEST_F(InstalledTree, TheManPageDescribesEverySubcommand) {
  const auto man = run("gzip -dc " + quote((prefix() / "share/man/man1/migrate-pipeline.1.gz").string()));
  ASSERT_EQ(man.exit_code, 0) << man.output;
  EXPECT_NE(man.output.find(std::string("\"migrate-pipeline ") + sdk::kSdkVersion + "\""), std::string::npos);
  for (const std::string command : {"", "fleet", "rules", "new", "config"}) {
    const auto help = run(cli() + " " + command + " --help");
    const std::string text = help.output.substr(help.output.find("Subcommands:"));
    const std::regex entry(R"(\n  ([a-z-]+) )");
    std::size_t found = 0;
    for (std::sregex_iterator it(text.begin(), text.end(), entry), end; it != end; ++it, ++found) {
      const std::string sub = (*it)[1].str();
      const std::string name = command.empty() ? sub : command + " " + sub;
      const std::regex described("\\.BI? " + name + "\\b|\\\\fB(" + name + "|" + sub + ")\\b");
      EXPECT_TRUE(std::regex_search(man.output, described)) << "the man page does not describe " << name;
    }
    EXPECT_GT(found, 0u) << help.output;
  }
}

}  // namespace
}  // namespace migrate
