// Attribution's parts (verify/attribution.cpp): a file's line diff as hunks applied in part, and
// delta debugging to the smallest set of edits that still fails, within a budget.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "verify/attribution.hpp"

namespace migrate {
namespace {

const std::string kBefore = "import torch\n\ndef f(x):\n    return x.cuda()\n\ndef g():\n    return 'nccl'\n";
const std::string kAfter =
    "import npu_compat\nimport torch\n\ndef f(x):\n    return x.npu()\n\ndef g():\n    return 'hccl'\n";

TEST(VerifyAttribution, HunksApplyInPart) {
  const auto hunks = verify::lineHunks(kBefore, kAfter);
  ASSERT_EQ(hunks.size(), 3u);
  EXPECT_EQ(hunks[0].old_lines, 0) << "the added import is an insertion";
  EXPECT_EQ(verify::applyHunks(kBefore, kAfter, hunks, {0, 1, 2}), kAfter);
  EXPECT_EQ(verify::applyHunks(kBefore, kAfter, hunks, {}), kBefore);
  EXPECT_EQ(verify::applyHunks(kBefore, kAfter, hunks, {1}),
            "import torch\n\ndef f(x):\n    return x.npu()\n\ndef g():\n    return 'nccl'\n");
  EXPECT_EQ(
      verify::applyHunks(kBefore, kAfter, hunks, {0, 2}),
      "import npu_compat\nimport torch\n\ndef f(x):\n    return x.cuda()\n\ndef g():\n    return 'hccl'\n");
}

TEST(VerifyAttribution, DeltaDebuggingFindsTheSmallestFailingSet) {
  int calls = 0;
  bool complete = false;
  auto failsWith = [&](std::set<std::size_t> culprits) {
    return [&calls, culprits](const std::vector<std::size_t>& chosen) -> std::optional<bool> {
      ++calls;
      std::size_t hit = 0;
      for (std::size_t i : chosen) hit += culprits.count(i);
      return hit == culprits.size();
    };
  };
  EXPECT_EQ(verify::minimalFailingSet(16, failsWith({11}), complete), std::vector<std::size_t>{11});
  EXPECT_TRUE(complete);
  EXPECT_LE(calls, 12) << "one culprit among 16 in a few halvings";
  calls = 0;
  EXPECT_EQ(verify::minimalFailingSet(8, failsWith({2, 5}), complete), (std::vector<std::size_t>{2, 5}));
  EXPECT_TRUE(complete);
  // A budget of three trials stops the search early, with what it has.
  int left = 3;
  const auto partial = verify::minimalFailingSet(
      64,
      [&](const std::vector<std::size_t>& chosen) -> std::optional<bool> {
        if (left-- == 0) return std::nullopt;
        return std::find(chosen.begin(), chosen.end(), 40) != chosen.end();
      },
      complete);
  EXPECT_FALSE(complete);
  EXPECT_NE(std::find(partial.begin(), partial.end(), 40), partial.end());
  EXPECT_LT(partial.size(), 64u);
}

}  // namespace
}  // namespace migrate
