// environment.yml (conda): `dependencies` (conda match specs and the `pip:` sub-list in pip's
// requirements format) and `channels`.

#include <yaml-cpp/yaml.h>

#include "manifest.hpp"

namespace deps {
namespace {

/// Byte range of the scalar a node starts at: quoted up to the closing quote, plain up to a
/// comment or the end of the line.
std::pair<std::uint32_t, std::uint32_t> scalarExtent(std::string_view text,
                                                     const std::vector<std::uint32_t>& starts,
                                                     const YAML::Mark& mark) {
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

}  // namespace

bool looksLikeCondaEnvironment(std::string_view text) {
  bool dependencies = false;
  bool conda = false;  // channels, or a pip sub-list
  for (std::size_t at = 0; at < text.size();) {
    std::size_t eol = text.find('\n', at);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(at, eol - at);
    at = eol + 1;
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
      line.remove_suffix(1);
    if (line == "dependencies:") dependencies = true;
    if (line == "channels:") conda = true;
    const auto first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && first > 0 && line.substr(first) == "- pip:") conda = true;
  }
  return dependencies && conda;
}

void readCondaEnvironment(const std::string& path, std::string_view text, Manifests& out) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    out.diagnostics.push_back({migrate::sdk::Severity::Warning, "environment-unreadable", path,
                               static_cast<std::uint32_t>(e.mark.line + 1),
                               "not read as a conda environment file: " + e.msg});
    return;
  }
  if (!root.IsMap() || !root["dependencies"] || !root["dependencies"].IsSequence()) return;  // not conda's
  const migrate::sdk::LineIndex index(text);
  std::vector<std::uint32_t> starts{0};
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(static_cast<std::uint32_t>(i + 1));

  if (const YAML::Node channels = root["channels"]; channels && channels.IsSequence()) {
    for (const auto& ch : channels) {
      if (!ch.IsScalar()) continue;
      const auto [b, e] = scalarExtent(text, starts, ch.Mark());
      out.indexes.push_back({path, index.range(b, e), ch.Scalar(), "channels", "conda"});
    }
  }
  for (const auto& dep : root["dependencies"]) {
    if (dep.IsMap()) {
      const YAML::Node pip = dep["pip"];
      if (!pip || !pip.IsSequence()) continue;
      for (const auto& item : pip) {
        if (!item.IsScalar()) continue;
        const auto [b, e] = scalarExtent(text, starts, item.Mark());
        const std::string value = item.Scalar();
        // Map offsets in the scalar's value to the file: exact for plain scalars, the quotes
        // shifted by one for quoted ones.
        const std::uint32_t shift = (b < text.size() && (text[b] == '"' || text[b] == '\'')) ? 1 : 0;
        const std::uint32_t limit = e;
        readRequirementLine(
            path, value, static_cast<std::uint32_t>(item.Mark().line + 1),
            [&, b = b](std::size_t rb, std::size_t re) {
              const auto s = std::min<std::uint32_t>(b + shift + static_cast<std::uint32_t>(rb), limit);
              const auto f = std::min<std::uint32_t>(b + shift + static_cast<std::uint32_t>(re), limit);
              return index.range(s, f);
            },
            "conda", "pip", out);
      }
      continue;
    }
    if (!dep.IsScalar()) continue;
    const auto [b, e] = scalarExtent(text, starts, dep.Mark());
    auto req = parseCondaSpec(dep.Scalar());
    if (!req) {
      out.diagnostics.push_back({migrate::sdk::Severity::Info, "unparsed-requirement", path,
                                 static_cast<std::uint32_t>(dep.Mark().line + 1),
                                 "not read as a conda package: " + dep.Scalar()});
      continue;
    }
    DependencyUse d;
    d.file = path;
    d.range = index.range(b, e);
    d.written = dep.Scalar();
    d.req = *req;
    d.dialect = SpecDialect::Conda;
    d.source = "conda";
    d.section = "dependencies";
    d.conda = true;
    out.dependencies.push_back(std::move(d));
  }
}

}  // namespace deps
