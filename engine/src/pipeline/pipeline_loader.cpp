#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "migrate/engine/pipeline.hpp"
#include "pipeline/plan_spec.hpp"
#include "pipeline/verify_spec.hpp"
#include "yaml/yaml_reader.hpp"

namespace migrate {
namespace {

using yaml::Reader;

const std::vector<std::string> kTopKeys{"version",  "name",    "source",     "output", "jobs",
                                        "stages",   "include", "exclude",    "limits", "plugin_dir",
                                        "work_dir", "plugins", "rule_packs", "plan",   "emit",
                                        "verify",   "targets", "report",     "cache"};

/// Applies one override to the document, creating maps on the way; remembers the node so
/// errors about it name the --set instead of a file position.
void applyOverride(YAML::Node root, const Override& o,
                   std::vector<std::pair<YAML::Node, std::string>>& origins) {
  std::vector<std::string> path;
  std::stringstream ss(o.key);
  for (std::string part; std::getline(ss, part, '.');) path.push_back(part);
  YAML::Node value;
  try {
    value = YAML::Load(o.value);
  } catch (const YAML::Exception& e) {
    throw yaml::YamlError("--set " + o.key + "=" + o.value + ": the value is not valid YAML (" + e.msg + ")");
  }
  YAML::Node cur = root;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    if (cur[path[i]] && !cur[path[i]].IsMap() && !cur[path[i]].IsNull())
      throw yaml::YamlError("--set " + o.key + ": '" + path[i] + "' is not a mapping");
    if (!cur[path[i]] || cur[path[i]].IsNull()) cur[path[i]] = YAML::Node(YAML::NodeType::Map);
    cur.reset(cur[path[i]]);
  }
  if (!value.IsDefined() || value.IsNull()) {  // `--set key=null` removes the key
    cur.remove(path.back());
    return;
  }
  cur[path.back()] = value;
  origins.emplace_back(value, "--set " + o.key + "=" + o.value);
}

int stageIndex(const std::string& s) {
  auto it = std::find(kAllStages.begin(), kAllStages.end(), s);
  return static_cast<int>(it - kAllStages.begin());
}

OptionInput readOption(const Reader& r, const YAML::Node& n, const std::string& what) {
  OptionInput in;
  in.location = r.where(n);
  if (n.IsSequence()) {
    in.is_list = true;
    in.items = r.stringList(n, what);
  } else if (n.IsScalar()) {
    in.scalar = n.Scalar();
  } else {
    r.fail(n, what + " must be a scalar or a list of scalars");
  }
  return in;
}

PluginSelection readPlugin(const Reader& r, const std::string& name, const YAML::Node& n) {
  PluginSelection p;
  p.name = name;
  p.location = r.where(n);
  if (!n || n.IsNull()) return p;
  r.checkKeys(n, {"enabled", "options"}, "plugin '" + name + "'");
  if (n["enabled"]) p.enabled = r.boolean(n["enabled"], "plugins." + name + ".enabled");
  if (const YAML::Node opts = n["options"]; opts && !opts.IsNull()) {
    r.requireMap(opts, "plugins." + name + ".options");
    for (auto it = opts.begin(); it != opts.end(); ++it) {
      const std::string key = it->first.Scalar();
      p.options[key] = readOption(r, it->second, "plugins." + name + ".options." + key);
      p.options[key].location = r.where(it->first);
    }
  }
  return p;
}

PipelineSpec readSpec(const Reader& r, const YAML::Node& doc, const std::filesystem::path& file) {
  r.checkKeys(doc, kTopKeys, "the pipeline");
  r.requireKeys(doc, {"version", "source"}, "the pipeline");
  if (r.integer(doc["version"], "version") != 1)
    r.fail(doc["version"], "unsupported pipeline version; this migrate-pipeline reads version 1");
  PipelineSpec spec;
  spec.file = file;
  spec.name = doc["name"] ? r.string(doc["name"], "name") : file.stem().string();

  const YAML::Node src = doc["source"];
  r.checkKeys(src, {"path", "url", "ref", "mirror"}, "source");
  if (src["path"]) spec.source.path = r.string(src["path"], "source.path");
  if (src["url"]) spec.source.url = r.string(src["url"], "source.url");
  if (src["ref"]) spec.source.ref = r.string(src["ref"], "source.ref");
  if (src["mirror"]) spec.source.mirror = r.string(src["mirror"], "source.mirror");
  if (spec.source.path.empty() == spec.source.url.empty())
    r.fail(src, "source needs exactly one of path (a local directory) or url (a git repository)");
  if (!spec.source.ref.empty() && spec.source.url.empty())
    r.fail(src["ref"], "source.ref applies to a git url; a local path is analysed as it is");
  if (!spec.source.mirror.empty() && spec.source.url.empty())
    r.fail(src["mirror"], "source.mirror is a local mirror of source.url; set url too");
  if (!spec.source.path.empty() && std::filesystem::path(spec.source.path).is_relative())
    spec.source.path = (file.parent_path() / spec.source.path).lexically_normal().string();

  if (doc["output"]) spec.output = r.string(doc["output"], "output");
  if (doc["jobs"]) {
    const long long jobs = r.integer(doc["jobs"], "jobs");
    if (jobs < 0 || jobs > 1024) r.fail(doc["jobs"], "jobs must be between 0 (all cores) and 1024");
    spec.jobs = static_cast<int>(jobs);
  }
  if (doc["stages"]) {
    std::vector<std::string> stages;
    for (const auto& s : doc["stages"].IsSequence() ? doc["stages"] : YAML::Node()) {
      stages.push_back(r.choice(s, kAllStages, "a stage"));
    }
    if (!doc["stages"].IsSequence() || stages.empty())
      r.fail(doc["stages"], "stages must be a non-empty list, e.g. [analyze, plan, emit]");
    std::sort(stages.begin(), stages.end(),
              [](const std::string& a, const std::string& b) { return stageIndex(a) < stageIndex(b); });
    stages.erase(std::unique(stages.begin(), stages.end()), stages.end());
    spec.stages = stages;
  }
  if (doc["include"]) spec.include = r.stringList(doc["include"], "include");
  if (doc["exclude"]) spec.exclude = r.stringList(doc["exclude"], "exclude");
  if (const YAML::Node limits = doc["limits"]) {
    r.checkKeys(limits, {"max_file_bytes", "parse_timeout_ms"}, "limits");
    for (const auto& [key, value] : {std::pair{"max_file_bytes", &spec.max_file_bytes},
                                     std::pair{"parse_timeout_ms", &spec.parse_timeout_ms}}) {
      if (!limits[key]) continue;
      const std::string name = std::string("limits.") + key;
      const long long v = r.integer(limits[key], name);
      if (v <= 0) r.fail(limits[key], name + " must be positive");
      *value = static_cast<std::uint64_t>(v);
    }
  }
  if (doc["plugin_dir"]) spec.plugin_dir = r.string(doc["plugin_dir"], "plugin_dir");
  if (doc["work_dir"]) spec.work_dir = r.string(doc["work_dir"], "work_dir");
  if (const YAML::Node plugins = doc["plugins"]) {
    if (plugins.IsSequence()) {
      for (const auto& p : plugins) {
        PluginSelection sel;
        sel.name = r.string(p, "a plugin name");
        sel.location = r.where(p);
        spec.plugins.push_back(std::move(sel));
      }
    } else {
      r.requireMap(plugins, "plugins");
      for (auto it = plugins.begin(); it != plugins.end(); ++it)
        spec.plugins.push_back(readPlugin(r, it->first.Scalar(), it->second));
    }
    std::set<std::string> seen;
    for (const auto& p : spec.plugins)
      if (!seen.insert(p.name).second)
        throw yaml::YamlError(p.location + ": plugin '" + p.name + "' is listed twice");
  }
  if (const YAML::Node packs = doc["rule_packs"]) {
    if (!packs.IsSequence())
      r.fail(packs, "rule_packs must be a list of rule pack directories, e.g. [../packs/acme]");
    for (const auto& p : packs) {
      std::filesystem::path dir = r.string(p, "a rule pack directory");
      if (dir.empty()) r.fail(p, "a rule pack directory must not be empty");
      if (dir.is_relative()) dir = (file.parent_path() / dir).lexically_normal();
      spec.rule_packs.push_back(dir.string());
    }
  }
  spec.plan = defaultPlanSpec();
  readPlanSpec(r, doc["plan"], spec.plan);
  if (const YAML::Node emit = doc["emit"]) {
    r.checkKeys(emit, {"templates", "layout", "base"}, "emit");
    if (emit["templates"]) {
      spec.emit.templates = r.string(emit["templates"], "emit.templates");
      if (std::filesystem::path(spec.emit.templates).is_relative())
        spec.emit.templates = (file.parent_path() / spec.emit.templates).lexically_normal().string();
    }
    if (emit["layout"]) spec.emit.layout = r.choice(emit["layout"], {"copy", "siblings"}, "emit.layout");
    if (emit["base"]) spec.emit.base = r.string(emit["base"], "emit.base");
  }
  readVerifySpec(r, doc["verify"], doc["targets"], spec);
  if (const YAML::Node report = doc["report"]) {
    r.checkKeys(report, {"directory", "max_items"}, "report");
    if (report["directory"]) spec.report.directory = r.string(report["directory"], "report.directory");
    if (report["max_items"]) {
      const long long n = r.integer(report["max_items"], "report.max_items");
      if (n < 1 || n > 1000000) r.fail(report["max_items"], "report.max_items must be between 1 and 1000000");
      spec.report.max_items = static_cast<int>(n);
    }
  }
  if (const YAML::Node cache = doc["cache"]) {
    r.checkKeys(cache, {"enabled", "dir", "max_size_mb"}, "cache");
    if (cache["enabled"]) spec.cache.enabled = r.boolean(cache["enabled"], "cache.enabled");
    if (cache["dir"]) spec.cache.dir = r.string(cache["dir"], "cache.dir");
    if (cache["max_size_mb"]) {
      const long long n = r.integer(cache["max_size_mb"], "cache.max_size_mb");
      if (n < 1 || n > (1LL << 30))
        r.fail(cache["max_size_mb"], "cache.max_size_mb must be between 1 and 2^30");
      spec.cache.max_size_mb = static_cast<std::uint64_t>(n);
    }
  }
  if (spec.plugins.empty())
    r.fail(doc,
           "the pipeline selects no plugins; add e.g. `plugins: {device: {}}` "
           "(`migrate-pipeline plugins` lists them)");
  return spec;
}

}  // namespace

