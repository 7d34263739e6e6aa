#pragma once
// Bottleneck ids ("#001", "#002", …) in numeric order, whatever their width.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <string>
#include <vector>

#include "migrate/sdk/plan.hpp"

namespace phase_matrix {

/// True when id `a` comes before id `b`: the shorter first ("#999" before "#1000"), then by text.
inline bool idBefore(const std::string& a, const std::string& b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

/// An effort in person-days as a sort key: efforts equal to six decimals sort as equal (0.1 + 0.2
/// and 0.3 tie), so the next key decides.
inline long long effortKey(double days) {
  return std::llround(days * 1e6);
}

/// Indices into `bottlenecks` in id order (equal ids keep their list order).
inline std::vector<std::size_t> idOrder(const std::vector<migrate::sdk::Bottleneck>& bottlenecks) {
  std::vector<std::size_t> order(bottlenecks.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return idBefore(bottlenecks[a].id, bottlenecks[b].id);
  });
  return order;
}

}  // namespace phase_matrix
