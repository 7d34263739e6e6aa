#pragma once
/// What the YAML manifest readers (conda's environment.yml, Cog's cog.yaml) share: where a scalar
/// stands in the file, and a list of pip requirement strings read line by line.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "manifest.hpp"

namespace deps {

/// The file text of a YAML manifest with its line starts and line index.
struct YamlText {
  explicit YamlText(std::string_view text);
  std::string_view text;
  std::vector<std::uint32_t> starts;  ///< byte offset of each line
  migrate::sdk::LineIndex index;

  /// Byte range of the scalar a node starts at: quoted up to the closing quote, plain up to a
  /// comment or the end of the line.
  std::pair<std::uint32_t, std::uint32_t> scalarExtent(const YAML::Mark& mark) const;
  migrate::sdk::SourceRange scalarRange(const YAML::Node& node) const {
    const auto [b, e] = scalarExtent(node.Mark());
    return index.range(b, e);
  }
};

/// The YAML document of a manifest; on a parse error, a warning diagnostic `code` ("not read as
/// <what>: …") at the error's line, and nothing.
std::optional<YAML::Node> loadYamlManifest(const std::string& path, std::string_view text, const char* code,
                                           const char* what, Manifests& out);

/// Each scalar of `list` read as a line of pip's requirements format (conda's `pip:` list, Cog's
/// `python_packages`), its ranges mapped into the file.
void readPipList(const std::string& path, const YamlText& file, const YAML::Node& list,
                 const std::string& source, const std::string& section, Manifests& out);

}  // namespace deps
