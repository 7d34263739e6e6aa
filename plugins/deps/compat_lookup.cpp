// Lookups in the generated compatibility table (see compat_table.hpp).

#include <fnmatch.h>

#include <algorithm>
#include <cctype>

#include "compat_table.hpp"

namespace deps {

std::string_view verdictName(Verdict v) {
  switch (v) {
    case Verdict::Compatible:
      return "compatible";
    case Verdict::NeedsReplacement:
      return "needs replacement";
    case Verdict::Unsupported:
      return "unsupported";
    case Verdict::NotInvolved:
      return "not involved";
  }
  return "not involved";
}

Verdict Lookup::verdict() const {
  if (package) return package->verdict;
  if (pattern) return pattern->verdict;
  return Verdict::NotInvolved;
}

std::string_view Lookup::replacement() const {
  if (package) return package->replacement;
  if (pattern) return pattern->replacement;
  return {};
}

std::string_view Lookup::note() const {
  if (package) return package->note;
  if (pattern) return pattern->note;
  return {};
}

Lookup lookupPackage(std::string_view name) {
  const std::string key = normalizeName(name);
  Lookup out;
  const auto table = packageTable();
  auto it = std::lower_bound(table.begin(), table.end(), key,
                             [](const PackageEntry& e, const std::string& k) { return e.name < k; });
  if (it != table.end() && it->name == key) {
    out.package = &*it;
    return out;
  }
  for (const PatternEntry& p : patternTable()) {
    const std::string glob(p.glob);
    if (fnmatch(glob.c_str(), key.c_str(), 0) == 0) {
      out.pattern = &p;
      break;
    }
  }
  return out;
}

}  // namespace deps
