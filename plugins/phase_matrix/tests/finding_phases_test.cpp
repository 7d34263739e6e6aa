// Step 3: the phases of each finding, rule by rule.

#include <gtest/gtest.h>

#include "finding_phases.hpp"
#include "tests/sample_repository.hpp"

namespace phase_matrix::test {
namespace {

using namespace migrate::sdk;
using Names = std::vector<std::string>;

/// The phase names of every finding of `in`.
std::vector<Names> phasesOfAll(const PlanInput& in) {
  const RecordingPlanContext context(in);
  const Reach reach = computeReach(in.modules, in.entry_points, in.phases);
  std::vector<Names> out;
  for (const auto& indices : findingPhases(context, reach)) out.push_back(phaseNames(indices, in.phases));
  return out;
}

const Names kAllActive = {"train", "infer", "data", "test", "distributed"};
const Names kModelReach = {"train", "infer", "test", "distributed"};
const Names kTrainAndDistributed = {"train", "distributed"};

TEST(FindingPhases, SampleRepositoryAnswers) {
  const auto phases = phasesOfAll(sampleRepository());
  ASSERT_EQ(phases.size(), static_cast<std::size_t>(kSampleFindingCount));
  // (f) environment files: every active phase, not the inactive "serve".
  EXPECT_EQ(phases[kDockerfile], kAllActive);
  // (c) Python modules: the phases reaching them.
  EXPECT_EQ(phases[kAttentionFlash], kModelReach);
  EXPECT_EQ(phases[kModelAutocast], kModelReach);
  EXPECT_EQ(phases[kDataIsAvailable], Names{"data"});
  EXPECT_EQ(phases[kInferSynchronize], Names{"infer"});
  EXPECT_EQ(phases[kTestIsAvailable], Names{"test"});
  EXPECT_EQ(phases[kOpsExtensionImport], kTrainAndDistributed);
  EXPECT_TRUE(phases[kOldModelSynchronize].empty());  // unreached
  // (c) + domain: train.py's distributed finding; utils/dist_utils.py is in no phase's reach but is
  // reached (through tools/export.py), so its distributed finding gets "distributed" and its
  // device finding nothing.
  EXPECT_EQ(phases[kTrainNccl], kTrainAndDistributed);
  EXPECT_EQ(phases[kDistUtilsNccl], Names{"distributed"});
  EXPECT_TRUE(phases[kDistUtilsSynchronize].empty());
  // (a) dependencies: the modules importing them.
  EXPECT_EQ(phases[kRequirementFlashAttn], kModelReach);
  EXPECT_TRUE(phases[kRequirementApex].empty());
  // (b) the extension, (d) its sources and the unlisted kernel.
  EXPECT_EQ(phases[kSetupExtension], kTrainAndDistributed);
  EXPECT_EQ(phases[kFusedKernelCu], kTrainAndDistributed);
  EXPECT_EQ(phases[kOtherCu], kTrainAndDistributed);
  // (e) the launch script: its entry point's phases.
  EXPECT_EQ(phases[kLaunchNcclEnv], kTrainAndDistributed);
}

/// Two phases over a small graph: train.py → model.py; infer.py → serve.py.
PlanInput twoPhases() {
  PlanInput in;
  in.modules = {moduleNode("train.py", {1}, {"torch"}), moduleNode("model.py", {}, {"flash_attn", "pynvml"}),
                moduleNode("infer.py", {3}, {}), moduleNode("serve.py", {}, {"fused_jit", "GPUtil"})};
  in.entry_points = {entryPoint(EntryPoint::Kind::MainBlock, "train.py", "train.py", {0}, {"train.py"}),
                     entryPoint(EntryPoint::Kind::MainBlock, "infer.py", "infer.py", {2}, {"infer.py"})};
  in.phases = {{"train", "", {"train.py"}, {}}, {"infer", "", {"infer.py"}, {}}};
  return in;
}

TEST(FindingPhases, DependencyUsersByEitherNameNormalised) {
  PlanInput in = twoPhases();
  in.findings = {
      // name "Flash-Attn" → flash_attn, imported by model.py.
      finding("D", "deps", "requirements.txt", 1, "",
              {{"package", "flash-attention"}, {"name", "Flash-Attn"}}),
      // package "pynvml" (the name as written does not import).
      finding("D", "deps", "requirements.txt", 2, "", {{"package", "pynvml"}, {"name", "nvidia-ml-py"}}),
      // Lower-cased candidates do not match the import name GPUtil.
      finding("D", "deps", "requirements.txt", 3, "", {{"package", "gputil"}, {"name", "GPUtil"}}),
      // A package key wins over the file being a module: setup.py-style dependency in model.py.
      finding("D", "deps", "model.py", 4, "", {{"package", "numpy"}}),
      // An empty package: the name alone.
      finding("D", "deps", "requirements.txt", 5, "", {{"package", ""}, {"name", "fused.jit"}}),
  };
  const auto phases = phasesOfAll(in);
  EXPECT_EQ(phases[0], Names{"train"});
  EXPECT_EQ(phases[1], Names{"train"});
  EXPECT_TRUE(phases[2].empty());
  EXPECT_TRUE(phases[3].empty());
  EXPECT_EQ(phases[4], Names{"infer"});
}

TEST(FindingPhases, ExtensionsByTheirLastComponentAndTheModuleDeclaringThem) {
  PlanInput in = twoPhases();
  in.modules.push_back(moduleNode("setup.py", {}, {"setuptools"}));
  in.findings = {
      // load() in model.py: nothing imports "jit_ops", but model.py builds it → train.
      finding("X", "custom_ops", "model.py", 3, "", {{"extension", "jit_ops"}, {"sources", "['k/jit.cu']"}}),
      // CUDAExtension in setup.py (unreached) named pkg.fused_jit: serve.py imports fused_jit → infer.
      finding("X", "custom_ops", "setup.py", 9, "",
              {{"extension", "pkg.fused_jit"}, {"sources", "['k/a.cu']"}}),
      // The sources decide: k/jit.cu → jit_ops → train; k/a.cu → pkg.fused_jit → infer.
      finding("K", "custom_ops", "k/jit.cu", 1, "", {{"kernel", "jit_kernel"}}),
      finding("K", "custom_ops", "k/a.cu", 1, "", {{"kernel", "a_kernel"}}),
      // data.cu is not a.cu: listed by no extension → users of every extension.
      finding("K", "custom_ops", "k/data.cu", 1, ""),
      // A header nobody lists, a Makefile: every extension's users; every active phase.
      finding("K", "custom_ops", "include/x.cuh", 1, ""),
      finding("K", "custom_ops", "Makefile", 1, ""),
      // An extension without a name (Ext = CUDAExtension if ... else ...) in setup.py: no users.
      finding("X", "custom_ops", "setup.py", 20, "", {{"extension", ""}}),
  };
  const auto phases = phasesOfAll(in);
  EXPECT_EQ(phases[0], Names{"train"});
  EXPECT_EQ(phases[1], Names{"infer"});
  EXPECT_EQ(phases[2], Names{"train"});
  EXPECT_EQ(phases[3], Names{"infer"});
  EXPECT_EQ(phases[4], (Names{"train", "infer"}));
  EXPECT_EQ(phases[5], (Names{"train", "infer"}));
  EXPECT_EQ(phases[6], (Names{"train", "infer"}));
  EXPECT_TRUE(phases[7].empty());
}

TEST(FindingPhases, NativeSourcesWithoutAnyExtensionHaveNoPhases) {
  PlanInput in = twoPhases();
  in.findings = {finding("K", "custom_ops", "csrc/k.cu", 1, ""),
                 finding("K", "custom_ops", "csrc/k.hpp", 1, "")};
  const auto phases = phasesOfAll(in);
  EXPECT_TRUE(phases[0].empty());
  EXPECT_TRUE(phases[1].empty());
}

TEST(FindingPhases, SetupPyIsTheEnvironmentEvenWhenItIsAModule) {
  PlanInput in = twoPhases();
  in.modules.push_back(moduleNode("setup.py", {}, {"setuptools"}));        // unreached
  in.modules.push_back(moduleNode("tools/setup.py", {}, {"setuptools"}));  // likewise
  in.findings = {finding("O", "custom_ops", "setup.py", 3, ""),
                 finding("O", "custom_ops", "tools/setup.py", 3, ""),
                 finding("O", "custom_ops", "mysetup.py", 3, "")};
  in.modules.push_back(moduleNode("mysetup.py", {}, {}));
  const auto phases = phasesOfAll(in);
  EXPECT_EQ(phases[0], (Names{"train", "infer"}));
  EXPECT_EQ(phases[1], (Names{"train", "infer"}));
  EXPECT_TRUE(phases[2].empty());  // an ordinary, unreached module
}

TEST(FindingPhases, EntryPointFilesAddTheirDomainPhasesOnlyWhenReached) {
  PlanInput in = twoPhases();
  // "dist" has no entry point of its own (not active) but takes distributed findings.
  in.phases.push_back({"dist", "", {"launcher:deepspeed"}, {"distributed"}});
  in.entry_points.push_back(entryPoint(EntryPoint::Kind::LaunchScript, "run.sh", "run.sh", {0},
                                       {"run.sh", "train.py", "launcher:torchrun"}, "torchrun"));
  // A launch script whose target was not found: no modules.
  in.entry_points.push_back(entryPoint(EntryPoint::Kind::LaunchScript, "lost.sh", "lost.sh", {},
                                       {"lost.sh", "launcher:torchrun"}, "torchrun"));
  in.findings = {
      finding("E", "distributed", "run.sh", 2, ""),      // train (its entry point) + dist (domain, reached)
      finding("E", "device", "run.sh", 3, ""),           // train
      finding("E", "distributed", "lost.sh", 2, ""),     // matches no phase, reaches nothing
      finding("E", "distributed", "Dockerfile", 2, ""),  // every active phase: train, infer
  };
  const auto phases = phasesOfAll(in);
  EXPECT_EQ(phases[0], (Names{"train", "dist"}));
  EXPECT_EQ(phases[1], Names{"train"});
  EXPECT_TRUE(phases[2].empty());
  EXPECT_EQ(phases[3], (Names{"train", "infer"}));
}

TEST(FindingPhases, DuplicatePhaseNamesAreListedOnce) {
  const std::vector<PhaseSpec> phases = {{"a", "", {}, {}}, {"b", "", {}, {}}, {"a", "", {}, {}}};
  EXPECT_EQ(phaseNames({0, 1, 2}, phases), (Names{"a", "b"}));
  EXPECT_EQ(phaseNames({1, 7}, phases), Names{"b"});
}

TEST(FindingPhases, ImportNames) {
  EXPECT_EQ(importName("Flash-Attn"), "flash_attn");
  EXPECT_EQ(importName("zope.interface"), "zope_interface");
  EXPECT_EQ(importName(""), "");
}

TEST(FindingPhases, NativeSourceExtensions) {
  for (const char* path :
       {"a.cu", "k/a.cuh", "a.c", "a.cc", "a.cpp", "a.cxx", "a.h", "a.hh", "a.hpp", "a.hxx"})
    EXPECT_TRUE(isNativeSource(path)) << path;
  for (const char* path : {"a.py", "CMakeLists.txt", "Makefile", "a.cu.txt", "dir.cu/readme", "a.cuda", ""})
    EXPECT_FALSE(isNativeSource(path)) << path;
}

TEST(FindingPhases, FileNamesMatchWhole) {
  EXPECT_TRUE(mentionsFileName("['csrc/a.cu', 'b.cpp']", "a.cu"));
  EXPECT_TRUE(mentionsFileName("a.cu", "a.cu"));
  EXPECT_TRUE(mentionsFileName("[\"data.cu\", \"a.cu\"]", "a.cu"));
  EXPECT_FALSE(mentionsFileName("['csrc/data.cu']", "a.cu"));
  EXPECT_FALSE(mentionsFileName("['x.cuh']", "x.cu"));
  EXPECT_FALSE(mentionsFileName("['my-a.cu']", "a.cu"));
  EXPECT_FALSE(mentionsFileName("anything", ""));
}

}  // namespace
}  // namespace phase_matrix::test
