#include "pipeline/verify_spec.hpp"

namespace migrate {
namespace {

TargetSpec readTarget(const yaml::Reader& r, const std::string& name, const YAML::Node& n) {
  TargetSpec t;
  t.name = name;
  t.location = r.where(n);
  t.kind = name == "local" ? "local" : "ssh";
  if (!n || n.IsNull()) return t;
  r.requireMap(n, "targets." + name);
  r.checkKeys(n, {"kind", "host", "port", "user", "identity_file", "known_hosts_file", "python", "workdir"},
              "targets." + name);
  if (n["kind"]) t.kind = r.choice(n["kind"], {"local", "ssh"}, "targets." + name + ".kind");
  if (name == "local" && t.kind != "local") r.fail(n["kind"], "the target named local is the local host");
  if (n["host"]) t.host = r.string(n["host"], "targets." + name + ".host");
  if (n["port"]) {
    const long long port = r.integer(n["port"], "targets." + name + ".port");
    if (port < 1 || port > 65535) r.fail(n["port"], "a port is between 1 and 65535");
    t.port = static_cast<int>(port);
  }
  if (n["user"]) t.user = r.string(n["user"], "targets." + name + ".user");
  if (n["identity_file"])
    t.identity_file = r.string(n["identity_file"], "targets." + name + ".identity_file");
  if (n["known_hosts_file"])
    t.known_hosts_file = r.string(n["known_hosts_file"], "targets." + name + ".known_hosts_file");
  if (n["python"]) t.python = r.string(n["python"], "targets." + name + ".python");
  if (t.python.empty()) r.fail(n["python"], "targets." + name + ".python must name an interpreter");
  if (n["workdir"]) t.workdir = r.string(n["workdir"], "targets." + name + ".workdir");
  if (t.kind == "ssh" && t.host.empty())
    r.fail(n, "targets." + name + " is an ssh target and needs a host (and usually user and identity_file)");
  if (t.kind == "local" && (n["host"] || n["user"] || n["identity_file"] || n["port"]))
    r.fail(n,
           "targets." + name + " is a local target: host, port, user and identity_file apply to kind: ssh");
  return t;
}

PrecisionCheckSpec readPrecision(const yaml::Reader& r, const YAML::Node& n) {
  r.requireMap(n, "a verify.precision entry");
  r.checkKeys(n, {"name", "command", "outputs", "rtol", "atol"}, "a verify.precision entry");
  r.requireKeys(n, {"name", "command", "outputs"}, "a verify.precision entry");
  PrecisionCheckSpec p;
  p.name = r.string(n["name"], "verify.precision.name");
  p.command = r.string(n["command"], "verify.precision.command");
  p.outputs = r.stringList(n["outputs"], "verify.precision.outputs");
  if (p.outputs.empty()) r.fail(n["outputs"], "list at least one output file to compare");
  for (const auto& o : p.outputs)
    if (o.empty() || o.front() == '/' || o.find("..") != std::string::npos)
      r.fail(n["outputs"], "outputs are paths relative to the command's {out} directory");
  if (n["rtol"]) p.rtol = r.number(n["rtol"], "verify.precision.rtol");
  if (n["atol"]) p.atol = r.number(n["atol"], "verify.precision.atol");
  if (p.rtol < 0 || p.atol < 0) r.fail(n, "rtol and atol are not negative");
  if (p.name.empty() || p.name.find_first_of("/\\ ") != std::string::npos)
    r.fail(n["name"], "a precision check's name is one word without slashes (it names a directory)");
  return p;
}

}  // namespace

void readVerifySpec(const yaml::Reader& r, const YAML::Node& verify, const YAML::Node& targets,
                    PipelineSpec& spec) {
  spec.targets["local"] = TargetSpec{};
  spec.targets["local"].name = "local";
  if (targets) {
    r.requireMap(targets, "targets");
    for (auto it = targets.begin(); it != targets.end(); ++it) {
      const std::string name = it->first.Scalar();
      spec.targets[name] = readTarget(r, name, it->second);
    }
  }
  VerifySpec& v = spec.verify;
  if (verify) {
    r.requireMap(verify, "verify");
    r.checkKeys(verify,
                {"target", "timeout", "stage_timeout", "stage_timeouts", "tests", "precision", "benchmark",
                 "attribution", "reuse"},
                "verify");
    if (verify["target"]) {
      std::vector<std::string> names;
      for (const auto& [name, t] : spec.targets) names.push_back(name);
      v.target = r.choice(verify["target"], names, "verify.target (a key of targets)");
    }
    auto seconds = [&](const char* key) {
      const long long s = r.integer(verify[key], std::string("verify.") + key);
      if (s < 1 || s > 7 * 24 * 3600)
        r.fail(verify[key], std::string("verify.") + key + " is seconds, at least 1");
      return static_cast<int>(s);
    };
    if (verify["timeout"]) v.timeout_seconds = seconds("timeout");
    if (verify["stage_timeout"]) v.stage_timeout_seconds = seconds("stage_timeout");
    if (const YAML::Node per = verify["stage_timeouts"]) {
      r.requireMap(per, "verify.stage_timeouts");
      static const std::vector<std::string> kStages{"environment", "imports", "function", "precision",
                                                    "benchmark"};
      for (auto it = per.begin(); it != per.end(); ++it) {
        const std::string stage = r.choice(it->first, kStages, "verify.stage_timeouts (a stage)");
        const long long s = r.integer(it->second, "verify.stage_timeouts." + stage);
        if (s < 1 || s > 7 * 24 * 3600)
          r.fail(it->second, "verify.stage_timeouts." + stage + " is seconds, at least 1");
        v.stage_timeouts[stage] = static_cast<int>(s);
      }
    }
    if (const YAML::Node t = verify["tests"]; t && t.IsMap()) {
      r.checkKeys(t, {"command", "timeout", "per_test_timeout", "select", "deselect"}, "verify.tests");
      if (t["command"]) v.tests = r.string(t["command"], "verify.tests.command");
      auto limit = [&](const char* key, int floor) {
        const long long s = r.integer(t[key], std::string("verify.tests.") + key);
        if (s < floor || s > 7 * 24 * 3600)
          r.fail(t[key],
                 std::string("verify.tests.") + key + " is seconds, at least " + std::to_string(floor));
        return static_cast<int>(s);
      };
      if (t["timeout"]) v.tests_timeout_seconds = limit("timeout", 0);  // 0: the stage_timeout
      if (t["per_test_timeout"]) v.per_test_timeout_seconds = limit("per_test_timeout", 0);
      if (t["select"]) v.tests_select = r.stringList(t["select"], "verify.tests.select");
      if (t["deselect"]) v.tests_deselect = r.stringList(t["deselect"], "verify.tests.deselect");
    } else if (t) {
      v.tests = r.string(t, "verify.tests");
    }
    if (verify["benchmark"]) v.benchmark = r.boolean(verify["benchmark"], "verify.benchmark");
    if (verify["reuse"]) v.reuse = r.boolean(verify["reuse"], "verify.reuse");
    if (const YAML::Node a = verify["attribution"]) {
      r.requireMap(a, "verify.attribution");
      r.checkKeys(a, {"max_reruns", "timeout"}, "verify.attribution");
      if (a["max_reruns"]) {
        const long long n = r.integer(a["max_reruns"], "verify.attribution.max_reruns");
        if (n < 0 || n > 1000) r.fail(a["max_reruns"], "verify.attribution.max_reruns is 0 (off) to 1000");
        v.attribution_max_reruns = static_cast<int>(n);
      }
      if (a["timeout"]) {
        const long long s = r.integer(a["timeout"], "verify.attribution.timeout");
        if (s < 1 || s > 7 * 24 * 3600)
          r.fail(a["timeout"], "verify.attribution.timeout is seconds, at least 1");
        v.attribution_timeout_seconds = static_cast<int>(s);
      }
    }
    if (const YAML::Node p = verify["precision"]) {
      if (!p.IsSequence()) r.fail(p, "verify.precision is a list of {name, command, outputs}");
      for (const auto& entry : p) v.precision.push_back(readPrecision(r, entry));
    }
  }
}

void emitVerifySpec(YAML::Emitter& out, const PipelineSpec& spec) {
  const VerifySpec& v = spec.verify;
  out << YAML::Key << "verify" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "target" << YAML::Value << v.target;
  out << YAML::Key << "timeout" << YAML::Value << v.timeout_seconds;
  out << YAML::Key << "stage_timeout" << YAML::Value << v.stage_timeout_seconds;
  out << YAML::Key << "stage_timeouts" << YAML::Value << YAML::BeginMap;
  for (const auto& [stage, seconds] : v.stage_timeouts) out << YAML::Key << stage << YAML::Value << seconds;
  out << YAML::EndMap;
  out << YAML::Key << "tests" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "command" << YAML::Value << v.tests;
  out << YAML::Key << "timeout" << YAML::Value << v.tests_timeout_seconds;
  out << YAML::Key << "per_test_timeout" << YAML::Value << v.per_test_timeout_seconds;
  out << YAML::Key << "select" << YAML::Value << YAML::Flow << v.tests_select;
  out << YAML::Key << "deselect" << YAML::Value << YAML::Flow << v.tests_deselect;
  out << YAML::EndMap;
  out << YAML::Key << "benchmark" << YAML::Value << v.benchmark;
  out << YAML::Key << "reuse" << YAML::Value << v.reuse;
  out << YAML::Key << "attribution" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "max_reruns" << YAML::Value << v.attribution_max_reruns;
  out << YAML::Key << "timeout" << YAML::Value << v.attribution_timeout_seconds;
  out << YAML::EndMap;
  out << YAML::Key << "precision" << YAML::Value << YAML::BeginSeq;
  for (const auto& p : v.precision) {
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << p.name << YAML::Key << "command"
        << YAML::Value << p.command << YAML::Key << "outputs" << YAML::Value << YAML::Flow << p.outputs
        << YAML::Key << "rtol" << YAML::Value << p.rtol << YAML::Key << "atol" << YAML::Value << p.atol
        << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  out << YAML::Key << "targets" << YAML::Value << YAML::BeginMap;
  for (const auto& [name, t] : spec.targets) {
    out << YAML::Key << name << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "kind" << YAML::Value << t.kind;
    if (t.kind == "ssh") {
      out << YAML::Key << "host" << YAML::Value << t.host << YAML::Key << "port" << YAML::Value << t.port;
      out << YAML::Key << "user" << YAML::Value << t.user << YAML::Key << "identity_file" << YAML::Value
          << t.identity_file << YAML::Key << "known_hosts_file" << YAML::Value << t.known_hosts_file;
    }
    out << YAML::Key << "python" << YAML::Value << t.python << YAML::Key << "workdir" << YAML::Value
        << t.workdir;
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
}

}  // namespace migrate
