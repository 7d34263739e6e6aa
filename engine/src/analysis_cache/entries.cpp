#include "analysis_cache/entries.hpp"

#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace migrate::cache {
namespace {

using nlohmann::json;

// Records are arrays in a fixed order (smaller and faster than objects); the order is part of
// kEntryFormat: change it only together with the format number.

/// One item of an entry, as nlohmann's CBOR parser reports it (json::sax_parse): the library does
/// the byte-level decoding and its checks (lengths against the bytes left, the types, nothing
/// after the entry); CborReader only maps the items onto the structs.
struct Item {
  enum class Kind : unsigned char { Array, Map, Text, Bytes, Unsigned, Signed, Real, Bool, Null };
  Kind kind;
  std::uint64_t n = 0;  ///< Array and Map: the number of elements; Unsigned: the value; Bool: 0 or 1
  std::int64_t i = 0;   ///< Signed
  double real = 0;
  std::string text;  ///< Text (a map's keys too), Bytes
};

/// Collects the items of one entry in order. Ends and nulls carry nothing the records need (their
/// sizes are known), so they are not kept; an indefinite length is refused (encode() writes none).
class ItemCollector final : public nlohmann::json_sax<json> {
 public:
  explicit ItemCollector(std::vector<Item>& items) : items_(items) {}
  std::string error;

  bool null() override { return add({Item::Kind::Null}); }
  bool boolean(bool v) override { return add({Item::Kind::Bool, v ? 1u : 0u}); }
  bool number_integer(number_integer_t v) override {
    Item item{Item::Kind::Signed};
    item.i = v;
    return add(std::move(item));
  }
  bool number_unsigned(number_unsigned_t v) override { return add({Item::Kind::Unsigned, v}); }
  bool number_float(number_float_t v, const string_t&) override {
    Item item{Item::Kind::Real};
    item.real = v;
    return add(std::move(item));
  }
  bool string(string_t& v) override { return text(Item::Kind::Text, std::move(v)); }
  bool binary(binary_t& v) override { return text(Item::Kind::Bytes, std::string(v.begin(), v.end())); }
  bool key(string_t& v) override { return text(Item::Kind::Text, std::move(v)); }
  bool start_object(std::size_t n) override { return open(Item::Kind::Map, n); }
  bool start_array(std::size_t n) override { return open(Item::Kind::Array, n); }
  bool end_object() override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    error = e.what();
    return false;
  }

 private:
  bool add(Item&& item) {
    items_.push_back(std::move(item));
    return true;
  }
  bool text(Item::Kind kind, std::string&& v) {
    Item item{kind};
    item.text = std::move(v);
    return add(std::move(item));
  }
  bool open(Item::Kind kind, std::size_t n) {
    if (n == static_cast<std::size_t>(-1)) {
      error = "an indefinite length";
      return false;
    }
    return add({kind, n});
  }
  std::vector<Item>& items_;
};

/// Reads an entry that encode() wrote (nlohmann's to_cbor of the records below) straight into the
/// structs: a warm run decodes one entry per file, and building a JSON value of each first cost
/// more than the lookup. Anything unexpected throws, and the caller ignores the entry with the
/// reason.
class CborReader {
 public:
  explicit CborReader(std::string_view bytes) {
    items_.reserve(bytes.size() / 8 + 8);  // about one item in 8 bytes: few regrowths of the list
    ItemCollector collector(items_);
    if (!json::sax_parse(bytes.begin(), bytes.end(), &collector, json::input_format_t::cbor))
      error_ = collector.error.empty() ? "unreadable CBOR" : collector.error;
  }

  /// Empty when the bytes are one CBOR value and nothing more; else what the parser said.
  const std::string& error() const { return error_; }
  bool atEnd() const { return next_ == items_.size(); }

