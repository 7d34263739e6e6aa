#include "migrate/engine/plugin_host.hpp"

#include <boost/dll/shared_library.hpp>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <optional>
#include <thread>

#include "migrate/engine/install_layout.hpp"
#include "rules/rule_loader.hpp"
#include "rules/rule_pack.hpp"
#include "rules/rule_set.hpp"

namespace migrate {

namespace fs = std::filesystem;

LoadedPlugin::LoadedPlugin() = default;
LoadedPlugin::LoadedPlugin(LoadedPlugin&&) noexcept = default;
LoadedPlugin& LoadedPlugin::operator=(LoadedPlugin&& other) noexcept {
  if (this == &other) return *this;
  rules.reset();
  plugin.reset();
  pack = std::move(other.pack);
  library = std::move(other.library);
  plugin = std::move(other.plugin);
  rules = std::move(other.rules);
  info = std::move(other.info);
  file = std::move(other.file);
  return *this;
}
namespace {

/// The plugin object of a rule pack: its info, no rule sources (the engine holds the pack's
/// rules) and the SDK's empty hooks.
class PackPlugin final : public sdk::Plugin {
 public:
  explicit PackPlugin(sdk::PluginInfo info) : info_(std::move(info)) {}
  sdk::PluginInfo info() const override { return info_; }

 private:
  sdk::PluginInfo info_;
};

}  // namespace

LoadedPlugin::~LoadedPlugin() {
  // Objects from the library first, then the library.
  rules.reset();
  plugin.reset();
  library.reset();
}

Result<LoadedPlugin> loadPlugin(const fs::path& file) {
  using Handshake = const MigratePluginHandshake*();
  using Factory = sdk::Plugin*();
  auto library = std::make_shared<boost::dll::shared_library>();
  boost::dll::fs::error_code ec;
  library->load(boost::dll::fs::path(file.string()), boost::dll::load_mode::rtld_now, ec);
  if (ec)
    return makeError(file.string() + ": cannot be loaded as a shared library (" + ec.message() +
                     "); rebuild it, or remove it from the plugin directory");
  if (!library->has("migrate_plugin_handshake") || !library->has("migrate_plugin_create"))
    return makeError(file.string() +
                     ": not a migrate-pipeline plugin (it exports no migrate_plugin_handshake); "
                     "remove it from the plugin directory or build it with MIGRATE_DEFINE_PLUGIN");
  const MigratePluginHandshake* hs = library->get<Handshake>("migrate_plugin_handshake")();
  const std::string toolchain = hs && hs->toolchain ? hs->toolchain : "?";
  if (!hs || hs->abi_version != sdk::kAbiVersion || toolchain != MIGRATE_TOOLCHAIN_TAG) {
    return makeError(
        file.string() + ": built against plugin SDK ABI " +
        (hs ? std::to_string(hs->abi_version) : std::string("?")) + " (" + toolchain + ", SDK " +
        (hs && hs->sdk_version ? hs->sdk_version : "?") + ") but this migrate-pipeline uses ABI " +
        std::to_string(sdk::kAbiVersion) + " (" + MIGRATE_TOOLCHAIN_TAG + ", SDK " + sdk::kSdkVersion +
        "); rebuild the plugin against this SDK's headers (engine/include/migrate/sdk, version " +
        sdk::kSdkVersion + ") with the same compiler");
  }
  LoadedPlugin loaded;
  loaded.file = file;
  loaded.library = library;
  try {
    loaded.plugin.reset(library->get<Factory>("migrate_plugin_create")());
    if (!loaded.plugin) return makeError(file.string() + ": the plugin factory returned nothing");
    loaded.info = loaded.plugin->info();
    if (loaded.info.name.empty() || loaded.info.domain.empty())
      return makeError(file.string() + ": the plugin declares no name or domain");
    std::vector<rules::Rule> all;
    for (const sdk::RuleSource& src : loaded.plugin->ruleSources()) {
      if (src.yaml.empty())
        return makeError("plugin " + loaded.info.name + ": rule file " + src.name +
                         " is listed but not embedded; add it to RULES of migrate_add_plugin");
      auto rules = rules::loadRules(src.yaml, loaded.info.name + ":" + src.name, loaded.info.domain);
      if (!rules) return makeError("plugin " + loaded.info.name + ": " + rules.error().message);
      for (auto& r : rules.value()) {
        for (const auto& existing : all)
          if (existing.id == r.id)
            return makeError("plugin " + loaded.info.name + ": rule id " + r.id + " is defined twice (" +
                             existing.source + ", " + r.source + ")");
        all.push_back(std::move(r));
      }
    }
    loaded.rules = std::make_shared<rules::RuleSet>(std::move(all));
  } catch (const std::exception& e) {
    return makeError(file.string() + ": the plugin failed while starting: " + e.what());
  } catch (...) {
    return makeError(file.string() + ": the plugin failed while starting (unknown exception)");
  }
  return loaded;
}

const LoadedPlugin* PluginCatalog::find(const std::string& name) const {
  for (const auto& p : plugins)
    if (p.info.name == name) return &p;
  return nullptr;
}

namespace {

/// loadPlugin of every file, in file order. Reading the embedded rule files is most of a
/// start's time (yaml-cpp), so the plugins load side by side, one thread per core: a plugin
/// loads whole on one thread, and nothing but the result vector is shared.
std::vector<Result<LoadedPlugin>> loadPlugins(const std::vector<fs::path>& files) {
  std::vector<std::optional<Result<LoadedPlugin>>> slots(files.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < files.size();) {
      try {
        slots[i].emplace(loadPlugin(files[i]));
      } catch (const std::exception& e) {  // loadPlugin's own errors are values; this is the rest
        slots[i].emplace(makeError(files[i].string() + ": cannot be loaded: " + e.what()));
      }
    }
  };
  const std::size_t threads =
      std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()), files.size());
  std::vector<std::thread> helpers;
  for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(work);
  work();
  for (auto& h : helpers) h.join();
  std::vector<Result<LoadedPlugin>> out;
  out.reserve(files.size());
  for (auto& slot : slots) out.push_back(std::move(*slot));
  return out;
}

}  // namespace

