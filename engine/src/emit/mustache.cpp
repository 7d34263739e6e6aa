#include "emit/mustache.hpp"

#include <vector>

namespace migrate::emit {
namespace {

using sdk::TemplateData;

/// One parsed piece of a template: literal text, a variable, or a section with children.
struct Node {
  enum class Kind { Text, Variable, Section, Inverted };
  Kind kind = Kind::Text;
  std::string text;  ///< literal text, or the tag's name
  std::vector<Node> children;
};

bool isBlank(std::string_view s) {
  return s.find_first_not_of(" \t") == std::string_view::npos;
}

class Parser {
 public:
  Parser(std::string_view name, std::string_view text) : name_(name), text_(text) {}

  Result<std::vector<Node>> parse() {
    std::vector<std::vector<Node>*> stack{&root_};
    std::vector<std::pair<std::string, std::size_t>> open;  // section name, line
    std::size_t pos = 0;
    while (pos < text_.size()) {
      const std::size_t tag = text_.find("{{", pos);
      if (tag == std::string_view::npos) {
        appendText(*stack.back(), text_.substr(pos));
        break;
      }
      const bool triple = text_.compare(tag, 3, "{{{") == 0;
      const std::size_t close = text_.find(triple ? "}}}" : "}}", tag + (triple ? 3 : 2));
      if (close == std::string_view::npos) return error(tag, "a tag is not closed with }}");
      const std::size_t end = close + (triple ? 3 : 2);
      std::string_view body = text_.substr(tag + (triple ? 3 : 2), close - tag - (triple ? 3 : 2));
      const char sigil = triple || body.empty() ? '\0' : body.front();
      const bool block = sigil == '#' || sigil == '^' || sigil == '/' || sigil == '!';
      if (sigil == '>' || sigil == '=' || sigil == '&')
        return error(tag, std::string("the tag {{") + std::string(body) +
                              "}} is not supported (partials, "
                              "delimiter changes and & are not used by the templates)");
      // A block tag alone on its line removes the whole line (indentation and newline).
      std::size_t text_end = tag;
      std::size_t next = end;
      if (block) {
        // Looked for no further back than the previous tag's end and no further on than the
        // first character that is not blank: a search to the ends of the line for each tag was
        // quadratic over a long line of tags.
        const std::size_t lo = pos == 0 ? 0 : pos - 1;
        const std::size_t nl = text_.substr(lo, tag - lo).rfind('\n');
        const std::size_t from = nl != std::string_view::npos ? lo + nl + 1
                                 : pos == 0                   ? 0
                                                              : std::string_view::npos;
        const std::size_t after = text_.find_first_not_of(" \t", end);
        if (from != std::string_view::npos && isBlank(text_.substr(from, tag - from)) &&
            (after == std::string_view::npos || text_[after] == '\n')) {
          text_end = from;
          next = after == std::string_view::npos ? text_.size() : after + 1;
        }
      }
      appendText(*stack.back(), text_.substr(pos, text_end - pos));
      pos = next;
      std::string tag_name = trim(block ? body.substr(1) : body);
      if (sigil == '!') continue;
      if (tag_name.empty()) return error(tag, "a tag has no name");
      if (sigil == '#' || sigil == '^') {
        // Rendering and freeing the tree recurse once per level: a bound keeps a hostile
        // template from overflowing the stack (the kit's templates nest a few levels).
        if (open.size() >= kMaxNesting)
          return error(tag, "sections nested deeper than " + std::to_string(kMaxNesting) + " levels");
        Node node;
        node.kind = sigil == '#' ? Node::Kind::Section : Node::Kind::Inverted;
        node.text = tag_name;
        stack.back()->push_back(std::move(node));
        stack.push_back(&stack.back()->back().children);
        open.emplace_back(tag_name, lineOf(tag));
      } else if (sigil == '/') {
        if (open.empty()) return error(tag, "{{/" + tag_name + "}} closes no section");
        if (open.back().first != tag_name)
          return error(tag, "{{/" + tag_name + "}} closes {{#" + open.back().first + "}} (line " +
                                std::to_string(open.back().second) + ")");
        open.pop_back();
        stack.pop_back();
      } else {
        Node node;
        node.kind = Node::Kind::Variable;
        node.text = tag_name;
        stack.back()->push_back(std::move(node));
      }
    }
    if (!open.empty())
      return makeError(std::string(name_) + ":" + std::to_string(open.back().second) + ": section {{#" +
                       open.back().first + "}} is never closed");
    return std::move(root_);
  }

