// setup.cfg (INI): [options] install_requires / setup_requires / tests_require and
// [options.extras_require]; values are one requirement per (indented) line; `file:` values
// name requirements files.

#include "compat_table.hpp"
#include "manifest.hpp"

namespace deps {
namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

}  // namespace

void readSetupCfg(const std::string& path, std::string_view text, Manifests& out) {
  const migrate::sdk::LineIndex index(text);
  std::string section;
  std::string key;  // the key whose value continues on indented lines; empty when not one we read
  std::size_t pos = 0;
  std::uint32_t line_no = 0;
  auto value = [&](std::size_t b, std::size_t e) {
    while (b < e && isSpace(text[b])) ++b;
    // inline comments
    for (std::size_t i = b; i < e; ++i)
      if (text[i] == '#' && (i == b || isSpace(text[i - 1]))) {
        e = i;
        break;
      }
    while (e > b && isSpace(text[e - 1])) --e;
    if (b >= e) return;
    const std::string_view v = text.substr(b, e - b);
    if (v.rfind("file:", 0) == 0) {
      std::string_view files = trim(v.substr(5));
      std::size_t s = 0;
      while (s < files.size()) {
        std::size_t c = files.find(',', s);
        if (c == std::string_view::npos) c = files.size();
        const std::string_view f = trim(files.substr(s, c - s));
        if (!f.empty()) out.includes.push_back({path, line_no, std::string(f), false});
        s = c + 1;
      }
      return;
    }
    const bool extras = section == "options.extras_require";
    readRequirementLine(
        path, v, line_no,
        [&](std::size_t rb, std::size_t re) {
          return index.range(static_cast<std::uint32_t>(b + rb), static_cast<std::uint32_t>(b + re));
        },
        "setup.cfg", extras ? "extras_require[" + key + "]" : key, out);
  };
  while (pos <= text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    ++line_no;
    std::size_t first = pos;
    while (first < end && isSpace(text[first])) ++first;
    const bool blank = first >= end;
    const bool comment = !blank && (text[first] == '#' || text[first] == ';');
    if (!blank && !comment) {
      if (first == pos && text[pos] == '[') {
        const auto close = text.find(']', pos);
        section = close != std::string_view::npos && close < end
                      ? std::string(trim(text.substr(pos + 1, close - pos - 1)))
                      : std::string();
        key.clear();
      } else if (first == pos) {
        const auto sep = text.find_first_of("=:", pos);
        key.clear();
        if (sep != std::string_view::npos && sep < end) {
          const std::string k(trim(text.substr(pos, sep - pos)));
          if (section == "metadata" && k == "name") {
            std::string_view v = trim(text.substr(sep + 1, end - sep - 1));
            if (!v.empty()) out.self_names.insert(normalizeName(v));
          }
          const bool wanted = (section == "options" &&
                               (k == "install_requires" || k == "setup_requires" || k == "tests_require")) ||
                              section == "options.extras_require";
          if (wanted) {
            key = k;
            value(sep + 1, end);
          }
        }
      } else if (!key.empty()) {
        value(first, end);
      }
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
}

}  // namespace deps
