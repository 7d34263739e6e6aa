#include "report/chart_svg.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>

namespace migrate::report {
namespace {

// Layout, in px. The width is fixed so the report's image never reflows; the height follows
// the number of bars.
constexpr double kWidth = 760;
constexpr double kMargin = 16;
constexpr double kPlotLeft = 200;   // bar labels sit left of this, right-aligned
constexpr double kValueSpace = 72;  // room for the value printed after the longest bar
constexpr double kPlotWidth = kWidth - kMargin - kValueSpace - kPlotLeft;
constexpr double kRow = 26;  // one bar and its gap
constexpr double kBarHeight = 18;
constexpr double kLabelGap = 8;
constexpr double kFont = 12;
constexpr double kTickFont = 11;
constexpr double kTitleFont = 16;
constexpr double kPanelTitleFont = 14;
constexpr double kPanelGap = 18;

// Okabe–Ito colours ordered so that neighbouring parts also differ in lightness when printed
// in grey (blue ~34 %, orange ~64 %, vermillion ~47 %, ...).
constexpr std::array<std::string_view, 6> kPalette{"#0072B2", "#E69F00", "#D55E00",
                                                   "#56B4E9", "#009E73", "#F0E442"};
constexpr std::string_view kInk = "#222222";
constexpr std::string_view kMutedInk = "#555555";
constexpr std::string_view kGrid = "#D0D0D0";
constexpr std::string_view kAxis = "#888888";
constexpr std::string_view kFontFamily =
    "-apple-system, BlinkMacSystemFont, 'Segoe UI', Helvetica, Arial, sans-serif";

// ---- text: UTF-8 in, code points for measuring and cutting, escaped XML out ----

/// Decodes UTF-8; invalid or overlong sequences, surrogates and the non-characters XML forbids
/// become U+FFFD, control characters become spaces (labels are single lines).
std::u32string decodeText(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    char32_t cp = 0xFFFD;
    std::size_t len = 1;
    if (b0 < 0x80) {
      cp = b0;
    } else {
      const std::size_t need = b0 >= 0xF0 && b0 <= 0xF4  ? 4
                               : b0 >= 0xE0 && b0 < 0xF0 ? 3
                               : b0 >= 0xC2 && b0 < 0xE0 ? 2
                                                         : 0;
      if (need != 0 && i + need <= s.size()) {
        char32_t value = need == 2 ? b0 & 0x1F : need == 3 ? b0 & 0x0F : b0 & 0x07;
        bool valid = true;
        for (std::size_t k = 1; k < need; ++k) {
          const auto b = static_cast<unsigned char>(s[i + k]);
          if ((b & 0xC0) != 0x80) {
            valid = false;
            break;
          }
          value = (value << 6) | (b & 0x3F);
        }
        const char32_t min = need == 2 ? 0x80 : need == 3 ? 0x800 : 0x10000;
        if (valid && value >= min && value <= 0x10FFFF && !(value >= 0xD800 && value <= 0xDFFF)) {
          cp = value;
          len = need;
        }
      }
    }
    if (cp < 0x20 || cp == 0x7F) cp = U' ';
    if (cp == 0xFFFE || cp == 0xFFFF) cp = 0xFFFD;
    out.push_back(cp);
    i += len;
  }
  return out;
}

/// Escapes the five XML specials and encodes the code points as UTF-8.
std::string xmlText(std::u32string_view text) {
  std::string out;
  for (const char32_t c : text) {
    switch (c) {
      case U'&':
        out += "&amp;";
        break;
      case U'<':
        out += "&lt;";
        break;
      case U'>':
        out += "&gt;";
        break;
      case U'"':
        out += "&quot;";
        break;
      case U'\'':
        out += "&apos;";
        break;
      default:
        if (c < 0x80) {
          out += static_cast<char>(c);
        } else if (c < 0x800) {
          out += static_cast<char>(0xC0 | (c >> 6));
          out += static_cast<char>(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
          out += static_cast<char>(0xE0 | (c >> 12));
          out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (c & 0x3F));
        } else {
          out += static_cast<char>(0xF0 | (c >> 18));
          out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
          out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (c & 0x3F));
        }
    }
  }
  return out;
}

std::string xmlText(std::string_view utf8) {
  return xmlText(decodeText(utf8));
}

