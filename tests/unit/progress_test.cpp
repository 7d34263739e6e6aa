// Progress as log lines (not a terminal): one line per tenth of the work reached.

#include <gtest/gtest.h>

#include "progress/progress.hpp"

namespace migrate {
namespace {

std::vector<std::string> logged(std::size_t total, std::size_t steps) {
  std::vector<std::string> lines;
  auto p = makeProgress(false, [&](const std::string& line) { lines.push_back(line); });
  p->begin("analyze", total);
  for (std::size_t i = 0; i < steps; ++i) p->step("f.py");
  p->end();
  return lines;
}

TEST(Progress, ALineAtEveryTenth) {
  const auto lines = logged(100, 100);
  ASSERT_EQ(lines.size(), 10u);
  EXPECT_EQ(lines.front(), "analyze: 10/100 (10%)");
  EXPECT_EQ(lines[4], "analyze: 50/100 (50%)");
  EXPECT_EQ(lines.back(), "analyze: 100/100 (100%)");
}

TEST(Progress, AStepCrossingSeveralTenthsWritesOneLine) {
  EXPECT_EQ(logged(2, 2), (std::vector<std::string>{"analyze: 1/2 (50%)", "analyze: 2/2 (100%)"}));
  EXPECT_EQ(logged(3, 1), (std::vector<std::string>{"analyze: 1/3 (30%)"}));
  EXPECT_TRUE(logged(0, 0).empty());
}

}  // namespace
}  // namespace migrate
