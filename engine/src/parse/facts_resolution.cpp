// Resolution once the walk is done: every chain, callee, decorator and base through the
// module's bindings (values::NameBindings), star imports and shadowing definitions.

#include "parse/fact_extractor.hpp"

#include <algorithm>
#include <string_view>

namespace migrate::parse {
namespace {

/// Whether a receiver chain ends in a constant's name (`ServerSignal.FORWARD`, `cfg.DEVICE`): a
/// class attribute or enum member reached through an import is a value, not a module, so
/// `ServerSignal.FORWARD.cuda()` is a method call on it.
bool constantMember(std::string_view receiver) {
  const auto dot = receiver.rfind('.');
  if (dot == std::string_view::npos) return false;
  const std::string_view last = receiver.substr(dot + 1);
  if (last.size() < 2 || !(last[0] >= 'A' && last[0] <= 'Z')) return false;
  return std::all_of(last.begin(), last.end(),
                     [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; });
}

}  // namespace

std::string FactExtractor::soleStarImport() const {
  std::string target;
  int count = 0;
  for (const auto& imp : m_.imports_)
    if (imp.star) {
      ++count;
      if (imp.level == 0) target = imp.target;
    }
  return count == 1 ? target : std::string();
}

bool FactExtractor::fromStar(const std::string& name) const {
  static const std::unordered_set<std::string_view> kBuiltins{"print",
                                                              "len",
                                                              "range",
                                                              "int",
                                                              "float",
                                                              "str",
                                                              "bool",
                                                              "list",
                                                              "dict",
                                                              "set",
                                                              "tuple",
                                                              "isinstance",
                                                              "issubclass",
                                                              "super",
                                                              "getattr",
                                                              "setattr",
                                                              "hasattr",
                                                              "open",
                                                              "min",
                                                              "max",
                                                              "sum",
                                                              "any",
                                                              "all",
                                                              "sorted",
                                                              "enumerate",
                                                              "zip",
                                                              "map",
                                                              "filter",
                                                              "type",
                                                              "repr",
                                                              "iter",
                                                              "next",
                                                              "abs",
                                                              "round",
                                                              "bytes",
                                                              "id",
                                                              "vars",
                                                              "dir",
                                                              "format",
                                                              "callable",
                                                              "object",
                                                              "Exception",
                                                              "ValueError",
                                                              "RuntimeError",
                                                              "TypeError",
                                                              "KeyError",
                                                              "NotImplementedError",
                                                              "AssertionError",
                                                              "ImportError",
                                                              "property",
                                                              "staticmethod",
                                                              "classmethod",
                                                              "reversed",
                                                              "divmod",
                                                              "pow",
                                                              "hash",
                                                              "input",
                                                              "exit"};
  if (name.find('.') != std::string::npos || kBuiltins.count(name)) return false;
  for (const auto& d : m_.definitions_)
    if (d.name == name) return false;
  return !bindings_.isImport(name) && bindings_.resolve(name).empty();
}

bool FactExtractor::torchFromStar() const {
  const bool star =
      std::any_of(m_.imports_.begin(), m_.imports_.end(), [](const auto& imp) { return imp.star; });
  return star && fromStar("torch") && !bindings_.isAssigned("torch");
}

std::string FactExtractor::resolveChain(const std::string& written) const {
  std::string r = bindings_.resolve(written);
  if (r.empty() && torch_from_star_ && written.rfind("torch.", 0) == 0) r = written;
  return r;
}

std::string FactExtractor::resolveImportChain(const std::string& written) const {
  std::string r = bindings_.resolveImport(written);
  if (r.empty() && torch_from_star_ && written.rfind("torch.", 0) == 0) r = written;
  return r;
}

bool FactExtractor::ownSelfAttribute(const std::string& written) const {
  return written.rfind("self.", 0) == 0 && written.find('.', 5) == std::string::npos &&
         self_stores_.count(written.substr(5)) != 0;
}

void FactExtractor::resolve() {
  // A module-level def/class whose name an import also binds shadows the import when the
  // definition comes after the last import of that name.
  std::unordered_map<std::string, uint32_t> last_import;
  for (const auto& imp : m_.imports_)
    if (!imp.bound.empty()) last_import[imp.bound] = std::max(last_import[imp.bound], imp.range.start_byte);
  for (const auto& [name, at] : local_defs_) {
    auto it = last_import.find(name);
    if (it != last_import.end() && at > it->second) bindings_.shadow(name);
  }
  bindings_.finish();
  torch_from_star_ = torchFromStar();
  for (auto& d : m_.definitions_) {
    for (auto& b : d.bases)
      if (auto r = resolveChain(b); !r.empty()) b = r;
    for (auto& dec : d.decorators)
      if (auto r = resolveChain(dec); !r.empty()) dec = r;
  }
  const std::string star = soleStarImport();
  for (auto& c : m_.calls_) {
    if (!c.callee_written.empty()) c.callee_resolved = resolveChain(c.callee_written);
    if (c.callee_resolved.empty() && !star.empty() && fromStar(c.callee_written))
      c.callee_resolved = star + "." + c.callee_written;
    if (!c.method.empty()) {
      const auto dot = c.callee_written.rfind('.');
      c.receiver_is_module = dot != std::string::npos &&
                             !resolveChain(c.callee_written.substr(0, dot)).empty() &&
                             !constantMember(c.callee_written.substr(0, dot));
    }
  }
  for (std::size_t i : pending_string_callees_) {
    auto& s = m_.strings_[i];
    if (!s.method.empty()) {
      const auto dot = s.callee.rfind('.');
      s.method_on_value = dot == std::string::npos || resolveChain(s.callee.substr(0, dot)).empty();
    }
    if (auto r = resolveChain(s.callee); !r.empty()) s.callee = r;
  }
  for (auto& pr : pending_refs_) {
    // A decorator or base class through an alias is that API's use; any other read of an alias
    // is its value, reported where the alias is bound (values::NameBindings::resolveImport).
    pr.fact.resolved = pr.fact.role == sdk::ReferenceFact::Role::Plain ? resolveImportChain(pr.fact.written)
                                                                       : resolveChain(pr.fact.written);
    if (pr.fact.resolved.empty() && pr.fact.call >= 0 && !star.empty() && fromStar(pr.fact.written))
      pr.fact.resolved = star + "." + pr.fact.written;
    const bool keep =
        !pr.fact.resolved.empty() || pr.fact.call >= 0 || pr.fact.role != sdk::ReferenceFact::Role::Plain;
    if (pr.attribute_node && pr.fact.resolved.empty() && !ownSelfAttribute(pr.fact.written)) {
      // `x.is_cuda`: an attribute read on a value.
      const auto dot = pr.fact.written.rfind('.');
      sdk::AttributeFact a;
      a.name = pr.fact.written.substr(dot + 1);
      a.receiver_written = pr.fact.written.substr(0, dot);
      a.range = pr.fact.range;
      const auto name_len = static_cast<std::uint32_t>(a.name.size());
      a.range.start_byte = a.range.end_byte - name_len;
      a.range.column = a.range.end_column - name_len;
      a.range.line = a.range.end_line;
      m_.attributes_.push_back(std::move(a));
    }
    if (keep) m_.references_.push_back(std::move(pr.fact));
  }
  auto by_position = [](const auto& a, const auto& b) { return a.range.start_byte < b.range.start_byte; };
  std::stable_sort(m_.attributes_.begin(), m_.attributes_.end(), by_position);
}

}  // namespace migrate::parse
