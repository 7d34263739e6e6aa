// The fleet manifest's repos_file (CSV: name,source[,ref]) behind a fixed manifest.

#include "fleet/fleet_spec.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path manifest = [] {
    migrate::fuzz::writeScratch("pipeline.yaml", "version: 1\nsource: {path: .}\n");
    return migrate::fuzz::writeScratch(
        "fleet.yaml", "format: 1\npipeline: pipeline.yaml\ndefaults: {ref: main}\nrepos_file: repos.csv\n");
  }();
  migrate::fuzz::writeScratch("repos.csv", migrate::fuzz::text(data, size));
  (void)migrate::fleet::loadFleet(manifest);
  return 0;
}
