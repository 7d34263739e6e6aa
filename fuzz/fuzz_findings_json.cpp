// The findings.json reader (with its `plan` object), as `migrate-pipeline report` and `verify`
// use it on an output directory.

#include "fuzz_support.hpp"
#include "outputs/run_outputs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = migrate::fuzz::writeScratch("findings.json", migrate::fuzz::text(data, size));
  (void)migrate::readFindingsJson(file);
  return 0;
}
