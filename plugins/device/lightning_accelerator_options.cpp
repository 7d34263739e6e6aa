// DEV-060 and DEV-049 across files: an `--accelerator` option left on "auto" or "gpu" (see the header).

#include "lightning_accelerator_options.hpp"

#include <re2/re2.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "migrate/sdk/text_position.hpp"
#include "plugin_support/byte_regex.hpp"

namespace device {
namespace {

using namespace migrate::sdk;
using plugin_support::bytePattern;

/// Lightning's own packages: a repository that holds one is Lightning itself.
bool lightningPackage(std::string_view path) {
  return path.ends_with("pytorch_lightning/__init__.py") || path.ends_with("lightning/pytorch/__init__.py") ||
         path.ends_with("lightning_fabric/__init__.py") || path.ends_with("lightning/fabric/__init__.py");
}

/// A file's `--accelerator` options with the default "auto" or "gpu".
struct OptionDefaults {
  std::string path;
  std::string text;                                ///< for its line index
  std::vector<std::pair<std::uint32_t, bool>> at;  ///< each default string (quotes included), whether "auto"
};

}  // namespace

void checkLightningAcceleratorOptions(const WorkspaceView& workspace, const RuleInfo* automatic,
                                      const RuleInfo* cuda, FindingSink& sink) {
  if (!automatic && !cuda) return;
  static const RE2 kLightningImport(
      R"((?m)^[ \t]*(?:import|from)[ \t]+(?:lightning|pytorch_lightning|lightning_fabric)\b)", bytePattern());
  static const RE2 kHanded(R"(\baccelerator[ \t]*=[ \t]*([A-Za-z_]\w*(?:\.\w+)*\.accelerator)\b)",
                           bytePattern());
  // The option's call up to `default="auto"` or `"gpu"`: strings in between may hold parentheses
  // (`help="Passed to the lightning ``Trainer()``"`), anything else may not, so the match stays
  // inside the call.
  static const RE2 kOption(
      R"(add_argument\(\s*(?:["']-\w["']\s*,\s*)?["']--accelerator["']\s*,(?:[^"'()]|"[^"\n]*"|'[^'\n]*')*?)"
      R"(\bdefault\s*=\s*(["'](auto|gpu)["']))",
      bytePattern());
  bool imports_lightning = false;
  std::string handed;  // the first `X.accelerator` handed on, for the message
  std::vector<OptionDefaults> files;
  for (const FileEntry& file : workspace.files()) {
    if (lightningPackage(file.path)) return;
    if (file.language != Language::Python) continue;
    auto text = workspace.read(file.path);
    if (!text || text->find("accelerator") == std::string::npos) continue;
    imports_lightning = imports_lightning || RE2::PartialMatch(*text, kLightningImport);
    if (handed.empty()) RE2::PartialMatch(*text, kHanded, &handed);
    if (text->find("--accelerator") == std::string::npos) continue;
    OptionDefaults here{file.path, {}, {}};
    plugin_support::forEachMatch(kOption, *text, [&](const auto& m) {
      const bool is_auto = plugin_support::str(m[2]) == "auto";
      if (is_auto ? automatic != nullptr : cuda != nullptr)
        here.at.emplace_back(static_cast<std::uint32_t>(m[1].data() - text->data()), is_auto);
    });
    if (here.at.empty()) continue;
    here.text = std::move(*text);
    files.push_back(std::move(here));
  }
  if (!imports_lightning || handed.empty()) return;
  for (const OptionDefaults& file : files) {
    const LineIndex index(file.text);
    for (const auto& [begin, is_auto] : file.at) {
      // DEV-060 names the Trainer ({api}) and how its accelerator is chosen; DEV-049 the string.
      const SourceRange range = index.range(begin, begin + (is_auto ? 6 : 5));
      Finding f = is_auto
                      ? findingFrom(*automatic, file.path, range, "Lightning (accelerator=" + handed + ")",
                                    {}, {{"value", "\"auto\" (the default of the --accelerator option)"}})
                      : findingFrom(*cuda, file.path, range, "gpu", {}, {{"value", "gpu"}});
      f.details = {{"option", "--accelerator"}, {"handed_as", handed}};
      sink.report(std::move(f));
    }
  }
}

}  // namespace device