Result<Override> parseOverride(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    return makeError("--set " + text + ": expected dotted.key=value, e.g. --set jobs=4");
  Override o{text.substr(0, eq), text.substr(eq + 1)};
  if (o.key.front() == '.' || o.key.back() == '.' || o.key.find("..") != std::string::npos)
    return makeError("--set " + text + ": '" + o.key + "' is not a dotted key like plugins.device.enabled");
  return o;
}

Result<PipelineSpec> loadPipeline(const std::filesystem::path& file, const std::vector<Override>& overrides) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    return makeError(file.string() + ": no such pipeline file (see pipelines/ for examples)");
  Reader r(file.string());
  try {
    YAML::Node doc = YAML::LoadFile(file.string());
    if (!doc.IsMap()) r.fail(doc, "a pipeline is a mapping with at least version and source");
    std::vector<std::pair<YAML::Node, std::string>> origins;
    for (const auto& o : overrides) applyOverride(doc, o, origins);
    r.setOriginFor([&origins](const YAML::Node& n) -> std::string {
      for (const auto& [node, origin] : origins)
        if (node.is(n)) return origin;
      return {};
    });
    return readSpec(r, doc, std::filesystem::absolute(file));
  } catch (const yaml::YamlError& e) {
    return makeError(e.what());
  } catch (const YAML::Exception& e) {
    return makeError(file.string() + ":" + std::to_string(e.mark.line + 1) + ":" +
                     std::to_string(e.mark.column + 1) + ": malformed YAML: " + e.msg);
  }
}

