#include "analysis_cache/entries.hpp"

#include <cbor.h>

#include <climits>
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
// kEntryFormat: change it only together with the format number. nlohmann writes them (the engine's
// JSON library, and writing is a cold run's cost); libcbor reads them (a warm run's).

/// One CBOR item of an entry, as libcbor's streaming decoder reports it. Text and byte strings
/// point into the entry's bytes: nothing is copied until a field takes its value.
struct Item {
  enum class Kind : unsigned char { Array, Map, Text, Bytes, Unsigned, Negative, Real, Bool, Other };
  /// Other: an indefinite length, a tag, null or undefined (encode() writes none).
  Kind kind = Kind::Other;
  /// Array, Map: the number of elements; Unsigned: the value; Negative: -1 - the value; Bool: 0 or 1.
  std::uint64_t n = 0;
  double real = 0;
  std::string_view text;
};

Item& itemOf(void* context) {
  return *static_cast<Item*>(context);
}
template <typename T>
void onUnsigned(void* c, T v) {
  itemOf(c) = {Item::Kind::Unsigned, v};
}
template <typename T>
void onNegative(void* c, T v) {
  itemOf(c) = {Item::Kind::Negative, v};
}
template <typename T>
void onReal(void* c, T v) {
  itemOf(c).kind = Item::Kind::Real;
  itemOf(c).real = v;
}
void onText(void* c, cbor_data data, std::size_t size) {
  itemOf(c).kind = Item::Kind::Text;
  itemOf(c).text = {reinterpret_cast<const char*>(data), size};
}
void onBytes(void* c, cbor_data data, std::size_t size) {
  onText(c, data, size);
  itemOf(c).kind = Item::Kind::Bytes;
}
void onArray(void* c, std::size_t n) {
  itemOf(c) = {Item::Kind::Array, n};
}
void onMap(void* c, std::size_t n) {
  itemOf(c) = {Item::Kind::Map, n};
}
void onBool(void* c, bool v) {
  itemOf(c) = {Item::Kind::Bool, v ? 1u : 0u};
}

/// The callbacks of the items an entry holds; every other one is left empty (Kind::Other).
const cbor_callbacks kCallbacks = [] {
  cbor_callbacks cb = cbor_empty_callbacks;
  cb.uint8 = onUnsigned<std::uint8_t>;
  cb.uint16 = onUnsigned<std::uint16_t>;
  cb.uint32 = onUnsigned<std::uint32_t>;
  cb.uint64 = onUnsigned<std::uint64_t>;
  cb.negint8 = onNegative<std::uint8_t>;
  cb.negint16 = onNegative<std::uint16_t>;
  cb.negint32 = onNegative<std::uint32_t>;
  cb.negint64 = onNegative<std::uint64_t>;
  cb.string = onText;
  cb.byte_string = onBytes;
  cb.array_start = onArray;
  cb.map_start = onMap;
  cb.float2 = onReal<float>;
  cb.float4 = onReal<float>;
  cb.float8 = onReal<double>;
  cb.boolean = onBool;
  return cb;
}();

/// Reads an entry that encode() wrote (nlohmann's to_cbor of the records below) straight into the
/// structs, one item at a time: libcbor decodes each item where it lies (it checks every length
/// against the bytes left) and hands strings over whole. A warm run decodes one entry per file;
/// nlohmann's reader, which copies strings byte by byte, was a fifth of such a run. Anything
/// unexpected throws, and the caller ignores the entry with the reason.
class CborReader {
 public:
  explicit CborReader(std::string_view bytes) : bytes_(bytes) {}

  /// True once the bytes are used up: anything after the entry is refused by the caller.
  bool atEnd() const { return offset_ == bytes_.size(); }

