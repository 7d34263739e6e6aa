#include "analysis_cache/entries.hpp"

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace migrate::cache {
namespace {

using nlohmann::json;

// Records are arrays in a fixed order (smaller and faster than objects); the order is part of
// kEntryFormat: change it only together with the format number.

/// Reads the CBOR that encode() writes (nlohmann's to_cbor of the records below) straight into
/// the structs: a warm run decodes one entry per file, and building a JSON value of each first
/// cost more than the lookup. Definite lengths only, every length checked against the bytes
/// left; anything else throws, and the caller ignores the entry with the reason.
class CborReader {
 public:
  explicit CborReader(std::string_view bytes) : p_(bytes.data()), end_(bytes.data() + bytes.size()) {}

  bool atEnd() const { return p_ == end_; }

  /// Reads the header of an array that must have exactly `n` elements (a record).
  std::uint64_t array(std::uint64_t n) {
    const std::uint64_t size = header(4);
    if (size != n) fail("a record of " + std::to_string(size) + " fields, expected " + std::to_string(n));
    return size;
  }
  /// The length of an array of any size.
  std::uint64_t list() { return header(4); }
  std::uint64_t map() { return header(5); }

  std::string text() {
    const std::uint64_t size = header(3);
    need(size);
    std::string out(p_, static_cast<std::size_t>(size));
    p_ += size;
    return out;
  }
  std::string_view bytes() {
    const std::uint64_t size = header(2);
    need(size);
    std::string_view out(p_, static_cast<std::size_t>(size));
    p_ += size;
    return out;
  }
  std::uint64_t unsignedInt() { return header(0); }
  std::uint32_t u32() {
    const std::uint64_t v = unsignedInt();
    if (v > 0xffffffffu) fail("number out of range");
    return static_cast<std::uint32_t>(v);
  }
  std::int64_t signedInt() {
    need(1);
    const auto major = static_cast<unsigned char>(*p_) >> 5;
    if (major == 0) {
      const std::uint64_t v = header(0);
      if (v > static_cast<std::uint64_t>(INT64_MAX)) fail("number out of range");
      return static_cast<std::int64_t>(v);
    }
    const std::uint64_t v = header(1);
    if (v > static_cast<std::uint64_t>(INT64_MAX)) fail("number out of range");
    return -1 - static_cast<std::int64_t>(v);
  }
  bool boolean() {
    need(1);
    const auto b = static_cast<unsigned char>(*p_++);
    if (b == 0xf4) return false;
    if (b == 0xf5) return true;
    fail("expected a boolean");
  }
  /// A number as a double: the library writes a double as a float when that is exact.
  double real() {
    need(1);
    const auto b = static_cast<unsigned char>(*p_);
    if (b >> 5 == 0 || b >> 5 == 1) return static_cast<double>(signedInt());
    ++p_;
    if (b == 0xfa) {
      const std::uint32_t bits = static_cast<std::uint32_t>(big(4));
      float f;
      std::memcpy(&f, &bits, sizeof f);
      return f;
    }
    if (b == 0xfb) {
      const std::uint64_t bits = big(8);
      double d;
      std::memcpy(&d, &bits, sizeof d);
      return d;
    }
    if (b == 0xf9) return half(static_cast<std::uint16_t>(big(2)));
    fail("expected a number");
  }

 private:
  [[noreturn]] static void fail(const std::string& what) { throw std::out_of_range(what); }
  void need(std::uint64_t n) const {
    if (n > static_cast<std::uint64_t>(end_ - p_)) fail("entry truncated");
  }
  std::uint64_t big(int n) {
    need(static_cast<std::uint64_t>(n));
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(*p_++);
    return v;
  }
  /// The argument of an item of major type `major` (a length or a value).
  std::uint64_t header(unsigned major) {
    need(1);
    const auto b = static_cast<unsigned char>(*p_++);
    if (b >> 5 != major)
      fail("unexpected item type " + std::to_string(b >> 5) + ", expected " + std::to_string(major));
    const unsigned info = b & 0x1f;
    if (info < 24) return info;
    if (info == 24) return big(1);
    if (info == 25) return big(2);
    if (info == 26) return big(4);
    if (info == 27) return big(8);
    fail("indefinite or reserved length");
  }
  static double half(std::uint16_t h) {
    const int exp = (h >> 10) & 0x1f;
    const int mant = h & 0x3ff;
    double v = exp == 0    ? std::ldexp(mant, -24)
               : exp != 31 ? std::ldexp(mant + 1024, exp - 25)
               : mant == 0 ? std::numeric_limits<double>::infinity()
                           : std::numeric_limits<double>::quiet_NaN();
    return (h & 0x8000) ? -v : v;
  }

  const char* p_;
  const char* end_;
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
