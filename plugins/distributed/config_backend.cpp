// DIST-001 in YAML and JSON configuration files (Hydra, OmegaConf, Lightning CLI): a process-group backend
// set to NCCL (`backend: nccl`, `dist_backend: nccl`). The program passes the value on to
// init_process_group, so the finding stands where it is written, as for a Python constant, with
// DIST-001's rename.

#include <string>

#include "distributed_checks.hpp"
#include "migrate/sdk/text_position.hpp"
#include "plugin_support/byte_regex.hpp"
#include "plugin_support/config_values.hpp"

namespace distributed {

using namespace migrate::sdk;

void checkConfigBackends(const WorkspaceView& workspace, const RuleTable& rules, FindingSink& sink) {
  static const RE2 kBackendKey(R"((?i)\w*backend\w*)", plugin_support::bytePattern());
  static const RE2 kNccl(R"((?i)nccl)", plugin_support::bytePattern());
  for (const FileEntry& file : workspace.files()) {
    if (!plugin_support::isConfigFile(file.path, file.size)) continue;
    const auto text = workspace.read(file.path);
    if (!text || !RE2::PartialMatch(*text, kNccl)) continue;  // `backend: nccl`, `distrib_backend: NCCL`
    // yaml-cpp is slow on JSON's long flow collections: read a JSON file only when it sets a backend.
    static const RE2 kJsonCandidate(R"re((?i)"\w*backend\w*"\s*:\s*"nccl")re", plugin_support::bytePattern());
    if (plugin_support::isJsonFile(file.path) && !RE2::PartialMatch(*text, kJsonCandidate)) continue;
    std::string error;
    const auto values = plugin_support::configValues(*text, error);
    // The device plugin records a file that does not parse when it reads it (one naming cuda or
    // gpu); one it skips is recorded here.
    if (!error.empty() && !plugin_support::isJsonFile(file.path) && text->find("cuda") == std::string::npos &&
        text->find("gpu") == std::string::npos)
      sink.diagnose({Severity::Info, "config-unparsed", file.path, 0, "not read as YAML: " + error});
    const LineIndex index(*text);
    for (const auto& v : values) {
      if (!RE2::FullMatch(v.key, kBackendKey) || !RE2::FullMatch(v.value, kNccl)) continue;
      Finding f = findingFrom(*rules.nccl_backend, file.path, index.range(v.begin, v.end), v.value, {},
                              {{"value", v.value}});
      f.details = {{"file_kind", "config"}, {"key", v.key}};
      if (const long at = plugin_support::wordIn(*text, v, "nccl"); at >= 0)
        f.edits.push_back({static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(at + 4),
                           (*text)[static_cast<std::size_t>(at)] == 'N' ? "HCCL" : "hccl"});
      sink.report(std::move(f));
    }
  }
}

}  // namespace distributed
