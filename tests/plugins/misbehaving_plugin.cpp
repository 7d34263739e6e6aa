// A plugin that misbehaves the way real plugins can on real code, triggered by a marker in a
// file: MIGRATE_TEST_CRASH dereferences null (SIGSEGV), MIGRATE_TEST_HANG sleeps for ever,
// MIGRATE_TEST_HOG fills 1 GiB of memory. The fleet tests run repositories through it; a run
// over files without markers behaves like a plugin with one rule.
#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>
#include <vector>

#include "migrate/sdk/plugin.hpp"
#include "misbehaving_embedded_rules.hpp"

namespace {
using namespace migrate::sdk;

class MisbehavingPlugin final : public Plugin {
 public:
  PluginInfo info() const override {
    return {"misbehaving", "0.0.1", "testing", "crashes, hangs or hogs memory on marked files", {}};
  }
  std::vector<RuleSource> ruleSources() const override {
    return {{"plugins/rules/misbehaving.yaml", migrateEmbeddedRule("plugins/rules/misbehaving.yaml")}};
  }
  void analyzeModule(const Module& module, FindingSink&) const override {
    const std::string_view source = module.source();
    if (source.find("MIGRATE_TEST_CRASH") != std::string_view::npos) std::raise(SIGSEGV);
    if (source.find("MIGRATE_TEST_HANG") != std::string_view::npos)
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    if (source.find("MIGRATE_TEST_HOG") != std::string_view::npos) {
      std::vector<std::vector<char>> hog;
      for (int i = 0; i < 64; ++i) {
        hog.emplace_back(16u << 20);
        std::memset(hog.back().data(), 1, hog.back().size());  // resident, not just reserved
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
  }
};
}  // namespace

MIGRATE_DEFINE_PLUGIN(MisbehavingPlugin)
