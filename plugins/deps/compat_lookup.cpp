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

namespace {

/// The entry named exactly `key` (normalised), or nullptr.
const PackageEntry* exactEntry(const std::string& key) {
  const auto table = packageTable();
  auto it = std::lower_bound(table.begin(), table.end(), key,
                             [](const PackageEntry& e, const std::string& k) { return e.name < k; });
  return it != table.end() && it->name == key ? &*it : nullptr;
}

/// `TransformerEngine`, `DeepGEMM` (a repository named in CamelCase, as in a git URL):
/// `transformer-engine`, `deep-gemm`. A name without inner capitals comes back unchanged.
std::string camelWords(std::string_view name) {
  auto upper = [](char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; };
  auto lowerOrDigit = [](char c) {
    return std::islower(static_cast<unsigned char>(c)) != 0 ||
           std::isdigit(static_cast<unsigned char>(c)) != 0;
  };
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const bool next_lower = i + 1 < name.size() && std::islower(static_cast<unsigned char>(name[i + 1]));
    if (i > 0 && upper(name[i]) && (lowerOrDigit(name[i - 1]) || (upper(name[i - 1]) && next_lower)))
      out += '-';
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
  }
  return out;
}

Lookup lookupNormalised(const std::string& key) {
  Lookup out;
  if ((out.package = exactEntry(key))) return out;
  for (const PatternEntry& p : patternTable()) {
    const std::string glob(p.glob);
    if (fnmatch(glob.c_str(), key.c_str(), 0) == 0) {
      out.pattern = &p;
      break;
    }
  }
  return out;
}

}  // namespace

Lookup lookupPackage(std::string_view name) {
  const std::string key = normalizeName(name);
  Lookup out = lookupNormalised(key);
  // `git+https://github.com/NVIDIA/TransformerEngine.git`: the repository's CamelCase name for the
  // package `transformer-engine`.
  if (!out.known())
    if (const std::string words = normalizeName(camelWords(name)); words != key)
      out = lookupNormalised(words);
  return out;
}

std::string sourceRepositoryName(std::string_view url) {
  for (const std::string_view forge : {"github.com/", "gitlab.com/", "bitbucket.org/", "github.com:"}) {
    const std::size_t at = url.find(forge);
    if (at == std::string_view::npos) continue;
    std::string_view rest = url.substr(at + forge.size());
    const std::size_t owner_end = rest.find('/');
    if (owner_end == std::string_view::npos || owner_end == 0) return {};
    rest = rest.substr(owner_end + 1);
    const std::size_t end = rest.find_first_of("/@#?");
    std::string_view repo = rest.substr(0, end);
    if (repo.size() > 4 && repo.substr(repo.size() - 4) == ".git") repo.remove_suffix(4);
    return std::string(repo);
  }
  return {};
}

Lookup lookupRequirement(std::string_view name, std::string_view extras) {
  std::size_t b = 0;
  while (b < extras.size()) {
    std::size_t e = extras.find(',', b);
    if (e == std::string_view::npos) e = extras.size();
    const std::string_view extra = extras.substr(b, e - b);
    Lookup out;
    if (!extra.empty() && (out.package = exactEntry(normalizeName(name) + "[" + normalizeName(extra) + "]")))
      return out;
    b = e + 1;
  }
  return lookupPackage(name);
}

}  // namespace deps
