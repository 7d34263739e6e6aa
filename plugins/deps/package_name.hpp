#pragma once
// Package-name normalisation, shared by the plugin and its build-time table generator.

#include <cctype>
#include <string>
#include <string_view>

namespace deps {

/// PEP 503 normalisation: lowercase, runs of '-', '_', '.' become one '-'.
inline std::string normalizeName(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  bool sep = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      sep = true;
      continue;
    }
    if (sep && !out.empty()) out += '-';
    sep = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace deps