  /// Reads the header of an array that must have exactly `n` elements (a record).
  std::uint64_t array(std::uint64_t n) {
    const std::uint64_t size = take(Item::Kind::Array).n;
    if (size != n) fail("a record of " + std::to_string(size) + " fields, expected " + std::to_string(n));
    return size;
  }
  /// The length of an array of any size.
  std::uint64_t list() { return take(Item::Kind::Array).n; }
  std::uint64_t map() { return take(Item::Kind::Map).n; }
  std::string text() { return std::move(take(Item::Kind::Text).text); }
  std::string_view bytes() { return take(Item::Kind::Bytes).text; }
  std::uint64_t unsignedInt() { return take(Item::Kind::Unsigned).n; }
  std::uint32_t u32() {
    const std::uint64_t v = unsignedInt();
    if (v > 0xffffffffu) fail("number out of range");
    return static_cast<std::uint32_t>(v);
  }
  std::int64_t signedInt() {
    const Item& item = any();
    if (item.kind == Item::Kind::Signed) return item.i;
    if (item.kind != Item::Kind::Unsigned) fail("expected an integer");
    if (item.n > static_cast<std::uint64_t>(INT64_MAX)) fail("number out of range");
    return static_cast<std::int64_t>(item.n);
  }
  bool boolean() { return take(Item::Kind::Bool).n != 0; }
  /// A number as a double: the library writes a double as a float when that is exact, and a whole
  /// number may come as an integer.
  double real() {
    const Item& item = any();
    if (item.kind == Item::Kind::Real) return item.real;
    if (item.kind == Item::Kind::Unsigned) return static_cast<double>(item.n);
    if (item.kind == Item::Kind::Signed) return static_cast<double>(item.i);
    fail("expected a number");
  }

 private:
  [[noreturn]] static void fail(const std::string& what) { throw std::out_of_range(what); }
  Item& any() {
    if (next_ == items_.size()) fail("entry truncated");
    return items_[next_++];
  }
  Item& take(Item::Kind kind) {
    Item& item = any();
    if (item.kind != kind) fail("unexpected item type");
    return item;
  }
  std::vector<Item> items_;
  std::size_t next_ = 0;
  std::string error_;
};

json rangeJson(const sdk::SourceRange& r) {
  return json::array({r.line, r.column, r.end_line, r.end_column, r.start_byte, r.end_byte});
}

std::string fileOf(const std::string& file, std::string_view path) {
  return file == path ? std::string() : file;
}

json findingJson(const sdk::Finding& f, std::string_view path) {
  json edits = json::array();
  for (const sdk::Edit& e : f.edits) edits.push_back(json::array({e.start_byte, e.end_byte, e.replacement}));
  return json::array({f.rule_id, f.domain, fileOf(f.file, path), rangeJson(f.range), f.api, f.resolved_api,
                      f.message, f.npu_alternative, static_cast<int>(f.severity),
                      static_cast<int>(f.confidence), static_cast<int>(f.difficulty), f.effort_days, edits,
                      f.details, f.phases});
}

json diagnosticJson(const sdk::Diagnostic& d, std::string_view path) {
  return json::array({static_cast<int>(d.severity), d.code, fileOf(d.file, path), d.line, d.message});
}

json definitionJson(const TopLevelDefinition& d) {
  return json::array({d.name, d.docstring, d.line, d.end_line});
}

json classJson(const ClassSummary& c) {
  return json::array({c.name, c.qualified_name, c.bases, c.docstring, c.line, c.end_line, c.calls});
}

json summaryJson(const ModuleSummary& s) {
  json top = json::array();
  for (const auto& d : s.top_level) top.push_back(definitionJson(d));
  json classes = json::array();
  for (const auto& c : s.classes) classes.push_back(classJson(c));
  return json::array({!s.path.empty(), s.dotted_name, s.lines, s.docstring, s.import_targets, s.main_block,
                      top, classes, s.console_scripts});
}

