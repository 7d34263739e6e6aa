#pragma once
/// Repository-relative paths ('/' separated) as manifests refer to each other (`-r ../base.txt`).

#include <optional>
#include <string>
#include <vector>

namespace deps {

/// `dir` joined with `rel`, `.` and `..` resolved (`a/b` + `../c` → `a/c`); nothing when the
/// path is absolute or leaves the repository.
inline std::optional<std::string> normalizePath(const std::string& dir, const std::string& rel) {
  if (!rel.empty() && rel[0] == '/') return std::nullopt;
  std::vector<std::string> parts;
  auto push = [&](const std::string& p) -> bool {
    std::size_t b = 0;
    for (std::size_t i = 0; i <= p.size(); ++i) {
      if (i < p.size() && p[i] != '/') continue;
      const std::string seg = p.substr(b, i - b);
      b = i + 1;
      if (seg.empty() || seg == ".") continue;
      if (seg == "..") {
        if (parts.empty()) return false;
        parts.pop_back();
        continue;
      }
      parts.push_back(seg);
    }
    return true;
  };
  if (!push(dir) || !push(rel)) return std::nullopt;
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
  return out;
}

/// The directory part of a repository path ("" for a file at the root).
inline std::string dirOf(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

}  // namespace deps
