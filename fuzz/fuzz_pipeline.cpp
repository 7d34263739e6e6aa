// The pipeline loader (pipelines/*.yaml) and, for what it accepts, `config dump`.

#include "fuzz_support.hpp"
#include "migrate/engine/pipeline.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = migrate::fuzz::writeScratch("pipelines/p.yaml", migrate::fuzz::text(data, size));
  auto spec = migrate::loadPipeline(file, {});
  if (spec) (void)migrate::dumpPipeline(spec.value());
  return 0;
}
