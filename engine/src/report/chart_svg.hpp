#pragma once
/// migration_chart.svg: horizontal stacked bar charts (findings per domain, effort per phase)
/// rendered as a self-contained SVG the report links to. No dependencies, no locale: the same
/// panels give the same bytes.

#include <string>
#include <vector>

namespace migrate::report {

/// One bar: its label and its stacked parts, drawn left to right in the order of the panel's
/// part names. Negative or non-finite parts are drawn as 0.
struct ChartBar {
  std::string label;
  std::vector<double> parts;
};

/// One chart: a titled group of bars on a common axis.
struct ChartPanel {
  std::string title;                    ///< e.g. "Findings per domain"
  std::string unit;                     ///< axis caption, e.g. "findings", "person-days"
  std::vector<std::string> part_names;  ///< legend, one per part; shown when there are two or more
  std::vector<ChartBar> bars;           ///< drawn top to bottom in this order
};

/// A self-contained SVG (no scripts, no external references) with the panels one under the other:
/// fixed width, height from the number of bars, `role="img"` with a <title> and a <desc> that
/// states every value in words.
std::string renderChartSvg(const std::string& title, const std::vector<ChartPanel>& panels);

/// A value as the chart prints it: integers without decimals, other values with one decimal
/// ("<0.1" for a positive value that would print as 0.0), independent of the locale.
std::string formatChartValue(double value);

}  // namespace migrate::report