std::string dumpPipeline(const PipelineSpec& spec) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "version" << YAML::Value << 1;
  out << YAML::Key << "name" << YAML::Value << spec.name;
  out << YAML::Key << "source" << YAML::Value << YAML::BeginMap;
  if (!spec.source.path.empty()) out << YAML::Key << "path" << YAML::Value << spec.source.path;
  if (!spec.source.url.empty()) out << YAML::Key << "url" << YAML::Value << spec.source.url;
  if (!spec.source.ref.empty()) out << YAML::Key << "ref" << YAML::Value << spec.source.ref;
  if (!spec.source.mirror.empty()) out << YAML::Key << "mirror" << YAML::Value << spec.source.mirror;
  out << YAML::EndMap;
  out << YAML::Key << "output" << YAML::Value << spec.output;
  out << YAML::Key << "jobs" << YAML::Value << spec.jobs;
  out << YAML::Key << "stages" << YAML::Value << YAML::Flow << spec.stages;
  out << YAML::Key << "include" << YAML::Value << YAML::Flow << spec.include;
  out << YAML::Key << "exclude" << YAML::Value << YAML::Flow << spec.exclude;
  out << YAML::Key << "limits" << YAML::Value << YAML::BeginMap << YAML::Key << "max_file_bytes"
      << YAML::Value << spec.max_file_bytes << YAML::Key << "parse_timeout_ms" << YAML::Value
      << spec.parse_timeout_ms << YAML::EndMap;
  out << YAML::Key << "plugin_dir" << YAML::Value << spec.plugin_dir;
  out << YAML::Key << "work_dir" << YAML::Value << spec.work_dir;
  out << YAML::Key << "plugins" << YAML::Value << YAML::BeginMap;
  for (const auto& p : spec.plugins) {
    out << YAML::Key << p.name << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "enabled" << YAML::Value << p.enabled;
    out << YAML::Key << "options" << YAML::Value << YAML::BeginMap;
    for (const auto& [k, v] : p.options) {
      out << YAML::Key << k << YAML::Value;
      if (v.is_list)
        out << YAML::Flow << v.items;
      else
        out << v.scalar;
    }
    out << YAML::EndMap << YAML::EndMap;
  }
  out << YAML::EndMap;
  out << YAML::Key << "rule_packs" << YAML::Value << YAML::Flow << spec.rule_packs;
  emitPlanSpec(out, spec.plan);
  out << YAML::Key << "emit" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "templates" << YAML::Value << spec.emit.templates;
  out << YAML::Key << "layout" << YAML::Value << spec.emit.layout;
  if (!spec.emit.base.empty()) out << YAML::Key << "base" << YAML::Value << spec.emit.base;
  out << YAML::EndMap;
  emitVerifySpec(out, spec);
  out << YAML::Key << "report" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "directory" << YAML::Value << spec.report.directory;
  out << YAML::Key << "max_items" << YAML::Value << spec.report.max_items;
  out << YAML::EndMap;
  out << YAML::Key << "cache" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "enabled" << YAML::Value << spec.cache.enabled;
  out << YAML::Key << "dir" << YAML::Value << spec.cache.dir;
  out << YAML::Key << "max_size_mb" << YAML::Value << spec.cache.max_size_mb;
  out << YAML::EndMap;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace migrate
