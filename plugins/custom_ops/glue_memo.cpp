// The extension glue's per-file memo, as one flat CBOR array (the JSON library's binary form):
// compact, and decoded by a library that refuses malformed bytes. The array's elements, in order:
//   declared count, declared names..., may_import, builder count, builders..., summarised,
//   and when summarised: autograd_import, import count, (line, module, name, bound, star) per import,
//   function count, blocks..., class count, blocks...
//   a block: name, line, name_begin, body_end, call count, calls..., attribute count,
//   (name, attribute) pairs..., launch.
//   a builder: name, loads, cuda, returns, call count, calls...
// Flat, because decoding a tree of nested arrays and maps for every file of a repository cost
// more than the propagation it saves.

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "glue_summary.hpp"

namespace custom_ops::glue {
namespace {

using Json = nlohmann::json;

/// Collects the memo's elements, refusing any nesting: a memo is one flat array, and the library's
/// own reader (Json::from_cbor) recurses once per level of nesting, so that a damaged entry of
/// deeply nested arrays overflowed the stack (found by fuzz_cache_entry).
class FlatArray final : public nlohmann::json_sax<Json> {
 public:
  Json::array_t elements;

  bool null() override { return add(nullptr); }
  bool boolean(bool v) override { return add(v); }
  bool number_integer(number_integer_t v) override { return add(v); }
  bool number_unsigned(number_unsigned_t v) override { return add(v); }
  bool number_float(number_float_t v, const string_t&) override { return add(v); }
  bool string(string_t& v) override { return add(std::move(v)); }
  bool binary(binary_t& v) override { return add(Json::binary(std::move(v))); }
  bool start_array(std::size_t) override { return !std::exchange(opened_, true); }
  bool end_array() override { return true; }
  bool start_object(std::size_t) override { return false; }
  bool key(string_t&) override { return false; }
  bool end_object() override { return false; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  template <typename T>
  bool add(T&& v) {
    if (!opened_) return false;  // a scalar alone is not a memo
    elements.emplace_back(std::forward<T>(v));
    return true;
  }
  bool opened_ = false;
};

/// Reads the array's elements in order; a missing element or one of another type throws.
class Cursor {
 public:
  explicit Cursor(const Json::array_t& array) : array_(array) {}
  template <typename T>
  T next() {
    const Json& value = array_.at(at_++);
    // The library converts any number to an integer with a cast (undefined for a float out of
    // range, which the fuzzer found): a count or an offset must be an unsigned integer.
    if constexpr (std::is_same_v<T, std::size_t>)
      if (!value.is_number_unsigned()) throw std::invalid_argument("not an unsigned integer");
    return value.get<T>();
  }
  /// A count, refused when larger than what is left (a corrupt count must not allocate).
  std::size_t count() {
    const auto n = next<std::size_t>();
    if (n > array_.size() - at_) throw std::out_of_range("count beyond the memo");
    return n;
  }
  bool done() const { return at_ == array_.size(); }

 private:
  const Json::array_t& array_;
  std::size_t at_ = 0;
};

void put(Json& out, const Block& b) {
  out.push_back(b.name);
  out.push_back(b.line);
  out.push_back(b.name_begin);
  out.push_back(b.body_end);
  out.push_back(b.uses.calls.size());
  for (const std::string& c : b.uses.calls) out.push_back(c);
  out.push_back(b.uses.attributes.size());
  for (const auto& [name, attribute] : b.uses.attributes) {
    out.push_back(name);
    out.push_back(attribute);
  }
  out.push_back(b.uses.launch);
}

Block block(Cursor& in) {
  Block b;
  b.name = in.next<std::string>();
  b.line = in.next<std::size_t>();
  b.name_begin = in.next<std::size_t>();
  b.body_end = in.next<std::size_t>();
  for (std::size_t n = in.count(); n > 0; --n) b.uses.calls.insert(in.next<std::string>());
  for (std::size_t n = in.count(); n > 0; --n) {
    std::string name = in.next<std::string>();
    b.uses.attributes.emplace_back(std::move(name), in.next<std::string>());
  }
  b.uses.launch = in.next<bool>();
  return b;
}

}  // namespace

std::string encodeMemo(const Scan& scan, const PyFile* summary) {
  Json out = Json::array();
  out.push_back(scan.declared.size());
  for (const std::string& d : scan.declared) out.push_back(d);
  out.push_back(scan.may_import);
  out.push_back(scan.builders.size());
  for (const Builder& b : scan.builders) {
    out.push_back(b.name);
    out.push_back(b.loads);
    out.push_back(b.cuda);
    out.push_back(b.returns);
    out.push_back(b.calls.size());
    for (const std::string& c : b.calls) out.push_back(c);
  }
  out.push_back(summary != nullptr);
  if (summary) {
    out.push_back(summary->autograd_import);
    out.push_back(summary->imports.size());
    for (const Import& imp : summary->imports) {
      out.push_back(imp.line);
      out.push_back(imp.module);
      out.push_back(imp.name);
      out.push_back(imp.bound);
      out.push_back(imp.star);
    }
    out.push_back(summary->functions.size());
    for (const Block& b : summary->functions) put(out, b);
    out.push_back(summary->classes.size());
    for (const Block& b : summary->classes) put(out, b);
  }
  std::string bytes;
  Json::to_cbor(out, bytes);
  return bytes;
}

bool decodeMemo(const std::string& bytes, Scan& scan, PyFile& file, bool& summarised) {
  try {
    FlatArray array;
    if (!Json::sax_parse(bytes, &array, Json::input_format_t::cbor)) return false;
    Cursor in(array.elements);
    Scan s;
    for (std::size_t n = in.count(); n > 0; --n) s.declared.push_back(in.next<std::string>());
    s.may_import = in.next<bool>();
    for (std::size_t n = in.count(); n > 0; --n) {
      Builder b;
      b.name = in.next<std::string>();
      b.loads = in.next<bool>();
      b.cuda = in.next<bool>();
      b.returns = in.next<bool>();
      for (std::size_t k = in.count(); k > 0; --k) b.calls.push_back(in.next<std::string>());
      s.builders.push_back(std::move(b));
    }
    const bool has_summary = in.next<bool>();
    PyFile f;
    if (has_summary) {
      f.autograd_import = in.next<bool>();
      for (std::size_t n = in.count(); n > 0; --n) {
        Import imp;
        imp.line = in.next<std::size_t>();
        imp.module = in.next<std::string>();
        imp.name = in.next<std::string>();
        imp.bound = in.next<std::string>();
        imp.star = in.next<bool>();
        f.imports.push_back(std::move(imp));
      }
      for (std::size_t n = in.count(); n > 0; --n) f.functions.push_back(block(in));
      for (std::size_t n = in.count(); n > 0; --n) f.classes.push_back(block(in));
    }
    if (!in.done()) return false;
    scan = std::move(s);
    summarised = has_summary;
    if (has_summary) {
      file.autograd_import = f.autograd_import;
      file.imports = std::move(f.imports);
      file.functions = std::move(f.functions);
      file.classes = std::move(f.classes);
    }
    return true;
  } catch (const std::exception&) {  // nlohmann's parse and type errors, out_of_range
    return false;
  }
}

}  // namespace custom_ops::glue
