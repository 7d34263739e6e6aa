// The mustache renderer of the kit's templates, with the input as the template and data that
// has text, flags, lists (nested) and an empty list under short names.

#include "emit/mustache.hpp"
#include "fuzz_support.hpp"

namespace {

migrate::sdk::TemplateData sampleData() {
  migrate::sdk::TemplateData d;
  d.set("x", "text").set("y", "a\nb").setFlag("f").setFlag("n", false).setEmptyList("e");
  for (int i = 0; i < 2; ++i) {
    auto& item = d.addItem("l");
    // Each item has its own empty `l`: nested {{#l}} sections stop there instead of iterating the
    // outer list again, whose cost doubles per level (mustache's lookup, not a bug).
    item.set("x", "item" + std::to_string(i)).setFlag("last", i == 1).setEmptyList("l");
    item.addItem("m").set("y", "inner");
  }
  return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const migrate::sdk::TemplateData values = sampleData();
  (void)migrate::emit::renderMustache("fuzz.mustache", migrate::fuzz::text(data, size), values);
  return 0;
}
