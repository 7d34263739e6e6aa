// Defaults that select a CUDA-only attention branch (ATT-027); see backend_defaults.hpp.

#include "backend_defaults.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace migrate_attention {
namespace {

using migrate::sdk::StringContext;
using migrate::sdk::StringFact;

bool wordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// A backend name: `xformers`, `flash`, `flash_attn`, `flash-attention-2`; not a sentence or a path.
bool backendLike(std::string_view v) {
  if (v.empty() || v.size() > 40 || !std::isalpha(static_cast<unsigned char>(v.front()))) return false;
  return std::all_of(v.begin(), v.end(), [](char c) { return wordChar(c) || c == '-' || c == '.'; });
}

/// Whether `header` (an `if`/`elif` line) tests `name == "value"` (either quote), `name` standing
/// as a whole word (`self.attn_mode` holds `attn_mode`).
bool testsEquality(std::string_view header, std::string_view name, std::string_view value) {
  for (std::size_t at = header.find(name); at != std::string_view::npos; at = header.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    if ((at > 0 && wordChar(header[at - 1])) || (end < header.size() && wordChar(header[end]))) continue;
    std::size_t i = end;
    while (i < header.size() && header[i] == ' ') ++i;
    if (header.compare(i, 2, "==") != 0) continue;
    i += 2;
    while (i < header.size() && header[i] == ' ') ++i;
    if (i >= header.size() || (header[i] != '"' && header[i] != '\'')) continue;
    const char quote = header[i];
    if (header.compare(i + 1, value.size(), value) == 0 && i + 1 + value.size() < header.size() &&
        header[i + 1 + value.size()] == quote)
      return true;
  }
  return false;
}

/// The kernel a branch opened on `line` calls, or "" (its body: the lines indented deeper).
std::string kernelInBranch(const SourceText& src, std::uint32_t line,
                           const std::vector<KernelLine>& kernels) {
  const std::size_t indent = indentOf(src.line(line));
  for (auto j = line + 1; j <= src.lineCount(); ++j) {
    const std::string body = trim(stripComment(src.line(j)));
    if (body.empty()) continue;
    if (indentOf(src.line(j)) <= indent) break;
    for (const KernelLine& k : kernels)
      if (k.line == j) return k.api;
  }
  return {};
}

}  // namespace

std::vector<BackendDefault> findBackendDefaults(const migrate::sdk::Module& module, const SourceText& src,
                                                const std::vector<KernelLine>& kernels) {
  std::vector<BackendDefault> out;
  if (kernels.empty()) return out;
  const auto& strings = module.strings();
  for (const StringFact& s : strings) {
    if (s.context != StringContext::Assignment || s.fstring || s.name.empty() || !backendLike(s.value))
      continue;
    // `"xformers" if XFORMERS_IS_AVAILABLE else "torch"`: the choice already falls back.
    const std::string statement(stripComment(src.line(s.range.line)));
    if (statement.find(" if ") != std::string::npos && statement.find(" else ") != std::string::npos)
      continue;
    const std::string name = s.name.substr(s.name.rfind('.') + 1);
    for (const StringFact& c : strings) {
      if (c.context != StringContext::Compare || c.value != s.value) continue;
      const std::string header = trim(stripComment(src.line(c.range.line)));
      if (header.rfind("if ", 0) != 0 && header.rfind("elif ", 0) != 0) continue;
      if (!testsEquality(header, name, s.value)) continue;
      if (std::string kernel = kernelInBranch(src, c.range.line, kernels); !kernel.empty()) {
        out.push_back({&s, name, c.range.line, std::move(kernel)});
        break;
      }
    }
  }
  return out;
}

}  // namespace migrate_attention