/// An enumerator stored as its number; a number outside 0..max is a broken entry.
template <typename E>
E enumFrom(CborReader& r, int max) {
  const std::int64_t v = r.signedInt();
  if (v < 0 || v > max) throw std::out_of_range("enumerator " + std::to_string(v) + " out of range");
  return static_cast<E>(v);
}

std::string restoreFile(CborReader& r, std::string_view path) {
  auto file = r.text();
  return file.empty() ? std::string(path) : file;
}

sdk::Finding readFinding(CborReader& r, std::string_view path) {
  r.array(15);
  sdk::Finding f;
  f.rule_id = r.text();
  f.domain = r.text();
  f.file = restoreFile(r, path);
  r.array(6);
  f.range.line = r.u32();
  f.range.column = r.u32();
  f.range.end_line = r.u32();
  f.range.end_column = r.u32();
  f.range.start_byte = r.u32();
  f.range.end_byte = r.u32();
  f.api = r.text();
  f.resolved_api = r.text();
  f.message = r.text();
  f.npu_alternative = r.text();
  f.severity = enumFrom<sdk::Severity>(r, 2);
  f.confidence = enumFrom<sdk::Level>(r, 2);
  f.difficulty = enumFrom<sdk::Level>(r, 2);
  f.effort_days = r.real();
  for (std::uint64_t i = 0, n = r.list(); i < n; ++i) {
    r.array(3);
    sdk::Edit e;
    e.start_byte = r.u32();
    e.end_byte = r.u32();
    e.replacement = r.text();
    f.edits.push_back(std::move(e));
  }
  for (std::uint64_t i = 0, n = r.map(); i < n; ++i) {
    std::string key = r.text();
    f.details.insert_or_assign(std::move(key), r.text());
  }
  for (std::uint64_t i = 0, n = r.list(); i < n; ++i) f.phases.push_back(r.text());
  return f;
}

sdk::Diagnostic readDiagnostic(CborReader& r, std::string_view path) {
  r.array(5);
  sdk::Diagnostic d;
  d.severity = enumFrom<sdk::Severity>(r, 2);
  d.code = r.text();
  d.file = restoreFile(r, path);
  d.line = r.u32();
  d.message = r.text();
  return d;
}

std::vector<std::string> readTextList(CborReader& r) {
  std::vector<std::string> out;
  for (std::uint64_t i = 0, n = r.list(); i < n; ++i) out.push_back(r.text());
  return out;
}

ModuleSummary readSummary(CborReader& r, std::string_view path) {
  r.array(9);
  ModuleSummary s;
  const bool parsed = r.boolean();
  s.dotted_name = r.text();
  s.lines = r.unsignedInt();
  s.docstring = r.text();
  s.import_targets = readTextList(r);
  s.main_block = r.boolean();
  for (std::uint64_t i = 0, n = r.list(); i < n; ++i) {
    r.array(4);
    TopLevelDefinition d;
    d.name = r.text();
    d.docstring = r.text();
    d.line = r.u32();
    d.end_line = r.u32();
    s.top_level.push_back(std::move(d));
  }
  for (std::uint64_t i = 0, n = r.list(); i < n; ++i) {
    r.array(7);
    ClassSummary c;
    c.name = r.text();
    c.qualified_name = r.text();
    c.bases = readTextList(r);
    c.docstring = r.text();
    c.line = r.u32();
    c.end_line = r.u32();
    for (std::uint64_t k = 0, m = r.map(); k < m; ++k) {
      std::string callee = r.text();
      const std::int64_t count = r.signedInt();
      if (count < INT_MIN || count > INT_MAX) throw std::out_of_range("call count out of range");
      c.calls.insert_or_assign(std::move(callee), static_cast<int>(count));
    }
    s.classes.push_back(std::move(c));
  }
  s.console_scripts = readTextList(r);
  if (!parsed) return ModuleSummary{};
  s.path = path;
  return s;
}