Result<PluginCatalog> discoverPlugins(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return makeError("plugin directory " + dir.string() +
                     " does not exist or is not a directory; build the plugins (cmake --build) "
                     "or set plugin_dir in the pipeline / MIGRATE_PLUGIN_DIR");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".so" && entry.is_regular_file()) files.push_back(entry.path());
  if (ec) return makeError("cannot read plugin directory " + dir.string() + ": " + ec.message());
  std::sort(files.begin(), files.end());
  std::vector<Result<LoadedPlugin>> results = loadPlugins(files);
  PluginCatalog catalog;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const fs::path& f = files[i];
    Result<LoadedPlugin>& loaded = results[i];
    if (!loaded) {
      catalog.refused.push_back(loaded.error().message);
      continue;
    }
    if (const LoadedPlugin* dup = catalog.find(loaded->info.name)) {
      catalog.refused.push_back(f.string() + ": a plugin named '" + loaded->info.name +
                                "' was already loaded from " + dup->file.string());
      continue;
    }
    catalog.plugins.push_back(std::move(loaded.value()));
  }
  std::sort(catalog.plugins.begin(), catalog.plugins.end(),
            [](const LoadedPlugin& a, const LoadedPlugin& b) { return a.info.name < b.info.name; });
  return catalog;
}

rules::KnownRules knownRules(const PluginCatalog& catalog) {
  rules::KnownRules known;
  for (const LoadedPlugin& p : catalog.plugins) {
    known.domains.insert(p.info.domain);
    for (const rules::Rule& r : p.rules->rules()) known.ids.emplace(r.id, r.source);
  }
  return known;
}

LoadedPlugin packPlugin(const rules::RulePack& pack) {
  LoadedPlugin loaded;
  loaded.info = {pack.name, pack.version, pack.domainList(), pack.description, {}};
  loaded.file = pack.dir;
  loaded.pack = std::make_shared<const rules::RulePack>(pack);
  loaded.plugin = std::make_unique<PackPlugin>(loaded.info);
  loaded.rules = std::make_shared<rules::RuleSet>(pack.rules);
  return loaded;
}

Result<LoadedPlugin> withRules(const LoadedPlugin& base, std::vector<rules::Rule> rules) {
  LoadedPlugin loaded;
  loaded.info = base.info;
  loaded.file = base.file;
  loaded.pack = base.pack;
  loaded.library = base.library;
  if (base.library) {
    using Factory = sdk::Plugin*();
    const auto library = std::static_pointer_cast<boost::dll::shared_library>(base.library);
    try {
      loaded.plugin.reset(library->get<Factory>("migrate_plugin_create")());
    } catch (const std::exception& e) {
      return makeError(base.file.string() + ": the plugin failed while starting: " + e.what());
    }
    if (!loaded.plugin) return makeError(base.file.string() + ": the plugin factory returned nothing");
  } else {
    loaded.plugin = std::make_unique<PackPlugin>(base.info);
  }
  loaded.rules = std::make_shared<rules::RuleSet>(std::move(rules));
  return loaded;
}

fs::path defaultPluginDir() {
  if (const char* env = std::getenv("MIGRATE_PLUGIN_DIR"); env && *env) return env;
  return installLayout().plugin_dir;
}

}  // namespace migrate
