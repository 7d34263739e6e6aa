// What a YAML config has the run build: Hydra's `_target_: apex.optimizers.FusedAdam` and
// LightningCLI's `class_path: flash_attn.losses.cross_entropy.CrossEntropyLoss` name a class the
// run imports and constructs. A target in an NVIDIA-only package is that package's import, in the
// config that makes it (its import rule reports it).

#include <re2/re2.h>

#include <optional>
#include <string>
#include <string_view>

#include "manifest.hpp"
#include "migrate/sdk/text_position.hpp"
#include "plugin_support/byte_regex.hpp"
#include "plugin_support/config_values.hpp"

namespace deps {

void readConfigTargets(const std::string& path, std::string_view text, Manifests& out) {
  if (text.size() > (1u << 20) ||
      (text.find("_target_") == std::string_view::npos && text.find("class_path") == std::string_view::npos))
    return;
  static const RE2 kDottedPath(R"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)", plugin_support::bytePattern());
  std::string error;
  const auto values = plugin_support::configValues(text, error);
  if (!error.empty()) return;  // not this reader's to diagnose
  std::optional<migrate::sdk::LineIndex> index;
  for (const auto& v : values) {
    if ((v.key != "_target_" && v.key != "class_path") || !RE2::FullMatch(v.value, kDottedPath)) continue;
    if (!index) index.emplace(text);
    out.config_targets.push_back({path, index->range(v.begin, v.end), v.value});
  }
}

}  // namespace deps
