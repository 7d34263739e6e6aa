// Step 4: dependency keys, priorities and the sorted matrix rows.

#include <gtest/gtest.h>

#include "matrix.hpp"
#include "tests/sample_repository.hpp"

namespace phase_matrix::test {
namespace {

using namespace migrate::sdk;
using Names = std::vector<std::string>;

/// The key of a bottleneck with one finding `f` and the given APIs.
std::string keyOf(const Finding& f, std::vector<std::string> apis = {}, std::string domain = "") {
  BottleneckTraits traits;
  traits.title = "The title";
  traits.apis = std::move(apis);
  return dependencyKey(bottleneck("#001", "R-1", domain.empty() ? f.domain : domain, {0}, traits), {f});
}

TEST(DependencyKey, DepsByImportNameThenResolvedApiThenApi) {
  EXPECT_EQ(keyOf(finding("D", "deps", "r.txt", 1, "", {{"package", "nvidia-ml-py"}, {"name", "pynvml"}})),
            "pynvml");
  EXPECT_EQ(keyOf(finding("D", "deps", "r.txt", 1, "", {{"name", "Flash-Attn"}})), "flash_attn");
  EXPECT_EQ(keyOf(finding("D", "deps", "r.txt", 1, "", {{"package", "flash-attn"}})), "flash_attn");
  EXPECT_EQ(
      keyOf(finding("D", "deps", "m.py", 3, "flash_attn.flash_attn_func"), {"flash_attn.flash_attn_func"}),
      "flash_attn");
  EXPECT_EQ(keyOf(finding("D", "deps", "Dockerfile", 1), {"nvidia/cuda:12.1"}), "nvidia/cuda:12.1");
  EXPECT_EQ(keyOf(finding("D", "deps", "Dockerfile", 1)), "The title");
}

TEST(DependencyKey, KernelsAndExtensions) {
  EXPECT_EQ(keyOf(finding("K", "custom_ops", "k.cu", 1, "", {{"kernel", "gelu_kernel"}})),
            "kernel gelu_kernel");
  EXPECT_EQ(keyOf(finding("X", "custom_ops", "setup.py", 1, "torch.utils.cpp_extension.CUDAExtension",
                          {{"extension", "pkg._C"}})),
            "extension pkg._C");
  EXPECT_EQ(keyOf(finding("X", "custom_ops", "ops.py", 1, "fused_ops", {{"module", "fused_ops"}})),
            "extension fused_ops");
  // "module" is an extension only in custom_ops: elsewhere the API decides.
  EXPECT_EQ(keyOf(finding("P", "precision", "m.py", 1, "torch.cuda.amp.autocast", {{"module", "m"}})),
            "torch.cuda");
}

TEST(DependencyKey, ApisByLibrary) {
  EXPECT_EQ(keyOf(finding("A", "device", "a.py", 1, "torch.cuda.synchronize")), "torch.cuda");
  EXPECT_EQ(keyOf(finding("A", "device", "a.py", 1, "torch.backends.cudnn.benchmark")), "torch.backends");
  EXPECT_EQ(keyOf(finding("A", "device", "a.py", 1, "torch.Tensor.cuda")), "torch.Tensor");
  EXPECT_EQ(keyOf(finding("A", "distributed", "a.py", 1, "torch.distributed.init_process_group")),
            "torch.distributed");
  EXPECT_EQ(keyOf(finding("A", "attention", "a.py", 1, "xformers.ops.memory_efficient_attention")),
            "xformers");
  EXPECT_EQ(keyOf(finding("A", "custom_ops", "a.py", 1, "triton.jit")), "triton");
  EXPECT_EQ(keyOf(finding("A", "device", "a.py", 1, "torch")), "torch");
  // No resolved API: the title, even when the written API looks like a library's.
  EXPECT_EQ(keyOf(finding("A", "device", "a.py", 1), {"q.is_cuda", "zzz"}), "The title");
  EXPECT_EQ(keyOf(finding("A", "distributed", "run.sh", 1), {"NCCL_DEBUG=INFO"}), "The title");
  EXPECT_EQ(keyOf(finding("A", "device", "a.py", 1)), "The title");
}

TEST(DependencyKey, BottleneckWithoutUsableFinding) {
  BottleneckTraits traits;
  traits.title = "Title";
  traits.apis = {"torch.cuda.Event"};
  // A written API is no library name (`q.is_cuda` names a variable): the title decides.
  EXPECT_EQ(dependencyKey(bottleneck("#001", "R", "device", {}, traits), {}), "Title");
  EXPECT_EQ(dependencyKey(bottleneck("#001", "R", "device", {5}, traits), {}), "Title");
  traits.title = "";
  EXPECT_EQ(dependencyKey(bottleneck("#001", "R", "device", {}, traits), {}), "torch.cuda.Event");
}

TEST(Priority, AgainstTheActivePhases) {
  EXPECT_EQ(priorityOf({0, 1, 2}, {0, 2}), "P0");
  EXPECT_EQ(priorityOf({0, 2}, {0, 2}), "P0");
  EXPECT_EQ(priorityOf({0}, {0, 2}), "P1");
  EXPECT_EQ(priorityOf({3}, {0, 2}), "P1");
  EXPECT_EQ(priorityOf({}, {0, 2}), "skip");
  // No active phase: nothing is P0.
  EXPECT_EQ(priorityOf({1}, {}), "P1");
  EXPECT_EQ(priorityOf({}, {}), "skip");
}

/// The sample repository's matrix, with the finding phases worked out in sample_repository.cpp.
std::vector<MatrixRow> sampleMatrix() {
  const PlanInput in = sampleRepository();
  const RecordingPlanContext context(in);
  const Reach reach = computeReach(in.modules, in.entry_points, in.phases);
  return buildMatrix(context, findingPhases(context, reach), reach.active);
}

TEST(Matrix, SampleRepositoryRows) {
  const auto rows = sampleMatrix();
  const Names all = {"train", "infer", "data", "test", "distributed"};
  const Names train_dist = {"train", "distributed"};
  // torch.cuda gathers #001 (synchronize: infer), #002 (is_available: data, test) and #010
  // (autocast in model.py: train infer test distributed): every active phase → P0;
  // 0.2 + 0.15 + 0.5 = 0.85; the largest bottleneck, #010, gives the replacement.
  // The Dockerfile's base image is in every active phase: P0, 0.5.
  // P1 by effort: the kernel (8), flash_attn (#003 4 + #004 0.5; data does not reach
  // attention.py), the two extensions (2, 1), then two rows of 0.3 (0.2 + 0.1 and 0.3) by name.
  // apex: no module imports it → skip.
  struct Expected {
    std::string dependency, domain;
    Names phases;
    std::string priority, replacement;
    Names bottlenecks;
    double effort;
  };
  const std::vector<Expected> expected = {
      {"torch.cuda", "device", all, "P0", "torch.npu.amp.autocast", {"#001", "#002", "#010"}, 0.85},
      {"nvidia/cuda:12.1.0-devel", "deps", all, "P0", "an Ascend CANN base image", {"#011"}, 0.5},
      {"kernel fused_gelu_kernel", "custom_ops", train_dist, "P1", "", {"#005"}, 8},
      {"flash_attn",
       "attention",
       {"train", "infer", "test", "distributed"},
       "P1",
       "torch_npu.npu_fusion_attention",
       {"#003", "#004"},
       4.5},
      {"extension mypkg.fused_ops",
       "custom_ops",
       train_dist,
       "P1",
       "torch_npu.utils.cpp_extension.NpuExtension",
       {"#006"},
       2},
      {"extension fused_ops", "custom_ops", train_dist, "P1", "the rebuilt NPU extension", {"#007"}, 1},
      {"NCCL environment variable", "distributed", train_dist, "P1", "HCCL_SOCKET_IFNAME", {"#009"}, 0.3},
      {"torch.distributed", "distributed", train_dist, "P1", "hccl", {"#008"}, 0.3},
      {"apex", "deps", {}, "skip", "", {"#012"}, 1},
  };
  ASSERT_EQ(rows.size(), expected.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE("row " + std::to_string(i) + " " + expected[i].dependency);
    EXPECT_EQ(rows[i].dependency, expected[i].dependency);
    EXPECT_EQ(rows[i].domain, expected[i].domain);
    EXPECT_EQ(rows[i].phases, expected[i].phases);
    EXPECT_EQ(rows[i].priority, expected[i].priority);
    EXPECT_EQ(rows[i].replacement, expected[i].replacement);
    EXPECT_EQ(rows[i].bottlenecks, expected[i].bottlenecks);
    EXPECT_NEAR(rows[i].effort_days, expected[i].effort, 1e-9);
  }
}

TEST(Matrix, BottlenecksInIdOrderAndReplacementTiesToLowestId) {
  PlanInput in;
  in.phases = {{"p", "", {"*.py"}, {}}};
  in.findings = {finding("A", "device", "a.py", 1, "torch.cuda.a"),
                 finding("A", "device", "a.py", 2, "torch.cuda.b"),
                 finding("A", "device", "a.py", 3, "torch.cuda.c")};
  // Listed out of order, ids of different widths; #1000 and #002 tie on effort (1), #999 is smaller.
  in.bottlenecks = {bottleneck("#1000", "A", "device", {0}, {"T", {}, "alt-1000", {}, {}, false, 1, 0}),
                    bottleneck("#999", "A", "device", {1}, {"T", {}, "alt-999", {}, {}, false, 0.5, 0}),
                    bottleneck("#002", "A", "precision", {2}, {"T", {}, "alt-002", {}, {}, false, 1, 0})};
  const RecordingPlanContext context(in);
  const auto rows = buildMatrix(context, {{}, {}, {}}, {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].bottlenecks, (Names{"#002", "#999", "#1000"}));
  EXPECT_EQ(rows[0].domain, "precision");  // the first bottleneck's
  EXPECT_EQ(rows[0].replacement, "alt-002");
  EXPECT_EQ(rows[0].priority, "skip");
  EXPECT_NEAR(rows[0].effort_days, 2.5, 1e-9);
}

TEST(Matrix, EmptyInputsGiveNoRows) {
  const RecordingPlanContext context(PlanInput{});
  EXPECT_TRUE(buildMatrix(context, {}, {}).empty());
}

}  // namespace
}  // namespace phase_matrix::test
