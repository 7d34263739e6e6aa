// The verify.json reader (the verification results read back for the report).

#include "fuzz_support.hpp"
#include "outputs/verify_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = migrate::fuzz::writeScratch("verify.json", migrate::fuzz::text(data, size));
  (void)migrate::outputs::readVerifyJson(file);
  return 0;
}
