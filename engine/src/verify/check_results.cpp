#include "verify/check_results.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <nlohmann/json.hpp>

std::string_view migrateEmbeddedData(std::string_view name);

namespace migrate::verify {

const std::vector<KnownError>& knownErrors() {
  static const std::vector<KnownError> errors = [] {
    std::vector<KnownError> out;
    const YAML::Node doc = YAML::Load(std::string(migrateEmbeddedData("data/ascend_errors.yaml")));
    for (const auto& e : doc["errors"])
      out.push_back({e["match"].as<std::string>(), e["name"].as<std::string>(), e["hint"].as<std::string>()});
    return out;
  }();
  return errors;
}

namespace {

std::string text(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

}  // namespace

std::vector<std::string> errorHints(const std::string& text) {
  std::vector<std::string> hints;
  for (const KnownError& e : knownErrors())
    if (text.find(e.match) != std::string::npos) hints.push_back(e.match + " (" + e.name + "): " + e.hint);
  return hints;
}

void addHints(std::vector<CheckResult>& checks) {
  for (CheckResult& c : checks)
    if (c.status == "failed" || c.status == "error") c.hints = errorHints(c.detail + "\n" + c.output);
}

std::vector<CheckResult> readCheckResults(const std::filesystem::path& jsonl) {
  std::vector<CheckResult> checks;
  std::ifstream in(jsonl, std::ios::binary);
  std::size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    static const std::vector<std::string> kStatuses{"passed", "failed", "skipped", "error"};
    if (!j.is_object() ||
        std::find(kStatuses.begin(), kStatuses.end(), text(j, "status")) == kStatuses.end()) {
      checks.push_back({"results",
                        "line " + std::to_string(number),
                        "error",
                        "verify_results.jsonl line " + std::to_string(number) + " is not a check record",
                        0.0,
                        line.substr(0, 400),
                        {}});
      continue;
    }
    CheckResult c;
    c.stage = text(j, "stage");
    c.check = text(j, "check");
    c.status = text(j, "status");
    c.detail = text(j, "detail");
    c.output = text(j, "output");
    if (j.contains("duration") && j["duration"].is_number()) c.duration = j["duration"].get<double>();
    c.reference = text(j, "tree") == "reference";
    c.file = text(j, "file");
    checks.push_back(std::move(c));
  }
  return checks;
}

}  // namespace migrate::verify
