#pragma once
/// A small Python tokenizer for the precision plugin: the engine's facts say where references and
/// calls are, but not which operator stands next to a dtype (`x.dtype == torch.float16`) or where an
/// `assert` statement begins and ends. Comments are dropped, strings are single tokens, brackets
/// are matched, and logical lines end with a Newline token (never inside brackets or after `\`).

#include <cctype>
#include <cstdint>
#include <string_view>
#include <vector>

namespace precision {

struct Token {
  enum class Kind { Name, Number, String, Op, Open, Close, Newline };
  Kind kind = Kind::Op;
  std::uint32_t start = 0;
  std::uint32_t end = 0;
  int enclosing = -1;  ///< index of the innermost open bracket around this token, -1 at depth 0
  int match = -1;      ///< for Open/Close: index of the matching bracket, -1 when unbalanced
};

/// The tokens of a Python source text, in order.
class Tokens {
 public:
  explicit Tokens(std::string_view src) : src_(src) { scan(); }

  const std::vector<Token>& all() const { return tokens_; }
  std::size_t size() const { return tokens_.size(); }
  const Token& operator[](std::size_t i) const { return tokens_[i]; }
  std::string_view text(std::size_t i) const {
    return src_.substr(tokens_[i].start, tokens_[i].end - tokens_[i].start);
  }
  bool is(int i, std::string_view t) const {
    return i >= 0 && static_cast<std::size_t>(i) < tokens_.size() && tokens_[i].kind != Token::Kind::String &&
           text(static_cast<std::size_t>(i)) == t;
  }

  /// Index of the first token starting at or after `byte`; size() when none.
  int firstAtOrAfter(std::uint32_t byte) const {
    std::size_t lo = 0, hi = tokens_.size();
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      if (tokens_[mid].start < byte)
        lo = mid + 1;
      else
        hi = mid;
    }
    return static_cast<int>(lo);
  }

  /// Index of the last token ending at or before `byte`; -1 when none.
  int lastEndingAtOrBefore(std::uint32_t byte) const {
    int i = firstAtOrAfter(byte) - 1;
    while (i >= 0 && tokens_[static_cast<std::size_t>(i)].end > byte) --i;
    return i;
  }

 private:
  static bool identStart(unsigned char c) { return std::isalpha(c) || c == '_' || c >= 0x80; }
  static bool identChar(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }
  static bool stringPrefix(std::string_view p) {
    if (p.empty() || p.size() > 2) return false;
    for (char c : p) {
      const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (l != 'r' && l != 'b' && l != 'u' && l != 'f') return false;
    }
    return true;
  }

  void push(Token::Kind kind, std::size_t start, std::size_t end) {
    Token t;
    t.kind = kind;
    t.start = static_cast<std::uint32_t>(start);
    t.end = static_cast<std::uint32_t>(end);
    t.enclosing = open_.empty() ? -1 : open_.back();
    tokens_.push_back(t);
  }

  /// Skips a string literal whose opening quote is at `i`; returns the index after it.
  std::size_t skipString(std::size_t i) const {
    const char q = src_[i];
    const bool triple = i + 2 < src_.size() && src_[i + 1] == q && src_[i + 2] == q;
    std::size_t j = i + (triple ? 3 : 1);
    while (j < src_.size()) {
      const char c = src_[j];
      if (c == '\\') {
        j += 2;
        continue;
      }
      if (triple) {
        if (c == q && j + 2 < src_.size() && src_[j + 1] == q && src_[j + 2] == q) return j + 3;
      } else {
        if (c == q) return j + 1;
        if (c == '\n') return j;  // unterminated: stop at the line end
      }
      ++j;
    }
    return src_.size();
  }

  void scan() {
    std::size_t i = 0;
    const std::size_t n = src_.size();
    while (i < n) {
      const auto c = static_cast<unsigned char>(src_[i]);
      if (c == '#') {
        while (i < n && src_[i] != '\n') ++i;
      } else if (c == '\\' && i + 1 < n && (src_[i + 1] == '\n' || src_[i + 1] == '\r')) {
        i += 2;
        if (i < n && src_[i - 1] == '\r' && src_[i] == '\n') ++i;
      } else if (c == '\n') {
        if (open_.empty() && !tokens_.empty() && tokens_.back().kind != Token::Kind::Newline)
          push(Token::Kind::Newline, i, i + 1);
        ++i;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        ++i;
      } else if (c == '"' || c == '\'') {
        const std::size_t end = skipString(i);
        push(Token::Kind::String, i, end);
        i = end;
      } else if (identStart(c)) {
        std::size_t j = i;
        while (j < n && identChar(static_cast<unsigned char>(src_[j]))) ++j;
        if (j < n && (src_[j] == '"' || src_[j] == '\'') && stringPrefix(src_.substr(i, j - i))) {
          const std::size_t end = skipString(j);
          push(Token::Kind::String, i, end);
          i = end;
        } else {
          push(Token::Kind::Name, i, j);
          i = j;
        }
      } else if (std::isdigit(c) ||
                 (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(src_[i + 1])))) {
        std::size_t j = i;
        while (j < n) {
          const auto d = static_cast<unsigned char>(src_[j]);
          if (identChar(d) || d == '.') {
            ++j;
          } else if ((d == '+' || d == '-') && (src_[j - 1] == 'e' || src_[j - 1] == 'E') &&
                     !(src_[i] == '0' && i + 1 < n && (src_[i + 1] == 'x' || src_[i + 1] == 'X'))) {
            ++j;
          } else {
            break;
          }
        }
        push(Token::Kind::Number, i, j);
        i = j;
      } else if (c == '(' || c == '[' || c == '{') {
        push(Token::Kind::Open, i, i + 1);
        open_.push_back(static_cast<int>(tokens_.size()) - 1);
        ++i;
      } else if (c == ')' || c == ']' || c == '}') {
        int opener = -1;
        if (!open_.empty()) {
          opener = open_.back();
          open_.pop_back();
        }
        push(Token::Kind::Close, i, i + 1);
        if (opener >= 0) {
          tokens_.back().match = opener;
          tokens_[static_cast<std::size_t>(opener)].match = static_cast<int>(tokens_.size()) - 1;
        }
        ++i;
      } else {
        static constexpr std::string_view kLong[] = {
            "**=", "//=", ">>=", "<<=", "...", "==", "!=", "<=", ">=", "->", "**", "//",
            ":=",  "<<",  ">>",  "+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^=", "@="};
        std::size_t len = 1;
        for (std::string_view op : kLong)
          if (src_.substr(i, op.size()) == op) {
            len = op.size();
            break;
          }
        push(Token::Kind::Op, i, i + len);
        i += len;
      }
    }
    if (!tokens_.empty() && tokens_.back().kind != Token::Kind::Newline) push(Token::Kind::Newline, n, n);
  }

  std::string_view src_;
  std::vector<Token> tokens_;
  std::vector<int> open_;
};

}  // namespace precision
