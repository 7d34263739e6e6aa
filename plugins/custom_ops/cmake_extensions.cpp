// Setup scripts whose own Extension subclass hands the build to CMake (`ext_modules=
// [CMakeExtension("vptq")]`): an ahead-of-time CUDA build (OPS-017) when a CMake file of the
// repository compiles CUDA unconditionally (not only under an option: pyg-lib's `if(WITH_CUDA)`
// builds for the CPU on a host without CUDA).

#include <set>
#include <string>

#include "build_machinery.hpp"
#include "byte_regex.hpp"
#include "migrate/sdk/text_position.hpp"

namespace custom_ops {
namespace {

constexpr const char* kExtension = "OPS-017";

}  // namespace

void reportCMakeExtensions(const sdk::WorkspaceView& workspace,
                           const std::vector<std::pair<std::string, std::string>>& builds, const Rules& rules,
                           sdk::FindingSink& sink) {
  std::set<std::pair<std::string, std::size_t>> seen;
  for (const auto& [name, path] : builds) {
    const auto text = workspace.read(path);
    if (!text) continue;
    // The construction `Cls("name"` / `Cls(name="name"` of the script's own Extension subclass
    // (as declaredCMakeExtensions found it), not `setup(name="name"`.
    static const RE2 kSubclass(R"((?m)^class[ \t]+(\w+)[ \t]*\([ \t]*(?:setuptools\.)?Extension[ \t]*\))",
                               bytePattern());
    std::string classes;
    plugin_support::forEachMatch(kSubclass, *text, [&](const auto& m) {
      // Appends, not operator+: GCC 12 misreads the temporaries (-Wrestrict).
      if (!classes.empty()) classes.push_back('|');
      classes.append(RE2::QuoteMeta(m[1]));
    });
    if (classes.empty()) continue;
    std::string pattern = R"((?:^|[^\w.])()";
    pattern.append(classes)
        .append(R"()\s*\(\s*(?:name\s*=\s*)?[fFrR]?["'])")
        .append(RE2::QuoteMeta(name))
        .append(R"(["'])");
    const RE2 construction(pattern, bytePattern());
    const sdk::LineIndex index(*text);
    plugin_support::forEachMatch(construction, *text, [&](const auto& m) {
      const auto b = static_cast<std::uint32_t>(m[1].data() - text->data());
      if (!seen.insert({path, b}).second) return;
      auto f = rules.make(kExtension, path, index.range(b, b + static_cast<std::uint32_t>(m[1].size())),
                          str(m[1]), {}, {{"value", name}});
      if (!f) return;
      f->details = {{"extension", name}, {"builder", str(m[1]) + " (CMake, a CUDA build of the repository)"}};
      sink.report(std::move(*f));
    });
  }
}

}  // namespace custom_ops
