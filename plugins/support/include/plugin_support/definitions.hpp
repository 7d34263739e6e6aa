#pragma once
// The definitions of a parsed module read by position: which function or class holds a place.

#include <cstdint>
#include <string_view>

#include "migrate/sdk/module.hpp"
#include "migrate/sdk/source_range.hpp"

namespace plugin_support {

/// The innermost definition of `kind` whose range holds `r` whole (the smallest one: definitions
/// nest), or nullptr when none does (module level for functions).
inline const migrate::sdk::DefinitionFact* innermostDefinition(const migrate::sdk::Module& module,
                                                               const migrate::sdk::SourceRange& r,
                                                               migrate::sdk::DefinitionFact::Kind kind) {
  const migrate::sdk::DefinitionFact* best = nullptr;
  for (const migrate::sdk::DefinitionFact& d : module.definitions())
    if (d.kind == kind && d.range.start_byte <= r.start_byte && r.end_byte <= d.range.end_byte &&
        (!best || d.range.end_byte - d.range.start_byte < best->range.end_byte - best->range.start_byte))
      best = &d;
  return best;
}

/// The innermost function holding the byte at `offset`, or nullptr at module level.
inline const migrate::sdk::DefinitionFact* innermostFunction(const migrate::sdk::Module& module,
                                                             std::uint32_t offset) {
  migrate::sdk::SourceRange at;
  at.start_byte = at.end_byte = offset;
  return innermostDefinition(module, at, migrate::sdk::DefinitionFact::Kind::Function);
}

/// The text of the innermost function holding `r`, or the whole module at module level: the scope
/// a check searches for the NPU counterpart of what it found (`MULTI_NPU`, `"NPU"`).
inline std::string_view functionTextAround(const migrate::sdk::Module& module,
                                           const migrate::sdk::SourceRange& r) {
  const migrate::sdk::DefinitionFact* scope =
      innermostDefinition(module, r, migrate::sdk::DefinitionFact::Kind::Function);
  return scope ? module.text(scope->range) : module.source();
}

}  // namespace plugin_support
