#pragma once
/// verify.json: the verification's result (see docs/verify.md), written by the verify stage and
/// read back by `migrate-pipeline report`, `verify OUTPUT_DIR` and the fleet.

#include <filesystem>
#include <string>

#include "migrate/engine/model.hpp"
#include "migrate/engine/result.hpp"

namespace migrate::outputs {

/// Version of verify.json's format; bumped on incompatible changes.
inline constexpr int kVerifySchemaVersion = 1;

Status writeVerifyJson(const VerifyResult& result, const std::string& tool_version,
                       const std::filesystem::path& file);

/// The inverse of writeVerifyJson: verify.json back into a VerifyResult (computed = true). The
/// file's tool version and its summary counts (derived from the checks) are not kept. Errors name
/// the file, the JSON path and what to do.
Result<VerifyResult> readVerifyJson(const std::filesystem::path& file);

}  // namespace migrate::outputs
