// The deps plugin's requirements reader (pip's format: requirements*.txt, constraints).

#include "fuzz_deps.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  deps::Manifests manifests;
  deps::readRequirementsFile("requirements.txt", migrate::fuzz::text(data, size), size % 2 == 1, manifests);
  migrate::fuzz::followDependencies(manifests);
  return 0;
}
