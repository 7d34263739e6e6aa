#include "analyze/module_summary.hpp"

#include <re2/re2.h>
#include <algorithm>

namespace migrate {
namespace {

std::string firstLine(std::string_view text) {
  std::size_t b = text.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const std::size_t e = text.find('\n', b);
  std::string line(text.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t')) line.pop_back();
  return line;
}

/// The module docstring: a string statement in column 1 before any import or definition.
std::string moduleDocstring(const sdk::Module& m) {
  std::uint32_t first_code = UINT32_MAX;
  for (const auto& i : m.imports()) first_code = std::min(first_code, i.range.start_byte);
  for (const auto& d : m.definitions()) first_code = std::min(first_code, d.range.start_byte);
  for (const auto& s : m.strings())
    if (s.context == sdk::StringContext::Docstring && s.range.column == 1 && s.range.start_byte < first_code)
      return firstLine(s.value);
  return {};
}

/// RE2, not std::regex: any string literal of any file gets here, and std::regex recursed once per
/// character (a literal of 300,000 characters with '=' and ':' overflowed the stack). [[:space:]] is
/// ECMAScript's \s (RE2's leaves out \v).
bool isConsoleScript(const std::string& s) {
  static const RE2 shape(
      R"([[:space:]]*[A-Za-z0-9_.\-]+[[:space:]]*=[[:space:]]*[A-Za-z_][\w.]*[[:space:]]*(?::[[:space:]]*[A-Za-z_][\w.]*)?[[:space:]]*)");
  return s.find('=') != std::string::npos && s.find(':') != std::string::npos && RE2::FullMatch(s, shape);
}

}  // namespace

ModuleSummary summarizeModule(const sdk::Module& m, std::uint64_t lines) {
  ModuleSummary s;
  s.path = std::string(m.path());
  s.dotted_name = std::string(m.dottedName());
  s.lines = lines;
  s.docstring = moduleDocstring(m);
  for (const auto& i : m.imports()) {
    // `import a.b` binds `a` (its target) but runs a.b; `from a import b` names a.b.
    const bool plain = i.name.empty() && i.level == 0;
    s.import_targets.push_back(plain || i.target.empty() || i.star ? i.module : i.target);
  }
  for (const auto& str : m.strings()) {
    if (str.context == sdk::StringContext::Compare && str.value == "__main__") s.main_block = true;
    if ((s.path == "setup.py" || s.path.ends_with("/setup.py")) && isConsoleScript(str.value))
      s.console_scripts.push_back(str.value);
  }
  std::vector<const sdk::DefinitionFact*> classes;
  for (const auto& d : m.definitions()) {
    if (d.top_level) s.top_level.push_back({d.name, d.docstring_summary, d.range.line, d.range.end_line});
    if (d.kind != sdk::DefinitionFact::Kind::Class) continue;
    classes.push_back(&d);
    s.classes.push_back(
        {d.name, d.qualified_name, d.bases, d.docstring_summary, d.range.line, d.range.end_line, {}});
  }
  for (const auto& call : m.calls()) {
    const std::string& callee = call.callee_resolved.empty() ? call.callee_written : call.callee_resolved;
    if (callee.empty()) continue;
    // The innermost class around the call: the one starting last among those containing it.
    std::size_t best = classes.size();
    for (std::size_t c = 0; c < classes.size(); ++c) {
      const auto& r = classes[c]->range;
      if (r.start_byte <= call.range.start_byte && call.range.end_byte <= r.end_byte &&
          (best == classes.size() || r.start_byte >= classes[best]->range.start_byte))
        best = c;
    }
    if (best != classes.size()) ++s.classes[best].calls[callee];
  }
  return s;
}

}  // namespace migrate
