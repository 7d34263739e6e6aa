#include "scaffold/scaffold_names.hpp"

#include <algorithm>
#include <cctype>

namespace migrate::scaffold {

std::optional<ScaffoldNames> scaffoldNames(const std::string& name) {
  const bool valid = !name.empty() && name.size() <= 64 &&
                     std::isalpha(static_cast<unsigned char>(name[0])) &&
                     std::all_of(name.begin(), name.end(),
                                 [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '_'; });
  if (!valid) return std::nullopt;
  ScaffoldNames names{name, "", "", ""};
  bool word_start = true;
  for (const unsigned char c : name) {
    const bool alnum = std::isalnum(c) != 0;
    if (alnum && names.prefix.size() < 8) names.prefix += static_cast<char>(std::toupper(c));
    names.snake += alnum ? static_cast<char>(std::tolower(c)) : '_';
    if (alnum) names.pascal += static_cast<char>(word_start ? std::toupper(c) : std::tolower(c));
    word_start = !alnum;
  }
  return names;
}

}  // namespace migrate::scaffold
