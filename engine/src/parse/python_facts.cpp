// Extraction of module facts from a tree-sitter Python tree: the one recursive walk that
// dispatches each node to the part that records its kind of fact (fact_extractor.hpp).

#include "parse/fact_extractor.hpp"

#include <algorithm>

#include "parse/python_facts.hpp"
#include "parse/python_layout.hpp"

namespace migrate::parse {

bool FactExtractor::run(TSNode root) {
  m_.layout_.import_offset = importOffsetOf(root, src_);
  cursor_ = ts_tree_cursor_new(root);
  visit(root, 0);
  ts_tree_cursor_delete(&cursor_);
  resolve();
  m_.truncated_ = too_deep_;
  return !too_deep_;
}

const Symbols& FactExtractor::symbols(const TSLanguage* l) {
  static const Symbols s(l);
  return s;
}

TSFieldId FactExtractor::field(const TSLanguage* l, const char* name) {
  return ts_language_field_id_for_name(l, name, static_cast<uint32_t>(std::strlen(name)));
}

bool FactExtractor::chainSegments(TSNode n, std::vector<std::string_view>& out) const {
  const std::size_t first = out.size();
  for (; is(n, sym_.attribute); n = child(n, f_object_)) {
    TSNode attr = child(n, f_attribute_);
    if (ts_node_is_null(attr)) break;
    out.push_back(text(attr));
  }
  if (!is(n, sym_.identifier)) {
    out.resize(first);
    return false;
  }
  out.push_back(text(n));
  std::reverse(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
  return true;
}

std::string FactExtractor::chainText(TSNode n) const {
  std::vector<std::string_view> segs;
  if (!chainSegments(n, segs)) return {};
  std::string s;
  for (std::size_t i = 0; i < segs.size(); ++i) {
    if (i) s += '.';
    s += segs[i];
  }
  return s;
}

void FactExtractor::noteError(TSNode n) {
  if (m_.first_error_line_ == 0) m_.first_error_line_ = ts_node_start_point(n).row + 1;
}

void FactExtractor::visit(TSNode n, int positional) {
  if (stack_.size() >= kMaxDepth) {
    too_deep_ = true;
    return;
  }
  stack_.push_back(n);
  positional_.push_back(positional);
  const TSSymbol type = ts_node_symbol(n);
  bool descend = true;
  bool message = false;
  if (type == sym_.error || ts_node_is_missing(n)) noteError(n);
  // A statement: a child of the module or of a block (pre-order, nested after its parent).
  if (const TSNode parent = parentAt(0); type != sym_.comment && !ts_node_is_null(parent))
    if (const TSSymbol p = ts_node_symbol(parent); p == sym_.module || p == sym_.block) {
      const std::uint32_t start = ts_node_start_byte(n);
      m_.layout_.statements.push_back({start, ts_node_end_byte(n), lineStartOf(src_, start)});
    }
  if (type == sym_.import_statement || type == sym_.import_from_statement) {
    onImport(n);
    descend = false;
  } else if (type == sym_.future_import_statement || type == sym_.comment) {
    descend = false;
  } else if (type == sym_.call) {
    onCall(n);
  } else if (type == sym_.attribute || type == sym_.identifier) {
    onChainCandidate(n);
  } else if (type == sym_.string) {
    if (!is(parentAt(0), sym_.concatenated_string)) message = onString(n);
  } else if (type == sym_.concatenated_string) {
    message = onString(n);
  } else if (type == sym_.function_definition || type == sym_.class_definition) {
    onDefinition(n);
  } else if (type == sym_.assignment) {
    onAssignment(n);
  } else if (type == sym_.if_statement) {
    onIf(n);
  }
  if (descend) {
    // Inside a message f-string, plain reads (`{torch.backends.cuda.matmul.allow_tf32=}`) are
    // not uses; calls still are (they run and can fail on NPU).
    if (message) ++in_message_;
    // A type annotation (`ctx: torch.cuda.StreamContext = …`) names a type, it runs nothing.
    const bool annotation = type == sym_.type;
    if (annotation) ++in_annotation_;
    // The children through the cursor: in linear time, however many there are.
    if (ts_tree_cursor_goto_first_child(&cursor_)) {
      int before = 0;
      do {
        const TSNode c = ts_tree_cursor_current_node(&cursor_);
        const bool named = ts_node_is_named(c);
        // An anonymous token (punctuation, a keyword) holds no fact; about half the nodes are.
        if (named || ts_node_child_count(c) != 0)
          visit(c, before);
        else if (ts_node_is_missing(c))
          noteError(c);
        if (named && !is(c, sym_.keyword_argument) && !is(c, sym_.comment)) ++before;
      } while (ts_tree_cursor_goto_next_sibling(&cursor_));
      ts_tree_cursor_goto_parent(&cursor_);
    }
    if (message) --in_message_;
    if (annotation) --in_annotation_;
  }
  if (!scopes_.empty() && scopes_.back().node_id == n.id) scopes_.pop_back();
  positional_.pop_back();
  stack_.pop_back();
}

bool extractFacts(PythonModule& module, TSNode root, const TSLanguage* language) {
  FactExtractor extractor(module, language);
  return extractor.run(root);
}

}  // namespace migrate::parse
