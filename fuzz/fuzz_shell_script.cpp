// The deps plugin's shell script reader (pip / conda / uv install commands).

#include "fuzz_deps.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  deps::Manifests manifests;
  deps::readShellScript("install.sh", migrate::fuzz::text(data, size), manifests);
  migrate::fuzz::followDependencies(manifests);
  return 0;
}
