#include "fleet/trend_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "outputs/markup_text.hpp"

namespace migrate::fleet {
namespace {

constexpr double kWidth = 640;
constexpr double kHeight = 240;
constexpr double kLeft = 56;  // room for the y ticks
constexpr double kRight = 16;
constexpr double kTop = 40;     // the title and the legend
constexpr double kBottom = 44;  // the date labels
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kPlotHeight = kHeight - kTop - kBottom;

/// A round step so that about four ticks cover `max`.
double tickStep(double max) {
  if (max <= 0) return 1;
  const double raw = max / 4;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * magnitude) return m * magnitude;
  return 10 * magnitude;
}

std::string number(double v) {
  return std::fabs(v - std::round(v)) < 1e-9 ? fmt::format("{:.0f}", v) : fmt::format("{:.1f}", v);
}

}  // namespace

std::string trendChartSvg(const std::string& title, const std::string& unit,
                          const std::vector<std::string>& labels, const std::vector<TrendSeries>& series,
                          bool stacked) {
  const std::size_t n = labels.size();
  double max = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double column = 0;
    for (const TrendSeries& s : series) {
      const double v = i < s.values.size() && std::isfinite(s.values[i]) ? std::max(0.0, s.values[i]) : 0.0;
      column = stacked ? column + v : std::max(column, v);
    }
    max = std::max(max, column);
  }
  const double step = tickStep(max);
  const double top = std::max(step, std::ceil(max / step) * step);
  const auto y = [&](double v) { return kTop + kPlotHeight - v / top * kPlotHeight; };
  const double slot = n ? kPlotWidth / static_cast<double>(n) : kPlotWidth;
  const auto x = [&](std::size_t i) { return kLeft + slot * (static_cast<double>(i) + 0.5); };

  std::string desc;
  for (const TrendSeries& s : series)
    desc += fmt::format("{}{}: {}", desc.empty() ? "" : "; ", s.name,
                        s.values.empty() ? "none" : number(s.values.back()));
  std::string svg = fmt::format(
      "<svg class=\"chart\" role=\"img\" viewBox=\"0 0 {} {}\" xmlns=\"http://www.w3.org/2000/svg\">"
      "<title>{}</title><desc>{} in the latest night ({}): {}</desc>\n",
      kWidth, kHeight, outputs::escapeMarkup(title), outputs::escapeMarkup(title),
      n ? outputs::escapeMarkup(labels.back()) : "none", outputs::escapeMarkup(desc));
  svg += fmt::format("<text x=\"{}\" y=\"18\" class=\"chart-title\">{}</text>\n", kLeft,
                     outputs::escapeMarkup(title));
  double legend_x = kLeft;
  for (const TrendSeries& s : series) {
    svg += fmt::format(
        "<rect x=\"{:.1f}\" y=\"26\" width=\"10\" height=\"10\" fill=\"{}\"/>"
        "<text x=\"{:.1f}\" y=\"35\" class=\"legend\">{}</text>\n",
        legend_x, s.colour, legend_x + 14, outputs::escapeMarkup(s.name));
    legend_x += 24 + 7.0 * static_cast<double>(s.name.size());
  }
  for (double v = 0; v <= top + 1e-9; v += step) {
    svg += fmt::format(
        "<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" class=\"grid\"/>"
        "<text x=\"{}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{}</text>\n",
        kLeft, kWidth - kRight, y(v), y(v), kLeft - 6, y(v) + 4, number(v));
  }
  svg += fmt::format(
      "<text x=\"12\" y=\"{:.1f}\" class=\"tick\" transform=\"rotate(-90 12 {:.1f})\" "
      "text-anchor=\"middle\">{}</text>\n",
      kTop + kPlotHeight / 2, kTop + kPlotHeight / 2, outputs::escapeMarkup(unit));
  // Dates under the axis: all of them while they fit, else every k-th and the last.
  const std::size_t every =
      std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(n * 80.0 / kPlotWidth)));
  for (std::size_t i = 0; i < n; ++i) {
    if (i % every != 0 && i + 1 != n) continue;
    svg +=
        fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick date\" text-anchor=\"middle\">{}</text>\n",
                    x(i), kTop + kPlotHeight + 18, outputs::escapeMarkup(labels[i]));
  }
  if (stacked) {
    const double bar = std::min(40.0, slot * 0.6);
    for (std::size_t i = 0; i < n; ++i) {
      double base = 0;
      for (const TrendSeries& s : series) {
        const double v = i < s.values.size() && std::isfinite(s.values[i]) ? std::max(0.0, s.values[i]) : 0.0;
        if (v <= 0) continue;
        svg += fmt::format(
            "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
            "<title>{} {}: {}</title></rect>\n",
            x(i) - bar / 2, y(base + v), bar, y(base) - y(base + v), s.colour,
            outputs::escapeMarkup(labels[i]), outputs::escapeMarkup(s.name), number(v));
        base += v;
      }
    }
  } else {
    for (const TrendSeries& s : series) {
      std::string points;
      for (std::size_t i = 0; i < n && i < s.values.size(); ++i)
        points +=
            fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", x(i), y(std::max(0.0, s.values[i])));
      svg += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n", points,
                         s.colour);
      for (std::size_t i = 0; i < n && i < s.values.size(); ++i)
        svg += fmt::format(
            "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"><title>{} {}: {}</title></circle>\n",
            x(i), y(std::max(0.0, s.values[i])), s.colour, outputs::escapeMarkup(labels[i]),
            outputs::escapeMarkup(s.name), number(s.values[i]));
    }
  }
  svg += "</svg>";
  return svg;
}

}  // namespace migrate::fleet
