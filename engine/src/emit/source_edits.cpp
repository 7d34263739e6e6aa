#include "emit/source_edits.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>

#include "migrate/sdk/install_guide.hpp"
#include "parse/python_layout.hpp"
#include "parse/python_parser.hpp"

namespace migrate::emit {
namespace {

using parse::lineStartOf;

bool isPython(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".py" || ext == ".pyi";
}

/// An insertion of whole lines at a line start, or a replacement of a byte range.
/// A change to apply; an insertion goes before a replacement at the same offset.
struct Operation : Change {
  bool insertion = false;
};

/// The first line of the logical line around `offset` (backslash continuations followed back).
std::uint32_t logicalLineStart(const std::string& text, std::uint32_t offset) {
  std::uint32_t start = lineStartOf(text, offset);
  while (start > 0) {
    std::uint32_t prev_end = start - 1;  // the '\n' ending the previous line
    if (prev_end > 0 && text[prev_end - 1] == '\r') --prev_end;
    if (prev_end == 0 || text[prev_end - 1] != '\\') break;
    start = lineStartOf(text, prev_end);
  }
  return start;
}

std::string indentationAt(const std::string& text, std::uint32_t line_start) {
  std::uint32_t i = line_start;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  return text.substr(line_start, i - line_start);
}

/// True when the comment lines right above `line_start` already carry the TODO for `rule`.
bool hasTodoAbove(const std::string& text, std::uint32_t line_start, const std::string& prefix,
                  const std::string& rule) {
  const std::string wanted = std::string(kTodoMarker) + rule + ")";
  std::uint32_t end = line_start;
  while (end > 0) {
    const std::uint32_t start = lineStartOf(text, end - 1);
    const std::string line = text.substr(start, end - start);
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line.compare(first, prefix.size(), prefix) != 0) return false;
    if (line.find(wanted) != std::string::npos) return true;
    end = start;
  }
  return false;
}

/// One line of text: the message's first sentence, at most ~110 characters.
std::string todoText(const sdk::Finding& f) {
  std::string msg = f.message;
  std::replace(msg.begin(), msg.end(), '\n', ' ');
  std::replace(msg.begin(), msg.end(), '\r', ' ');
  if (const std::size_t stop = msg.find(". "); stop != std::string::npos) msg.resize(stop + 1);
  if (msg.size() > 110) {
    std::size_t cut = 107;
    while (cut > 0 && (static_cast<unsigned char>(msg[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 boundary
    msg = msg.substr(0, cut) + "...";
  }
  return msg;
}

/// True when a line starts with `import <module>` (the module's own import at top level).
bool hasTopLevelImport(const std::string& text, const std::string& module) {
  const std::string needle = "import " + module;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    const std::size_t after = at + needle.size();
    const bool line_start = at == 0 || text[at - 1] == '\n';
    const bool word_end = after == text.size() || text[after] == ' ' || text[after] == '\t' ||
                          text[after] == '\n' || text[after] == '\r' || text[after] == ',';
    if (line_start && word_end) return true;
  }
  return false;
}

/// The edits to apply, finding by finding: all of a finding's edits or none; an edit carried by
/// several findings once; a finding whose edits overlap edits applied before it is conflicting.
/// Fills `result`'s fixed, conflicting and manual lists.
std::vector<Operation> selectEdits(std::uint32_t size, const std::vector<const sdk::Finding*>& findings,
                                   FileAdaptation& result) {
  std::vector<Operation> accepted;
  auto overlaps = [&](const sdk::Edit& e) {
    for (const Operation& op : accepted) {
      const bool same = op.start == e.start_byte && op.end == e.end_byte && op.text == e.replacement;
      if (same) continue;
      if (e.start_byte < op.end && op.start < e.end_byte) return true;
      if (e.start_byte == e.end_byte && op.start == op.end && e.start_byte == op.start) return true;
      if (e.start_byte == e.end_byte && op.start < e.start_byte && e.start_byte < op.end) return true;
      if (op.start == op.end && e.start_byte < op.start && op.start < e.end_byte) return true;
    }
    return false;
  };
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const sdk::Finding& f = *findings[i];
    if (f.edits.empty()) {
      if (f.severity != sdk::Severity::Info) result.manual.push_back(i);
      continue;
    }
    bool clash = false;
    for (const sdk::Edit& e : f.edits)
      clash = clash || e.start_byte > e.end_byte || e.end_byte > size || overlaps(e);
    if (clash) {
      result.conflicting.push_back(i);
      continue;
    }
    for (const sdk::Edit& e : f.edits) {
      const bool present = std::any_of(accepted.begin(), accepted.end(), [&](const Operation& op) {
        return op.start == e.start_byte && op.end == e.end_byte && op.text == e.replacement;
      });
      if (!present) accepted.push_back({{e.start_byte, e.end_byte, e.replacement, f.rule_id, "fix"}, false});
    }
    result.fixed.push_back(i);
  }
  return accepted;
}

/// `original` with `ops` applied (by offset; an insertion before a replacement at its offset).
std::string applyOperations(const std::string& original, std::vector<Operation> ops) {
  std::stable_sort(ops.begin(), ops.end(), [](const Operation& a, const Operation& b) {
    if (a.start != b.start) return a.start < b.start;
    return a.insertion && !b.insertion;
  });
  std::string out;
  out.reserve(original.size() + 256);
  std::uint32_t pos = 0;
  for (const Operation& op : ops) {
    out.append(original, pos, op.start - pos);
    out += op.text;
    pos = op.insertion ? op.start : op.end;
  }
  out.append(original, pos, std::string::npos);
  return out;
}

/// The layout of a Python file emit edits that its analysis did not report on (a repository
/// pass did): parsed as the analysis parses it. A file that cannot be parsed gets the imports at
/// its end and its TODO lines above the lines they concern.
PythonLayout parsedLayout(const std::string& path, const std::string& original) {
  auto parsed = parse::parsePython(path, original);
  if (parsed) return (*parsed)->takeLayout();
  PythonLayout layout;
  layout.import_offset = static_cast<std::uint32_t>(original.size());
  return layout;
}

}  // namespace

std::string applyFixes(const std::string& text, const std::vector<const sdk::Finding*>& findings,
                       std::vector<std::size_t>* fixed) {
  FileAdaptation selection;
  std::vector<Operation> ops = selectEdits(static_cast<std::uint32_t>(text.size()), findings, selection);
  if (fixed) *fixed = selection.fixed;
  return applyOperations(text, std::move(ops));
}

std::string commentPrefixFor(const std::string& path, std::string_view text) {
  const std::filesystem::path p(path);
  const std::string ext = p.extension().string();
  const std::string name = p.filename().string();
  if (ext == ".py" || ext == ".pyi" || ext == ".sh" || ext == ".bash" || ext == ".txt" || ext == ".toml" ||
      ext == ".cfg" || ext == ".yaml" || ext == ".yml" || ext == ".cmake" || ext == ".in" ||
      name == "Dockerfile" || name.rfind("Dockerfile.", 0) == 0 || name == "Makefile" ||
      sdk::isInstallGuide(path, text))  // its findings are in its shell code blocks
    return "#";
  if (ext == ".cu" || ext == ".cuh" || ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c" ||
      ext == ".h" || ext == ".hpp" || ext == ".hh" || ext == ".hxx")
    return "//";
  return {};
}

FileAdaptation adaptSource(const std::string& path, const std::string& original,
                           const std::vector<const sdk::Finding*>& findings, const PythonLayout* given) {
  FileAdaptation result;
  const auto size = static_cast<std::uint32_t>(original.size());
  const std::string newline = original.find("\r\n") != std::string::npos ? "\r\n" : "\n";

  std::vector<Operation> accepted = selectEdits(size, findings, result);
  bool uses_ops = false;
  for (const Operation& op : accepted) uses_ops = uses_ops || op.text.find("npu_ops.") != std::string::npos;
  result.edits_applied = accepted.size();
  // A place an applied edit routes to npu_ops (the kit's wrapper replaces the library there) is
  // addressed: e.g. the deps finding on `from flash_attn import ...` once that reads npu_ops.
  std::erase_if(result.manual, [&](std::size_t i) {
    const sdk::SourceRange& r = findings[i]->range;
    return std::any_of(accepted.begin(), accepted.end(), [&](const Operation& op) {
      return op.text.find("npu_ops") != std::string::npos &&
             op.start < std::max(r.end_byte, r.start_byte + 1) &&
             r.start_byte < std::max(op.end, op.start + 1);
    });
  });
  // An edit that makes a statement `import npu_ops` (e.g. from `import xformers.ops`) binds it.
  const bool writes_ops_import = std::any_of(accepted.begin(), accepted.end(), [&](const Operation& op) {
    const std::string before =
        original.substr(lineStartOf(original, op.start), op.start - lineStartOf(original, op.start));
    const std::string line = before + op.text;
    const std::size_t first = line.find_first_not_of(" \t");
    return first != std::string::npos && line.compare(first, 14, "import npu_ops") == 0 &&
           (line.size() == first + 14 ||
            !(std::isalnum(static_cast<unsigned char>(line[first + 14])) || line[first + 14] == '_'));
  });

  std::vector<Operation> inserts;
  const bool python = isPython(path);
  std::optional<PythonLayout> parsed;
  const PythonLayout* layout = nullptr;
  if (python && (!accepted.empty() || !result.manual.empty() || !result.conflicting.empty()))
    layout = given ? given : &parsed.emplace(parsedLayout(path, original));

  // The adaptation imports, once per Python file that was edited.
  if (python && !accepted.empty()) {
    std::string header;
    if (!hasTopLevelImport(original, "npu_compat")) {
      header += "import npu_compat  # added by migrate-pipeline: torch_npu on NPU hosts, CPU/CUDA elsewhere" +
                newline + "npu_compat.activate()" + newline;
      result.compat_import_added = true;
    }
    if (uses_ops && !writes_ops_import && !hasTopLevelImport(original, "npu_ops")) {
      header += "import npu_ops  # added by migrate-pipeline" + newline;
      result.ops_import_added = true;
    }
    if (!header.empty()) {
      std::uint32_t at = layout->import_offset;
      if (at == size && size > 0 && original.back() != '\n') header = newline + header;
      inserts.push_back({{at, at, header, "", "import"}, true});
    }
  }

  // TODO comments above the places that need a person.
  const std::string prefix = commentPrefixFor(path, original);
  if (!prefix.empty()) {
    std::vector<std::size_t> todo = result.manual;
    todo.insert(todo.end(), result.conflicting.begin(), result.conflicting.end());
    std::sort(todo.begin(), todo.end());
    std::map<std::uint32_t, std::vector<Operation>> lines;  // line start -> comment lines
    std::map<std::uint32_t, std::vector<std::string>> rules_at;
    for (std::size_t i : todo) {
      const sdk::Finding& f = *findings[i];
      const std::uint32_t offset = std::min(f.range.start_byte, size);
      const std::uint32_t at =
          layout ? layout->statementLineStart(offset, original) : logicalLineStart(original, offset);
      auto& seen = rules_at[at];
      if (std::find(seen.begin(), seen.end(), f.rule_id) != seen.end()) continue;
      seen.push_back(f.rule_id);
      if (hasTodoAbove(original, at, prefix, f.rule_id)) continue;
      const bool inside_edit = std::any_of(accepted.begin(), accepted.end(),
                                           [&](const Operation& op) { return op.start < at && at < op.end; });
      if (inside_edit) continue;
      const std::string comment = indentationAt(original, at) + prefix + " " + kTodoMarker + f.rule_id +
                                  "): " + todoText(f) + newline;
      lines[at].push_back({{at, at, comment, f.rule_id, "todo"}, true});
    }
    for (auto& [at, comments] : lines) {  // in order at one offset: applyOperations keeps it
      result.todos_added += comments.size();
      inserts.insert(inserts.end(), comments.begin(), comments.end());
    }
  }

  std::vector<Operation> ops = std::move(accepted);
  ops.insert(ops.end(), inserts.begin(), inserts.end());
  result.changes.assign(ops.begin(), ops.end());  // the Change part of each
  std::stable_sort(result.changes.begin(), result.changes.end(),
                   [](const Change& a, const Change& b) { return a.start < b.start; });
  result.text = applyOperations(original, std::move(ops));
  return result;
}

}  // namespace migrate::emit
