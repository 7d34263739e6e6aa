#include <algorithm>

#include "migrate/engine/plugin_host.hpp"
#include "rules/rule_set.hpp"

namespace migrate {
namespace {

class Context final : public sdk::PluginContext {
 public:
  Context(const LoadedPlugin& plugin, std::map<std::string, sdk::OptionValue> options,
          std::function<void(bool, std::string_view)> log)
      : plugin_(plugin.info.name), options_(std::move(options)), log_(std::move(log)) {
    for (const auto& r : plugin.rules->rules()) rules_.push_back(r.info());
    std::sort(rules_.begin(), rules_.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  }
  const std::map<std::string, sdk::OptionValue>& options() const override { return options_; }
  const sdk::RuleInfo* rule(std::string_view id) const override {
    auto it = std::lower_bound(rules_.begin(), rules_.end(), id,
                               [](const sdk::RuleInfo& r, std::string_view i) { return r.id < i; });
    return it != rules_.end() && it->id == id ? &*it : nullptr;
  }
  void logInfo(std::string_view m) const override { log_(false, "[" + plugin_ + "] " + std::string(m)); }
  void logWarning(std::string_view m) const override { log_(true, "[" + plugin_ + "] " + std::string(m)); }

 private:
  std::string plugin_;
  std::map<std::string, sdk::OptionValue> options_;
  std::vector<sdk::RuleInfo> rules_;
  std::function<void(bool, std::string_view)> log_;
};

}  // namespace

std::unique_ptr<sdk::PluginContext> makePluginContext(const LoadedPlugin& plugin,
                                                      std::map<std::string, sdk::OptionValue> options,
                                                      std::function<void(bool, std::string_view)> log) {
  return std::make_unique<Context>(plugin, std::move(options), std::move(log));
}

}  // namespace migrate
