#include "verify/verify_config.hpp"

#include <nlohmann/json.hpp>

namespace migrate::verify {

std::string testCommand(const VerifySpec& spec, const std::filesystem::path& adapted_dir) {
  if (spec.tests == "none") return {};
  if (spec.tests != "auto") return spec.tests;
  for (const char* dir : {"tests", "test"}) {
    if (!std::filesystem::is_directory(adapted_dir / dir)) continue;
    const std::string d = dir;
    return "if {python} -c 'import pytest' >/dev/null 2>&1; then {python} -m pytest -q " + d +
           "; else {python} -m unittest discover -s " + d + "; fi";
  }
  return {};
}

std::string verifyConfigJson(const VerifySpec& spec, const VerifyConfigInputs& inputs) {
  nlohmann::ordered_json doc;
  doc["project"] = inputs.project;
  doc["modules"] = inputs.modules;
  doc["has_npu_ops"] = inputs.has_npu_ops;
  const std::string tests = testCommand(spec, inputs.adapted_dir);
  if (tests.empty())
    doc["tests"] = nullptr;
  else
    doc["tests"] = {{"command", tests}, {"cwd", "adapted"}};
  doc["precision"] = nlohmann::ordered_json::array();
  for (const PrecisionCheckSpec& p : spec.precision)
    doc["precision"].push_back({{"name", p.name},
                                {"command", p.command},
                                {"outputs", p.outputs},
                                {"rtol", p.rtol},
                                {"atol", p.atol}});
  doc["benchmark"] = spec.benchmark;
  doc["torch_npu_pairs"] = "torch_npu X.Y.Z[.postN] works only with torch X.Y.Z";
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace migrate::verify
