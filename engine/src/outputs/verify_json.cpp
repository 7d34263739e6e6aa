#include "outputs/verify_json.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

#include "json/json_reader.hpp"

namespace migrate::outputs {

Status writeVerifyJson(const VerifyResult& r, const std::string& tool_version,
                       const std::filesystem::path& file) {
  nlohmann::ordered_json doc;
  doc["schema_version"] = kVerifySchemaVersion;
  doc["tool"] = {{"name", "migrate-pipeline"}, {"version", tool_version}};
  doc["target"] = r.target;
  doc["host"] = r.host;
  doc["status"] = r.status;
  doc["verdict"] = r.verdict();
  doc["detail"] = r.detail;
  doc["seconds"] = r.seconds;
  doc["summary"] = {{"passed", r.count("passed")},
                    {"failed", r.count("failed")},
                    {"skipped", r.count("skipped")},
                    {"error", r.count("error")},
                    {"reused", r.reused()}};
  doc["outcomes"] = nlohmann::ordered_json::object();
  for (const char* outcome : kCheckOutcomes) doc["outcomes"][outcome] = r.outcomes(outcome);
  doc["checks"] = nlohmann::ordered_json::array();
  for (const CheckResult& c : r.checks)
    doc["checks"].push_back(
        {{"stage", c.stage},
         {"check", c.check},
         {"status", c.status},
         {"detail", c.detail},
         {"duration", c.duration},
         {"output", c.output},
         {"hints", c.hints},
         {"outcome", c.outcome},
         {"cause", c.cause},
         {"broken_by", c.broken_by},
         {"attribution", c.attribution},
         {"reused", c.reused},
         {"reference", c.reference_status.empty() ? nlohmann::ordered_json(nullptr)
                                                  : nlohmann::ordered_json{{"status", c.reference_status},
                                                                           {"detail", c.reference_detail}}}});
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  out.close();
  if (!out) return makeError("cannot write " + file.string());
  return Ok{};
}

Result<VerifyResult> readVerifyJson(const std::filesystem::path& file) {
  using json::Field;
  VerifyResult r;
  r.computed = true;
  const Status read = json::readDocument(file, kVerifySchemaVersion, [&](const Field& doc) {
    r.target = doc["target"].string();
    r.host = doc["host"].string();
    r.status = doc["status"].string();
    r.detail = doc["detail"].string();
    r.seconds = doc["seconds"].number();
    r.checks = doc["checks"].list([](const Field& c) {
      CheckResult check;
      check.stage = c["stage"].string();
      check.check = c["check"].string();
      check.status = c["status"].string();
      check.detail = c["detail"].string();
      check.duration = c["duration"].number();
      check.output = c["output"].string();
      check.hints = c["hints"].strings();
      // Written since the outcomes (issue 31); a verify.json of an older run has none.
      if (c.has("outcome")) check.outcome = c["outcome"].string();
      if (c.has("cause")) check.cause = c["cause"].string();
      if (c.has("broken_by")) check.broken_by = c["broken_by"].strings();
      if (c.has("attribution")) check.attribution = c["attribution"].string();
      if (c.has("reused")) check.reused = c["reused"].boolean();
      if (const Field ref = c["reference"]; c.has("reference") && !ref.isNull()) {
        check.reference_status = ref["status"].string();
        check.reference_detail = ref["detail"].string();
      }
      return check;
    });
  });
  if (!read) return read.error();
  return r;
}

}  // namespace migrate::outputs
