#include "emit/python_layout.hpp"

#include <tree_sitter/api.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "parse/python_parser.hpp"

namespace migrate::emit {
namespace {

std::uint32_t lineStartOf(const std::string& text, std::uint32_t offset) {
  offset = std::min<std::uint32_t>(offset, static_cast<std::uint32_t>(text.size()));
  while (offset > 0 && text[offset - 1] != '\n') --offset;
  return offset;
}

bool isDocstring(TSNode node) {
  return std::strcmp(ts_node_type(node), "expression_statement") == 0 &&
         ts_node_named_child_count(node) == 1 &&
         std::strcmp(ts_node_type(ts_node_named_child(node, 0)), "string") == 0;
}

}  // namespace

std::uint32_t PythonLayout::statementLineStart(std::uint32_t offset, const std::string& text) const {
  const Statement* inner = nullptr;
  for (const Statement& s : statements) {
    if (s.start > offset) break;
    if (offset < s.end || (offset == s.start && s.start == s.end)) inner = &s;  // later = more nested
  }
  return inner ? inner->line_start : lineStartOf(text, offset);
}

PythonLayout layoutOf(const std::string& text) {
  PythonLayout layout;
  layout.import_offset = static_cast<std::uint32_t>(text.size());
  struct ParserDeleter {
    void operator()(TSParser* p) const { ts_parser_delete(p); }
  };
  struct TreeDeleter {
    void operator()(TSTree* t) const { ts_tree_delete(t); }
  };
  std::unique_ptr<TSParser, ParserDeleter> parser(ts_parser_new());
  ts_parser_set_language(parser.get(), parse::pythonLanguage());
  std::unique_ptr<TSTree, TreeDeleter> tree(
      ts_parser_parse_string(parser.get(), nullptr, text.data(), static_cast<std::uint32_t>(text.size())));
  if (!tree) return layout;
  const TSNode root = ts_tree_root_node(tree.get());

  bool first = true;
  for (std::uint32_t i = 0; i < ts_node_named_child_count(root); ++i) {
    const TSNode child = ts_node_named_child(root, i);
    const char* type = ts_node_type(child);
    if (std::strcmp(type, "comment") == 0) continue;
    const bool skip = (first && isDocstring(child)) || std::strcmp(type, "future_import_statement") == 0;
    first = false;
    if (skip) continue;
    layout.import_offset = lineStartOf(text, ts_node_start_byte(child));
    break;
  }

  // Every statement: the named children of the module and of blocks (pre-order, so nested
  // statements come after the statement that holds them).
  // (node, whether its parent is the module or a block), so no ts_node_parent walk is needed.
  std::vector<std::pair<TSNode, bool>> stack{{root, false}};
  while (!stack.empty()) {
    const auto [node, in_container] = stack.back();
    stack.pop_back();
    const char* type = ts_node_type(node);
    if (in_container && std::strcmp(type, "comment") != 0) {
      const std::uint32_t start = ts_node_start_byte(node);
      layout.statements.push_back({start, ts_node_end_byte(node), lineStartOf(text, start)});
    }
    const bool container = std::strcmp(type, "module") == 0 || std::strcmp(type, "block") == 0;
    for (std::uint32_t i = ts_node_named_child_count(node); i-- > 0;)
      stack.emplace_back(ts_node_named_child(node, i), container);
  }
  return layout;
}

}  // namespace migrate::emit
