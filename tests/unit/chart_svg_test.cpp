// The report's SVG chart: every rendering is parsed by Python's xml.etree.ElementTree in a child
// process, which reports the drawn geometry back as JSON for the assertions.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <locale>
#include <nlohmann/json.hpp>

#include "report/chart_svg.hpp"
#include "support/test_support.hpp"

namespace migrate {
namespace {

using nlohmann::json;
using report::ChartBar;
using report::ChartPanel;
using report::renderChartSvg;

// Reads the SVG with a real XML parser (a malformed file makes it exit non-zero) and writes what
// was drawn: the root's attributes, every element and attribute name, and per panel its legend,
// ticks and bars with their rectangles.
constexpr const char* kInspector = R"PY(
import json, sys
import xml.etree.ElementTree as ET

SVG = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()

def classes(el):
    return el.get('class', '').split()

def text(el):
    return ''.join(el.itertext())

def first(el, cls):
    for e in el.iter():
        if cls in classes(e):
            return e
    return None

def num(el, name):
    return float(el.get(name))

panels = []
for g in root.iter(SVG + 'g'):
    if 'panel' not in classes(g):
        continue
    bars = []
    for b in g.iter(SVG + 'g'):
        if 'bar' not in classes(b):
            continue
        value = first(b, 'value')
        bars.append({
            'aria_label': b.get('aria-label'),
            'tooltip': text(b.find(SVG + 'title')),
            'label': text(first(b, 'label')),
            'value': text(value),
            'value_x': num(value, 'x'),
            'parts': [{'class': r.get('class'), 'x': num(r, 'x'), 'y': num(r, 'y'),
                       'width': num(r, 'width'), 'height': num(r, 'height'), 'fill': r.get('fill'),
                       'tooltip': text(r.find(SVG + 'title'))}
                      for r in b.iter(SVG + 'rect')],
        })
    panels.append({
        'aria_label': g.get('aria-label'),
        'role': g.get('role'),
        'title': text(first(g, 'panel-title')),
        'no_data': [text(e) for e in g.iter() if 'no-data' in classes(e)],
        'legend': [text(e) for e in g.iter() if 'legend-item' in classes(e)],
        'legend_fills': [e.find(SVG + 'rect').get('fill') for e in g.iter() if 'legend-item' in classes(e)],
        'ticks': [{'x': num(e, 'x'), 'label': text(e)} for e in g.iter() if 'tick' in classes(e)],
        'caption': [text(e) for e in g.iter() if 'axis-caption' in classes(e)],
        'bars': bars,
    })

out = {
    'tag': root.tag,
    'attrib': dict(root.attrib),
    'title': text(root.find(SVG + 'title')),
    'title_id': root.find(SVG + 'title').get('id'),
    'desc': text(root.find(SVG + 'desc')),
    'desc_id': root.find(SVG + 'desc').get('id'),
    'tags': sorted({e.tag for e in root.iter()}),
    'attribute_names': sorted({a for e in root.iter() for a in e.attrib}),
    'panels': panels,
}
with open(sys.argv[2], 'w', encoding='utf-8') as f:
    json.dump(out, f, ensure_ascii=False)
)PY";

/// The parser's view of `svg`; null (and a test failure) when python could not read it.
json inspect(const std::string& svg) {
  test::TempDir dir;
  test::writeFile(dir / "inspect.py", kInspector);
  test::writeFile(dir / "chart.svg", svg);
  const auto result =
      test::run("/usr/bin/python3 " + test::quote((dir / "inspect.py").string()) + " " +
                test::quote((dir / "chart.svg").string()) + " " + test::quote((dir / "view.json").string()));
  if (result.exit_code != 0) {
    ADD_FAILURE() << "the XML parser rejected the chart:\n" << result.output << "\n--- svg ---\n" << svg;
    return nullptr;
  }
  return json::parse(test::readFile(dir / "view.json"));
}

ChartPanel findingsPanel() {
  return {"Findings per domain",
          "findings",
          {"auto-fixed", "remaining"},
          {{"attention", {3, 9}}, {"device", {0, 4}}, {"deps", {7, 0}}, {"custom_ops", {2, 31}}}};
}

ChartPanel effortPanel() {
  return {"Effort per phase",
          "person-days",
          {"effort"},
          {{"environment", {1.5}}, {"function", {4.25}}, {"precision", {2}}, {"performance", {0.75}}}};
}

/// The axis as drawn: x of the zero tick, px per unit (from the first and last tick), the step.
struct DrawnAxis {
  double origin = 0;
  double scale = 0;
  double step = 0;
  double max = 0;
};

DrawnAxis drawnAxis(const json& panel) {
  const auto& ticks = panel["ticks"];
  EXPECT_GE(ticks.size(), 2u);
  if (ticks.size() < 2) return {};
  const double first = std::stod(ticks.front()["label"].get<std::string>());
  const double last = std::stod(ticks.back()["label"].get<std::string>());
  EXPECT_EQ(first, 0.0);
  const double span = ticks.back()["x"].get<double>() - ticks.front()["x"].get<double>();
  return {ticks.front()["x"].get<double>(), span / last, last / static_cast<double>(ticks.size() - 1), last};
}

double barWidth(const json& bar) {
  double width = 0;
  for (const auto& part : bar["parts"]) width += part["width"].get<double>();
  return width;
}

TEST(ChartSvg, IsWellFormedSelfContainedAndAccessible) {
  const std::string svg = renderChartSvg("Migration overview", {findingsPanel(), effortPanel()});
  const json view = inspect(svg);
  ASSERT_FALSE(view.is_null());
  EXPECT_EQ(view["tag"], "{http://www.w3.org/2000/svg}svg");
  const auto& root = view["attrib"];
  EXPECT_EQ(root["role"], "img");
  EXPECT_EQ(root["width"], "760");
  EXPECT_EQ(root["viewBox"], "0 0 760 " + root["height"].get<std::string>());
  EXPECT_EQ(root["aria-labelledby"],
            view["title_id"].get<std::string>() + " " + view["desc_id"].get<std::string>());
  const std::string font = root["font-family"];
  EXPECT_TRUE(font.ends_with("sans-serif")) << font;
  EXPECT_EQ(view["title"], "Migration overview");
  const std::string desc = view["desc"];
  EXPECT_NE(desc.find("attention: 12 findings (auto-fixed 3, remaining 9)"), std::string::npos) << desc;
  EXPECT_NE(desc.find("function: 4.3 person-days"), std::string::npos) << desc;

  // Nothing that runs or loads anything.
  for (const std::string tag : {"script", "foreignObject", "image", "use", "style", "a"}) {
    const auto& tags = view["tags"];
    EXPECT_EQ(std::find(tags.begin(), tags.end(), "{http://www.w3.org/2000/svg}" + tag), tags.end()) << tag;
  }
  for (const auto& name : view["attribute_names"]) {
    const std::string attribute = name;
    EXPECT_EQ(attribute.find("href"), std::string::npos) << attribute;
    EXPECT_FALSE(attribute.starts_with("on")) << attribute;
  }
  EXPECT_EQ(svg.find("url("), std::string::npos);
  EXPECT_EQ(svg.find("@import"), std::string::npos);

  ASSERT_EQ(view["panels"].size(), 2u);
  const auto& findings = view["panels"][0];
  EXPECT_EQ(findings["role"], "group");
  EXPECT_EQ(findings["title"], "Findings per domain");
  EXPECT_EQ(findings["aria_label"], "Findings per domain (findings)");
  EXPECT_EQ(findings["legend"], json::array({"auto-fixed", "remaining"}));
  EXPECT_EQ(findings["caption"], json::array({"findings"}));
  ASSERT_EQ(findings["bars"].size(), 4u);
  EXPECT_EQ(findings["bars"][0]["aria_label"], "attention: 12 findings (auto-fixed 3, remaining 9)");
  EXPECT_EQ(findings["bars"][3]["label"], "custom_ops");
  const auto& effort = view["panels"][1];
  EXPECT_TRUE(effort["legend"].empty()) << "one part needs no legend";
  EXPECT_EQ(effort["caption"], json::array({"person-days"}));
  ASSERT_EQ(effort["bars"].size(), 4u);
  EXPECT_EQ(effort["bars"][0]["aria_label"], "environment: 1.5 person-days");
}

TEST(ChartSvg, BarWidthsAreProportionalToTheTotalsOnANiceAxis) {
  for (const ChartPanel& panel : {findingsPanel(), effortPanel()}) {
    const json view = inspect(renderChartSvg("t", {panel}));
    ASSERT_FALSE(view.is_null());
    const auto& drawn = view["panels"][0];
    const DrawnAxis axis = drawnAxis(drawn);
    ASSERT_GT(axis.scale, 0);
    // Nice step: 1, 2 or 5 times a power of ten, and the axis just holds the longest bar.
    const double mantissa = axis.step / std::pow(10.0, std::floor(std::log10(axis.step) + 1e-9));
    EXPECT_TRUE(std::fabs(mantissa - 1) < 1e-9 || std::fabs(mantissa - 2) < 1e-9 ||
                std::fabs(mantissa - 5) < 1e-9)
        << "step " << axis.step;
    double max_total = 0;
    ASSERT_EQ(drawn["bars"].size(), panel.bars.size());
    for (std::size_t i = 0; i < panel.bars.size(); ++i) {
      double total = 0;
      for (const double part : panel.bars[i].parts) total += part;
      max_total = std::max(max_total, total);
      const auto& bar = drawn["bars"][i];
      EXPECT_NEAR(barWidth(bar), total * axis.scale, 0.5) << panel.bars[i].label;
      std::size_t drawn_part = 0;
      for (const double part : panel.bars[i].parts) {
        if (part <= 0) continue;
        ASSERT_LT(drawn_part, bar["parts"].size());
        EXPECT_NEAR(bar["parts"][drawn_part++]["width"].get<double>(), part * axis.scale, 0.5);
      }
      EXPECT_EQ(drawn_part, bar["parts"].size()) << "a zero part draws nothing";
    }
    EXPECT_GE(axis.max, max_total);
    EXPECT_LT(axis.max - max_total, axis.step);
  }
}

TEST(ChartSvg, StackedPartsAreAdjacentAndTheValueFollowsTheBar) {
  const json view = inspect(renderChartSvg("t", {findingsPanel()}));
  ASSERT_FALSE(view.is_null());
  const auto& panel = view["panels"][0];
  const DrawnAxis axis = drawnAxis(panel);
  for (const auto& bar : panel["bars"]) {
    const auto& parts = bar["parts"];
    ASSERT_FALSE(parts.empty());
    EXPECT_NEAR(parts[0]["x"].get<double>(), axis.origin, 0.01) << "bars start at zero";
    for (std::size_t k = 1; k < parts.size(); ++k) {
      EXPECT_NEAR(parts[k]["x"].get<double>(),
                  parts[k - 1]["x"].get<double>() + parts[k - 1]["width"].get<double>(), 0.01);
      EXPECT_EQ(parts[k]["y"], parts[0]["y"]);
      EXPECT_EQ(parts[k]["height"], parts[0]["height"]);
      EXPECT_NE(parts[k]["fill"], parts[k - 1]["fill"]);
    }
    const auto& last = parts.back();
    EXPECT_GT(bar["value_x"].get<double>(), last["x"].get<double>() + last["width"].get<double>());
  }
  // Each part keeps its colour across bars and matches its legend swatch.
  const auto& attention = panel["bars"][0]["parts"];
  EXPECT_EQ(attention[0]["fill"], panel["legend_fills"][0]);
  EXPECT_EQ(attention[1]["fill"], panel["legend_fills"][1]);
  EXPECT_EQ(panel["bars"][1]["parts"][0]["fill"], panel["legend_fills"][1]) << "device: only remaining";
  EXPECT_EQ(panel["bars"][2]["parts"][0]["fill"], panel["legend_fills"][0]) << "deps: only auto-fixed";
  EXPECT_EQ(attention[1]["tooltip"], "remaining: 9");
}

TEST(ChartSvg, ValuesArePrintedWithoutLocaleIntegersWithoutDecimals) {
  const json view = inspect(renderChartSvg("t", {findingsPanel(), effortPanel()}));
  ASSERT_FALSE(view.is_null());
  std::vector<std::string> values;
  for (const auto& panel : view["panels"]) {
    for (const auto& bar : panel["bars"]) values.push_back(bar["value"]);
  }
  EXPECT_EQ(values, (std::vector<std::string>{"12", "4", "7", "33", "1.5", "4.3", "2", "0.8"}));

  EXPECT_EQ(report::formatChartValue(2), "2");
  EXPECT_EQ(report::formatChartValue(0.1 + 0.2 + 2.7), "3");
  EXPECT_EQ(report::formatChartValue(1234567), "1234567");
  EXPECT_EQ(report::formatChartValue(2.34), "2.3");
  EXPECT_EQ(report::formatChartValue(0.04), "<0.1");
  EXPECT_EQ(report::formatChartValue(std::numeric_limits<double>::quiet_NaN()), "0");

  // A global C++ locale with a decimal comma and digit grouping changes nothing.
  struct CommaPunct : std::numpunct<char> {
    char do_decimal_point() const override { return ','; }
    char do_thousands_sep() const override { return '.'; }
    std::string do_grouping() const override { return "\3"; }
  };
  const std::string classic = renderChartSvg("t", {findingsPanel(), effortPanel()});
  const std::locale previous = std::locale::global(std::locale(std::locale::classic(), new CommaPunct));
  const std::string under_comma = renderChartSvg("t", {findingsPanel(), effortPanel()});
  const std::string formatted = report::formatChartValue(1234.5);
  std::locale::global(previous);
  EXPECT_EQ(under_comma, classic);
  EXPECT_EQ(formatted, "1234.5");
}

TEST(ChartSvg, LabelsAreEscapedAndRoundTrip) {
  const std::string tricky = "a<b> & \"c\" 'd'";
  ChartPanel panel{"Titles & <tags>", "\"units\"", {"fixed & done", "<left>"}, {{tricky, {1, 2}}}};
  const std::string svg = renderChartSvg("Chart \"quoted\" & <angled>", {panel});
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  EXPECT_EQ(svg.find("<left>"), std::string::npos);
  const json view = inspect(svg);
  ASSERT_FALSE(view.is_null());
  EXPECT_EQ(view["title"], "Chart \"quoted\" & <angled>");
  const auto& drawn = view["panels"][0];
  EXPECT_EQ(drawn["title"], "Titles & <tags>");
  EXPECT_EQ(drawn["caption"], json::array({"\"units\""}));
  EXPECT_EQ(drawn["legend"], json::array({"fixed & done", "<left>"}));
  ASSERT_EQ(drawn["bars"].size(), 1u);
  EXPECT_EQ(drawn["bars"][0]["label"], tricky);
  EXPECT_EQ(drawn["bars"][0]["tooltip"], tricky + ": 3 \"units\" (fixed & done 1, <left> 2)");
  EXPECT_EQ(drawn["bars"][0]["parts"][1]["tooltip"], "<left>: 2");
}

TEST(ChartSvg, LongLabelsAreCutWithAnEllipsisAndKeptWholeInTheTooltip) {
  const std::string long_label = "models/very_long_package_name/submodule/attention_kernels_fused.py";
  const json view =
      inspect(renderChartSvg("t", {{"p", "findings", {"n"}, {{long_label, {5}}, {"short", {2}}}}}));
  ASSERT_FALSE(view.is_null());
  const auto& bars = view["panels"][0]["bars"];
  const std::string shown = bars[0]["label"];
  ASSERT_TRUE(shown.ends_with("\u2026")) << shown;
  const std::string kept = shown.substr(0, shown.size() - std::string("\u2026").size());
  EXPECT_GT(kept.size(), 10u);
  EXPECT_LT(kept.size(), long_label.size());
  EXPECT_TRUE(long_label.starts_with(kept)) << shown;
  EXPECT_EQ(bars[0]["tooltip"], long_label + ": 5 findings");
  EXPECT_EQ(bars[1]["label"], "short") << "short labels stay whole";
}

TEST(ChartSvg, APanelWithoutBarsSaysNoData) {
  ChartPanel empty{"Effort per phase", "person-days", {"effort"}, {}};
  const json view = inspect(renderChartSvg("t", {findingsPanel(), empty}));
  ASSERT_FALSE(view.is_null());
  ASSERT_EQ(view["panels"].size(), 2u);
  EXPECT_TRUE(view["panels"][0]["no_data"].empty());
  EXPECT_EQ(view["panels"][0]["bars"].size(), 4u);
  const auto& drawn = view["panels"][1];
  EXPECT_EQ(drawn["title"], "Effort per phase");
  EXPECT_EQ(drawn["no_data"], json::array({"no data"}));
  EXPECT_TRUE(drawn["bars"].empty());
  EXPECT_TRUE(drawn["ticks"].empty());
  EXPECT_NE(view["desc"].get<std::string>().find("Effort per phase: no data."), std::string::npos);

  const json none = inspect(renderChartSvg("Nothing yet", {}));
  ASSERT_FALSE(none.is_null());
  EXPECT_EQ(none["title"], "Nothing yet");
  EXPECT_TRUE(none["panels"].empty());
}

TEST(ChartSvg, AllZeroTotalsDrawAnAxisAndNoBars) {
  ChartPanel zeros{
      "Findings per domain", "findings", {"auto-fixed", "remaining"}, {{"a", {0, 0}}, {"b", {0}}}};
  ChartPanel invalid{"Odd input",
                     "",
                     {"x"},
                     {{"negative", {-3}},
                      {"not a number", {std::nan("")}},
                      {"infinite", {std::numeric_limits<double>::infinity()}}}};
  const std::string svg = renderChartSvg("t", {zeros, invalid});
  for (const std::string bad : {"nan", "inf\"", "-0\"", "e+"})
    EXPECT_EQ(svg.find(bad), std::string::npos) << bad;
  const json view = inspect(svg);
  ASSERT_FALSE(view.is_null());
  for (const auto& panel : view["panels"]) {
    ASSERT_EQ(panel["ticks"].size(), 2u);
    EXPECT_EQ(panel["ticks"][0]["label"], "0");
    EXPECT_EQ(panel["ticks"][1]["label"], "1");
    EXPECT_GT(panel["ticks"][1]["x"].get<double>(), panel["ticks"][0]["x"].get<double>());
    for (const auto& bar : panel["bars"]) {
      EXPECT_TRUE(bar["parts"].empty()) << bar["label"];
      EXPECT_EQ(bar["value"], "0");
    }
  }
  EXPECT_TRUE(view["panels"][1]["caption"].empty()) << "no unit, no caption";
}

TEST(ChartSvg, TinyValuesStayVisibleNextToAHugeOne) {
  ChartPanel panel{
      "p",
      "findings",
      {"auto-fixed", "remaining"},
      {{"huge", {1e6}}, {"tiny", {0.001}}, {"one", {1}}, {"none", {0}}, {"stacked", {999000, 0.5}}}};
  const json view = inspect(renderChartSvg("t", {panel}));
  ASSERT_FALSE(view.is_null());
  const auto& drawn = view["panels"][0];
  const DrawnAxis axis = drawnAxis(drawn);
  const auto& bars = drawn["bars"];
  ASSERT_EQ(bars.size(), 5u);
  EXPECT_NEAR(barWidth(bars[0]), 1e6 * axis.scale, 0.5);
  EXPECT_EQ(bars[0]["value"], "1000000");
  for (int i : {1, 2}) {
    ASSERT_EQ(bars[i]["parts"].size(), 1u);
    EXPECT_GE(bars[i]["parts"][0]["width"].get<double>(), 1.0) << bars[i]["label"];
  }
  EXPECT_EQ(bars[1]["value"], "<0.1");
  EXPECT_TRUE(bars[3]["parts"].empty());
  const auto& stacked = bars[4]["parts"];
  ASSERT_EQ(stacked.size(), 2u);
  EXPECT_GE(stacked[1]["width"].get<double>(), 1.0);
  EXPECT_NEAR(stacked[1]["x"].get<double>(),
              stacked[0]["x"].get<double>() + stacked[0]["width"].get<double>(), 0.01);
  for (const auto& tick : drawn["ticks"]) {
    const std::string label = tick["label"];
    EXPECT_EQ(label.find_first_not_of("0123456789"), std::string::npos) << "plain digits: " << label;
  }
}

TEST(ChartSvg, SameInputGivesTheSameBytes) {
  const std::vector<ChartPanel> panels{findingsPanel(), effortPanel()};
  const std::string first = renderChartSvg("Migration overview", panels);
  EXPECT_EQ(renderChartSvg("Migration overview", panels), first);
  EXPECT_NE(renderChartSvg("Migration overview", {effortPanel(), findingsPanel()}), first)
      << "the panels' order is the drawing order";
}

TEST(ChartSvg, NonAsciiLabelsKeepTheirUtf8) {
  const std::string cjk = "注意力机制";
  const std::string umlaut = "Gerät – Überprüfung";
  const std::string emoji = "🚀 launch";
  const std::string long_cjk = "算子适配与精度验证以及性能调优的完整流程说明文档";
  ChartPanel panel{"Befunde je Domäne",
                   "Befunde",
                   {"behoben", "offen"},
                   {{cjk, {1, 2}}, {umlaut, {3, 0}}, {emoji, {0, 1}}, {long_cjk, {2, 2}}}};
  const std::string svg = renderChartSvg("Übersicht", {panel});
  EXPECT_NE(svg.find(cjk), std::string::npos) << "raw UTF-8, not character references";
  EXPECT_EQ(svg.find("&#"), std::string::npos);
  const json view = inspect(svg);
  ASSERT_FALSE(view.is_null());
  EXPECT_EQ(view["title"], "Übersicht");
  const auto& bars = view["panels"][0]["bars"];
  EXPECT_EQ(bars[0]["label"], cjk);
  EXPECT_EQ(bars[1]["label"], umlaut);
  EXPECT_EQ(bars[2]["label"], emoji);
  const std::string cut = bars[3]["label"];
  ASSERT_TRUE(cut.ends_with("\u2026")) << "wide glyphs count wider: " << cut;
  EXPECT_TRUE(long_cjk.starts_with(cut.substr(0, cut.size() - std::string("\u2026").size())))
      << "cut on a character boundary";
  EXPECT_EQ(bars[3]["tooltip"], long_cjk + ": 4 Befunde (behoben 2, offen 2)");
  EXPECT_EQ(view["panels"][0]["legend"], json::array({"behoben", "offen"}));
}

TEST(ChartSvg, BrokenUtf8AndControlCharactersStillMakeValidXml) {
  const std::string broken = std::string("bad\xff\xfe") + "byte\x01tab\tend" + "\xe6\xb3";
  const json view = inspect(renderChartSvg("t", {{"p", "", {"n"}, {{broken, {1}}}}}));
  ASSERT_FALSE(view.is_null());
  EXPECT_EQ(view["panels"][0]["bars"][0]["label"], "bad\uFFFD\uFFFDbyte tab end\uFFFD\uFFFD");
}

/// WCAG relative luminance of "#RRGGBB": what is left of a colour when printed in grey.
double luminance(const std::string& hex) {
  auto channel = [&](std::size_t at) {
    const double c = std::stoi(hex.substr(at, 2), nullptr, 16) / 255.0;
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

TEST(ChartSvg, NeighbouringPartsDifferInLightness) {
  ChartPanel panel{"p", "", {"a", "b", "c", "d", "e", "f"}, {{"all", {1, 1, 1, 1, 1, 1}}}};
  const json view = inspect(renderChartSvg("t", {panel}));
  ASSERT_FALSE(view.is_null());
  const auto& fills = view["panels"][0]["legend_fills"];
  ASSERT_EQ(fills.size(), 6u);
  for (std::size_t k = 1; k < fills.size(); ++k) {
    EXPECT_GE(std::fabs(luminance(fills[k]) - luminance(fills[k - 1])), 0.1)
        << fills[k - 1] << " next to " << fills[k] << " look alike in grey";
  }
  // The two parts every findings bar has are far apart.
  EXPECT_GE(std::fabs(luminance(fills[1]) - luminance(fills[0])), 0.2);
}

TEST(ChartSvg, HeightFollowsTheBarsWidthIsFixed) {
  auto withBars = [](int n) {
    ChartPanel panel{"p", "findings", {"n"}, {}};
    for (int i = 0; i < n; ++i) panel.bars.push_back({"bar " + std::to_string(i), {double(i)}});
    return inspect(renderChartSvg("t", {panel}));
  };
  const json three = withBars(3);
  const json ten = withBars(10);
  ASSERT_FALSE(three.is_null());
  ASSERT_FALSE(ten.is_null());
  EXPECT_EQ(three["attrib"]["width"], "760");
  EXPECT_EQ(ten["attrib"]["width"], "760");
  const double h3 = std::stod(three["attrib"]["height"].get<std::string>());
  const double h10 = std::stod(ten["attrib"]["height"].get<std::string>());
  EXPECT_GT(h10, h3 + 7 * 20);
  // Every bar lies inside the picture.
  for (const auto& bar : ten["panels"][0]["bars"]) {
    for (const auto& part : bar["parts"]) {
      EXPECT_LE(part["y"].get<double>() + part["height"].get<double>(), h10);
      EXPECT_LE(part["x"].get<double>() + part["width"].get<double>(), 760);
    }
  }
}

}  // namespace
}  // namespace migrate
