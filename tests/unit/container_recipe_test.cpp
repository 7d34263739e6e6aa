// sdk::containerRecipeScript / containerRecipeBaseImage / isContainerRecipe: a Singularity or
// Apptainer recipe's shell sections laid out byte for byte like the recipe, its Docker base image,
// and which files are recipes (a `*.def` C macro table is not).

#include <gtest/gtest.h>

#include <string>

#include "migrate/sdk/container_recipe.hpp"

namespace migrate {
namespace {

const std::string kRecipe =
    "# AlgoPerf image\n"
    "Bootstrap: docker\n"
    "From: nvidia/cuda:11.8.0-cudnn8-devel-ubuntu20.04\n"
    "Stage: base\n"
    "\n"
    "%help\n"
    "    pip install flash-attn is run by %post\n"
    "%labels\n"
    "    cuda 11.8\n"
    "%post\n"
    "    pip install flash-attn\n"
    "    nvidia-smi\n"
    "%environment\n"
    "    export NCCL_DEBUG=INFO\n"
    "%runscript\n"
    "    exec python train.py \"$@\"\n";

TEST(ContainerRecipe, ShellSectionsKeepTheirPlaceAndEverythingElseIsBlank) {
  const std::string script = sdk::containerRecipeScript(kRecipe);
  ASSERT_EQ(script.size(), kRecipe.size());
  for (std::size_t i = 0; i < kRecipe.size(); ++i) {
    if (kRecipe[i] == '\n') {
      EXPECT_EQ(script[i], '\n') << i;
    }
  }
  auto at = [&](const std::string& s) { return script.substr(kRecipe.rfind(s), s.size()); };
  EXPECT_EQ(at("pip install flash-attn\n"), "pip install flash-attn\n");
  EXPECT_EQ(at("nvidia-smi"), "nvidia-smi");
  EXPECT_EQ(at("export NCCL_DEBUG=INFO"), "export NCCL_DEBUG=INFO");
  EXPECT_EQ(at("exec python train.py"), "exec python train.py");
  // The header, section lines, help text and labels are blank.
  EXPECT_EQ(script.find("nvidia/cuda"), std::string::npos);
  EXPECT_EQ(script.find("is run by"), std::string::npos);
  EXPECT_EQ(script.find("cuda 11.8"), std::string::npos);
  EXPECT_EQ(script.find('%'), std::string::npos);
}

TEST(ContainerRecipe, BaseImageOfADockerBootstrapOnly) {
  const auto from = sdk::containerRecipeBaseImage(kRecipe);
  ASSERT_TRUE(from.has_value());
  EXPECT_EQ(kRecipe.substr(from->first, from->second - from->first),
            "nvidia/cuda:11.8.0-cudnn8-devel-ubuntu20.04");
  EXPECT_FALSE(sdk::containerRecipeBaseImage("Bootstrap: localimage\nFrom: cuda.sif\n").has_value());
  // A `From:` below the header (in a section) is no base image.
  EXPECT_FALSE(
      sdk::containerRecipeBaseImage("Bootstrap: docker\n%post\nFrom: nvidia/cuda:12.1.0\n").has_value());
}

TEST(ContainerRecipe, RecipesByNameAndHeader) {
  for (const char* path :
       {"Singularity", "containers/Singularity.gpu", "Apptainer", "docker/Singularity.def", "env/train.def"})
    EXPECT_TRUE(sdk::isContainerRecipe(path, kRecipe)) << path;
  EXPECT_FALSE(sdk::isContainerRecipe("src/ops.def", "OP(cuda_add, \"add\")\nOP(cuda_mul, \"mul\")\n"));
  EXPECT_FALSE(sdk::isContainerRecipe("recipe.txt", kRecipe));
  EXPECT_FALSE(sdk::isContainerRecipe("SingularityHub.md", kRecipe));
}

}  // namespace
}  // namespace migrate