/// Estimated advance of one code point in ems: East Asian and emoji glyphs are about a full em,
/// Latin text in a sans-serif about 0.6 em on average.
double emWidth(char32_t c) {
  const bool wide = (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF) ||
                    (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
                    (c >= 0xFF00 && c <= 0xFF60) || c >= 0x1F300;
  return wide ? 1.0 : 0.6;
}

double textWidth(std::u32string_view text, double font_size) {
  double ems = 0;
  for (const char32_t c : text) ems += emWidth(c);
  return ems * font_size;
}

/// The text if it fits in `max_px`, else its longest prefix that fits with a trailing ellipsis.
std::u32string fitText(std::u32string text, double max_px, double font_size) {
  if (textWidth(text, font_size) <= max_px) return text;
  const double budget = max_px - emWidth(U'\u2026') * font_size;
  double used = 0;
  std::size_t keep = 0;
  while (keep < text.size() && used + emWidth(text[keep]) * font_size <= budget) {
    used += emWidth(text[keep]) * font_size;
    ++keep;
  }
  text.resize(keep);
  while (!text.empty() && text.back() == U' ') text.pop_back();
  return text + U'\u2026';
}

std::string fittedXml(std::string_view utf8, double max_px, double font_size) {
  return xmlText(fitText(decodeText(utf8), max_px, font_size));
}

// ---- numbers: fixed decimals through to_chars, which never consults the locale ----

std::string fixed(double value, int decimals) {
  std::array<char, 64> buf{};
  const auto res =
      std::to_chars(buf.data(), buf.data() + buf.size(), value, std::chars_format::fixed, decimals);
  std::string out = res.ec == std::errc() ? std::string(buf.data(), res.ptr) : std::string("0");
  if (out.starts_with('-') && out.find_first_not_of("-0.") == std::string::npos) out.erase(0, 1);
  return out;
}

/// A coordinate: two decimals at most, trailing zeros dropped.
std::string px(double value) {
  std::string out = fixed(value, 2);
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  return out;
}

bool isIntegral(double value) {
  return std::fabs(value - std::round(value)) <= 1e-9 * std::max(1.0, std::fabs(value));
}

double sanitized(double value) {
  return std::isfinite(value) && value > 0 ? value : 0.0;
}

/// The axis: a "nice" step (1, 2 or 5 times a power of ten, at least 1 for counts) and the
/// smallest multiple of it that holds the longest bar; never zero.
struct Axis {
  double step = 1;
  int ticks = 1;  // intervals; the axis ends at step * ticks
  int decimals = 0;
  double max() const { return step * ticks; }
};

Axis niceAxis(double max_total, bool integral) {
  Axis axis;
  if (max_total <= 0) return axis;
  const double raw = max_total / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / magnitude;
  axis.step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * magnitude;
  if (integral) axis.step = std::max(axis.step, 1.0);
  axis.ticks = std::max(1, static_cast<int>(std::ceil(max_total / axis.step - 1e-9)));
  axis.decimals = axis.step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(axis.step) - 1e-9));
  return axis;
}

// ---- panels ----

struct Row {
  std::string label;
  std::vector<double> parts;
  double total = 0;
};

std::string partName(const ChartPanel& panel, std::size_t k) {
  return k < panel.part_names.size() ? panel.part_names[k] : "part " + std::to_string(k + 1);
}

/// "attention: 12 findings (auto-fixed 3, remaining 9)", for tooltips, aria-labels and <desc>.
std::string describeRow(const ChartPanel& panel, const Row& row, std::size_t parts) {
  std::string out = row.label + ": " + formatChartValue(row.total);
  if (!panel.unit.empty()) out += " " + panel.unit;
  if (parts > 1) {
    out += " (";
    for (std::size_t k = 0; k < parts; ++k) {
      if (k > 0) out += ", ";
      out += partName(panel, k) + " " + formatChartValue(k < row.parts.size() ? row.parts[k] : 0.0);
    }
    out += ")";
  }
  return out;
}

std::string describePanel(const ChartPanel& panel, const std::vector<Row>& rows, std::size_t parts) {
  std::string out = panel.title + ": ";
  if (rows.empty()) return out + "no data.";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) out += "; ";
    out += describeRow(panel, rows[i], parts);
  }
  return out + ".";
}

