// Scalar positions and pip lists of YAML manifests (yaml_manifest.hpp).

#include "yaml_manifest.hpp"

#include <algorithm>

namespace deps {

YamlText::YamlText(std::string_view t) : text(t), starts{0}, index(t) {
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(static_cast<std::uint32_t>(i + 1));
}

std::pair<std::uint32_t, std::uint32_t> YamlText::scalarExtent(const YAML::Mark& mark) const {
  if (mark.line < 0 || static_cast<std::size_t>(mark.line) >= starts.size()) return {0, 0};
  const std::uint32_t b =
      starts[static_cast<std::size_t>(mark.line)] + static_cast<std::uint32_t>(mark.column);
  if (b >= text.size()) return {b, b};
  std::size_t eol = text.find('\n', b);
  if (eol == std::string_view::npos) eol = text.size();
  if (text[b] == '"' || text[b] == '\'') {
    const auto close = text.find(text[b], b + 1);
    return {b, static_cast<std::uint32_t>(close == std::string_view::npos || close > eol ? eol : close + 1)};
  }
  std::size_t e = eol;
  for (std::size_t i = b; i < eol; ++i)
    if (text[i] == '#' && i > b && (text[i - 1] == ' ' || text[i - 1] == '\t')) {
      e = i;
      break;
    }
  while (e > b && (text[e - 1] == ' ' || text[e - 1] == '\t' || text[e - 1] == '\r')) --e;
  return {b, static_cast<std::uint32_t>(e)};
}

std::optional<YAML::Node> loadYamlManifest(const std::string& path, std::string_view text, const char* code,
                                           const char* what, Manifests& out) {
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    out.diagnostics.push_back({migrate::sdk::Severity::Warning, code, path,
                               static_cast<std::uint32_t>(e.mark.line + 1),
                               std::string("not read as ") + what + ": " + e.msg});
    return std::nullopt;
  }
}

void readPipList(const std::string& path, const YamlText& file, const YAML::Node& list,
                 const std::string& source, const std::string& section, Manifests& out) {
  if (!list || !list.IsSequence()) return;
  for (const auto& item : list) {
    if (!item.IsScalar()) continue;
    const auto [b, e] = file.scalarExtent(item.Mark());
    // Offsets in the scalar's value map to the file exactly for plain scalars, shifted by the
    // opening quote for quoted ones.
    const std::uint32_t shift =
        (b < file.text.size() && (file.text[b] == '"' || file.text[b] == '\'')) ? 1 : 0;
    readRequirementLine(
        path, item.Scalar(), static_cast<std::uint32_t>(item.Mark().line + 1),
        [&, b = b, e = e](std::size_t rb, std::size_t re) {
          const auto s = std::min<std::uint32_t>(b + shift + static_cast<std::uint32_t>(rb), e);
          const auto f = std::min<std::uint32_t>(b + shift + static_cast<std::uint32_t>(re), e);
          return file.index.range(s, f);
        },
        source, section, out);
  }
}

}  // namespace deps
