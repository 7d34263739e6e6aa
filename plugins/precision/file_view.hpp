#pragma once
// FileView: indexes of one module's facts and token-level positions that several precision checks share.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dtypes.hpp"
#include "migrate/sdk/module.hpp"
#include "migrate/sdk/text_position.hpp"
#include "python_tokens.hpp"

namespace precision {

/// Indexes of one module's facts that several checks share.
class FileView {
 public:
  explicit FileView(const migrate::sdk::Module& m);

  /// Inside `with torch.device("cpu"):` (everything created there stays on the CPU).
  bool inCpuBlock(std::uint32_t byte) const;

  const migrate::sdk::Module& module() const { return m_; }
  /// The file's tokens, made on first use: most files never need them.
  const Tokens& tokens() const {
    if (!tokens_) tokens_.emplace(m_.source());
    return *tokens_;
  }
  migrate::sdk::SourceRange range(std::uint32_t begin, std::uint32_t end) const {
    if (!lines_) lines_.emplace(m_.source());
    return lines_->range(begin, end);
  }
  std::string_view text(const migrate::sdk::SourceRange& r) const { return m_.text(r); }
  std::string_view text(std::uint32_t b, std::uint32_t e) const { return m_.source().substr(b, e - b); }

  /// The call of which `r` is exactly one argument, and that argument.
  std::pair<const migrate::sdk::CallFact*, const migrate::sdk::ArgumentFact*> argumentAt(
      const migrate::sdk::SourceRange& r) const;
  const migrate::sdk::CallFact* callAt(const migrate::sdk::SourceRange& r) const;
  /// The call a method call is made on (`np.linspace(…)` in `np.linspace(…).round().copy()` is the
  /// receiver of round, which is the receiver of copy), through subscripts; nullptr when none.
  const migrate::sdk::CallFact* receiverCall(const migrate::sdk::CallFact& c) const;
  const migrate::sdk::ReferenceFact* referenceAt(const migrate::sdk::SourceRange& r) const;
  /// The torch dtype an argument names (`torch.float32`, an alias of it), if any.
  Dtype dtypeOfArgument(const migrate::sdk::ArgumentFact& a) const;

  /// Definitions containing `byte`, outermost first.
  std::vector<const migrate::sdk::DefinitionFact*> enclosing(std::uint32_t byte) const;
  /// The innermost function containing `byte`; nullptr at module or class level.
  const migrate::sdk::DefinitionFact* innermostFunction(std::uint32_t byte) const;

  /// Source text of a method call's receiver (`x.cpu()` in `x.cpu().double()`).
  std::string_view receiverText(const migrate::sdk::CallFact& c) const;
  /// Source text following a call on the same line (`.float() / 255` after `torch.from_numpy(a)`).
  std::string_view textAfter(const migrate::sdk::SourceRange& r, std::size_t max = 160) const;

  // ---- token-level positions ----

  /// Inside a string literal (an f-string's replacement field).
  bool inString(std::uint32_t byte) const;

  bool isComparisonToken(int i) const;

  /// `in` of a for statement or comprehension (iteration, not a membership test).
  bool isForIn(int in) const;

  /// How the expression at `r` stands: "compare" (operand of ==, !=, is, in; also an element of a
  /// tuple/list that is such an operand), "dict_key", "subscript", or "" for anything else.
  std::string position(const migrate::sdk::SourceRange& r) const;

  /// Whether the bracket token `open` starts a tuple/list/set/dict display rather than a call's
  /// arguments or a subscript.
  bool isDisplay(int open) const;

  /// The call whose argument list holds the expression at `r`, looking through enclosing
  /// displays (`f(x, (torch.float16, torch.bfloat16))` → f).
  const migrate::sdk::CallFact* enclosingCall(const migrate::sdk::SourceRange& r) const;

  /// `NAME = (a, b, …)`: the name a display holding the expression at `r` is assigned to.
  std::string displayAssignedTo(const migrate::sdk::SourceRange& r) const;

  /// A `{` display with a top-level `key: value`.
  bool isDict(int open) const;

  /// The innermost display (tuple/list/set/dict) holding the expression at `r`: its bracket
  /// tokens, or {-1, -1}.
  std::pair<int, int> enclosingDisplay(const migrate::sdk::SourceRange& r) const;

  void findCpuBlocks();

 private:
  const migrate::sdk::Module& m_;
  mutable std::optional<Tokens> tokens_;
  mutable std::optional<migrate::sdk::LineIndex> lines_;
  std::unordered_map<std::uint64_t, int> call_at_;
  std::unordered_multimap<std::uint32_t, int> call_by_end_;
  std::unordered_multimap<std::uint32_t, int> call_by_start_;
  std::unordered_map<std::uint64_t, std::pair<int, int>> arg_at_;
  std::unordered_map<std::uint64_t, const migrate::sdk::ReferenceFact*> ref_at_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> cpu_blocks_;
};

/// A call that builds or converts on the CPU: `device="cpu"`, `.to("cpu", …)`, `x.cpu().to(…)`.
bool onCpu(const FileView& v, const migrate::sdk::CallFact& c);

}  // namespace precision
