// The deps plugin's pyproject.toml reader (its TOML subset and the dependency tables).

#include "fuzz_deps.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  deps::Manifests manifests;
  deps::readPyproject("pyproject.toml", migrate::fuzz::text(data, size), manifests);
  migrate::fuzz::followDependencies(manifests);
  return 0;
}
