// The CSV tables' writer (RFC 4180 through libcsv), on values that would break a naive one.

#include <gtest/gtest.h>

#include <string>

#include "csv/csv_writer.hpp"

namespace migrate {
namespace {

TEST(CsvWriter, QuotesOnlyWhatNeedsItAndEndsRowsInCrlf) {
  CsvWriter csv;
  csv.row("plain", "a,b", "say \"hi\"", "two\nlines", " edge ", std::int64_t{-7}, "");
  csv.row("x");
  EXPECT_EQ(csv.take(), "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\" edge \",-7,\r\nx\r\n");
}

TEST(CsvWriter, KeepsUtf8AndCarriageReturnsAsTheyAre) {
  CsvWriter csv;
  csv.row("模型.py", "a\r\nb");
  EXPECT_EQ(csv.take(), "模型.py,\"a\r\nb\"\r\n");
}

TEST(CsvWriter, AFieldOfOnlyQuotesDoublesEveryOne) {
  // The most a field can grow: every byte doubled, and the two quotes around it.
  CsvWriter csv;
  csv.row(std::string(1000, '"'), "\"");
  EXPECT_EQ(csv.take(), "\"" + std::string(2000, '"') + "\",\"\"\"\"\r\n");
}

}  // namespace
}  // namespace migrate
