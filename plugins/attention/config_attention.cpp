// The attention selection written in a recipe's YAML or a model's JSON configuration rather than
// in Python: `attn_implementation: flash_attention_2` (ATT-021), which a training script passes on
// to transformers' `from_pretrained` (TRL and alignment-handbook recipes, a model's config.json),
// and the deprecated `use_flash_attention_2: true` (ATT-022). The finding stands where the value is
// written, as it does for the same string in Python; the rename to "sdpa" is the user's choice, so
// no edit is attached.

#include "config_attention.hpp"

#include <string>

#include "migrate/sdk/text_position.hpp"
#include "plugin_support/byte_regex.hpp"
#include "plugin_support/config_values.hpp"

namespace migrate_attention {

using namespace migrate::sdk;

void checkConfigFiles(const WorkspaceView& workspace, const ConfigRules& rules, FindingSink& sink) {
  // transformers' own key and the private copy a saved config.json holds.
  static const RE2 kImplementationKey(R"(_?attn_implementation)", plugin_support::bytePattern());
  static const RE2 kFlash(R"(flash_attention_[23])", plugin_support::bytePattern());
  static const RE2 kOn(R"((?i)true|yes|on|1)", plugin_support::bytePattern());
  for (const FileEntry& file : workspace.files()) {
    if (!plugin_support::isConfigFile(file.path, file.size)) continue;
    const auto text = workspace.read(file.path);
    if (!text || (text->find("flash_attention_") == std::string::npos)) continue;
    std::string error;
    const auto values = plugin_support::configValues(*text, error);
    if (!error.empty()) continue;  // the device pass records a YAML file it cannot read
    const LineIndex index(*text);
    for (const auto& v : values) {
      const RuleInfo* rule = nullptr;
      if (rules.implementation && RE2::FullMatch(v.key, kImplementationKey) &&
          RE2::FullMatch(v.value, kFlash))
        rule = rules.implementation;
      else if (rules.deprecated_switch && v.key == "use_flash_attention_2" && RE2::FullMatch(v.value, kOn))
        rule = rules.deprecated_switch;
      if (!rule) continue;
      const std::string written = v.key + ": " + v.value;
      Finding f = findingFrom(*rule, file.path, index.range(v.begin, v.end), written, {},
                              {{"value", v.value}, {"written", written}});
      f.details = {{"file_kind", "config"}, {"key", v.key}};
      sink.report(std::move(f));
    }
  }
}

}  // namespace migrate_attention