 private:
  static std::string trim(std::string_view s) {
    const std::size_t b = s.find_first_not_of(" \t");
    if (b == std::string_view::npos) return {};
    return std::string(s.substr(b, s.find_last_not_of(" \t") - b + 1));
  }
  static void appendText(std::vector<Node>& nodes, std::string_view text) {
    if (text.empty()) return;
    if (!nodes.empty() && nodes.back().kind == Node::Kind::Text) {
      nodes.back().text += text;
      return;
    }
    Node node;
    node.text = std::string(text);
    nodes.push_back(std::move(node));
  }
  /// The 1-based line of `offset`, counted on from the last offset asked for (tags are read in
  /// order): counting from the start for each section was quadratic over a long template.
  std::size_t lineOf(std::size_t offset) {
    if (offset < counted_to_) {
      counted_to_ = 0;
      line_ = 1;
    }
    for (; counted_to_ < offset && counted_to_ < text_.size(); ++counted_to_)
      line_ += text_[counted_to_] == '\n';
    return line_;
  }
  Error error(std::size_t offset, const std::string& what) {
    return makeError(std::string(name_) + ":" + std::to_string(lineOf(offset)) + ": " + what);
  }

  static constexpr std::size_t kMaxNesting = 100;

  std::string_view name_;
  std::string_view text_;
  std::vector<Node> root_;
  std::size_t counted_to_ = 0;  ///< lineOf: the offset line_ is the line of
  std::size_t line_ = 1;
};

using Scope = std::vector<const TemplateData*>;

const TemplateData::Value* lookup(const Scope& scope, const std::string& name) {
  for (auto it = scope.rbegin(); it != scope.rend(); ++it)
    if (const TemplateData::Value* v = (*it)->find(name)) return v;
  return nullptr;
}

bool truthy(const TemplateData::Value* v) {
  if (!v) return false;
  switch (v->kind) {
    case TemplateData::Value::Kind::Text:
      return !v->text.empty();
    case TemplateData::Value::Kind::Flag:
      return v->flag;
    case TemplateData::Value::Kind::List:
      return !v->items.empty();
  }
  return false;
}

void render(const std::vector<Node>& nodes, Scope& scope, std::string& out) {
  for (const Node& node : nodes) {
    switch (node.kind) {
      case Node::Kind::Text:
        out += node.text;
        break;
      case Node::Kind::Variable:
        if (const TemplateData::Value* v = lookup(scope, node.text);
            v && v->kind == TemplateData::Value::Kind::Text)
          out += v->text;
        break;
      case Node::Kind::Section: {
        const TemplateData::Value* v = lookup(scope, node.text);
        if (!truthy(v)) break;
        if (v->kind == TemplateData::Value::Kind::List) {
          for (const TemplateData& item : v->items) {
            scope.push_back(&item);
            render(node.children, scope, out);
            scope.pop_back();
          }
        } else {
          render(node.children, scope, out);
        }
        break;
      }
      case Node::Kind::Inverted:
        if (!truthy(lookup(scope, node.text))) render(node.children, scope, out);
        break;
    }
  }
}

}  // namespace

Result<std::string> renderMustache(std::string_view name, std::string_view text,
                                   const sdk::TemplateData& data) {
  auto nodes = Parser(name, text).parse();
  if (!nodes) return nodes.error();
  Scope scope{&data};
  std::string out;
  render(*nodes, scope, out);
  return out;
}

}  // namespace migrate::emit
