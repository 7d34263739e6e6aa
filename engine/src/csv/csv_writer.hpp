#pragma once
/// CSV tables as RFC 4180 says: fields with a comma, quote, CR or LF (or edge spaces) quoted by
/// libcsv, rows ending in CRLF, UTF-8 as given. Used by `fleet status --format csv` and by the
/// tables of every run (outputs/csv_tables).

#include <csv.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

namespace migrate {

class CsvWriter {
 public:
  void field(std::string_view value) {
    if (!first_) out_ += ',';
    first_ = false;
    const bool quote = std::any_of(value.begin(), value.end(),
                                   [](char c) { return c == ',' || c == '"' || c == '\r' || c == '\n'; }) ||
                       (!value.empty() && (value.front() == ' ' || value.back() == ' '));
    if (!quote) {
      out_ += value;
      return;
    }
    // libcsv quotes into the end of the table: at most two bytes per byte and the two quotes.
    const std::size_t at = out_.size();
    out_.resize(at + 2 * value.size() + 2);
    out_.resize(at + csv_write(out_.data() + at, out_.size() - at, value.data(), value.size()));
  }
  void field(std::int64_t value) { field(std::to_string(value)); }
  void endRow() {
    out_ += "\r\n";
    first_ = true;
  }
  /// A header or data row at once.
  template <typename... Fields>
  void row(const Fields&... fields) {
    (field(fields), ...);
    endRow();
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
  bool first_ = true;
};

}  // namespace migrate
