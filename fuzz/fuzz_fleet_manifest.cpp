// The fleet manifest loader (fleet.yaml, format 1), with a pipeline file and a repos_file beside
// it for manifests that name them.

#include "fleet/fleet_spec.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool ready = [] {
    migrate::fuzz::writeScratch("pipeline.yaml", "version: 1\nsource: {path: .}\n");
    migrate::fuzz::writeScratch("repos.csv", "name,source,ref\nextra,https://example.org/x.git,dev\n");
    return true;
  }();
  (void)ready;
  const auto file = migrate::fuzz::writeScratch("fleet.yaml", migrate::fuzz::text(data, size));
  (void)migrate::fleet::loadFleet(file);
  return 0;
}
