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

Lookup lookupRequirement(std::string_view name, std::string_view extras) {
  std::size_t b = 0;
  while (b < extras.size()) {
    std::size_t e = extras.find(',', b);
    if (e == std::string_view::npos) e = extras.size();
    const std::string_view extra = extras.substr(b, e - b);
    if (!extra.empty()) {
      const std::string key = normalizeName(name) + "[" + normalizeName(extra) + "]";
      const auto table = packageTable();
      auto it = std::lower_bound(table.begin(), table.end(), key,
                                 [](const PackageEntry& p, const std::string& k) { return p.name < k; });
      if (it != table.end() && it->name == key) {
        Lookup out;
        out.package = &*it;
        return out;
      }
    }
    b = e + 1;
  }
  return lookupPackage(name);
}

}  // namespace deps
