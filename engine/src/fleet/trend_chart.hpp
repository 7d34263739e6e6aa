#pragma once
/// The dashboard's trend charts: one value per night and series, as inline SVG (no scripts, no
/// external references), nights on the x axis by date, sized by its viewBox so that it fits a
/// phone as well as a laptop.

#include <string>
#include <vector>

namespace migrate::fleet {

struct TrendSeries {
  std::string name;            ///< legend text
  std::string colour;          ///< CSS colour
  std::vector<double> values;  ///< one per night, oldest first
};

/// `title` over the nights `labels` (oldest first): lines with a dot per night, or, with
/// `stacked`, one column per night with the series stacked. `role="img"` with a <title> and a
/// <desc> that states the latest values in words.
std::string trendChartSvg(const std::string& title, const std::string& unit,
                          const std::vector<std::string>& labels, const std::vector<TrendSeries>& series,
                          bool stacked);

}  // namespace migrate::fleet
