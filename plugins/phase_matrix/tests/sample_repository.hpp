#pragma once
// Helpers that build plan inputs, and the hand-built repository most tests share (its graph,
// entry points, phases, findings, bottlenecks and goals are listed in sample_repository.cpp with
// the answers worked out by hand).

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "recording_plan_context.hpp"

namespace phase_matrix::test {

/// A module of the import graph.
migrate::sdk::ModuleNode moduleNode(std::string path, std::vector<std::size_t> imports,
                                    std::vector<std::string> libraries);

/// An entry point whose labels are given explicitly.
migrate::sdk::EntryPoint entryPoint(migrate::sdk::EntryPoint::Kind kind, std::string name, std::string file,
                                    std::vector<std::size_t> modules, std::vector<std::string> labels,
                                    std::string launcher = "");

/// A finding at `file`:`line`.
migrate::sdk::Finding finding(std::string rule_id, std::string domain, std::string file, std::uint32_t line,
                              std::string resolved_api = "", std::map<std::string, std::string> details = {});

/// The data of one bottleneck beyond its id, rule, domain and findings.
struct BottleneckTraits {
  std::string title;
  std::vector<std::string> apis;
  std::string npu_alternative;
  migrate::sdk::Severity severity = migrate::sdk::Severity::Warning;
  migrate::sdk::Level difficulty = migrate::sdk::Level::Medium;
  bool autofix = false;
  double effort_first = 0.0;
  double effort_each = 0.0;
};

/// A bottleneck; effort_days is effortFor(findings.size()).
migrate::sdk::Bottleneck bottleneck(std::string id, std::string rule_id, std::string domain,
                                    std::vector<std::size_t> findings, BottleneckTraits traits);

/// Indices of the sample repository's modules.
enum SampleModule : std::size_t {
  kTrainPy,
  kModelPy,
  kAttentionPy,
  kInferPy,
  kPrepareDataPy,
  kOpsPy,
  kDataPy,
  kTestModelPy,
  kExportPy,
  kDistUtilsPy,
  kOldModelPy,
  kSetupPy,
};

/// Indices of the sample repository's findings (in file order, as findings.json sorts them).
enum SampleFinding : std::size_t {
  kDockerfile,
  kAttentionFlash,
  kFusedKernelCu,
  kOtherCu,
  kDataIsAvailable,
  kInferSynchronize,
  kOldModelSynchronize,
  kModelAutocast,
  kOpsExtensionImport,
  kRequirementFlashAttn,
  kRequirementApex,
  kLaunchNcclEnv,
  kSetupExtension,
  kTestIsAvailable,
  kTrainNccl,
  kDistUtilsNccl,
  kDistUtilsSynchronize,
  kSampleFindingCount,
};

/// The sample repository (see sample_repository.cpp).
PlanInput sampleRepository();

}  // namespace phase_matrix::test
