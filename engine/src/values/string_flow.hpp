#pragma once
/// Where a string assigned to a plain name goes next: the second room of the values layer
/// (docs/architecture.md, "Analysis layers"). `DEV = "cuda"` … `x.to(DEV)` puts the literal in
/// `.to`'s first argument as surely as `x.to("cuda")`; a string rule asks for the literal's
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

  /// The argument positions the value of `assigned` (a string assigned to a plain name) reaches
  /// within its scope: the same function, or anywhere when assigned at module level. Each is a
  /// copy of `assigned` placed as that argument (context, keyword or index, callee, method).
  std::vector<sdk::StringFact> reached(const sdk::StringFact& assigned) const;

 private:
  struct Use {
    const sdk::CallFact* call;
    const sdk::ArgumentFact* arg;
    std::uint32_t scope;  ///< start byte of the innermost function around the call; kModule at top level
  };
  static constexpr std::uint32_t kModule = UINT32_MAX;
  std::uint32_t scopeOf(std::uint32_t byte) const;

  std::vector<std::pair<std::uint32_t, std::uint32_t>> functions_;  ///< byte ranges of every def
  std::unordered_map<std::string, std::vector<Use>> uses_;          ///< by name
};

}  // namespace migrate::values
