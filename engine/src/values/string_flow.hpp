#pragma once
/// Where a string goes next: the second room of the values layer (docs/architecture.md,
/// "Analysis layers"). `DEV = "cuda"` … `x.to(DEV)` puts the literal in `.to`'s first argument as
/// surely as `x.to("cuda")`, and so does `move(model, "cuda")` when the module's own `def
/// move(model, device)` passes `device` to `.to(...)`; a string rule asks for the literal's
/// positions and reports the literal itself — the place to fix.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "migrate/sdk/module.hpp"

namespace migrate::values {

class StringFlow {
 public:
  /// Indexes the module's calls once: every argument that is a plain name.
  explicit StringFlow(const sdk::Module& module);

  /// The argument positions the value of `str` reaches: for a string assigned to a plain name
  /// (a parameter's default too), where that name is passed within its scope (the same function,
  /// or anywhere when assigned at module level); for a string passed to a function this module
  /// defines at top level, where the matching parameter is passed inside that function. Each is a
  /// copy of `str` placed as that argument (context, keyword or index, callee, method).
  std::vector<sdk::StringFact> reached(const sdk::StringFact& str) const;

 private:
  struct Use {
    const sdk::CallFact* call;
    const sdk::ArgumentFact* arg;
    std::uint32_t scope;  ///< start byte of the innermost function around the call; kModule at top level
  };
  struct Function {
    std::uint32_t scope;              ///< start byte, as scopeOf() gives it for its body
    std::vector<std::string> params;  ///< in order; `*args` and `**kw` left out
  };
  static constexpr std::uint32_t kModule = UINT32_MAX;
  std::uint32_t scopeOf(std::uint32_t byte) const;
  void placeUses(const sdk::StringFact& str, const std::string& name, std::uint32_t scope,
                 std::uint32_t after, std::vector<sdk::StringFact>& out) const;

  std::vector<std::pair<std::uint32_t, std::uint32_t>> functions_;  ///< byte ranges of every def
  std::unordered_map<std::string, std::vector<Use>> uses_;          ///< by name
  std::unordered_map<std::string, Function> local_functions_;       ///< top-level defs, by name
};

}  // namespace migrate::values
