#pragma once
/// Condensing a parsed Python file into what the plan stage needs (taken on the analysis worker,
/// so the syntax tree and the full fact lists can be dropped right after).

#include <algorithm>
#include <string_view>

#include "migrate/engine/plan.hpp"
#include "migrate/sdk/module.hpp"

namespace migrate {

ModuleSummary summarizeModule(const sdk::Module& module, std::uint64_t lines);

/// Lines of a text: its newlines, plus one for an unterminated last line.
inline std::uint64_t countLines(std::string_view text) {
  const auto n = static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n'));
  return (!text.empty() && text.back() != '\n') ? n + 1 : n;
}

}  // namespace migrate