/// Opens an entry of `fields` records after its format number; false (with `why`) for another
/// format or something that is not an entry.
bool openEntry(CborReader& r, std::uint64_t fields, std::string& why) {
  if (!r.error().empty()) {
    why = "not a cache entry (" + r.error() + ")";
    return false;
  }
  try {
    if (r.list() != fields + 1) {
      why = "not a cache entry";
      return false;
    }
    const std::int64_t format = r.signedInt();
    if (format != kEntryFormat) {
      why = "entry format " + std::to_string(format) + ", this release reads " + std::to_string(kEntryFormat);
      return false;
    }
  } catch (const std::exception&) {
    why = "not a cache entry";
    return false;
  }
  return true;
}

std::string toCbor(const json& entry) {
  std::string out;
  json::to_cbor(entry, out);
  return out;
}

}  // namespace

std::string encode(const FileAnalysis& analysis, std::string_view path) {
  json findings = json::array();
  for (const auto& f : analysis.findings) findings.push_back(findingJson(f, path));
  json diagnostics = json::array();
  for (const auto& d : analysis.diagnostics) diagnostics.push_back(diagnosticJson(d, path));
  return toCbor(
      json::array({kEntryFormat, findings, diagnostics, summaryJson(analysis.summary), analysis.lines}));
}

std::optional<FileAnalysis> decode(std::string_view bytes, std::string_view path, std::string& why) {
  CborReader r(bytes);
  if (!openEntry(r, 4, why)) return std::nullopt;
  try {
    FileAnalysis a;
    for (std::uint64_t i = 0, n = r.list(); i < n; ++i) a.findings.push_back(readFinding(r, path));
    for (std::uint64_t i = 0, n = r.list(); i < n; ++i) a.diagnostics.push_back(readDiagnostic(r, path));
    a.summary = readSummary(r, path);
    a.lines = r.unsignedInt();
    if (!r.atEnd()) throw std::out_of_range("bytes after the entry");
    return a;
  } catch (const std::exception& e) {
    why = std::string("unreadable entry (") + e.what() + ")";
    return std::nullopt;
  }
}

std::string encode(const RepositoryAnalysis& analysis) {
  json reads = json::array();
  for (const auto& [path, hash] : analysis.reads)
    reads.push_back(json::array({path, json::binary(std::vector<std::uint8_t>(hash.begin(), hash.end()))}));
  json findings = json::array();
  for (const auto& f : analysis.findings) findings.push_back(findingJson(f, ""));
  json diagnostics = json::array();
  for (const auto& d : analysis.diagnostics) diagnostics.push_back(diagnosticJson(d, ""));
  return toCbor(json::array({kEntryFormat, reads, findings, diagnostics}));
}

std::optional<RepositoryAnalysis> decodeRepository(std::string_view bytes, std::string& why) {
  CborReader r(bytes);
  if (!openEntry(r, 3, why)) return std::nullopt;
  try {
    RepositoryAnalysis a;
    for (std::uint64_t i = 0, n = r.list(); i < n; ++i) {
      r.array(2);
      std::string path = r.text();
      const std::string_view bin = r.bytes();
      std::array<unsigned char, 16> hash{};
      if (bin.size() != hash.size())
        throw std::out_of_range("content hash of " + std::to_string(bin.size()) + " bytes");
      std::memcpy(hash.data(), bin.data(), hash.size());
      a.reads.emplace_back(std::move(path), hash);
    }
    for (std::uint64_t i = 0, n = r.list(); i < n; ++i) a.findings.push_back(readFinding(r, ""));
    for (std::uint64_t i = 0, n = r.list(); i < n; ++i) a.diagnostics.push_back(readDiagnostic(r, ""));
    if (!r.atEnd()) throw std::out_of_range("bytes after the entry");
    return a;
  } catch (const std::exception& e) {
    why = std::string("unreadable entry (") + e.what() + ")";
    return std::nullopt;
  }
}

}  // namespace migrate::cache
