#pragma once
/// Settings in a repository's YAML and JSON configuration files (Hydra, OmegaConf, Lightning CLI, RL
/// and training configs): every `key: value` whose value is a scalar, or a scalar item of a list, with
/// where the value is written. Read with yaml-cpp (the library the engine reads pipelines with);
/// a file that does not parse yields its error instead, and the caller records it.
///
/// Header-only; a plugin that includes it links yaml-cpp.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace plugin_support {

struct ConfigValue {
  std::string key;                   ///< the innermost key, as written (`device`, `backend`)
  std::string value;                 ///< the scalar's value (quotes removed)
  std::uint32_t begin = 0, end = 0;  ///< byte range of the value as written in the file
  std::string parents;               ///< the enclosing keys, outermost first, '.'-joined (`trainer.params`)
};

/// Whether `path` is a JSON file (JSON is YAML's flow style, so the same reader takes it).
inline bool isJsonFile(std::string_view path) {
  return path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

/// Whether `path` (of `size` bytes) is a YAML or JSON file a program reads as its configuration:
/// not under a hidden folder (CI workflows, tool settings) and not a Compose file, a conda
/// environment (the deps domain reads those) or a documentation site's settings; for JSON (a
/// training script's `config.json`), not a package manifest, tool setting, tokenizer, vocabulary,
/// schema or data file: those are named for it, or larger than a configuration is.
inline bool isConfigFile(std::string_view path, std::uint64_t size) {
  auto endsWith = [&](std::string_view s) {
    return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  const bool json = isJsonFile(path);
  if (!endsWith(".yaml") && !endsWith(".yml") && !json) return false;
  if (path.front() == '.' || path.find("/.") != std::string_view::npos) return false;
  const std::string_view name =
      path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
  for (std::string_view skip :
       {"docker-compose", "compose.", "environment", "conda", "env.", "env-", "env_", "mkdocs", "meta."})
    if (name.substr(0, skip.size()) == skip) return false;
  if (!json) return true;
  constexpr std::uint64_t kMaxJsonConfig = 256 * 1024;
  if (size > kMaxJsonConfig) return false;
  for (std::string_view skip : {"package", "tsconfig", "jsconfig", "composer", "tokenizer", "vocab", "launch",
                                "settings", "devcontainer", "renovate", "lerna", "manifest"})
    if (name.substr(0, skip.size()) == skip) return false;
  return name.find("schema") == std::string_view::npos;
}

/// Where `word` (ASCII, any case) starts in the value `v` as written in `text`, as a byte offset of
/// the file; -1 when it is not there. For the renames of a setting (`cuda:0` → `npu:0`).
inline long wordIn(std::string_view text, const ConfigValue& v, std::string_view word) {
  const std::string_view written = text.substr(v.begin, v.end - v.begin);
  for (std::size_t i = 0; i + word.size() <= written.size(); ++i) {
    std::size_t k = 0;
    while (k < word.size() && (written[i + k] | 0x20) == word[k]) ++k;
    if (k == word.size()) return static_cast<long>(v.begin + i);
  }
  return -1;
}

namespace detail {

inline void collect(const YAML::Node& node, const std::string& key, const std::string& parents,
                    std::string_view text, std::vector<ConfigValue>& out) {
  if (node.IsScalar()) {
    if (key.empty()) return;
    const YAML::Mark mark = node.Mark();
    if (mark.pos < 0 || static_cast<std::size_t>(mark.pos) >= text.size()) return;
    const auto at = static_cast<std::size_t>(mark.pos);
    const std::string& value = node.Scalar();
    std::size_t end = at + value.size();
    if (text[at] == '"' || text[at] == '\'') end += 2;  // the quotes are part of what is written
    out.push_back({key, value, static_cast<std::uint32_t>(at),
                   static_cast<std::uint32_t>(std::min(end, text.size())), parents});
  } else if (node.IsSequence()) {
    for (const auto& item : node) collect(item, key, parents, text, out);
  } else if (node.IsMap()) {
    const std::string inner = key.empty() ? parents : parents.empty() ? key : parents + "." + key;
    for (const auto& entry : node)
      if (entry.first.IsScalar()) collect(entry.second, entry.first.Scalar(), inner, text, out);
  }
}

}  // namespace detail

/// Whether the nesting of `text` stays within what a configuration needs: yaml-cpp (and
/// detail::collect) recurse once per level, so a hostile file nested thousands of levels deep
/// (`[[[[…`, or indentation growing line by line) would exhaust the stack.
inline bool shallow(std::string_view text, std::size_t max_depth = 64) {
  std::size_t depth = 0, indent = 0;
  bool line_start = true;
  for (const char c : text) {
    if (c == '\n') {
      line_start = true;
      indent = 0;
      continue;
    }
    if (line_start && c == ' ' && ++indent > 4 * max_depth) return false;
    if (c != ' ') line_start = false;
    if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return true;
}

/// The scalar settings of a YAML text (all its documents), or the parser's message in `error`.
inline std::vector<ConfigValue> configValues(std::string_view text, std::string& error) {
  std::vector<ConfigValue> out;
  if (!shallow(text)) {
    error = "nested too deeply to be a configuration";
    return out;
  }
  try {
    for (const YAML::Node& doc : YAML::LoadAll(std::string(text))) detail::collect(doc, "", "", text, out);
  } catch (const YAML::Exception& e) {
    error = e.what();
    out.clear();
  }
  return out;
}

}  // namespace plugin_support
