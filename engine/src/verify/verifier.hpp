#pragma once
/// The verify stage: builds the target's working directory (adapted tree, original tree, the
/// verification kit), runs verify_npu.sh on the target stage by stage under the pipeline's
/// timeouts, and brings the results back (verify.json, verify/verify_results.jsonl, verify/verify.log).

#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "migrate/engine/model.hpp"
#include "migrate/engine/pipeline.hpp"
#include "migrate/engine/result.hpp"
#include "verify/attribution.hpp"
#include "verify/reuse.hpp"

namespace migrate {

/// What the verification needs from the earlier stages.
struct VerifyInputs {
  std::filesystem::path out;            ///< the run's output directory (adapted/, the kit)
  std::filesystem::path original_root;  ///< the analysed tree: the reference
  std::string project;
  std::vector<std::string> modules;  ///< adapted modules to import
  bool has_npu_ops = false;
  std::string tool_version;
  std::set<std::string> declared_packages;    ///< the project's dependencies (deps plugin), PEP 503 names
  std::vector<verify::EditedFinding> edited;  ///< the findings the emit stage fixed: what attribution names
  std::vector<verify::ModuleImports> graph;   ///< the plan's import graph (empty: the plan did not run)
  /// Where the previous verification's results are looked for when `out` has none (emit.base).
  std::filesystem::path base;
};

/// The inputs from an output directory's emit.json (for `migrate-pipeline verify OUTPUT_DIR`).
Result<VerifyInputs> verifyInputsFrom(const std::filesystem::path& out);

/// The inputs from a run's model after its emit stage.
VerifyInputs verifyInputsFrom(const MigrationModel& model, const std::filesystem::path& out);

/// Runs the verification; the result's status says how it ended (completed, unreachable,
/// auth-failed, interpreter-missing, timeout, error). verify.json is written in every case.
/// With verify.reuse, a check whose inputs did not change since the previous verification (in
/// `out`, else in `base`) keeps its result (verify/reuse.hpp); verify/verify_state.json keeps the
/// keys for the next one.
VerifyResult runVerification(const PipelineSpec& spec, const VerifyInputs& inputs,
                             const std::function<void(const std::string&)>& progress);

}  // namespace migrate