std::vector<Row> rowsOf(const ChartPanel& panel) {
  std::vector<Row> rows;
  for (const ChartBar& bar : panel.bars) {
    Row row{bar.label, {}, 0};
    for (const double part : bar.parts) {
      row.parts.push_back(sanitized(part));
      row.total += row.parts.back();
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::size_t partCount(const ChartPanel& panel) {
  std::size_t parts = panel.part_names.size();
  for (const ChartBar& bar : panel.bars) parts = std::max(parts, bar.parts.size());
  return parts;
}

std::string_view colour(std::size_t part) {
  return kPalette[part % kPalette.size()];
}

/// Swatches and names in rows from the plot's left edge; returns the height used.
double renderLegend(const ChartPanel& panel, std::size_t parts, double y, std::string& out) {
  out += "<g class=\"legend\" aria-label=\"" + xmlText("Legend of " + panel.title) + "\">\n";
  const double right = kWidth - kMargin;
  double x = kPlotLeft;
  double top = y;
  for (std::size_t k = 0; k < parts; ++k) {
    const std::u32string name = fitText(decodeText(partName(panel, k)), 200, kFont);
    const double advance = 18 + textWidth(name, kFont) + 16;
    if (x > kPlotLeft && x + advance - 16 > right) {
      x = kPlotLeft;
      top += 20;
    }
    out += "<g class=\"legend-item\"><rect x=\"" + px(x) + "\" y=\"" + px(top + 2) +
           "\" width=\"12\" height=\"12\" fill=\"" + std::string(colour(k)) + "\"/><text x=\"" + px(x + 18) +
           "\" y=\"" + px(top + 12) + "\">" + xmlText(name) + "</text></g>\n";
    x += advance;
  }
  out += "</g>\n";
  return top + 20 - y;
}

void renderAxis(const ChartPanel& panel, const Axis& axis, double top, double bottom, std::string& out) {
  out += "<g class=\"axis\" aria-hidden=\"true\">\n";
  for (int i = 0; i <= axis.ticks; ++i) {
    const double x = kPlotLeft + kPlotWidth * i / axis.ticks;
    out += "<line x1=\"" + px(x) + "\" y1=\"" + px(top) + "\" x2=\"" + px(x) + "\" y2=\"" + px(bottom) +
           "\" stroke=\"" + std::string(kGrid) + "\" stroke-width=\"1\"/>\n";
    out += "<text class=\"tick\" x=\"" + px(x) + "\" y=\"" + px(bottom + 14) + "\" font-size=\"" +
           px(kTickFont) + "\" text-anchor=\"middle\" fill=\"" + std::string(kMutedInk) + "\">" +
           fixed(axis.step * i, axis.decimals) + "</text>\n";
  }
  out += "<line x1=\"" + px(kPlotLeft) + "\" y1=\"" + px(bottom) + "\" x2=\"" + px(kPlotLeft + kPlotWidth) +
         "\" y2=\"" + px(bottom) + "\" stroke=\"" + std::string(kAxis) + "\" stroke-width=\"1\"/>\n";
  if (!panel.unit.empty()) {
    out += "<text class=\"axis-caption\" x=\"" + px(kPlotLeft + kPlotWidth / 2) + "\" y=\"" +
           px(bottom + 31) + "\" text-anchor=\"middle\" fill=\"" + std::string(kMutedInk) + "\">" +
           fittedXml(panel.unit, kPlotWidth, kFont) + "</text>\n";
  }
  out += "</g>\n";
}

void renderBar(const ChartPanel& panel, const Row& row, std::size_t parts, const Axis& axis, double top,
               std::string& out) {
  const std::string description = describeRow(panel, row, parts);
  out += "<g class=\"bar\" aria-label=\"" + xmlText(description) + "\">\n<title>" + xmlText(description) +
         "</title>\n";
  const double baseline = top + kBarHeight / 2 + kFont * 0.35;
  out += "<text class=\"label\" x=\"" + px(kPlotLeft - kLabelGap) + "\" y=\"" + px(baseline) +
         "\" text-anchor=\"end\" fill=\"" + std::string(kInk) + "\">" +
         fittedXml(row.label, kPlotLeft - kMargin - kLabelGap, kFont) + "</text>\n";
  double x = kPlotLeft;
  for (std::size_t k = 0; k < row.parts.size(); ++k) {
    const double value = row.parts[k];
    if (value <= 0) continue;
    // Proportional, but a positive part never shrinks below one pixel next to a huge one.
    const double width = std::max(1.0, value / axis.max() * kPlotWidth);
    out += "<rect class=\"part part-" + std::to_string(k) + "\" x=\"" + px(x) + "\" y=\"" + px(top) +
           "\" width=\"" + px(width) + "\" height=\"" + px(kBarHeight) + "\" fill=\"" +
           std::string(colour(k)) + "\"><title>" +
           xmlText(partName(panel, k) + ": " + formatChartValue(value)) + "</title></rect>\n";
    x += width;
  }
  out += "<text class=\"value\" x=\"" + px(x + 6) + "\" y=\"" + px(baseline) + "\" fill=\"" +
         std::string(kInk) + "\">" + xmlText(formatChartValue(row.total)) + "</text>\n</g>\n";
}

/// One panel from `y` down; returns the height used.
double renderPanel(const ChartPanel& panel, double y, std::string& out) {
  const std::vector<Row> rows = rowsOf(panel);
  const std::size_t parts = partCount(panel);
  const double start = y;
  std::string label = panel.title;
  if (!panel.unit.empty()) label += " (" + panel.unit + ")";
  out += "<g class=\"panel\" role=\"group\" aria-label=\"" + xmlText(label) + "\">\n";
  out += "<text class=\"panel-title\" x=\"" + px(kMargin) + "\" y=\"" + px(y + kPanelTitleFont) +
         "\" font-size=\"" + px(kPanelTitleFont) + "\" font-weight=\"bold\" fill=\"" + std::string(kInk) +
         "\">" + fittedXml(panel.title, kWidth - 2 * kMargin, kPanelTitleFont) + "</text>\n";
  y += kPanelTitleFont + 10;
  if (panel.part_names.size() > 1) y += renderLegend(panel, parts, y, out) + 4;
  if (rows.empty()) {
    out += "<text class=\"no-data\" x=\"" + px(kPlotLeft) + "\" y=\"" + px(y + 16) +
           "\" font-style=\"italic\" fill=\"" + std::string(kMutedInk) + "\">no data</text>\n</g>\n";
    return y + 28 - start;
  }
  double max_total = 0;
  bool integral = true;
  for (const Row& row : rows) {
    max_total = std::max(max_total, row.total);
    for (const double part : row.parts) integral = integral && isIntegral(part);
  }
  const Axis axis = niceAxis(max_total, integral);
  const double bottom = y + kRow * static_cast<double>(rows.size());
  renderAxis(panel, axis, y, bottom, out);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    renderBar(panel, rows[i], parts, axis, y + kRow * static_cast<double>(i) + (kRow - kBarHeight) / 2, out);
  }
  out += "</g>\n";
  return bottom + (panel.unit.empty() ? 22 : 40) - start;
}

}  // namespace

std::string formatChartValue(double value) {
  if (!std::isfinite(value)) return "0";
  if (isIntegral(value)) {
    const double rounded = std::round(value);
    if (std::fabs(rounded) < 9e15) {
      std::array<char, 32> buf{};
      const auto res = std::to_chars(buf.data(), buf.data() + buf.size(), static_cast<std::int64_t>(rounded));
      return std::string(buf.data(), res.ptr);
    }
    return fixed(rounded, 0);
  }
  // Halves round away from zero (4.25 -> 4.3), as a reader rounds, not to even as printf does.
  std::string out = fixed(std::round(value * 10) / 10, 1);
  if (out == "0.0" && value > 0) return "<0.1";
  return out;
}

std::string renderChartSvg(const std::string& title, const std::vector<ChartPanel>& panels) {
  std::string body;
  std::string description;
  double y = kMargin;
  body += "<text class=\"chart-title\" x=\"" + px(kMargin) + "\" y=\"" + px(y + kTitleFont) +
          "\" font-size=\"" + px(kTitleFont) + "\" font-weight=\"bold\" fill=\"" + std::string(kInk) +
          "\" aria-hidden=\"true\">" + fittedXml(title, kWidth - 2 * kMargin, kTitleFont) + "</text>\n";
  y += kTitleFont + 14;
  if (panels.empty()) {
    body += "<text class=\"no-data\" x=\"" + px(kMargin) + "\" y=\"" + px(y + 16) +
            "\" font-style=\"italic\" fill=\"" + std::string(kMutedInk) + "\">no data</text>\n";
    y += 28;
    description = "No data.";
  }
  for (std::size_t i = 0; i < panels.size(); ++i) {
    if (i > 0) y += kPanelGap;
    y += renderPanel(panels[i], y, body);
    if (i > 0) description += " ";
    description += describePanel(panels[i], rowsOf(panels[i]), partCount(panels[i]));
  }
  const std::string height = px(std::ceil(y + kMargin / 2));
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + px(kWidth) + "\" height=\"" + height +
         "\" viewBox=\"0 0 " + px(kWidth) + " " + height +
         "\" role=\"img\" aria-labelledby=\"chart-title chart-desc\" font-family=\"" +
         std::string(kFontFamily) + "\" font-size=\"" + px(kFont) + "\">\n";
  out += "<title id=\"chart-title\">" + xmlText(title) + "</title>\n";
  out += "<desc id=\"chart-desc\">" + xmlText(description) + "</desc>\n";
  out += "<rect class=\"background\" x=\"0\" y=\"0\" width=\"" + px(kWidth) + "\" height=\"" + height +
         "\" fill=\"#FFFFFF\"/>\n";
  out += body;
  out += "</svg>\n";
  return out;
}

}  // namespace migrate::report
