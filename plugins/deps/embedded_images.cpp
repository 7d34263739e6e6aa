// Container images a Python file names in its code: Dockerfile text held in a string (a template
// the program writes out, with `FROM nvidia/cuda:…` on one of its lines) and an image reference
// written whole as a string (`Image.from_registry("nvidia/cuda:12.4.0-devel-ubuntu22.04")`,
// `base_image = "nvcr.io/nvidia/pytorch:24.01-py3"`). Both are read as the FROM of a Dockerfile,
// so DEP-010 judges them as it judges a Dockerfile's. Docstrings and messages are not code.

#include <optional>
#include <string>
#include <string_view>

#include <re2/re2.h>

#include "manifest.hpp"
#include "migrate/sdk/text_position.hpp"
#include "plugin_support/byte_regex.hpp"

namespace deps {

using migrate::sdk::Module;
using migrate::sdk::StringContext;
using migrate::sdk::StringFact;

namespace {

bool inCode(const StringFact& s) {
  return s.context != StringContext::Docstring && s.context != StringContext::Message &&
         s.context != StringContext::Compare;
}

/// Dockerfile text: a line that starts (after blanks) with `FROM ` and names an image.
bool holdsDockerfile(const std::string& v) {
  static const RE2 kFrom(R"((?m)^[ \t]*FROM[ \t]+\S)", plugin_support::bytePattern());
  return v.find("FROM") != std::string::npos && RE2::PartialMatch(v, kFrom);
}

}  // namespace

std::optional<migrate::sdk::SourceRange> stringValueRange(const Module& module, const StringFact& s,
                                                          const migrate::sdk::LineIndex& lines) {
  const std::string_view written = module.text(s.range);
  const auto at = written.find(s.value);
  if (at == std::string_view::npos) return std::nullopt;
  const auto start = static_cast<std::uint32_t>(s.range.start_byte + at);
  return lines.range(start, static_cast<std::uint32_t>(start + s.value.size()));
}

void readEmbeddedImages(const Module& module, Manifests& out) {
  const std::string path(module.path());
  std::optional<migrate::sdk::LineIndex> index;
  auto lines = [&]() -> const migrate::sdk::LineIndex& {
    if (!index) index.emplace(module.source());
    return *index;
  };
  for (const StringFact& s : module.strings()) {
    if (!inCode(s) || s.value.size() < 8) continue;
    const std::string_view written = module.text(s.range);
    const auto base = s.range.start_byte;
    if (isCudaImageReference(s.value)) {
      if (const auto where = stringValueRange(module, s, lines()))
        out.images.push_back({path, *where, s.value, s.value});
      continue;
    }
    if (!holdsDockerfile(s.value)) continue;
    Manifests text;
    readDockerfile(path, s.value, text);
    // Each FROM found in the string's value is found again in its source text, in order.
    std::size_t cursor = 0;
    for (const BaseImageUse& img : text.images) {
      const auto at = written.find(img.written, cursor);
      if (at == std::string_view::npos) break;
      cursor = at + img.written.size();
      const auto start = static_cast<std::uint32_t>(base + at);
      out.images.push_back({path,
                            lines().range(start, static_cast<std::uint32_t>(start + img.written.size())),
                            img.written, img.resolved});
    }
  }
}

}  // namespace deps
