// Per-platform classes: the words of a class name, and which findings a CUDA sibling loses.

#include "analyze/platform_siblings.hpp"

#include <gtest/gtest.h>

namespace migrate {
namespace {

TEST(PlatformSiblings, AClassNameNamesADeviceAsAWordOfIt) {
  EXPECT_EQ(deviceNamedBy("CudaPlatform"), NamedDevice::Cuda);
  EXPECT_EQ(deviceNamedBy("CUDA_Accelerator"), NamedDevice::Cuda);
  EXPECT_EQ(deviceNamedBy("CUDAGraphRunner"), NamedDevice::Cuda);
  EXPECT_EQ(deviceNamedBy("PyNcclCommunicator"), NamedDevice::Cuda);
  EXPECT_EQ(deviceNamedBy("NpuPlatform"), NamedDevice::Npu);
  EXPECT_EQ(deviceNamedBy("FlashAttentionNpuExtension"), NamedDevice::Npu);
  EXPECT_EQ(deviceNamedBy("HCCLCommunicator"), NamedDevice::Npu);
  EXPECT_EQ(deviceNamedBy("AscendPlatform"), NamedDevice::Npu);
  // A word that only contains the letters is no device name.
  EXPECT_EQ(deviceNamedBy("BarracudaModel"), NamedDevice::None);
  EXPECT_EQ(deviceNamedBy("InputProcessor"), NamedDevice::None);
  EXPECT_EQ(deviceNamedBy("Platform"), NamedDevice::None);
}

ModuleSummary module(std::string path, std::string dotted, std::vector<ClassSummary> classes) {
  ModuleSummary m;
  m.path = std::move(path);
  m.dotted_name = std::move(dotted);
  m.classes = std::move(classes);
  return m;
}

sdk::Finding finding(std::string file, std::uint32_t line) {
  sdk::Finding f;
  f.rule_id = "DEV-037";
  f.file = std::move(file);
  f.range = {line, 1, line, 5};
  return f;
}

TEST(PlatformSiblings, OnlyTheCudaClassOfABaseWithAnNpuSiblingLosesItsFindings) {
  MigrationModel model;
  model.modules.push_back(
      module("a/platform.py", "a.platform", {{"Platform", "Platform", {}, "", 1, 5, {}}}));
  model.modules.push_back(module("a/cuda.py", "a.cuda",
                                 {{"CudaPlatform", "CudaPlatform", {"a.platform.Platform"}, "", 4, 20, {}}}));
  model.modules.push_back(
      module("a/npu.py", "a.npu", {{"NpuPlatform", "NpuPlatform", {"a.platform.Platform"}, "", 3, 9, {}}}));
  // Another package's Platform of the same name, with a CUDA subclass and no NPU one.
  model.modules.push_back(
      module("b/platform.py", "b.platform", {{"Platform", "Platform", {}, "", 1, 5, {}}}));
  model.modules.push_back(
      module("b/cuda.py", "b.cuda", {{"CudaPlatform", "CudaPlatform", {"Platform"}, "", 2, 8, {}}}));
  model.findings = {finding("a/cuda.py", 2),  finding("a/cuda.py", 4), finding("a/cuda.py", 20),
                    finding("a/cuda.py", 21), finding("a/npu.py", 5),  finding("b/cuda.py", 6)};
  dropPerPlatformClassFindings(model);
  std::vector<std::string> left;
  for (const auto& f : model.findings) left.push_back(f.file + ":" + std::to_string(f.range.line));
  EXPECT_EQ(left, (std::vector<std::string>{"a/cuda.py:2", "a/cuda.py:21", "a/npu.py:5", "b/cuda.py:6"}));
  ASSERT_EQ(model.diagnostics.size(), 1u);
  EXPECT_EQ(model.diagnostics[0].code, "per-platform-class");
  EXPECT_EQ(model.diagnostics[0].file, "a/cuda.py");
  EXPECT_NE(model.diagnostics[0].message.find("NpuPlatform (a/npu.py)"), std::string::npos);
  EXPECT_NE(model.diagnostics[0].message.find("2 findings left out"), std::string::npos);
}

}  // namespace
}  // namespace migrate
