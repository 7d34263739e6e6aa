// environment.yml (conda): `dependencies` (conda match specs and the `pip:` sub-list in pip's
// requirements format) and `channels`.

#include "yaml_manifest.hpp"

namespace deps {

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
  const std::optional<YAML::Node> loaded =
      loadYamlManifest(path, text, "environment-unreadable", "a conda environment file", out);
  if (!loaded) return;
  const YAML::Node& root = *loaded;
  if (!root.IsMap() || !root["dependencies"] || !root["dependencies"].IsSequence()) return;  // not conda's
  const YamlText file(text);

  if (const YAML::Node channels = root["channels"]; channels && channels.IsSequence()) {
    for (const auto& ch : channels) {
      if (!ch.IsScalar()) continue;
      out.indexes.push_back({path, file.scalarRange(ch), ch.Scalar(), "channels", "conda"});
    }
  }
  for (const auto& dep : root["dependencies"]) {
    if (dep.IsMap()) {
      readPipList(path, file, dep["pip"], "conda", "pip", out);
      continue;
    }
    if (!dep.IsScalar()) continue;
    auto req = parseCondaSpec(dep.Scalar());
    if (!req) {
      out.diagnostics.push_back({migrate::sdk::Severity::Info, "unparsed-requirement", path,
                                 static_cast<std::uint32_t>(dep.Mark().line + 1),
                                 "not read as a conda package: " + dep.Scalar()});
      continue;
    }
    DependencyUse d;
    d.file = path;
    d.range = file.scalarRange(dep);
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
