#pragma once
/// Glob matching on '/'-separated paths, as pipelines use it (include/exclude, plan phases).

#include <fnmatch.h>

#include <string>
#include <string_view>
#include <vector>

namespace migrate::sdk {

namespace glob_detail {

inline std::vector<std::string> segments(std::string_view s) {
  std::vector<std::string> out;
  std::size_t b = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == '/') {
      out.emplace_back(s.substr(b, i - b));
      b = i + 1;
    }
  return out;
}

inline bool matchSegments(const std::vector<std::string>& pat, std::size_t p,
                          const std::vector<std::string>& path, std::size_t s) {
  if (p == pat.size()) return s == path.size();
  if (pat[p] == "**") {
    for (std::size_t k = s; k <= path.size(); ++k)
      if (matchSegments(pat, p + 1, path, k)) return true;
    return false;
  }
  return s < path.size() && fnmatch(pat[p].c_str(), path[s].c_str(), FNM_PERIOD) == 0 &&
         matchSegments(pat, p + 1, path, s + 1);
}

}  // namespace glob_detail

/// `*` and `?` match within a segment, `**` any number of segments (also none); a leading dot is
/// matched only explicitly.
inline bool globMatch(std::string_view pattern, std::string_view path) {
  return glob_detail::matchSegments(glob_detail::segments(pattern), 0, glob_detail::segments(path), 0);
}

}  // namespace migrate::sdk
