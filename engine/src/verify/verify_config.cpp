#include "verify/verify_config.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

namespace migrate::verify {

namespace {

/// True when a configuration file of the tree configures pytest: pytest.ini, or a
/// [tool.pytest.ini_options] / [tool:pytest] / [pytest] section of pyproject.toml, setup.cfg or tox.ini.
bool configuresPytest(const std::filesystem::path& tree) {
  if (std::filesystem::is_regular_file(tree / "pytest.ini")) return true;
  const std::pair<const char*, const char*> sections[] = {{"pyproject.toml", "[tool.pytest.ini_options]"},
                                                          {"setup.cfg", "[tool:pytest]"},
                                                          {"tox.ini", "[pytest]"}};
  for (const auto& [file, section] : sections) {
    std::ifstream in(tree / file, std::ios::binary);
    for (std::string line; std::getline(in, line);)
      if (line.rfind(section, 0) == 0) return true;
  }
  return false;
}

}  // namespace

std::string testCommand(const VerifySpec& spec, const std::filesystem::path& adapted_dir) {
  if (spec.tests == "none") return {};
  if (spec.tests != "auto") return spec.tests;
  // pytest reads the repository's own configuration (testpaths, markers) when there is one.
  std::string pytest_args, unittest_dir;
  for (const char* dir : {"tests", "test"})
    if (unittest_dir.empty() && std::filesystem::is_directory(adapted_dir / dir)) unittest_dir = dir;
  if (configuresPytest(adapted_dir))
    pytest_args = "";
  else if (!unittest_dir.empty())
    pytest_args = " " + unittest_dir;
  else
    return {};
  const std::string fallback = unittest_dir.empty()
                                   ? "echo 'pytest is not installed on the target' >&2; exit 4"
                                   : "{python} -m unittest discover -s " + unittest_dir;
  return "if {python} -c 'import pytest' >/dev/null 2>&1; then {python} -m pytest -q -p no:cacheprovider" +
         pytest_args + "; else " + fallback + "; fi";
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
    doc["tests"] = {
        {"command", tests},
        {"cwd", "adapted"},
        {"timeout", spec.tests_timeout_seconds > 0 ? spec.tests_timeout_seconds : spec.stage_timeout_seconds},
        {"per_test_timeout", spec.per_test_timeout_seconds},
        {"select", spec.tests_select},
        {"deselect", spec.tests_deselect}};
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
