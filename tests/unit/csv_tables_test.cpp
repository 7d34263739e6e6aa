// The run's CSV tables (outputs/csv_tables; docs/findings.md#csv-tables) written from a model:
// unsupported_apis.csv holds the findings of the rules whose API has no NPU counterpart, in
// findings.json's order, each field quoted as RFC 4180 says however hostile the names.

#include <gtest/gtest.h>

#include "outputs/csv_tables.hpp"
#include "support/test_support.hpp"

namespace migrate {
namespace {

using test::readFile;
using test::TempDir;

sdk::Finding finding(const std::string& rule, const std::string& file, std::uint32_t line,
                     std::uint32_t column, const std::string& written, const std::string& resolved,
                     const std::string& message) {
  sdk::Finding f;
  f.rule_id = rule;
  f.domain = rule.rfind("DEV-", 0) == 0 ? "device" : "acme_runtime";
  f.file = file;
  f.range.line = line;
  f.range.column = column;
  f.range.end_line = line;
  f.range.end_column = column + 1;
  f.api = written;
  f.resolved_api = resolved;
  f.message = message;
  f.npu_alternative = "rewrite, \"or\" remove";
  f.severity = sdk::Severity::Error;
  return f;
}

RuleRecord rule(const std::string& id, bool no_npu_counterpart) {
  RuleRecord r;
  r.plugin = "device";
  r.info.id = id;
  r.no_npu_counterpart = no_npu_counterpart;
  return r;
}

TEST(CsvTables, UnsupportedApisHoldTheFindingsOfRulesWithoutAnNpuCounterpart) {
  MigrationModel m;
  m.rules = {rule("ACME-002", true), rule("DEV-001", false), rule("DEV-012", true)};
  const std::string hostile = "a,b \"q\"\nc.py";
  m.findings = {
      finding("DEV-012", hostile, 3, 1, "tc.comm.scatter", "torch.cuda.comm.scatter",
              "torch.cuda.comm.scatter has no \"torch_npu\" counterpart, at all"),
      finding("DEV-001", hostile, 4, 1, "torch.cuda.synchronize", "torch.cuda.synchronize", "supported"),
      finding("ACME-002", "模型.py", 1, 8, "acme_profiler", "", "CUDA only"),
      finding("DEV-012", "z.py", 9, 5, " torch.cuda.comm.gather", "", "line one\r\nline two"),
  };
  TempDir out;
  ASSERT_TRUE(outputs::writeCsvTables(m, out.path()).ok());
  EXPECT_EQ(readFile(out / "unsupported_apis.csv"),
            "api,written,rule_id,domain,severity,file,line,column,message,npu_alternative\r\n"
            "torch.cuda.comm.scatter,tc.comm.scatter,DEV-012,device,error,\"a,b \"\"q\"\"\nc.py\",3,1,"
            "\"torch.cuda.comm.scatter has no \"\"torch_npu\"\" counterpart, at all\",\"rewrite, \"\"or\"\" "
            "remove\"\r\n"
            "acme_profiler,acme_profiler,ACME-002,acme_runtime,error,模型.py,1,8,CUDA only,"
            "\"rewrite, \"\"or\"\" remove\"\r\n"
            "\" torch.cuda.comm.gather\",\" torch.cuda.comm.gather\",DEV-012,device,error,z.py,9,5,"
            "\"line one\r\nline two\",\"rewrite, \"\"or\"\" remove\"\r\n");
  // findings.csv still has every finding.
  const std::string all = readFile(out / "findings.csv");
  EXPECT_NE(all.find("DEV-001"), std::string::npos) << all;
}

TEST(CsvTables, UnsupportedApisIsAHeaderWhenNoRuleLacksACounterpart) {
  MigrationModel m;
  m.rules = {rule("DEV-001", false)};
  m.findings = {finding("DEV-001", "x.py", 1, 1, "torch.cuda.synchronize", "torch.cuda.synchronize", "m")};
  TempDir out;
  ASSERT_TRUE(outputs::writeCsvTables(m, out.path()).ok());
  EXPECT_EQ(readFile(out / "unsupported_apis.csv"),
            "api,written,rule_id,domain,severity,file,line,column,message,npu_alternative\r\n");
}

}  // namespace
}  // namespace migrate
