// The deps plugin's setup.cfg reader.

#include "fuzz_deps.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  deps::Manifests manifests;
  deps::readSetupCfg("setup.cfg", migrate::fuzz::text(data, size), manifests);
  migrate::fuzz::followDependencies(manifests);
  return 0;
}
