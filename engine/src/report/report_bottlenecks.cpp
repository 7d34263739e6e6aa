/// Section 3 of the report: the bottlenecks in seed 000's groups, each with its places, steps,
/// the code at its first place and, when the tool fixed it, the code after the fix.

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <tuple>

#include "report/report_sections.hpp"
#include "report/report_text.hpp"

namespace migrate::report {
namespace {

constexpr std::size_t kPlacesShown = 5;
constexpr std::size_t kSnippetLines = 6;
constexpr std::size_t kSnippetLineBytes = 240;
constexpr std::uintmax_t kSnippetFileBytes = 4u << 20;

struct Snippet {
  std::string before;
  std::string after;  ///< empty when the finding has no fix
};

std::string languageOf(const std::string& path) {
  static const std::map<std::string, std::string> kByExtension{
      {".py", "python"}, {".cu", "cuda"},   {".cuh", "cuda"}, {".cpp", "cpp"},    {".cc", "cpp"},
      {".h", "cpp"},     {".hpp", "cpp"},   {".sh", "bash"},  {".txt", "text"},   {".toml", "toml"},
      {".cfg", "ini"},   {".yaml", "yaml"}, {".yml", "yaml"}, {".cmake", "cmake"}};
  const auto dot = path.find_last_of('.');
  if (path.size() >= 10 && path.compare(path.size() - 10, 10, "Dockerfile") == 0) return "dockerfile";
  if (path.size() >= 14 && path.compare(path.size() - 14, 14, "CMakeLists.txt") == 0) return "cmake";
  if (dot == std::string::npos) return "text";
  const auto it = kByExtension.find(path.substr(dot));
  return it == kByExtension.end() ? "text" : it->second;
}

/// Lines too long for a report are cut; control characters other than tabs are dropped.
std::string tidy(std::string_view lines) {
  std::string out;
  std::size_t column = 0;
  for (char c : lines) {
    if (c == '\n') {
      out += c;
      column = 0;
      continue;
    }
    if (c == '\r' || (static_cast<unsigned char>(c) < 0x20 && c != '\t')) continue;
    if (column == kSnippetLineBytes) out += " …";
    if (column++ >= kSnippetLineBytes) continue;
    out += c;
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

/// The finding's lines from the original file and the same lines after `edits` (those of every
/// fixed finding of the file; an edit reaching outside the lines, or overlapping one already
/// applied, is left out as the emit stage would).
std::optional<Snippet> snippetOf(const std::filesystem::path& root, const sdk::Finding& f,
                                 std::vector<sdk::Edit> edits) {
  if (root.empty() || f.range.line == 0) return std::nullopt;
  const std::filesystem::path file = root / f.file;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec) || std::filesystem::file_size(file, ec) > kSnippetFileBytes)
    return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.find('\0') != std::string::npos) return std::nullopt;
  // Byte offsets of the first and last line of the finding.
  std::size_t begin = 0;
  for (std::uint32_t line = 1; line < f.range.line; ++line) {
    begin = text.find('\n', begin);
    if (begin == std::string::npos) return std::nullopt;
    ++begin;
  }
  const std::uint32_t last = std::min<std::uint32_t>(
      std::max(f.range.end_line, f.range.line), f.range.line + static_cast<std::uint32_t>(kSnippetLines) - 1);
  std::size_t end = begin;
  for (std::uint32_t line = f.range.line; line <= last && end != std::string::npos; ++line) {
    end = text.find('\n', end);
    if (end != std::string::npos && line < last) ++end;
  }
  if (end == std::string::npos) end = text.size();
  Snippet s;
  const std::string before = text.substr(begin, end - begin);
  s.before = tidy(before);
  if (s.before.find_first_not_of(" \t\n") == std::string::npos) return std::nullopt;
  std::sort(edits.begin(), edits.end(), [](const auto& a, const auto& b) {
    return std::tie(a.start_byte, a.end_byte, a.replacement) >
           std::tie(b.start_byte, b.end_byte, b.replacement);
  });
  std::string after = before;
  std::size_t applied_from = end + 1;  // start of the last edit applied (edits go back to front)
  for (std::size_t i = 0; i < edits.size(); ++i) {
    const sdk::Edit& e = edits[i];
    if (i > 0 && e.start_byte == edits[i - 1].start_byte && e.end_byte == edits[i - 1].end_byte &&
        e.replacement == edits[i - 1].replacement)
      continue;  // the same edit of two findings, applied once
    if (e.start_byte < begin || e.end_byte > end || e.start_byte > e.end_byte || e.end_byte > applied_from)
      continue;
    after.replace(e.start_byte - begin, e.end_byte - e.start_byte, e.replacement);
    applied_from = e.start_byte;
  }
  if (after != before) s.after = tidy(after);
  return s;
}

std::string placesOf(const ReportInput& in, const sdk::Bottleneck& b) {
  std::vector<std::string> places;
  for (std::size_t i : b.findings) {
    const sdk::Finding& f = in.model.findings[i];
    places.push_back(code(f.file + ":" + std::to_string(f.range.line)));
  }
  return joined(places, kPlacesShown, " (findings.json)");
}

std::string statusOf(const BottleneckState& s) {
  if (s.adapted()) return "✅ Adapted (the fix is applied in the adapted tree and the patch)";
  if (s.fixed > 0)
    return "⚠️ Partially adapted: " + std::to_string(s.fixed) + " of " + std::to_string(s.places) +
           " places fixed, the rest is manual work";
  return "⚠️ Pending (manual work; a TODO(migrate-pipeline " + s.bottleneck->rule_id +
         ") comment marks each place in the adapted tree)";
}

void addBottleneck(const ReportInput& in, const BottleneckState& state, sdk::TemplateData& item) {
  const sdk::Bottleneck& b = *state.bottleneck;
  const bool valid = std::all_of(b.findings.begin(), b.findings.end(),
                                 [&](std::size_t i) { return i < in.model.findings.size(); });
  std::vector<std::string> apis;
  for (const std::string& api : b.apis) apis.push_back(code(api));
  item.set("id", b.id).set("title", oneLine(b.title));
  item.set("places", valid ? placesOf(in, b) : "—");
  item.set("apis", apis.empty() ? "—" : joined(apis, kPlacesShown));
  const sdk::Finding* first = valid && !b.findings.empty() ? &in.model.findings[b.findings.front()] : nullptr;
  item.set("description", oneLine(first ? first->message : b.title));
  item.set("npu_alternative", oneLine(b.npu_alternative.empty() ? "none known" : b.npu_alternative));
  item.set("scope", oneLine(b.scope + (b.scope_reason.empty() ? "" : ": " + b.scope_reason)));
  item.set("difficulty", sdk::toString(b.difficulty));
  item.set("effort", number(b.effort_days));
  int n = 0;
  for (const std::string& step : b.steps)
    item.addItem("steps").set("number", std::to_string(++n)).set("text", oneLine(step));
  item.set("status", statusOf(state));
  if (!first) return;
  // The code: the first place the tool fixed, else the first place.
  const sdk::Finding* const findings = in.model.findings.data();
  for (std::size_t i : b.findings)
    if (in.model.emit.isFixed(i)) {
      first = &findings[i];
      break;
    }
  const bool first_fixed = in.model.emit.isFixed(static_cast<std::size_t>(first - findings));
  std::vector<sdk::Edit> edits = first->edits;
  if (first_fixed) {  // the line as the adapted tree has it: every fixed finding of the file
    edits.clear();
    const auto [lo, hi] =
        std::equal_range(in.model.findings.begin(), in.model.findings.end(), *first,
                         [](const sdk::Finding& x, const sdk::Finding& y) { return x.file < y.file; });
    for (auto it = lo; it != hi; ++it)
      if (in.model.emit.isFixed(static_cast<std::size_t>(it - in.model.findings.begin())))
        edits.insert(edits.end(), it->edits.begin(), it->edits.end());
  }
  const auto snippet = snippetOf(in.model.source.root, *first, std::move(edits));
  item.setFlag("has_code", snippet.has_value());
  if (!snippet) return;
  const bool applied = !snippet->after.empty() && first_fixed;
  item.set("code_place", code(first->file + ":" + std::to_string(first->range.line)));
  item.set("code_lang", languageOf(first->file));
  item.set("fence", fenceFor(snippet->before + "\n" + snippet->after));
  item.set("code_before", snippet->before);
  item.setFlag("has_after", !snippet->after.empty());
  item.set("code_after", snippet->after);
  item.set("code_after_caption", applied
                                     ? "After modification (applied in the adapted tree)"
                                     : "After modification (the suggested fix, not applied: it conflicted "
                                       "with another fix)");
}

}  // namespace

