// The emit.json readers: the manifest read back for the report, and the list of an earlier
// kit's files that a new run removes.

#include "fuzz_support.hpp"
#include "outputs/emit_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = migrate::fuzz::writeScratch("emit.json", migrate::fuzz::text(data, size));
  (void)migrate::outputs::readEmitManifest(file);
  (void)migrate::outputs::previousKitFiles(file);
  return 0;
}
