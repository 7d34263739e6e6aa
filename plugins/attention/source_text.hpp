#pragma once
// Small text helpers over one Python file's source: lines, statements, guards and the shape of
// attention expressions (q @ k^T, einsum patterns). They complement the engine's facts where the
// facts do not say enough (which block encloses an import, what a statement assigns to).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace migrate_attention {

/// Line-oriented view of a source text; lines are 1-based.
class SourceText {
 public:
  explicit SourceText(std::string_view text);

  std::string_view text() const { return text_; }
  std::size_t lineCount() const { return starts_.size(); }
  /// The line without its newline; empty past the end.
  std::string_view line(std::uint32_t number) const;
  std::uint32_t lineStart(std::uint32_t number) const;
  /// Line number (1-based) of a byte offset.
  std::uint32_t lineOf(std::uint32_t offset) const;

  /// How the statement starting on `line` is guarded: "try" (inside a try body), "if" (inside a
  /// conditional branch), or "" (runs unconditionally when its scope runs). `except`/`finally`
  /// bodies, functions, classes, loops and with-blocks are looked through.
  std::string guardOf(std::uint32_t line) const;
  /// Whether the statement starting on `line` is inside a def (indentation-based).
  bool insideFunction(std::uint32_t line) const;
  /// Whether every `except` handler of the try statement on `try_line` starts with `raise`
  /// (then the try does not keep an import failure from propagating).
  bool handlersReraise(std::uint32_t try_line) const;

 private:
  std::string_view text_;
  std::vector<std::uint32_t> starts_;
};

/// Leading whitespace count (tabs count as one).
std::size_t indentOf(std::string_view line);
/// The line without a trailing comment (a '#' outside string literals).
std::string_view stripComment(std::string_view line);
/// `name = ...` at the start of a statement line: the target text (`attn`, `self.attn`), or "".
std::string assignmentTarget(std::string_view line);
/// Position of the depth-0 assignment '=' of a statement line (augmented ones included), or npos.
std::size_t assignmentEquals(std::string_view line);
/// Whether byte `pos` of `line` lies left of a depth-0 assignment '=' (an assignment target).
bool leftOfAssignment(std::string_view line, std::size_t pos);
/// Open brackets minus closed ones, outside strings and comments.
int bracketBalance(std::string_view text);

/// Whether `text` multiplies something by a transposed key: `q @ k.transpose(-2, -1)`,
/// `torch.matmul(q, k.mT)`, `torch.bmm(q, k.permute(0, 2, 1))`, `einsum("bhid,bhjd->bhij", q, k)`.
/// On success `evidence` is the matched sub-expression.
bool isQkProduct(std::string_view text, std::string& evidence);
/// Whether `text` transposes something: `.transpose(`, `.permute(`, `.mT`, `.T`, `.t()`, `.swapaxes(`.
bool hasTransposeMarker(std::string_view text);
/// Operands of the matrix products in `text`: both sides of `@`, the arguments of matmul / bmm /
/// baddbmm (and the receiver of `x.matmul(...)`); empty when there is no product.
std::vector<std::string> productOperands(std::string_view text);
/// Whether `text` uses `name` as an operand of a matmul-like product
/// (`name @ v`, `v @ name.transpose(-2, -1)`, `torch.matmul(name, v)`, `einsum("...", name, v)`,
/// `name.matmul(v)`).
bool usesAsMatmulOperand(std::string_view text, std::string_view name);
/// Dotted names (`scores`, `self.attn`, `attn.float` → "attn.float") in an expression, outside strings.
std::vector<std::string> dottedNames(std::string_view text);
/// Depth-0 comma-separated parts of an expression list (`a, b` → {"a", "b"}), trimmed.
std::vector<std::string> splitTopLevel(std::string_view text);
/// Whitespace-trimmed copy.
std::string trim(std::string_view s);

}  // namespace migrate_attention
