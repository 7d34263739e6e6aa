#include "acquire/ignore_candidates.hpp"

#include <fnmatch.h>

#include <algorithm>

namespace migrate {
namespace {

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string lowered(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), lower);
  return out;
}

bool wildcard(char c) {
  return c == '*' || c == '?' || c == '[';
}

}  // namespace

std::shared_ptr<const IgnoreCandidates> IgnoreCandidates::empty() {
  return std::make_shared<const IgnoreCandidates>();
}

std::shared_ptr<const IgnoreCandidates> IgnoreCandidates::with(std::string_view ignore_file) const {
  auto out = std::make_shared<IgnoreCandidates>(*this);
  std::size_t at = 0;
  while (at < ignore_file.size() && !out->any_.everything) {
    std::size_t end = ignore_file.find('\n', at);
    if (end == std::string_view::npos) end = ignore_file.size();
    out->add(ignore_file.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

std::shared_ptr<const IgnoreCandidates> IgnoreCandidates::withEverything() const {
  auto out = std::make_shared<IgnoreCandidates>(*this);
  out->any_.everything = true;
  return out;
}

void IgnoreCandidates::add(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
    line.remove_suffix(1);
  // Leading blanks: git keeps them, libgit2 skips them; both readings are candidates.
  const std::size_t first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos) return;
  if (first > 0) add(line.substr(first));
  if (line[0] == '#' || line[0] == '!') return;  // a comment; a negation ignores nothing
  Names& names = line.back() == '/' ? dirs_ : any_;
  if (line.back() == '/') line.remove_suffix(1);
  if (line.empty() || line.back() == '/' || line.find('\\') != std::string_view::npos ||
      std::any_of(line.begin(), line.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; })) {
    names.everything = true;
    return;
  }
  names.add(line);
}

void IgnoreCandidates::Names::add(std::string_view pattern) {
  const std::size_t slash = pattern.rfind('/');
  const std::string_view last = slash == std::string_view::npos ? pattern : pattern.substr(slash + 1);
  // The component before the last names the path's directory (`/name` and `**/name` do not).
  std::string_view directory;
  if (slash != std::string_view::npos && slash > 0) {
    const std::size_t before = pattern.rfind('/', slash - 1);
    directory = pattern.substr(before == std::string_view::npos ? 0 : before + 1,
                               slash - (before == std::string_view::npos ? 0 : before + 1));
  }
  if (last.find("**") != std::string_view::npos) {  // `dir/**`, `**`: anything below
    everything = true;
  } else if (!directory.empty() && directory != "**" && directory.find("**") == std::string_view::npos) {
    if (std::count(pattern.begin(), pattern.end(), '[') != std::count(pattern.begin(), pattern.end(), ']'))
      everything = true;  // an unclosed bracket: fnmatch and git's wildmatch may read it apart
    else
      scoped.emplace_back(directory, last);
  } else if (std::none_of(last.begin(), last.end(), wildcard)) {
    literals.insert(lowered(last));
  } else if (last[0] == '*' && std::none_of(last.begin() + 1, last.end(), wildcard)) {
    suffixes.push_back(lowered(last.substr(1)));
  } else if (last.find('[') != std::string_view::npos &&
             last.find(']', last.find('[')) == std::string_view::npos) {
    everything = true;  // an unclosed bracket: fnmatch and git's wildmatch may read it apart
  } else {
    globs.emplace_back(last);
  }
}

bool IgnoreCandidates::Names::match(std::string_view name, std::string_view parent) const {
  if (everything) return true;
  const std::string low = lowered(name);
  if (literals.count(low)) return true;
  for (const std::string& s : suffixes)
    if (low.size() >= s.size() && low.compare(low.size() - s.size(), s.size(), s) == 0) return true;
  const std::string exact(name);
  for (const std::string& g : globs)
    if (fnmatch(g.c_str(), exact.c_str(), FNM_CASEFOLD) == 0) return true;
  if (scoped.empty()) return false;
  const std::string dir(parent);
  for (const auto& [d, n] : scoped)
    if (fnmatch(n.c_str(), exact.c_str(), FNM_CASEFOLD) == 0 &&
        fnmatch(d.c_str(), dir.c_str(), FNM_CASEFOLD) == 0)
      return true;
  return false;
}

bool IgnoreCandidates::mayMatch(std::string_view name, std::string_view parent, bool is_dir) const {
  return any_.match(name, parent) || (is_dir && dirs_.match(name, parent));
}

}  // namespace migrate
