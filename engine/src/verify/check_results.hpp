#pragma once
/// The verification's results: verify_results.jsonl read into CheckResults, known CANN and
/// torch_npu errors in failing checks explained (engine/data/ascend_errors.yaml).

#include <filesystem>
#include <string>
#include <vector>

#include "migrate/engine/model.hpp"
#include "migrate/engine/result.hpp"

namespace migrate::verify {

/// The checks of a JSON-lines file; a line that is not a record becomes an `error` check
/// saying so (the rest are kept).
std::vector<CheckResult> readCheckResults(const std::filesystem::path& jsonl);

/// A known CANN / torch_npu error: the text that identifies it in output, its name, what to do.
struct KnownError {
  std::string match;
  std::string name;
  std::string hint;
};

/// The known errors of engine/data/ascend_errors.yaml, in file order.
const std::vector<KnownError>& knownErrors();

/// Hints for the known errors found in `text`, one sentence each ("507035
/// (ACL_ERROR_RT_VECTOR_CORE_EXCEPTION): ...").
std::vector<std::string> errorHints(const std::string& text);

/// Adds hints to every failed or errored check.
void addHints(std::vector<CheckResult>& checks);

}  // namespace migrate::verify
