#pragma once
/// CSV tables as RFC 4180 says: fields with a comma, quote, CR or LF (or edge spaces) quoted by
/// libcsv, rows ending in CRLF, UTF-8 as given. Used by `fleet status --format csv` and by the
/// tables of every run (outputs/csv_tables).

#include <csv.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace migrate {

class CsvWriter {
 public:
  void field(std::string_view value) {
    if (!first_) out_ += ',';
    first_ = false;
    const bool quote = value.find_first_of(",\"\r\n") != std::string_view::npos ||
                       (!value.empty() && (value.front() == ' ' || value.back() == ' '));
    if (!quote) {
      out_ += value;
      return;
    }
    const std::size_t size = csv_write(nullptr, 0, value.data(), value.size());
    std::string quoted(size, '\0');
    csv_write(quoted.data(), quoted.size(), value.data(), value.size());
    out_ += quoted;
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
