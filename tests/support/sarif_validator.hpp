#pragma once
// Validates a SARIF file for tests: Microsoft's validator (sarif-multitool, with its SARIF and
// GitHub code scanning rules) and the SARIF 2.1.0 JSON schema it ships, checked with Python's
// jsonschema. Needs MIGRATE_SARIF_MULTITOOL and MIGRATE_SARIF_SCHEMA (cmake/MigrateSarifValidator.cmake).

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/test_support.hpp"

namespace migrate::test {

/// The validator's executable, as configured.
inline fs::path sarifMultitool() {
  return MIGRATE_SARIF_MULTITOOL;
}

namespace sarif_detail {

/// A result of the validator's own SARIF log as one line, "RULE: message" (the rule's message
/// string with the result's arguments put in).
inline std::string describe(const nlohmann::json& result, const nlohmann::json& rule) {
  std::string text = result.value("/message/text"_json_pointer, std::string());
  const std::string id = result.value("/message/id"_json_pointer, std::string());
  if (text.empty() && rule.contains("messageStrings") && rule["messageStrings"].contains(id))
    text = rule["messageStrings"][id].value("text", std::string());
  const nlohmann::json args = result.value("/message/arguments"_json_pointer, nlohmann::json::array());
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string placeholder = "{";  // appended piecewise: GCC 12 -O3 misreports "{" + s + "}" (-Wrestrict)
    placeholder += std::to_string(i);
    placeholder += '}';
    const std::string value = args[i].is_string() ? args[i].get<std::string>() : args[i].dump();
    for (std::size_t at = text.find(placeholder); at != std::string::npos;
         at = text.find(placeholder, at + value.size()))
      text.replace(at, placeholder.size(), value);
  }
  // Literal braces are doubled in SARIF message strings.
  for (const char* brace : {"{{", "}}"})
    for (std::size_t at = text.find(brace); at != std::string::npos; at = text.find(brace, at + 1))
      text.erase(at, 1);
  return result.value("ruleId", std::string("?")) + ": " + text;
}

/// Errors from the sarif-multitool run: its log's error-level results and failed invocations;
/// warnings and notes are printed.
inline std::string multitoolErrors(const fs::path& file, const fs::path& work) {
  const fs::path log = work / "validation.sarif";
  // The .NET tool needs ICU for culture data unless told to run culture-invariant; validation
  // needs none, and the tool's messages are English either way.
  const auto r = run("DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 " + quote(sarifMultitool().string()) +
                     " validate " + quote(file.string()) + " --rule-kind 'Sarif;Ghas' --output " +
                     quote(log.string()) + " --log ForceOverwrite --quiet");
  // The tool exits 0 even when it reports errors, and 1 when it could not run at all.
  if (r.exit_code != 0 || !fs::exists(log))
    return "sarif-multitool failed (exit " + std::to_string(r.exit_code) + "): " + r.output;
  nlohmann::json doc = nlohmann::json::parse(readFile(log), nullptr, false);
  if (doc.is_discarded() || !doc.contains("runs") || doc["runs"].empty())
    return "sarif-multitool wrote an unreadable log " + log.string();
  std::string errors;
  for (const auto& validation : doc["runs"]) {
    const nlohmann::json rules = validation.value("/tool/driver/rules"_json_pointer, nlohmann::json::array());
    for (const auto& result : validation.value("results", nlohmann::json::array())) {
      const std::size_t index = result.value("ruleIndex", rules.size());
      const nlohmann::json rule = index < rules.size() ? rules[index] : nlohmann::json::object();
      // A result without a level has its rule's default level, and "warning" without one (SARIF §3.27.10).
      const std::string level = result.value(
          "level", rule.value("/defaultConfiguration/level"_json_pointer, std::string("warning")));
      const std::string line = level + " " + describe(result, rule);
      if (level == "error")
        errors += line + "\n";
      else
        std::cout << "sarif-multitool: " << line << "\n";
    }
    for (const auto& invocation : validation.value("invocations", nlohmann::json::array())) {
      if (!invocation.value("executionSuccessful", true)) errors += "sarif-multitool did not complete\n";
      for (const auto& n : invocation.value("toolExecutionNotifications", nlohmann::json::array()))
        if (n.value("level", std::string("warning")) == "error")
          errors += "sarif-multitool: " + n.value("/message/text"_json_pointer, std::string()) + "\n";
    }
  }
  return errors;
}

/// Errors of the JSON-schema check. It catches what the multitool silently accepts: a value its
/// reader cannot take (an unknown `level`, for one) makes it skip the file and report nothing.
inline std::string schemaErrors(const fs::path& file, const fs::path& work) {
  const fs::path script = work / "check_schema.py";
  writeFile(script,
            "import json, sys, jsonschema\n"
            "schema = json.load(open(sys.argv[1], encoding='utf-8-sig'))\n"
            "doc = json.load(open(sys.argv[2], encoding='utf-8'))\n"
            "cls = jsonschema.validators.validator_for(schema)\n"
            "for e in sorted(cls(schema).iter_errors(doc), key=lambda e: list(e.absolute_path)):\n"
            "    print('schema:', '/'.join(str(p) for p in e.absolute_path) + ':', e.message)\n");
  const auto r = run("/usr/bin/python3 " + quote(script.string()) + " " + quote(MIGRATE_SARIF_SCHEMA) + " " +
                     quote(file.string()));
  if (r.exit_code != 0) return "the schema check failed to run: " + r.output;
  return r.output;
}

}  // namespace sarif_detail

/// Validates the SARIF file `file`: "" when it is valid, else the errors, one per line (which
/// name the check and the JSON path). Warnings are printed to stdout. A missing validator is an
/// error telling how to install it.
inline std::string validateSarif(const fs::path& file) {
  if (!fs::exists(sarifMultitool()) || !fs::exists(MIGRATE_SARIF_SCHEMA))
    return "the SARIF validator is not installed (" + sarifMultitool().string() +
           "): run scripts/setup.sh --with-tests";
  if (!fs::exists(file)) return "no such file: " + file.string();
  TempDir work;
  return sarif_detail::multitoolErrors(file, work.path()) + sarif_detail::schemaErrors(file, work.path());
}

}  // namespace migrate::test
