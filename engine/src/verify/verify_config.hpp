#pragma once
/// kit/verify_config.json: what verify_npu.sh and verify_precision.py check — the adapted
/// modules to import, the repository's test command, the precision comparisons, benchmark.

#include <filesystem>
#include <string>
#include <vector>

#include "migrate/engine/pipeline.hpp"

namespace migrate::verify {

struct VerifyConfigInputs {
  std::string project;
  std::vector<std::string> modules;
  bool has_npu_ops = false;
  std::filesystem::path adapted_dir;  ///< to look for the repository's tests
};

/// The test command for `spec.tests` ("auto": a tests/ or test/ directory of the adapted tree,
/// run with pytest when the target has it, else unittest); empty for none.
std::string testCommand(const VerifySpec& spec, const std::filesystem::path& adapted_dir);

/// The JSON text of verify_config.json.
std::string verifyConfigJson(const VerifySpec& spec, const VerifyConfigInputs& inputs);

}  // namespace migrate::verify
