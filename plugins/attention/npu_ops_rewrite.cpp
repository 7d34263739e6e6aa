// planNpuOpsRewrites: which imports of a file can be switched to npu_ops, and the minimal edits.
//
//   from flash_attn import flash_attn_func as faf   ->  from npu_ops import flash_attn_func as faf
//   import xformers.ops as xops                     ->  import npu_ops as xops
//   from xformers.ops import fmha                   ->  import npu_ops as fmha
//   import xformers.ops  + xformers.ops.X(...)      ->  import npu_ops  + npu_ops.X(...)

#include "npu_ops_rewrite.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "npu_ops_names.hpp"

namespace migrate_attention {
namespace {

using migrate::sdk::CallFact;
using migrate::sdk::Edit;
using migrate::sdk::ImportFact;
using migrate::sdk::Module;
using migrate::sdk::ReferenceFact;

/// How a name bound by an import is switched to npu_ops.
enum class Kind {
  FromName,    ///< `from lib import f`: the statement's module becomes npu_ops, uses stay
  KeepModule,  ///< `import lib.mod as m` / `from lib import mod`: m is bound to npu_ops, uses stay
  Rebind,      ///< `import lib.mod`: the statement imports npu_ops, `lib.mod.f` uses become `npu_ops.f`
};

struct Binding {
  Kind kind = Kind::FromName;
  std::vector<const ImportFact*> imports;
  std::vector<Edit> edits;
  std::set<std::string> sections;
  std::string blocked;  ///< why the name cannot be switched; empty when it can
};

bool isIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

std::string rootOf(const std::string& written) {
  return written.substr(0, written.find('.'));
}

std::string_view statementText(const Module& module, const ImportFact& imp) {
  return module.source().substr(imp.range.start_byte, imp.range.end_byte - imp.range.start_byte);
}

/// `from <module> import ...`: the edit replacing <module> by npu_ops.
std::optional<Edit> fromModuleEdit(const Module& module, const ImportFact& imp) {
  const std::string_view text = statementText(module, imp);
  if (text.compare(0, 4, "from") != 0) return std::nullopt;
  std::size_t begin = 4;
  while (begin < text.size() &&
         (std::isspace(static_cast<unsigned char>(text[begin])) || text[begin] == '\\'))
    ++begin;
  std::size_t end = begin;
  while (end < text.size() && (isIdentifierChar(text[end]) || text[end] == '.')) ++end;
  if (text.substr(begin, end - begin) != imp.module) return std::nullopt;
  return Edit{imp.range.start_byte + static_cast<std::uint32_t>(begin),
              imp.range.start_byte + static_cast<std::uint32_t>(end), "npu_ops"};
}

/// `import a, <module> [as x]`: the edit replacing <module> by npu_ops (it must occur once).
std::optional<Edit> importNameEdit(const Module& module, const ImportFact& imp) {
  const std::string_view text = statementText(module, imp);
  if (text.compare(0, 6, "import") != 0) return std::nullopt;
  std::optional<Edit> edit;
  for (std::size_t at = text.find(imp.module, 6); at != std::string_view::npos;
       at = text.find(imp.module, at + 1)) {
    const std::size_t end = at + imp.module.size();
    const bool starts = !isIdentifierChar(text[at - 1]) && text[at - 1] != '.';
    const bool ends = end == text.size() || (!isIdentifierChar(text[end]) && text[end] != '.');
    if (!starts || !ends) continue;
    if (edit) return std::nullopt;
    edit = Edit{imp.range.start_byte + static_cast<std::uint32_t>(at),
                imp.range.start_byte + static_cast<std::uint32_t>(end), "npu_ops"};
  }
  return edit;
}

/// Whether an import binds its name to something npu_ops may stand for.
bool concernsNpuOps(const ImportFact& imp) {
  if (imp.star || imp.level != 0) return false;
  return npuOpsName(imp.target) || isNpuOpsSourceModule(imp.target) ||
         (imp.name.empty() && isNpuOpsSourceAncestor(imp.target));
}

bool inside(const migrate::sdk::SourceRange& inner, const migrate::sdk::SourceRange& outer) {
  return inner.start_byte >= outer.start_byte && inner.end_byte <= outer.end_byte;
}

/// The import side of a binding: its kind and edits, or the reason it cannot be switched.
void planImports(const Module& module, const std::string& name, Binding& b) {
  std::set<Kind> kinds;
  for (const ImportFact* imp : b.imports) {
    std::optional<Edit> edit;
    if (!imp->name.empty() && npuOpsName(imp->target)) {
      kinds.insert(Kind::FromName);
      for (const ImportFact& other : module.imports()) {
        if (other.range.start_byte != imp->range.start_byte) continue;
        const NpuOpsName* n = npuOpsName(other.target);
        if (!n) {
          b.blocked = "its import statement also imports " + other.target + ", which npu_ops lacks";
          return;
        }
        b.sections.insert(std::string(n->section));
      }
      edit = fromModuleEdit(module, *imp);
    } else if (!imp->name.empty()) {  // `from xformers.ops import fmha`: the whole statement
      kinds.insert(Kind::KeepModule);
      for (const ImportFact& other : module.imports())
        if (other.range.start_byte == imp->range.start_byte && &other != imp) {
          b.blocked = "its import statement imports other names too";
          return;
        }
      edit = Edit{imp->range.start_byte, imp->range.end_byte, "import npu_ops as " + name};
    } else if (!imp->alias.empty()) {
      if (!isNpuOpsSourceModule(imp->target)) {
        b.blocked = "it aliases the package " + imp->target + " rather than a module npu_ops replaces";
        return;
      }
      kinds.insert(Kind::KeepModule);
      edit = importNameEdit(module, *imp);
    } else {
      kinds.insert(Kind::Rebind);
      edit = importNameEdit(module, *imp);
    }
    if (!edit) {
      b.blocked = "its import statement at line " + std::to_string(imp->range.line) +
                  " is written in a form " + "the rewrite does not edit";
      return;
    }
    b.edits.push_back(std::move(*edit));
  }
  if (kinds.size() != 1) {
    b.blocked = "its imports bind it in different ways";
    return;
  }
  b.kind = *kinds.begin();
  if (b.kind == Kind::Rebind && b.imports.size() > 1) b.blocked = "several import statements bind it";
}

/// The use side of a binding: every reference rooted at `name` must reach a name npu_ops has.
void planReferences(const Module& module, const std::string& name, Binding& b) {
  for (const ReferenceFact& ref : module.references()) {
    if (!b.blocked.empty()) return;
    if (rootOf(ref.written) != name) continue;
    const bool in_import = std::any_of(module.imports().begin(), module.imports().end(),
                                       [&](const ImportFact& imp) { return inside(ref.range, imp.range); });
    if (in_import || b.kind == Kind::FromName) continue;
    if (ref.written == name) {
      if (b.kind == Kind::Rebind)
        b.blocked = name + " itself is used at line " + std::to_string(ref.range.line);
      continue;
    }
    const NpuOpsName* n = npuOpsName(ref.resolved);
    const bool direct = std::count(ref.written.begin(), ref.written.end(), '.') == 1;
    if (!n || (b.kind == Kind::KeepModule && !direct)) {
      b.blocked = ref.written + " (line " + std::to_string(ref.range.line) + ") has no npu_ops counterpart";
      continue;
    }
    b.sections.insert(std::string(n->section));
    if (b.kind != Kind::Rebind) continue;
    const std::string prefix = ref.written.substr(0, ref.written.rfind('.'));
    if (module.source().substr(ref.range.start_byte, prefix.size()) != prefix) {
      b.blocked = ref.written + " at line " + std::to_string(ref.range.line) + " is split over lines";
      continue;
    }
    b.edits.push_back(
        {ref.range.start_byte, ref.range.start_byte + static_cast<std::uint32_t>(prefix.size()), "npu_ops"});
  }
}

/// Why npu_ops cannot take a kernel call as written, or "".
std::string callProblem(const RewriteCandidate& c) {
  const auto& d = c.finding->details;
  const std::string at = " at line " + std::to_string(c.call->range.line);
  if (d.count("args_splat")) return "the call" + at + " passes *args";
  for (const auto& a : c.call->args)
    if (a.index >= 0 && static_cast<std::size_t>(a.index) >= c.spec->positional)
      return "the call" + at + " passes more than " + std::to_string(c.spec->positional) +
             " positional arguments, whose order differs between library versions";
  auto bias = d.find("attn_bias_class");
  if (c.spec->kind == KernelKind::Xformers && bias != d.end() && !bias->second.empty() &&
      !npuOpsName("xformers.ops." + bias->second))
    return "the call" + at + " passes attn_bias=" + bias->second + ", which npu_ops does not map";
  return {};
}

std::string joined(const std::set<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

}  // namespace

void planNpuOpsRewrites(const Module& module, std::vector<RewriteCandidate>& candidates) {
  std::map<std::string, Binding> bindings;
  for (const ImportFact& imp : module.imports())
    if (concernsNpuOps(imp)) bindings[imp.bound].imports.push_back(&imp);
  for (auto& [name, b] : bindings) {
    planImports(module, name, b);
    if (b.blocked.empty()) planReferences(module, name, b);
  }
  for (const RewriteCandidate& c : candidates) {
    auto it = bindings.find(c.root);
    if (it == bindings.end() || !it->second.blocked.empty() || !c.call || !c.spec) continue;
    it->second.blocked = callProblem(c);
  }
  // Names bound by one statement are switched together or not at all.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& [name, b] : bindings) {
      if (b.blocked.empty()) continue;
      for (auto& entry : bindings) {
        Binding& other = entry.second;  // clang 14 cannot capture a structured binding
        if (!other.blocked.empty()) continue;
        const bool shares = std::any_of(b.imports.begin(), b.imports.end(), [&](const ImportFact* imp) {
          return std::any_of(other.imports.begin(), other.imports.end(), [&](const ImportFact* o) {
            return o->range.start_byte == imp->range.start_byte;
          });
        });
        if (!shares) continue;
        other.blocked = "it is imported together with " + name + ", which cannot be switched: " + b.blocked;
        changed = true;
      }
    }
  }
  for (RewriteCandidate& c : candidates) {
    migrate::sdk::Finding& f = *c.finding;
    const NpuOpsName* own = npuOpsName(f.resolved_api);
    auto it = bindings.find(c.root);
    if (own) {
      f.details["npu_ops"] = "npu_ops." + std::string(own->name);
      f.details["npu_ops_section"] = std::string(own->section);
    }
    if (it == bindings.end()) {
      if (own)
        f.details["npu_ops_blocked"] =
            c.root.empty() ? "it is not reached through an import of this file"
                           : "no import statement of this file names " + c.root + " (a star import?)";
      continue;
    }
    const Binding& b = it->second;
    if (!b.blocked.empty()) {
      if (own) f.details["npu_ops_blocked"] = c.root + " stays: " + b.blocked;
      continue;
    }
    f.edits = b.edits;
    std::sort(f.edits.begin(), f.edits.end(),
              [](const Edit& x, const Edit& y) { return x.start_byte < y.start_byte; });
    std::set<std::string> sections = b.sections;
    if (own) sections.insert(std::string(own->section));
    f.details["npu_ops_section"] = joined(sections);
  }
}

}  // namespace migrate_attention
