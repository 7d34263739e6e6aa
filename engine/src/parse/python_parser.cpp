#include "parse/python_parser.hpp"

#include <tree_sitter/api.h>

#include "parse/python_facts.hpp"

extern "C" const TSLanguage* tree_sitter_python();

namespace migrate::parse {
namespace {

struct ParserDeleter {
  void operator()(TSParser* p) const { ts_parser_delete(p); }
};
struct TreeDeleter {
  void operator()(TSTree* t) const { ts_tree_delete(t); }
};

TSParser* threadParser() {
  thread_local std::unique_ptr<TSParser, ParserDeleter> parser = [] {
    std::unique_ptr<TSParser, ParserDeleter> p(ts_parser_new());
    ts_parser_set_language(p.get(), tree_sitter_python());
    return p;
  }();
  return parser.get();
}

}  // namespace

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
  std::unique_ptr<TSTree, TreeDeleter> tree(
      ts_parser_parse_string(parser, nullptr, text.data(), static_cast<std::uint32_t>(text.size())));
  if (!tree) {
    ts_parser_reset(parser);
    return makeError("parsing took longer than " + std::to_string(timeout_ms) +
                     " ms (limits.parse_timeout_ms) and was abandoned; the file was not analysed");
  }
  extractFacts(*module, ts_tree_root_node(tree.get()), tree_sitter_python());
  return module;
}

}  // namespace migrate::parse
