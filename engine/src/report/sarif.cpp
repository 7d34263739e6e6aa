#include "report/sarif.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "outputs/json_output.hpp"
#include "report/fingerprints.hpp"
#include "report/sarif_text.hpp"

namespace migrate {
namespace {

using nlohmann::ordered_json;
using sarif::findingFingerprints;
using sarif::isAsciiAlnum;
using sarif::isSemanticVersion;
using sarif::isUtcTimestamp;
using sarif::kFingerprintKey;
using sarif::messageText;
using sarif::pascalCase;
using sarif::percentEncodePath;
using sarif::readableTemplate;
using sarif::repositoryUri;
using sarif::sha256Hex;
using sarif::withPeriod;

constexpr const char* kSchemaUri =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
constexpr const char* kSourceRoot = "SRCROOT";
constexpr const char* kToolName = "migrate-pipeline";

/// A SARIF message object holding `text`.
ordered_json message(std::string_view text) {
  return {{"text", messageText(text)}};
}

const char* sarifLevel(sdk::Severity s) {
  switch (s) {
    case sdk::Severity::Error:
      return "error";
    case sdk::Severity::Warning:
      return "warning";
    case sdk::Severity::Info:
      return "note";
  }
  return "warning";
}

// ---------------------------------------------------------------------------------------------
// Where each finding and diagnostic goes.

/// One SARIF run: a plugin of the model (or the tool itself when no plugin took part).
struct RunPlan {
  std::string name;  ///< the plugin; empty for the tool's own run
  std::string version;
  std::string domain;
  /// The rules its results name, by id (so the rules array is sorted by id); the index is the
  /// ruleIndex results carry.
  struct RuleUse {
    const sdk::RuleInfo* info = nullptr;  ///< null: no active plugin declares the rule
    std::size_t index = 0;
    std::size_t findings = 0;
    std::size_t fixable = 0;
    std::string domain;  ///< of the first finding (for a rule no plugin declares)
  };
  std::map<std::string, RuleUse> rules;
  std::vector<const sdk::Diagnostic*> diagnostics;
  bool failed = false;  ///< an error diagnostic names the plugin (it threw, or was skipped)
};

struct Layout {
  std::vector<RunPlan> runs;
  std::vector<std::uint32_t> run_of;      ///< per finding
  std::vector<std::string> fingerprints;  ///< per finding (report/fingerprints.hpp)
};

/// True when `message` names `word` after `prefix` ("plugin device failed in ..."), the word
/// ending where a name cannot continue.
bool namesAfter(const std::string& message, const std::string& prefix, const std::string& word) {
  if (word.empty()) return false;
  const std::string needle = prefix + word;
  for (std::size_t at = message.find(needle); at != std::string::npos; at = message.find(needle, at + 1)) {
    const std::size_t end = at + needle.size();
    const bool word_begins = at == 0 || !isAsciiAlnum(static_cast<unsigned char>(message[at - 1]));
    const bool word_ends =
        end == message.size() || !(isAsciiAlnum(static_cast<unsigned char>(message[end])) ||
                                   message[end] == '_' || message[end] == '-');
    if (word_begins && word_ends) return true;
  }
  return false;
}

Layout layOut(const MigrationModel& m) {
  Layout layout;
  for (const PluginRecord& p : m.plugins) layout.runs.push_back({p.name, p.version, p.domain, {}, {}});
  if (layout.runs.empty()) layout.runs.push_back({"", m.tool_version, "", {}, {}});

  std::unordered_map<std::string, std::uint32_t> run_by_plugin;
  for (std::uint32_t i = 0; i < layout.runs.size(); ++i) run_by_plugin.emplace(layout.runs[i].name, i);
  std::unordered_map<std::string, std::vector<const RuleRecord*>> declared;
  for (const RuleRecord& r : m.rules) declared[r.info.id].push_back(&r);

  const auto runForDomain = [&](const std::string& domain) -> std::uint32_t {
    for (std::uint32_t i = 0; i < layout.runs.size(); ++i)
      if (layout.runs[i].domain == domain) return i;
    const auto named = run_by_plugin.find(domain);
    return named != run_by_plugin.end() ? named->second : 0;
  };

  layout.run_of.reserve(m.findings.size());
  layout.fingerprints = findingFingerprints(m.findings);
  for (const sdk::Finding& f : m.findings) {
    // The declaring plugin (the one of the finding's domain when several declare the id).
    const RuleRecord* record = nullptr;
    std::uint32_t run = 0;
    if (auto d = declared.find(f.rule_id); d != declared.end()) {
      for (const RuleRecord* r : d->second) {
        const auto it = run_by_plugin.find(r->plugin);
        if (it == run_by_plugin.end()) continue;
        const bool same_domain = layout.runs[it->second].domain == f.domain;
        if (!record || same_domain) {
          record = r;
          run = it->second;
        }
        if (same_domain) break;
      }
    }
    if (!record) run = runForDomain(f.domain);
    RunPlan::RuleUse& use = layout.runs[run].rules[f.rule_id];
    if (use.findings == 0) {
      use.info = record ? &record->info : nullptr;
      use.domain = f.domain;
    }
    ++use.findings;
    use.fixable += f.autofix() ? 1 : 0;
    layout.run_of.push_back(run);
  }
  for (RunPlan& run : layout.runs) {
    std::size_t index = 0;
    for (auto& [id, use] : run.rules) use.index = index++;
  }

  for (const sdk::Diagnostic& d : m.diagnostics) {
    std::uint32_t target = 0;
    bool named = false;
    for (std::uint32_t i = 0; i < layout.runs.size() && !named; ++i)
      if (namesAfter(d.message, "plugin ", layout.runs[i].name) ||
          namesAfter(d.message, "plugin of domain ", layout.runs[i].domain)) {
        target = i;
        named = true;
      }
    layout.runs[target].diagnostics.push_back(&d);
    if (named && d.severity == sdk::Severity::Error) layout.runs[target].failed = true;
  }
  return layout;
}

// ---------------------------------------------------------------------------------------------
// JSON pieces.

ordered_json artifactLocation(const std::string& file) {
  return {{"uri", percentEncodePath(file)}, {"uriBaseId", kSourceRoot}};
}

ordered_json region(const sdk::SourceRange& r) {
  ordered_json j = {{"startLine", r.line}};
  if (r.column > 0) j["startColumn"] = r.column;
  if (r.end_line >= r.line) {
    j["endLine"] = r.end_line;
    if (r.end_column > 0 && (r.end_line > r.line || r.end_column >= r.column)) j["endColumn"] = r.end_column;
  }
  return j;
}

std::string fixableText(const RunPlan::RuleUse& use) {
  if (use.fixable == 0) return "no: every place is changed by hand";
  if (use.fixable == use.findings) return "yes: the emit stage applies the fix at every place";
  return fmt::format("at {} of {} places (the emit stage applies those fixes; the rest by hand)", use.fixable,
                     use.findings);
}

ordered_json ruleJson(const std::string& id, const RunPlan::RuleUse& use, const std::string& plugin) {
  ordered_json j;
  j["id"] = id;
  const bool fixes = use.fixable > 0;
  if (!use.info) {
    const std::string text = "Rule " + id + " (no active plugin describes it).";
    j["shortDescription"] = message(text);
    j["fullDescription"] = message(text);
    j["help"] = {{"text", messageText(text)}, {"markdown", messageText(text)}};
    j["properties"] = {{"domain", use.domain}, {"tags", ordered_json::array({"npu-migration", use.domain})}};
    return j;
  }
  const sdk::RuleInfo& r = *use.info;
  const std::string name = pascalCase(r.title);
  if (!name.empty() && name != id) j["name"] = name;
  const std::string title = r.title.empty() ? id : r.title;
  const std::string description = readableTemplate(r.message);
  const std::string alternative = readableTemplate(r.npu_alternative);
  j["shortDescription"] = message(withPeriod(title));
  j["fullDescription"] = message(withPeriod(description.empty() ? title : description));
  const std::string effort = fmt::format("{} person-days per place", r.effort_days);
  const std::string fixed = fixableText(use);
  std::string text =
      withPeriod(title) + "\n\n" + withPeriod(description.empty() ? title : description) + "\n\n";
  std::string markdown = "**" + title + "** (`" + id + "`, plugin `" + plugin + "`)\n\n" +
                         withPeriod(description.empty() ? title : description) + "\n\n";
  const std::vector<std::pair<std::string, std::string>> facts = {
      {"NPU alternative", alternative.empty() ? "none" : alternative},
      {"Difficulty", sdk::toString(r.difficulty)},
      {"Confidence", sdk::toString(r.confidence)},
      {"Effort", effort},
      {"Fixed automatically", fixed}};
  for (const auto& [label, value] : facts) {
    text += label + ": " + value + "\n";
    markdown += "- **" + label + "**: " + value + "\n";
  }
  j["help"] = {{"text", messageText(text)}, {"markdown", messageText(markdown)}};
  j["defaultConfiguration"] = {{"level", sarifLevel(r.severity)}};
  ordered_json tags = ordered_json::array({"npu-migration", r.domain});
  if (fixes) tags.push_back("autofix");
  j["properties"] = {{"domain", r.domain},
                     {"confidence", sdk::toString(r.confidence)},
                     {"difficulty", sdk::toString(r.difficulty)},
                     {"effort_days", r.effort_days},
                     {"precision", sdk::toString(r.confidence)},
                     {"tags", tags}};
  return j;
}

ordered_json toolJson(const MigrationModel& m, const RunPlan& run) {
  ordered_json driver;
  driver["name"] = run.name.empty() ? std::string(kToolName) : std::string(kToolName) + "/" + run.name;
  driver["fullName"] = run.name.empty() ? std::string(kToolName) + " " + m.tool_version
                                        : std::string(kToolName) + " " + m.tool_version + ", plugin " +
                                              run.name + " " + run.version;
  if (!run.version.empty()) driver["version"] = run.version;
  if (isSemanticVersion(run.version)) driver["semanticVersion"] = run.version;
  ordered_json rules = ordered_json::array();
  for (const auto& [id, use] : run.rules) rules.push_back(ruleJson(id, use, run.name));
  driver["rules"] = rules;
  driver["properties"] = {{"tool", kToolName}, {"tool_version", m.tool_version}};
  if (!run.name.empty()) {
    driver["properties"]["plugin"] = run.name;
    driver["properties"]["domain"] = run.domain;
  }
  return {{"driver", driver}};
}

ordered_json notificationJson(const sdk::Diagnostic& d) {
  ordered_json j;
  j["level"] = sarifLevel(d.severity);
  j["message"] = message(d.message.empty() ? d.code : d.message);
  if (!d.code.empty()) j["descriptor"] = {{"id", d.code}};
  if (!d.file.empty()) {
    ordered_json physical = {{"artifactLocation", artifactLocation(d.file)}};
    if (d.line > 0) physical["region"] = {{"startLine", d.line}};
    j["locations"] = ordered_json::array({{{"physicalLocation", physical}}});
  }
  return j;
}

ordered_json invocationJson(const MigrationModel& m, const RunPlan& run) {
  // A failed stage, or an error naming the plugin (it threw, its analysis is incomplete).
  const bool successful =
      !run.failed && std::none_of(m.stages.begin(), m.stages.end(),
                                  [](const StageRecord& s) { return s.status == "failed"; });
  ordered_json notes = ordered_json::array();
  for (const sdk::Diagnostic* d : run.diagnostics) notes.push_back(notificationJson(*d));
  ordered_json j;
  if (isUtcTimestamp(m.started_at)) j["startTimeUtc"] = m.started_at;
  j["executionSuccessful"] = successful;
  if (!notes.empty()) j["toolExecutionNotifications"] = notes;
  return j;
}

ordered_json resultJson(const MigrationModel& m, const Layout& layout, std::size_t index) {
  const sdk::Finding& f = m.findings[index];
  const RunPlan::RuleUse& use = layout.runs[layout.run_of[index]].rules.at(f.rule_id);
  std::string text = f.message;
  if (text.empty()) text = use.info && !use.info->title.empty() ? use.info->title : "Rule " + f.rule_id;
  if (!f.npu_alternative.empty())
    text = withPeriod(text) + " NPU alternative: " + withPeriod(f.npu_alternative);

  ordered_json j;
  j["ruleId"] = f.rule_id;
  j["ruleIndex"] = use.index;
  j["level"] = sarifLevel(f.severity);
  j["message"] = message(text);
  ordered_json physical = {{"artifactLocation", artifactLocation(f.file)}};
  if (f.range.line > 0) physical["region"] = region(f.range);
  j["locations"] = ordered_json::array({{{"physicalLocation", physical}}});

  j["partialFingerprints"] = {{kFingerprintKey, layout.fingerprints[index]}};

  if (!f.edits.empty()) {
    ordered_json replacements = ordered_json::array();
    for (const sdk::Edit& e : f.edits)
      replacements.push_back({{"deletedRegion",
                               {{"byteOffset", e.start_byte},
                                {"byteLength", e.end_byte >= e.start_byte ? e.end_byte - e.start_byte : 0}}},
                              {"insertedContent", {{"text", e.replacement}}}});
    ordered_json change = {{"artifactLocation", artifactLocation(f.file)}, {"replacements", replacements}};
    const std::string what =
        f.npu_alternative.empty() ? "Apply the automatic NPU fix" : "Replace with " + f.npu_alternative;
    j["fixes"] = ordered_json::array(
        {{{"description", message(withPeriod(what))}, {"artifactChanges", ordered_json::array({change})}}});
  }

  ordered_json props = {{"api", f.api},
                        {"resolved_api", f.resolved_api},
                        {"confidence", sdk::toString(f.confidence)},
                        {"difficulty", sdk::toString(f.difficulty)},
                        {"effort_days", f.effort_days},
                        {"phases", f.phases},
                        {"autofix", f.autofix()}};
  if (m.emit.computed) props["fix_applied"] = m.emit.isFixed(index);
  if (!f.details.empty()) {
    ordered_json details = ordered_json::object();
    for (const auto& [k, v] : f.details) details[k] = v;
    props["details"] = details;
  }
  j["properties"] = props;
  return j;
}

// ---------------------------------------------------------------------------------------------
// The document, streamed.

void writeRun(std::ostream& out, const MigrationModel& m, const Layout& layout, std::size_t run_index) {
  const RunPlan& run = layout.runs[run_index];
  ordered_json head;
  head["tool"] = toolJson(m, run);
  head["invocations"] = ordered_json::array({invocationJson(m, run)});
  head["originalUriBaseIds"] = {
      {kSourceRoot,
       {{"description", message("The root of the analysed repository; result paths are relative to it.")}}}};
  const std::string repository = m.source.kind == "git" ? repositoryUri(m.source.location) : "";
  if (!repository.empty() && !m.source.commit.empty()) {
    ordered_json provenance = {{"repositoryUri", repository},
                               {"revisionId", m.source.commit},
                               {"mappedTo", {{"uriBaseId", kSourceRoot}}}};
    if (!m.source.ref.empty()) provenance["properties"] = {{"ref", m.source.ref}};
    head["versionControlProvenance"] = ordered_json::array({provenance});
  }
  head["columnKind"] = "unicodeCodePoints";
  head["properties"] = {{"pipeline", m.pipeline_name}};

  out << "    {";
  outputs::writeMembers(out, head, "      ");
  // One result per line: a run with 100k findings stays a readable, diffable file, and only one
  // result exists as JSON at a time.
  out << "\n      \"results\": [";
  bool first = true;
  for (std::size_t i = 0; i < m.findings.size(); ++i) {
    if (layout.run_of[i] != run_index) continue;
    out << (first ? "\n        " : ",\n        ")
        << resultJson(m, layout, i).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    first = false;
  }
  out << (first ? "]" : "\n      ]") << "\n    }";
}

}  // namespace

void writeSarif(std::ostream& out, const MigrationModel& model) {
  const Layout layout = layOut(model);
  out << "{\n  \"$schema\": " << ordered_json(kSchemaUri).dump()
      << ",\n  \"version\": \"2.1.0\",\n  \"runs\": [";
  for (std::size_t r = 0; r < layout.runs.size(); ++r) {
    out << (r ? ",\n" : "\n");
    writeRun(out, model, layout, r);
  }
  out << "\n  ]\n}\n";
}

Status writeSarif(const MigrationModel& model, const std::filesystem::path& file) {
  return outputs::writeFileAtomically(file, [&](std::ostream& out) { writeSarif(out, model); });
}

}  // namespace migrate
