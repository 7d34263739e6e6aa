#include "analysis_cache/entries.hpp"

#include <nlohmann/json.hpp>

namespace migrate::cache {
namespace {

using nlohmann::json;

// Records are arrays in a fixed order (smaller and faster than objects); the order is part of
// kEntryFormat: change it only together with the format number.

json rangeJson(const sdk::SourceRange& r) {
  return json::array({r.line, r.column, r.end_line, r.end_column, r.start_byte, r.end_byte});
}

sdk::SourceRange readRange(const json& j) {
  return {j.at(0).get<std::uint32_t>(), j.at(1).get<std::uint32_t>(), j.at(2).get<std::uint32_t>(),
          j.at(3).get<std::uint32_t>(), j.at(4).get<std::uint32_t>(), j.at(5).get<std::uint32_t>()};
}

/// An enumerator stored as its number; a number outside 0..max is a broken entry.
template <typename E>
E enumAt(const json& j, int max) {
  const int v = j.get<int>();
  if (v < 0 || v > max) throw std::out_of_range("enumerator " + std::to_string(v) + " out of range");
  return static_cast<E>(v);
}

std::string fileOf(const std::string& file, std::string_view path) {
  return file == path ? std::string() : file;
}

std::string restoreFile(const json& j, std::string_view path) {
  auto file = j.get<std::string>();
  return file.empty() ? std::string(path) : file;
}

json findingJson(const sdk::Finding& f, std::string_view path) {
  json edits = json::array();
  for (const sdk::Edit& e : f.edits) edits.push_back(json::array({e.start_byte, e.end_byte, e.replacement}));
  return json::array({f.rule_id, f.domain, fileOf(f.file, path), rangeJson(f.range), f.api, f.resolved_api,
                      f.message, f.npu_alternative, static_cast<int>(f.severity),
                      static_cast<int>(f.confidence), static_cast<int>(f.difficulty), f.effort_days, edits,
                      f.details, f.phases});
}

sdk::Finding readFinding(const json& j, std::string_view path) {
  sdk::Finding f;
  f.rule_id = j.at(0).get<std::string>();
  f.domain = j.at(1).get<std::string>();
  f.file = restoreFile(j.at(2), path);
  f.range = readRange(j.at(3));
  f.api = j.at(4).get<std::string>();
  f.resolved_api = j.at(5).get<std::string>();
  f.message = j.at(6).get<std::string>();
  f.npu_alternative = j.at(7).get<std::string>();
  f.severity = enumAt<sdk::Severity>(j.at(8), 2);
  f.confidence = enumAt<sdk::Level>(j.at(9), 2);
  f.difficulty = enumAt<sdk::Level>(j.at(10), 2);
  f.effort_days = j.at(11).get<double>();
  for (const json& e : j.at(12))
    f.edits.push_back(
        {e.at(0).get<std::uint32_t>(), e.at(1).get<std::uint32_t>(), e.at(2).get<std::string>()});
  f.details = j.at(13).get<std::map<std::string, std::string>>();
  f.phases = j.at(14).get<std::vector<std::string>>();
  return f;
}

json diagnosticJson(const sdk::Diagnostic& d, std::string_view path) {
  return json::array({static_cast<int>(d.severity), d.code, fileOf(d.file, path), d.line, d.message});
}

sdk::Diagnostic readDiagnostic(const json& j, std::string_view path) {
  return {enumAt<sdk::Severity>(j.at(0), 2), j.at(1).get<std::string>(), restoreFile(j.at(2), path),
          j.at(3).get<std::uint32_t>(), j.at(4).get<std::string>()};
}

json definitionJson(const TopLevelDefinition& d) {
  return json::array({d.name, d.docstring, d.line, d.end_line});
}

json classJson(const ClassSummary& c) {
  return json::array({c.name, c.qualified_name, c.bases, c.docstring, c.line, c.end_line, c.calls});
}

json summaryJson(const ModuleSummary& s) {
  json top = json::array();
  for (const auto& d : s.top_level) top.push_back(definitionJson(d));
  json classes = json::array();
  for (const auto& c : s.classes) classes.push_back(classJson(c));
  return json::array({!s.path.empty(), s.dotted_name, s.lines, s.docstring, s.import_targets, s.main_block,
                      top, classes, s.console_scripts});
}

ModuleSummary readSummary(const json& j, std::string_view path) {
  ModuleSummary s;
  if (!j.at(0).get<bool>()) return s;
  s.path = path;
  s.dotted_name = j.at(1).get<std::string>();
  s.lines = j.at(2).get<std::uint64_t>();
  s.docstring = j.at(3).get<std::string>();
  s.import_targets = j.at(4).get<std::vector<std::string>>();
  s.main_block = j.at(5).get<bool>();
  for (const json& d : j.at(6))
    s.top_level.push_back({d.at(0).get<std::string>(), d.at(1).get<std::string>(),
                           d.at(2).get<std::uint32_t>(), d.at(3).get<std::uint32_t>()});
  for (const json& c : j.at(7))
    s.classes.push_back({c.at(0).get<std::string>(), c.at(1).get<std::string>(),
                         c.at(2).get<std::vector<std::string>>(), c.at(3).get<std::string>(),
                         c.at(4).get<std::uint32_t>(), c.at(5).get<std::uint32_t>(),
                         c.at(6).get<std::map<std::string, int>>()});
  s.console_scripts = j.at(8).get<std::vector<std::string>>();
  return s;
}

/// The entry's records after its format number; nullopt (with `why`) for another format.
std::optional<json> openEntry(std::string_view bytes, std::string& why) {
  json entry = json::from_cbor(bytes.begin(), bytes.end());
  if (!entry.is_array() || entry.empty() || !entry[0].is_number_integer()) {
    why = "not a cache entry";
    return std::nullopt;
  }
  if (entry[0].get<int>() != kEntryFormat) {
    why = "entry format " + entry[0].dump() + ", this release reads " + std::to_string(kEntryFormat);
    return std::nullopt;
  }
  return entry;
}

std::string toCbor(const json& entry) {
  std::string out;
  json::to_cbor(entry, out);
  return out;
}

}  // namespace

std::string encode(const FileAnalysis& analysis, std::string_view path) {
  json findings = json::array();
  for (const auto& f : analysis.findings) findings.push_back(findingJson(f, path));
  json diagnostics = json::array();
  for (const auto& d : analysis.diagnostics) diagnostics.push_back(diagnosticJson(d, path));
  return toCbor(
      json::array({kEntryFormat, findings, diagnostics, summaryJson(analysis.summary), analysis.lines}));
}

std::optional<FileAnalysis> decode(std::string_view bytes, std::string_view path, std::string& why) {
  try {
    const auto entry = openEntry(bytes, why);
    if (!entry) return std::nullopt;
    FileAnalysis a;
    for (const json& f : entry->at(1)) a.findings.push_back(readFinding(f, path));
    for (const json& d : entry->at(2)) a.diagnostics.push_back(readDiagnostic(d, path));
    a.summary = readSummary(entry->at(3), path);
    a.lines = entry->at(4).get<std::uint64_t>();
    return a;
  } catch (const std::exception& e) {
    why = std::string("unreadable entry (") + e.what() + ")";
    return std::nullopt;
  }
}

std::string encode(const RepositoryAnalysis& analysis) {
  json reads = json::array();
  for (const auto& [path, hash] : analysis.reads)
    reads.push_back(json::array({path, json::binary(std::vector<std::uint8_t>(hash.begin(), hash.end()))}));
  json findings = json::array();
  for (const auto& f : analysis.findings) findings.push_back(findingJson(f, ""));
  json diagnostics = json::array();
  for (const auto& d : analysis.diagnostics) diagnostics.push_back(diagnosticJson(d, ""));
  return toCbor(json::array({kEntryFormat, reads, findings, diagnostics}));
}

std::optional<RepositoryAnalysis> decodeRepository(std::string_view bytes, std::string& why) {
  try {
    const auto entry = openEntry(bytes, why);
    if (!entry) return std::nullopt;
    RepositoryAnalysis a;
    for (const json& r : entry->at(1)) {
      const auto& bin = r.at(1).get_binary();
      std::array<unsigned char, 16> hash{};
      if (bin.size() != hash.size())
        throw std::out_of_range("content hash of " + std::to_string(bin.size()) + " bytes");
      std::copy(bin.begin(), bin.end(), hash.begin());
      a.reads.emplace_back(r.at(0).get<std::string>(), hash);
    }
    for (const json& f : entry->at(2)) a.findings.push_back(readFinding(f, ""));
    for (const json& d : entry->at(3)) a.diagnostics.push_back(readDiagnostic(d, ""));
    return a;
  } catch (const std::exception& e) {
    why = std::string("unreadable entry (") + e.what() + ")";
    return std::nullopt;
  }
}

}  // namespace migrate::cache