void addBottlenecks(const ReportInput& in, sdk::TemplateData& data) {
  const MigrationModel& m = in.model;
  if (!m.plan.computed) {
    data.set("bottleneck_intro", "_Not available: " + oneLine(in.missing("plan")) + "_");
    data.setEmptyList("groups");
    return;
  }
  double days = 0;
  for (const auto& s : in.states) days += s.bottleneck->effort_days;
  data.set(
      "bottleneck_intro",
      plural(in.states.size(), "bottleneck", "bottlenecks") + " (" + number(days) +
          " person-days before integration), numbered by impact scope, then difficulty and effort, and "
          "grouped as below. A bottleneck is one rule's warnings and errors with the same NPU alternative; "
          "the places of every finding are in findings.json.");
  int number_in_report = 0;
  for (const ReportGroup& g : reportGroups(m)) {
    auto& group = data.addItem("groups");
    group.set("number", std::to_string(++number_in_report)).set("title", g.title);
    group.setEmptyList("bottlenecks");
    std::size_t shown = 0, hidden = 0;
    for (const BottleneckState& s : in.states) {
      if (s.group != g.id) continue;
      if (shown++ < in.max_items)
        addBottleneck(in, s, group.addItem("bottlenecks"));
      else
        ++hidden;
    }
    group.set("hidden", hidden ? std::to_string(hidden) : "");
  }
}

}  // namespace migrate::report
