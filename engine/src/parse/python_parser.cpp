#include "parse/python_parser.hpp"

#include <tree_sitter/api.h>

#include "parse/dense_parse_table.h"
#include "parse/python_facts.hpp"

extern "C" const TSLanguage* tree_sitter_python();

namespace migrate::parse {
namespace {

/// Brackets left open at the end of a file that the parser is not given: tree-sitter 0.20's error
/// recovery frees a subtree twice when some 65,536 brackets are left open (found by fuzzing; the
/// process aborts). Real code leaves a handful open at most.
constexpr std::size_t kMaxUnclosedBrackets = 10'000;

/// Brackets still open at the end of `text` (closing ones beyond the open ones ignored).
std::size_t unclosedBrackets(std::string_view text) {
  std::size_t open = 0;
  for (const char c : text) {
    if (c == '(' || c == '[' || c == '{')
      ++open;
    else if ((c == ')' || c == ']' || c == '}') && open > 0)
      --open;
  }
  return open;
}

struct ParserDeleter {
  void operator()(TSParser* p) const { ts_parser_delete(p); }
};
struct TreeDeleter {
  void operator()(TSTree* t) const { ts_tree_delete(t); }
};

TSParser* threadParser() {
  thread_local std::unique_ptr<TSParser, ParserDeleter> parser = [] {
    std::unique_ptr<TSParser, ParserDeleter> p(ts_parser_new());
    ts_parser_set_language(p.get(), pythonLanguage());
    return p;
  }();
  return parser.get();
}

}  // namespace

const TSLanguage* pythonLanguage() {
  static const TSLanguage* const language = migrate_dense_parse_table(tree_sitter_python());
  return language;
}

std::string dottedModuleName(const std::string& relative_path) {
  std::string s = relative_path;
  if (s.size() >= 3 && s.compare(s.size() - 3, 3, ".py") == 0)
    s.resize(s.size() - 3);
  else if (s.size() >= 4 && s.compare(s.size() - 4, 4, ".pyi") == 0)
    s.resize(s.size() - 4);
  if (s == "__init__") return {};
  if (s.size() >= 9 && s.compare(s.size() - 9, 9, "/__init__") == 0) s.resize(s.size() - 9);
  for (char& c : s)
    if (c == '/') c = '.';
  return s;
}

Result<std::unique_ptr<PythonModule>> parsePython(std::string relative_path, std::string source,
                                                  std::uint64_t timeout_ms) {
  std::string dotted = dottedModuleName(relative_path);
  auto module =
      std::make_unique<PythonModule>(std::move(relative_path), std::move(dotted), std::move(source));
  TSParser* parser = threadParser();
  ts_parser_set_timeout_micros(parser, timeout_ms * 1000);
  const std::string_view text = module->source();
  if (const std::size_t open = unclosedBrackets(text); open > kMaxUnclosedBrackets)
    return makeError(std::to_string(open) + " brackets are left open at the end of the file (more than " +
                     std::to_string(kMaxUnclosedBrackets) + "): not parsed; is it Python source?");
  std::unique_ptr<TSTree, TreeDeleter> tree(
      ts_parser_parse_string(parser, nullptr, text.data(), static_cast<std::uint32_t>(text.size())));
  if (!tree) {
    ts_parser_reset(parser);
    return makeError("parsing took longer than " + std::to_string(timeout_ms) +
                     " ms (limits.parse_timeout_ms) and was abandoned; the file was not analysed");
  }
  extractFacts(*module, ts_tree_root_node(tree.get()), pythonLanguage());
  return module;
}

}  // namespace migrate::parse
