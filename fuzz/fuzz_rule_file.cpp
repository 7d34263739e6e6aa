// The rule-file loader (rules/*.yaml, format 1) and the rule index built from what it accepts,
// matched against a small module.

#include <memory>

#include "fuzz_support.hpp"
#include "parse/python_parser.hpp"
#include "rules/rule_loader.hpp"
#include "rules/rule_set.hpp"

namespace {

const migrate::parse::PythonModule& sampleModule() {
  static const auto module = migrate::parse::parsePython("m.py",
                                                         "import torch\nimport torch.cuda as tc\n"
                                                         "x = torch.randn(2, device='cuda:0')\n"
                                                         "tc.synchronize()\ny = x.cuda().half()\n"
                                                         "@torch.compile(backend='inductor')\n"
                                                         "class M(torch.nn.Module): pass\n")
                                 .value()
                                 .release();
  return *module;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& module = sampleModule();
  auto rules = migrate::rules::loadRules(migrate::fuzz::text(data, size), "fuzz:rules/x.yaml", "device");
  if (!rules) return 0;
  migrate::rules::RuleSet set(std::move(rules.value()));
  migrate::fuzz::CountingSink sink;
  set.match(module, sink);
  return 0;
}
