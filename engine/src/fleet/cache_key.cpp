#include "fleet/cache_key.hpp"

#include "fleet/mirror.hpp"
#include "migrate/engine/plugin_host.hpp"
#include "migrate/sdk/version.hpp"
#include "rules/rule_set.hpp"

namespace migrate::fleet {
namespace fs = std::filesystem;

CacheKeys::CacheKeys(const fs::path& executable)
    : engine_(std::string("migrate-pipeline ") + sdk::kSdkVersion + " abi " +
              std::to_string(sdk::kAbiVersion) + " " + MIGRATE_TOOLCHAIN_TAG + " " + fileDigest(executable)) {
}

const std::map<std::string, std::string>& CacheKeys::pluginsOf(const std::string& dir) {
  auto it = plugins_.find(dir);
  if (it != plugins_.end()) return it->second;
  std::map<std::string, std::string>& out = plugins_[dir];
  auto catalog = discoverPlugins(dir.empty() ? defaultPluginDir() : fs::path(dir));
  if (!catalog) return out;  // the child fails and says why; nothing is cached for it
  for (const LoadedPlugin& p : catalog->plugins) {
    std::string rules;
    for (const auto& r : p.rules->rules()) rules += r.info().id + " " + r.info().message + "\n";
    out[p.info.name] =
        p.info.name + " " + p.info.version + " " + fileDigest(p.file) + " rules:" + digest(rules);
  }
  return out;
}

const std::string& CacheKeys::templatesOf(const std::string& dir) {
  auto it = templates_.find(dir);
  if (it != templates_.end()) return it->second;
  auto d = directoryDigest(dir);
  return templates_[dir] = d ? d.value() : "unreadable";
}

std::string CacheKeys::keyFor(const std::string& commit, const PipelineSpec& effective) {
  // The source as the outputs name it (the mirror only makes it faster), then the tool.
  const SourceSpec& s = effective.source;
  return digest("commit " + commit + "\nsource " + s.path + "\n" + s.url + "\n" + s.ref + "\n" +
                toolText(effective));
}

std::string CacheKeys::toolKeyFor(const PipelineSpec& effective) {
  return digest(toolText(effective));
}

std::string CacheKeys::toolText(const PipelineSpec& effective) {
  PipelineSpec what = effective;  // where and how fast do not change what is written
  what.output.clear();
  what.work_dir.clear();
  what.jobs = 0;
  what.source = {};  // the repository's, not the tool's (keyFor adds it)
  what.report.directory.clear();
  what.cache = {};  // the per-file cache changes how fast, never what
  std::string text = "engine " + engine_ + "\n";
  {
    std::lock_guard lock(mutex_);
    const auto& plugins = pluginsOf(effective.plugin_dir);
    for (const PluginSelection& sel : effective.plugins) {
      if (!sel.enabled) continue;
      const auto p = plugins.find(sel.name);
      text += "plugin " + (p == plugins.end() ? sel.name + " missing" : p->second) + "\n";
    }
    if (!effective.emit.templates.empty())
      text += "templates " + templatesOf(effective.emit.templates) + "\n";
    for (const std::string& pack : effective.rule_packs)  // the pack's files, as templates'
      text += "rule pack " + pack + " " + templatesOf(pack) + "\n";
  }
  text += "pipeline\n" + dumpPipeline(what);
  return text;
}

}  // namespace migrate::fleet
