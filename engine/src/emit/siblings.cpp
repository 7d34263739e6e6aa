#include "emit/siblings.hpp"

#include "parse/python_parser.hpp"

namespace migrate::emit {
namespace {

bool isIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// Offset just after the whole-word occurrence of `word` in text[from, to), or npos.
std::size_t wordEnd(const std::string& text, const std::string& word, std::size_t from, std::size_t to) {
  for (std::size_t at = text.find(word, from); at != std::string::npos && at + word.size() <= to;
       at = text.find(word, at + 1)) {
    const bool before = at == 0 || !isIdentifierChar(text[at - 1]);
    const bool after = at + word.size() >= text.size() || !isIdentifierChar(text[at + word.size()]);
    if (before && after) return at + word.size();
  }
  return std::string::npos;
}

sdk::Finding importFinding(const std::string& path, const sdk::ImportFact& fact, const char* rule,
                           std::string message) {
  sdk::Finding f;
  f.rule_id = rule;
  f.domain = "emit";
  f.file = path;
  f.range = fact.range;
  f.api = fact.module;
  f.message = std::move(message);
  f.severity = sdk::Severity::Info;
  return f;
}

}  // namespace

std::string siblingPath(const std::string& path) {
  const std::size_t dot = path.rfind(".py");
  return path.substr(0, dot) + "_npu" + path.substr(dot);
}

std::vector<sdk::Finding> siblingImportEdits(const std::string& path, const std::string& text,
                                             const std::set<std::string>& adapted) {
  std::vector<sdk::Finding> out;
  auto parsed = parse::parsePython(path, text);
  if (!parsed) return out;
  for (const sdk::ImportFact& fact : (*parsed)->imports()) {
    if (fact.star && fact.name.empty()) continue;
    const std::size_t start = fact.range.start_byte;
    const std::size_t end = fact.range.end_byte;
    const bool from_import = !fact.name.empty();
    const std::string module =
        from_import ? fact.target.substr(0, fact.target.size() - fact.name.size() - 1) : fact.module;
    const std::size_t import_kw = wordEnd(text, "import", start, end);
    if (import_kw == std::string::npos) continue;
    std::size_t insert_at = std::string::npos;
    std::string insertion = "_npu";
    if (from_import && adapted.count(module)) {
      // `from pkg.mod import x` → `from pkg.mod_npu import x`: after the module as written.
      std::size_t token_end = import_kw - 6;
      while (token_end > start && std::isspace(static_cast<unsigned char>(text[token_end - 1]))) --token_end;
      insert_at = token_end;
    } else if (from_import && adapted.count(fact.target)) {
      // `from pkg import mod` → `from pkg import mod_npu as mod`.
      insert_at = wordEnd(text, fact.name, import_kw, end);
      if (fact.alias.empty()) insertion = "_npu as " + fact.name;
    } else if (!from_import && adapted.count(module)) {
      if (fact.alias.empty()) {
        sdk::Finding f = importFinding(path, fact, kSiblingImportManualRule,
                                       "import " + fact.module + " loads the original module, not " +
                                           fact.module + "_npu; import it with `as` and use that name");
        f.severity = sdk::Severity::Warning;
        out.push_back(std::move(f));
        continue;
      }
      insert_at = wordEnd(text, fact.module.substr(fact.module.rfind('.') + 1), import_kw, end);
    }
    if (insert_at == std::string::npos) continue;
    sdk::Finding f = importFinding(path, fact, kSiblingImportRule, "import redirected to the _npu version");
    f.edits.push_back(
        {static_cast<std::uint32_t>(insert_at), static_cast<std::uint32_t>(insert_at), insertion});
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace migrate::emit