  /// Reads the header of an array that must have exactly `n` elements (a record).
  std::uint64_t array(std::uint64_t n) {
    const std::uint64_t size = take(Item::Kind::Array).n;
    if (size != n) fail("a record of " + std::to_string(size) + " fields, expected " + std::to_string(n));
    return size;
  }
  /// The length of an array of any size.
  std::uint64_t list() { return take(Item::Kind::Array).n; }
  std::uint64_t map() { return take(Item::Kind::Map).n; }
  std::string text() { return std::string(take(Item::Kind::Text).text); }
  std::string_view bytes() { return take(Item::Kind::Bytes).text; }
  std::uint64_t unsignedInt() { return take(Item::Kind::Unsigned).n; }
  std::uint32_t u32() {
    const std::uint64_t v = unsignedInt();
    if (v > 0xffffffffu) fail("number out of range");
    return static_cast<std::uint32_t>(v);
  }
  std::int64_t signedInt() {
    const Item item = any();
    if (item.kind != Item::Kind::Unsigned && item.kind != Item::Kind::Negative) fail("expected an integer");
    if (item.n > static_cast<std::uint64_t>(INT64_MAX)) fail("number out of range");
    const auto v = static_cast<std::int64_t>(item.n);
    return item.kind == Item::Kind::Negative ? -1 - v : v;
  }
  bool boolean() { return take(Item::Kind::Bool).n != 0; }
  /// A number as a double: the library writes a double as a float when that is exact, and a whole
  /// number may come as an integer.
  double real() {
    const Item item = any();
    if (item.kind == Item::Kind::Real) return item.real;
    if (item.kind == Item::Kind::Unsigned) return static_cast<double>(item.n);
    if (item.kind == Item::Kind::Negative) return -1.0 - static_cast<double>(item.n);
    fail("expected a number");
  }

 private:
  [[noreturn]] static void fail(const std::string& what) { throw std::out_of_range(what); }
  Item any() {
    if (atEnd()) fail("entry truncated");
    Item item;
    const cbor_decoder_result result = cbor_stream_decode(
        reinterpret_cast<cbor_data>(bytes_.data()) + offset_, bytes_.size() - offset_, &kCallbacks, &item);
    if (result.status == CBOR_DECODER_NEDATA) fail("entry truncated");
    if (result.status != CBOR_DECODER_FINISHED) fail("malformed CBOR");
    if (item.kind == Item::Kind::Other)
      fail("an item encode() does not write (indefinite length, tag or null)");
    offset_ += result.read;
    return item;
  }
  Item take(Item::Kind kind) {
    const Item item = any();
    if (item.kind != kind) fail("unexpected item type");
    return item;
  }
  std::string_view bytes_;
  std::size_t offset_ = 0;
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

/// [] without a layout; else [import offset, [per statement: start − previous start, end − start,
/// start − line start]]: differences stay small, and CBOR writes small numbers in one or two bytes.
json layoutJson(const std::optional<PythonLayout>& layout) {
  if (!layout) return json::array();
  std::vector<std::uint32_t> numbers;
  numbers.reserve(layout->statements.size() * 3);
  std::uint32_t previous = 0;
  for (const PythonLayout::Statement& s : layout->statements) {
    numbers.insert(numbers.end(), {s.start - previous, s.end - s.start, s.start - s.line_start});
    previous = s.start;
  }
  return json::array({layout->import_offset, numbers});
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
  } catch (const std::exception& e) {
    why = std::string("not a cache entry (") + e.what() + ")";
    return false;
  }
  return true;
}

std::optional<PythonLayout> readLayout(CborReader& r) {
  const std::uint64_t fields = r.list();
  if (fields == 0) return std::nullopt;
  if (fields != 2) throw std::out_of_range("a layout of " + std::to_string(fields) + " fields, expected 2");
  PythonLayout layout;
  layout.import_offset = r.u32();
  const std::uint64_t n = r.list();
  if (n % 3 != 0) throw std::out_of_range("a layout's statements are not triples");
  layout.statements.reserve(n / 3);
  std::uint64_t previous = 0;
  for (std::uint64_t i = 0; i < n; i += 3) {
    const std::uint64_t start = previous + r.u32();
    const std::uint64_t end = start + r.u32();
    const std::uint64_t back = r.u32();
    if (end > UINT32_MAX || back > start) throw std::out_of_range("a statement out of range");
    layout.statements.push_back({static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(end),
                                 static_cast<std::uint32_t>(start - back)});
    previous = start;
  }
  return layout;
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
  return toCbor(json::array({kEntryFormat, findings, diagnostics, summaryJson(analysis.summary),
                             analysis.lines, layoutJson(analysis.layout)}));
}

std::optional<FileAnalysis> decode(std::string_view bytes, std::string_view path, std::string& why) {
  CborReader r(bytes);
  if (!openEntry(r, 5, why)) return std::nullopt;
  try {
    FileAnalysis a;
    for (std::uint64_t i = 0, n = r.list(); i < n; ++i) a.findings.push_back(readFinding(r, path));
    for (std::uint64_t i = 0, n = r.list(); i < n; ++i) a.diagnostics.push_back(readDiagnostic(r, path));
    a.summary = readSummary(r, path);
    a.lines = r.unsignedInt();
    a.layout = readLayout(r);
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
