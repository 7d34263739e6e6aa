#pragma once
/// The facts extracted once from a parsed Python file. Read-only for plugins.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "migrate/sdk/source_range.hpp"

namespace migrate::sdk {

/// `import a.b as c` → {module "a.b", name "", alias "c", bound "c", target "a.b"};
/// `from a import b as c` → {module "a", name "b", alias "c", bound "c", target "a.b"};
/// `from .x import y` → level 1; target is resolved against the file's package ("pkg.x.y").
struct ImportFact {
  std::string module;
  std::string name;
  std::string alias;
  std::string bound;   ///< the local name the statement binds ("a" for `import a.b`)
  std::string target;  ///< the qualified name `bound` refers to
  int level = 0;       ///< leading dots of a relative import
  bool star = false;   ///< `from m import *`
  SourceRange range;   ///< the whole statement
};

/// What an argument's value is. Int: an integer literal, or a conditional expression with one
/// (`0 if first else gpus[i]`: an integer on one of its paths).
enum class ValueKind { String, Int, Float, Bool, None, Name, Other };

/// One argument of a call. `text` is the string content for strings, the source text otherwise.
struct ArgumentFact {
  std::string keyword;  ///< empty for positional arguments
  int index = -1;       ///< positional index, -1 for keyword arguments
  ValueKind kind = ValueKind::Other;
  bool fstring = false;  ///< an f-string with a replacement field (f"cuda" is a plain string)
  std::string text;
  SourceRange range;  ///< the value
};

/// How the value returned by a call is used right where the call stands.
/// Iterate: looped over, or passed to map/list/tuple/sorted/zip/enumerate/join and the like.
enum class ResultUse { None, TupleUnpack, Subscript, Compare, Attribute, Iterate };

/// A maximal dotted chain rooted at a name: `torch.cuda.synchronize`, `tc.Stream`, `self.x`.
struct ReferenceFact {
  enum class Role { Plain, Decorator, BaseClass };
  std::string written;   ///< as in the source, whitespace removed
  std::string resolved;  ///< qualified through the imports; empty when the root is not an import
  Role role = Role::Plain;
  int call = -1;  ///< index into Module::calls when the chain is called
  SourceRange range;
};

/// A call expression.
struct CallFact {
  std::string callee_written;       ///< `torch.cuda.synchronize`, `x.to`, `f()(…)` → "" when not a chain
  std::string callee_resolved;      ///< qualified name, empty when not resolvable
  std::string method;               ///< last attribute name when the callee is `<expr>.name`
  bool receiver_is_module = false;  ///< the receiver of `method` resolves to an import
  std::vector<ArgumentFact> args;
  bool splat = false;  ///< passes `*args` or `**kwargs`: any argument may be in there
  ResultUse result_use = ResultUse::None;
  std::string result_attribute;  ///< for ResultUse::Attribute
  std::string assigned_to;       ///< `name = call(...)`: the single target name
  std::string unpacked_first;    ///< `name, … = call(...)`: the first target, when a plain name
  SourceRange range;             ///< the whole call
  SourceRange name_range;        ///< the method name, or the callee chain
};

/// `expr.name` read (not called) where `expr` does not resolve to an import.
struct AttributeFact {
  std::string name;
  std::string receiver_written;  ///< source text of the receiver when it is a plain name or chain
  SourceRange range;             ///< the attribute name
};

/// A plain name whose value is subscripted, compared or unpacked (`cap[0]`, `cap >= x`,
/// `a, b = cap`): lets rules follow a call's result through a variable.
struct NameUseFact {
  std::string name;
  ResultUse use = ResultUse::None;
  SourceRange range;
};

/// Where a string literal stands.
enum class StringContext {
  Other,
  Docstring,      ///< never a use
  Message,        ///< print/log/warn/raise arguments, help= and similar: never a device use
  KeywordArg,     ///< name = keyword, callee = the call
  PositionalArg,  ///< callee/method = the call, arg_index
  Compare,
  Assignment,  ///< name = the target (also a parameter's default value)
  Subscript,   ///< callee = the subscripted chain (e.g. os.environ)
  Return,      ///< the value of a return statement
};

struct StringFact {
  std::string value;     ///< content without quotes; f-string holes read as {}
  bool fstring = false;  ///< an f-string with a replacement field (f"cuda" is a plain string)
  StringContext context = StringContext::Other;
  std::string name;              ///< keyword or assignment target
  std::string callee;            ///< resolved callee (or written when unresolved) / subscripted chain
  std::string method;            ///< method name when the string is an argument of `<expr>.method(...)`
  bool method_on_value = false;  ///< that method's receiver is not a module
  int arg_index = -1;
  /// Compare: the comparison only picks between branches, as (part of) the condition of an
  /// `if`/`elif` whose chain has another branch (elif or else) and no branch that raises
  /// (`if x.device.type == "cuda": … else: …`); its result is not kept, asserted or returned.
  bool branch_test = false;
  SourceRange range;  ///< including quotes and prefix
};

struct DefinitionFact {
  enum class Kind { Function, Class };
  Kind kind = Kind::Function;
  std::string name;
  std::string qualified_name;           ///< dotted inside classes/functions: "Model.forward"
  std::vector<std::string> bases;       ///< resolved where possible, else as written
  std::vector<std::string> decorators;  ///< resolved where possible, else as written
  std::string docstring_summary;        ///< first line of the docstring
  bool top_level = false;
  SourceRange range;
};

/// A Python file and everything the analysis knows about it.
class Module {
 public:
  virtual ~Module() = default;
  virtual std::string_view path() const = 0;        ///< relative to the repository root
  virtual std::string_view dottedName() const = 0;  ///< "pkg.sub.mod"
  virtual std::string_view source() const = 0;
  virtual const std::vector<ImportFact>& imports() const = 0;
  virtual const std::vector<ReferenceFact>& references() const = 0;
  virtual const std::vector<CallFact>& calls() const = 0;
  virtual const std::vector<AttributeFact>& attributes() const = 0;
  virtual const std::vector<StringFact>& strings() const = 0;
  virtual const std::vector<NameUseFact>& nameUses() const = 0;
  virtual const std::vector<DefinitionFact>& definitions() const = 0;
  virtual bool hasSyntaxErrors() const = 0;
  /// True when the top-level package of `qualified_name` is one of the repository's own
  /// (`mamba_ssm.ops` inside the mamba_ssm repository): a use of the project, not of a library.
  virtual bool isProjectModule(std::string_view qualified_name) const = 0;
  /// Text of a range of this file.
  std::string_view text(const SourceRange& r) const {
    return source().substr(r.start_byte, r.end_byte - r.start_byte);
  }
};

}  // namespace migrate::sdk
