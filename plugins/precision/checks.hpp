#pragma once
// The precision checks analyzeModule runs, the rules they report, and the helpers several of them share.

#include <map>
#include <string>
#include <string_view>

#include "dtypes.hpp"
#include "file_view.hpp"
#include "migrate/sdk/plugin.hpp"

namespace precision {

/// The custom rules of the plugin by id (filled by PrecisionPlugin::configure).
using Rules = std::map<std::string, const migrate::sdk::RuleInfo*>;

/// The rule `id`; configure() made sure it is there.
inline const migrate::sdk::RuleInfo& rule(const Rules& rules, const char* id) {
  return *rules.at(id);
}

// ---- the checks (one file each, named after the check) ----

// PREC-001/002/006/010: references to torch dtypes that make or select them.
void dtypeReferences(const FileView& v, const Rules& rules, migrate::sdk::FindingSink& sink);
// PREC-001/002/006/010: .double(), .cdouble(), .bfloat16(), .half() casts.
void castMethods(const FileView& v, const Rules& rules, migrate::sdk::FindingSink& sink);
// PREC-001/002: dtype=float / dtype=complex in torch calls (Python's float is float64 there).
void pythonFloatDtype(const FileView& v, const Rules& rules, migrate::sdk::FindingSink& sink);
// PREC-004: a float64 numpy array turned into a tensor without a dtype.
void numpyFloat64(const FileView& v, const Rules& rules, migrate::sdk::FindingSink& sink);
// PREC-005: complex RoPE (torch.polar / torch.view_as_complex), complex128 when fed float64.
void complexRope(const FileView& v, const Rules& rules, migrate::sdk::FindingSink& sink);
// PREC-011: autocast regions and the dtype they run in.
void autocastRegions(const FileView& v, const Rules& rules, migrate::sdk::FindingSink& sink);
// PREC-020: torch.is_autocast_enabled() / set_autocast_enabled(flag) without a device type (CUDA only).
void autocastQueries(const FileView& v, const Rules& rules, migrate::sdk::FindingSink& sink);
// PREC-014: .float() / .to(torch.float32) inside a norm layer; one finding per function.
void normUpcasts(const FileView& v, const Rules& rules, migrate::sdk::FindingSink& sink);
// PREC-015: assert statements (and unittest assertEqual/assertIn/...) on a floating-point dtype.
void dtypeAsserts(const FileView& v, const Rules& rules, migrate::sdk::FindingSink& sink);

// ---- shared helpers ----

/// Where a dtype reference makes or selects that dtype ("keyword:dtype", "argument:…",
/// "default_dtype", "expression", …), or "" when it only reads one (a comparison, a lookup key,
/// finfo, an autocast dtype left to PREC-011, float64 kept on the CPU). In dtype_references.cpp.
std::string useContext(const FileView& v, const migrate::sdk::ReferenceFact& ref, Dtype d);
/// A method call as written (`x.to(torch.float32)`), shortened when long. In dtype_references.cpp.
std::string callText(const FileView& v, const migrate::sdk::CallFact& c);
/// torch.autocast and its device-specific spellings. In autocast_regions.cpp.
bool isAutocast(std::string_view resolved);
/// unittest's assertEqual / assertIs / assertIn and their negations. In dtype_asserts.cpp.
bool isUnittestAssert(const migrate::sdk::CallFact& c);

}  // namespace precision
