// Prebuilt CUDA operator libraries loaded from Python (OPS-047): `torch.ops.load_library(...)` of a
// shared library whose file name says it was built for CUDA (`…-cu124….so`, `libx_cuda.so`).

#include <set>
#include <string>
#include <string_view>

#include "build_machinery.hpp"
#include "byte_regex.hpp"
#include "python_file.hpp"

namespace custom_ops {
namespace python {
namespace {

constexpr const char* kPrebuiltLibrary = "OPS-047";

/// A shared library's name with a CUDA build tag as one of its parts: `cu124`, `cuda`, `cuda12`.
bool cudaBuiltLibrary(const std::string& value) {
  if (value.find(".so") == std::string::npos) return false;
  static const RE2 kTag(R"((?i)(?:^|[-_.+/])(?:cu\d{2,3}|cuda\d*)[-_.+/])", bytePattern());
  return RE2::PartialMatch(value, kTag);
}

}  // namespace

void PythonFile::prebuiltCudaLibraries() {
  const std::string_view src = m_.source();
  for (const auto& c : m_.calls()) {
    if (c.callee_resolved != "torch.ops.load_library") continue;
    // The library's name in the call (`os.path.join(d, "lib-cu124.so")`), or in what a name the call
    // reads is bound to in this file (`accepted = {"2.5": "lib-cu124.so"}` … `accepted[version]`).
    std::vector<std::pair<std::uint32_t, std::uint32_t>> spans{{c.range.start_byte, c.range.end_byte}};
    static const RE2 kName(R"(\b([A-Za-z_]\w*)\b)", bytePattern());
    re2::StringPiece args(m_.text(c.range).data(), m_.text(c.range).size());
    std::set<std::string> names;
    for (std::string name; RE2::FindAndConsume(&args, kName, &name);) names.insert(name);
    for (const std::string& name : names) {
      const RE2 bound("(?m)^[ \\t]*" + RE2::QuoteMeta(name) + "[ \\t]*(?::[^=\\n]*)?=[ \\t]*", bytePattern());
      plugin_support::forEachMatch(bound, src, [&](const auto& g) {
        const auto value = static_cast<std::size_t>(g[0].data() - src.data()) + g[0].size();
        std::size_t end = src.find('\n', value);
        if (value < src.size() && (src[value] == '{' || src[value] == '[' || src[value] == '('))
          end = closingBracket(src, value);
        if (end == std::string_view::npos) end = src.size();
        spans.emplace_back(static_cast<std::uint32_t>(value), static_cast<std::uint32_t>(end));
      });
    }
    std::string library;
    for (const auto& s : m_.strings())
      for (const auto& [b, e] : spans)
        if (library.empty() && s.range.start_byte >= b && s.range.end_byte <= e && cudaBuiltLibrary(s.value))
          library = s.value;
    if (library.empty()) continue;
    auto f = rules_.make(kPrebuiltLibrary, std::string(m_.path()), c.name_range, c.callee_written,
                         c.callee_resolved, {{"value", library}});
    if (f) f->details = {{"library", library}};
    report(std::move(f));
  }
}

}  // namespace python
}  // namespace custom_ops
