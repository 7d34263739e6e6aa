// sdk::ciWorkflowScript: a CI workflow's shell steps as a script laid out byte for byte like the
// workflow, so positions found in the script are the workflow's; sdk::isCiWorkflow's paths.

#include <gtest/gtest.h>

#include <string>

#include "migrate/sdk/ci_workflow.hpp"

namespace migrate {
namespace {

TEST(CiWorkflow, ShellStepsKeepTheirPlaceAndEverythingElseIsBlank) {
  const std::string workflow =
      "name: nvidia-smi check\n"
      "jobs:\n"
      "  gpu:\n"
      "    runs-on: [self-hosted, gpu]\n"
      "    steps:\n"
      "      - name: Show the GPUs with nvidia-smi\n"
      "        run: nvidia-smi\n"
      "      - run: |\n"
      "          pip install flash-attn\n"
      "\n"
      "          python -m pytest\n"
      "      - name: after\n"
      "        with:\n"
      "          args: pip install xformers\n"
      "      - run: \"echo done\"\n"
      "test:\n"
      "  script:\n"
      "    - pip install -e .\n"
      "  - nvcc --version  # an item at the key's column belongs to the list too\n"
      "  variables:\n"
      "    CUDA: \"12.1\"\n";
  const std::string script = sdk::ciWorkflowScript(workflow);
  ASSERT_EQ(script.size(), workflow.size());
  for (std::size_t i = 0; i < workflow.size(); ++i)
    if (workflow[i] == '\n') {
      EXPECT_EQ(script[i], '\n') << i;
    }
  auto at = [&](const std::string& s, std::size_t from = 0) {
    return script.substr(workflow.find(s, from), s.size());
  };
  // Inline steps, block lines and list items are where the workflow has them.
  EXPECT_EQ(at("nvidia-smi\n", workflow.find("run:")), "nvidia-smi\n");
  EXPECT_EQ(at("pip install flash-attn"), "pip install flash-attn");
  EXPECT_EQ(at("python -m pytest"), "python -m pytest");
  EXPECT_EQ(at("echo done"), "echo done");
  EXPECT_EQ(at("pip install -e ."), "pip install -e .");
  EXPECT_EQ(at("nvcc --version"), "nvcc --version");
  // Keys, names, arguments of actions, other keys' values and the quotes of a step are blank.
  EXPECT_EQ(script.find("Show the GPUs"), std::string::npos);
  EXPECT_EQ(script.find("nvidia-smi check"), std::string::npos);
  EXPECT_EQ(script.find("xformers"), std::string::npos);
  EXPECT_EQ(script.find("run:"), std::string::npos);
  EXPECT_EQ(script.find('"'), std::string::npos);
  EXPECT_EQ(script.find("12.1"), std::string::npos);
}

TEST(CiWorkflow, PathsOfWorkflows) {
  for (const char* path :
       {".github/workflows/gpu.yml", ".github/workflows/nightly/test.yaml", "sub/.github/workflows/ci.yml",
        ".github/actions/setup/action.yml", ".azure-pipelines/unit-test.yml", ".azure/gpu-tests.yml",
        "azure-pipelines.yml", ".gitlab-ci.yml", ".lightning/workflows/unittests.yml", ".circleci/config.yml",
        ".buildkite/pipeline.yml"})
    EXPECT_TRUE(sdk::isCiWorkflow(path)) << path;
  for (const char* path :
       {".github/dependabot.yml", "configs/workflows/train.yml", ".github/workflows/run.sh",
        ".github/actions/setup/README.md", "docker-compose.yml", "my.github/workflows/x.yml"})
    EXPECT_FALSE(sdk::isCiWorkflow(path)) << path;
}

}  // namespace
}  // namespace migrate
