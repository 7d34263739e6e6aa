// triton_notes.md: per Triton kernel (OPS-021), what triton-ascend needs changed — unified-buffer
// sub-blocking, the grid limit, launch options it drops, APIs to rework — from the kernel's facts
// and the launch (OPS-023), autotune (OPS-022) and API (OPS-024…026) findings around it.

#include <algorithm>
#include <cstdlib>

#include "common.hpp"
#include "emit_custom_ops.hpp"

namespace custom_ops {
namespace {

constexpr long kUnifiedBufferBytes = 192 * 1024;

/// A first BLOCK_SIZE_SUB to try: the unified buffer shared by the block-sized tensors a kernel
/// loads and stores (as float32), halved for what the compiler keeps beside them, rounded down to
/// a power of two.
long subBlockEstimate(int tensors) {
  const long per_element = 4L * std::max(1, tensors);
  long elements = kUnifiedBufferBytes / per_element / 2;
  long power = 1;
  while (power * 2 <= elements) power *= 2;
  return std::clamp(power, 64L, 65536L);
}

int number(const std::string& text) {
  return text.empty() ? 0 : std::atoi(text.c_str());
}

bool inRange(const sdk::Finding& f, const std::string& file, std::uint32_t first, std::uint32_t last) {
  return f.file == file && f.range.line >= first && f.range.line <= last;
}

/// The kernel's lines from details.source (`path:30-41`), or just its line.
std::pair<std::uint32_t, std::uint32_t> linesOf(const sdk::Finding& f) {
  const std::string source = detailOf(f, "source");
  const std::size_t colon = source.rfind(':');
  const std::size_t dash = source.rfind('-');
  if (colon == std::string::npos || dash == std::string::npos || dash < colon)
    return {f.range.line, f.range.line};
  return {static_cast<std::uint32_t>(number(source.substr(colon + 1, dash - colon - 1))),
          static_cast<std::uint32_t>(number(source.substr(dash + 1)))};
}

/// The kernel's parameter list with what the sketch adds: the row count for a grid-stride loop
/// (unless the kernel has one) and BLOCK_SIZE_SUB.
std::string sketchSignature(const std::string& signature, bool add_rows, long sub_block) {
  if (signature.size() < 2 || signature.front() != '(' || signature.back() != ')') return {};
  std::string inner = signature.substr(1, signature.size() - 2);
  const bool defaults = inner.find('=') != std::string::npos;
  std::vector<std::string> extra;
  if (add_rows) extra.push_back(defaults ? "n_rows=0" : "n_rows");
  extra.push_back(defaults ? "BLOCK_SIZE_SUB: tl.constexpr = " + std::to_string(sub_block)
                           : "BLOCK_SIZE_SUB: tl.constexpr");
  return "(" + inner + (inner.empty() ? "" : ", ") + join(extra, ", ") + ")";
}

}  // namespace

std::size_t writeTritonNotes(sdk::EmitContext& context) {
  const std::vector<sdk::Finding>& findings = context.findings();
  std::vector<const sdk::Finding*> kernels;
  for (const sdk::Finding& f : findings)
    if (f.rule_id == "OPS-021" && (f.domain.empty() || f.domain == "custom_ops")) kernels.push_back(&f);
  if (kernels.empty()) return 0;

  sdk::TemplateData data;
  std::vector<bool> api_used(findings.size(), false);
  for (const sdk::Finding* k : kernels) {
    const sdk::Finding& f = *k;
    const std::string name = detailOf(f, "kernel").empty() ? f.api : detailOf(f, "kernel");
    const auto [first, last] = linesOf(f);
    sdk::TemplateData& item = data.addItem("kernels");
    item.set("name", name);
    item.set("file", f.file);
    item.set("line", std::to_string(f.range.line));
    item.set("source", detailOf(f, "source"));
    item.set("description", detailOf(f, "description"));
    item.set("signature", detailOf(f, "signature"));
    item.set("effort_days", formatDays(f.effort_days));
    item.set("category", detailOf(f, "category"));
    item.set("replacement_path", detailOf(f, "replacement_path"));
    item.set("features", detailOf(f, "features"));
    item.set("loads", detailOf(f, "loads"));
    item.set("stores", detailOf(f, "stores"));
    const int axes = number(detailOf(f, "grid_axes"));
    item.set("grid_axes_text",
             axes == 1 ? std::string("one grid axis") : std::to_string(axes) + " grid axes");
    const std::string features = detailOf(f, "features");
    const bool has = !detailOf(f, "block_params").empty();
    const bool dot = number(detailOf(f, "dots")) > 0;
    const bool grid_stride = features.find("grid_stride_loop") != std::string::npos;
    item.set("block_params", detailOf(f, "block_params"));
    item.setFlag("has_blocks", has);
    item.setFlag("has_dot", dot);
    item.setFlag("sub_blocking", has && !dot);
    item.setFlag("grid_stride", grid_stride);
    const std::string block =
        has ? detailOf(f, "block_params").substr(0, detailOf(f, "block_params").find(','))
            : std::string("BLOCK_SIZE");
    item.set("block", block);
    const int tensors = number(detailOf(f, "loads")) + number(detailOf(f, "stores"));
    const long sub = subBlockEstimate(tensors);
    item.set("sub_block", std::to_string(sub));
    item.set("ub_tensors", std::to_string(std::max(1, tensors)));
    const bool one_axis = axes <= 1;
    item.setFlag("grid_axes_many", !one_axis);
    const std::string sketch = sketchSignature(detailOf(f, "signature"), one_axis && !grid_stride, sub);
    item.set("sketch_signature", sketch);
    item.setFlag("sketch", has && !dot && !sketch.empty());
    item.setFlag("sketch_rows", one_axis && !grid_stride);

    // Launches, autotune configs and API uses that belong to this kernel.
    std::vector<const sdk::Finding*> launches, tunes, apis;
    for (std::size_t i = 0; i < findings.size(); ++i) {
      const sdk::Finding& o = findings[i];
      if (o.rule_id == "OPS-023" && detailOf(o, "kernel") == name) launches.push_back(&o);
      if ((o.rule_id == "OPS-024" || o.rule_id == "OPS-025" || o.rule_id == "OPS-026") &&
          inRange(o, f.file, first, last)) {
        apis.push_back(&o);
        api_used[i] = true;
      }
      if (o.rule_id == "OPS-022" && o.file == f.file && o.range.line < f.range.line) {
        // The autotune decorator belongs to the first kernel defined after it.
        bool nearer = false;
        for (const sdk::Finding* other : kernels)
          nearer = nearer || (other->file == f.file && other->range.line > o.range.line &&
                              other->range.line < f.range.line);
        if (!nearer) tunes.push_back(&o);
      }
    }
    bool options = false;
    for (const sdk::Finding* l : launches) {
      sdk::TemplateData& row = item.addItem("launches");
      row.set("site", l->file + ":" + std::to_string(l->range.line));
      row.set("grid", detailOf(*l, "grid_expression").empty() ? detailOf(*l, "grid")
                                                              : detailOf(*l, "grid_expression"));
      row.set("block_args", detailOf(*l, "block_args"));
      std::vector<std::string> dropped;
      if (!detailOf(*l, "num_warps").empty()) dropped.push_back("num_warps=" + detailOf(*l, "num_warps"));
      if (!detailOf(*l, "num_stages").empty()) dropped.push_back("num_stages=" + detailOf(*l, "num_stages"));
      row.set("dropped", join(dropped, ", "));
      options = options || !dropped.empty();
    }
    if (launches.empty()) item.setEmptyList("launches");
    for (const sdk::Finding* t : tunes) {
      sdk::TemplateData& row = item.addItem("autotune");
      row.set("site", t->file + ":" + std::to_string(t->range.line));
      row.set("configs", detailOf(*t, "configs"));
      row.set("num_warps", detailOf(*t, "num_warps"));
      row.set("num_stages", detailOf(*t, "num_stages"));
      row.set("tuned_params", detailOf(*t, "tuned_params"));
      options = options || !detailOf(*t, "num_warps").empty() || !detailOf(*t, "num_stages").empty();
    }
    item.setFlag("dropped_options", options);
    for (const sdk::Finding* a : apis)
      item.addItem("apis")
          .set("site", a->file + ":" + std::to_string(a->range.line))
          .set("api", a->api)
          .set("rule", a->rule_id);
    item.setFlag("tma", features.find("tma") != std::string::npos);
    item.setFlag("device_capability", features.find("device_capability") != std::string::npos);
    item.setFlag("rework", !apis.empty() || features.find("tma") != std::string::npos ||
                               features.find("device_capability") != std::string::npos);
    const std::string function = npuOpsFunctionFor(detailOf(f, "category"));
    item.set("npu_function", function);
    if (!function.empty()) context.requireSection("npu_ops.py", npuOpsSectionFor(detailOf(f, "category")));

    context.addManualWork(
        {f.rule_id, f.file, f.range.line,
         "adapt Triton kernel " + name +
             " for triton-ascend as triton_notes.md describes "
             "(BLOCK_SIZE_SUB sub-blocks within the unified buffer, grid within 65535 programs, no "
             "num_warps/num_stages)" +
             (function.empty() ? std::string() : ", or call " + function + " instead")});
  }
  // Triton API uses outside any kernel's lines (helpers, launch code).
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const sdk::Finding& o = findings[i];
    if (api_used[i] || (o.rule_id != "OPS-024" && o.rule_id != "OPS-025" && o.rule_id != "OPS-026")) continue;
    data.addItem("other_apis")
        .set("site", o.file + ":" + std::to_string(o.range.line))
        .set("api", o.api)
        .set("rule", o.rule_id)
        .set("alternative", o.npu_alternative);
  }
  data.setFlag("has_other_apis", data.find("other_apis") != nullptr);
  data.set("kernel_count", std::to_string(kernels.size()));
  context.writeFile("triton_notes.md", context.render("triton_notes.md", data));
  return kernels.size();
}

}  // namespace custom_ops
