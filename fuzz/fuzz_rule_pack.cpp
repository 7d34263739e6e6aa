// The rule-pack loader: arbitrary bytes as a pack's pack.yaml, beside a valid rule file and a
// README, loaded as a run loads packs; the same bytes also as a README's rule entries.

#include <string>

#include "fuzz_support.hpp"
#include "migrate/sdk/version.hpp"
#include "rules/rule_pack.hpp"

namespace {

constexpr const char* kRules = R"(format: 1
domain: device
rules:
  - id: ACME-001
    title: acme_cuda.sync synchronises the CUDA device
    message: "{api} synchronises the CUDA device; use {npu}"
    match:
      api:
        - {name: acme_cuda.sync, npu: torch.npu.synchronize}
    npu_alternative: "{npu}"
    fix: {replace_api: true}
    tests:
      invalid:
        - code: |
            import acme_cuda
            acme_cuda.sync()
          lines: [2]
      valid:
        - "import torch\n"
)";

constexpr const char* kReadme = "# acme\n\n### ACME-001 — sync\n\nUse torch.npu.synchronize.\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(migrate::fuzz::text(data, size));
  static const auto dir = [] {
    migrate::fuzz::writeScratch("pack/rules/device.yaml", kRules);
    return migrate::fuzz::writeScratch("pack/README.md", kReadme).parent_path();
  }();
  migrate::fuzz::writeScratch("pack/pack.yaml", text);
  migrate::rules::KnownRules known;
  known.ids["DEV-001"] = "device:rules/device_calls.yaml:1:1";
  known.domains = {"device", "deps", "attention", "custom_ops", "distributed", "precision"};
  const auto load = migrate::rules::loadRulePacks({dir}, known, migrate::sdk::kSdkVersion);
  static volatile std::size_t seen = 0;  // what was read is used, so it is not optimised away
  seen = seen + load.errors.size() + migrate::rules::readmeEntries(text).size();
  for (const auto& pack : load.packs) seen = seen + pack.rules.size() + pack.domains.size();
  return 0;
}
