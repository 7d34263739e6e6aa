#include "rules/pattern.hpp"

#include <re2/re2.h>

#include <optional>
#include <regex>

namespace migrate::rules {

struct Pattern::Compiled {
  std::unique_ptr<RE2> fast;          ///< the expression, or a superset of it (see confirm)
  std::optional<std::regex> confirm;  ///< when set: the ECMAScript expression decides
};

namespace {

RE2::Options options() {
  RE2::Options o;
  o.set_log_errors(false);
  return o;
}

/// `text` without its lookahead groups `(?=…)` and `(?!…)`: every string the expression matches
/// is matched by the result. Escapes and character classes are respected.
std::string withoutLookaheads(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 3, "(?=") != 0 && text.compare(i, 3, "(?!") != 0) {
      out += text[i];
      if (text[i] == '\\' && i + 1 < text.size()) out += text[++i];
      continue;
    }
    int depth = 0;
    bool in_class = false;
    for (; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '\\') {
        ++i;
      } else if (in_class) {
        in_class = c != ']';
      } else if (c == '[') {
        in_class = true;
      } else if (c == '(') {
        ++depth;
      } else if (c == ')' && --depth == 0) {
        break;
      }
    }
  }
  return out;
}

std::optional<std::regex> ecmaScript(const std::string& text, std::string& error) {
  std::string body = text;
  auto flags = std::regex::ECMAScript | std::regex::optimize;
  if (body.rfind("(?i)", 0) == 0) {
    body = body.substr(4);
    flags |= std::regex::icase;
  }
  try {
    return std::regex(body, flags);
  } catch (const std::regex_error& e) {
    error = e.what();
    return std::nullopt;
  }
}

}  // namespace

Result<Pattern> Pattern::compile(const std::string& text) {
  auto compiled = std::make_shared<Compiled>();
  compiled->fast = std::make_unique<RE2>(text, options());
  if (!compiled->fast->ok()) {
    std::string error;
    compiled->confirm = ecmaScript(text, error);
    if (!compiled->confirm) return makeError(error + " (RE2: " + compiled->fast->error() + ")");
    compiled->fast = std::make_unique<RE2>(withoutLookaheads(text), options());
    if (!compiled->fast->ok()) compiled->fast.reset();  // std::regex alone
  }
  Pattern p;
  p.text_ = text;
  p.compiled_ = std::move(compiled);
  return p;
}

bool Pattern::search(std::string_view s) const {
  if (compiled_->fast && !RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), *compiled_->fast))
    return false;
  if (!compiled_->confirm) return true;
  return std::regex_search(s.begin(), s.end(), *compiled_->confirm);
}

bool Pattern::linear() const {
  return !compiled_->confirm;
}

}  // namespace migrate::rules
