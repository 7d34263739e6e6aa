#include "fleet/k8s_jobs.hpp"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <fstream>
#include <iostream>

#include "migrate/engine/runner.hpp"
#include "verify/process_runner.hpp"

namespace migrate::fleet {
namespace fs = std::filesystem;
namespace {

using verify::shellQuote;

/// The container every Job runs: the image, the volume at the fleet directory, the resources.
void container(YAML::Emitter& y, const K8sOptions& o, const std::string& name, const std::string& script) {
  y << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << name;
  y << YAML::Key << "image" << YAML::Value << o.image;
  y << YAML::Key << "command" << YAML::Value << YAML::Flow << YAML::BeginSeq << "sh"
    << "-c" << YAML::EndSeq;
  y << YAML::Key << "args" << YAML::Value << YAML::BeginSeq << YAML::Literal << script << YAML::EndSeq;
  y << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
  for (const char* kind : {"requests", "limits"}) {
    y << YAML::Key << kind << YAML::Value << YAML::BeginMap;
    y << YAML::Key << "cpu" << YAML::Value << YAML::DoubleQuoted << o.cpu;
    y << YAML::Key << "memory" << YAML::Value << YAML::DoubleQuoted << o.memory;
    y << YAML::EndMap;
  }
  y << YAML::EndMap;
  y << YAML::Key << "volumeMounts" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << "fleet";
  y << YAML::Key << "mountPath" << YAML::Value << o.dir.string();
  y << YAML::EndMap << YAML::EndSeq;
  y << YAML::EndMap;
}

std::string job(const K8sOptions& o, const std::string& name, const std::string& container_name,
                const std::string& script, bool indexed) {
  YAML::Emitter y;
  y << YAML::Comment(indexed
                         ? "The fleet's night as an Indexed Job: index i runs shard i+1 of " +
                               std::to_string(o.shards) + ". Written by migrate-pipeline; see docs/fleet.md."
                         : "Merges the shard stores of the Indexed Job " + k8sJobName(o.night) +
                               " and writes the dashboard; apply it when that Job has finished.");
  y << YAML::BeginMap;
  y << YAML::Key << "apiVersion" << YAML::Value << "batch/v1";
  y << YAML::Key << "kind" << YAML::Value << "Job";
  y << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << name;
  y << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "app.kubernetes.io/name" << YAML::Value << "migrate-pipeline-fleet";
  y << YAML::Key << "migrate-pipeline/night" << YAML::Value << YAML::DoubleQuoted
    << k8sJobName(o.night).substr(14);
  y << YAML::EndMap << YAML::EndMap;
  y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  if (indexed) {
    y << YAML::Key << "completionMode" << YAML::Value << "Indexed";
    y << YAML::Key << "completions" << YAML::Value << o.shards;
    y << YAML::Key << "parallelism" << YAML::Value << o.parallelism;
    y << YAML::Key << "backoffLimitPerIndex" << YAML::Value << 1;
    y << YAML::Key << "maxFailedIndexes" << YAML::Value << o.shards;
  } else {
    y << YAML::Key << "backoffLimit" << YAML::Value << 2;
  }
  y << YAML::Key << "template" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "restartPolicy" << YAML::Value << "Never";
  y << YAML::Key << "containers" << YAML::Value << YAML::BeginSeq;
  container(y, o, container_name, script);
  y << YAML::EndSeq;
  y << YAML::Key << "volumes" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << "fleet";
  y << YAML::Key << "persistentVolumeClaim" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "claimName" << YAML::Value << o.claim << YAML::EndMap;
  y << YAML::EndMap << YAML::EndSeq;
  y << YAML::EndMap << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  return std::string(y.c_str()) + "\n";
}

}  // namespace

std::string k8sJobName(const std::string& night) {
  std::string name = "migrate-fleet-";
  for (const char c : night) {
    const auto u = static_cast<unsigned char>(c);
    name += std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '-';
  }
  while (!name.empty() && name.back() == '-') name.pop_back();
  return name.substr(0, 57);  // room for "-merge" within a DNS label's 63 characters
}

std::string k8sShardJob(const K8sOptions& o) {
  const std::string n = std::to_string(o.shards);
  // A shard whose night completed with failed repositories (exit 6) has done its job: the merge
  // and the dashboard report them. Anything else fails the index, which Kubernetes retries once.
  const std::string script = "shard=$((JOB_COMPLETION_INDEX + 1))\n" + shellQuote(o.executable) +
                             " fleet run " + shellQuote(o.manifest.string()) + " --output " +
                             shellQuote(o.dir.string()) + "/shards/\"$shard\" --shard \"$shard\"/" + n +
                             " --night " + shellQuote(o.night) +
                             " -q\nstatus=$?\nif [ \"$status\" -eq 6 ]; then exit 0; fi\nexit \"$status\"\n";
  return job(o, k8sJobName(o.night), "shard", script, true);
}

std::string k8sMergeJob(const K8sOptions& o) {
  const std::string script = "exec " + shellQuote(o.executable) + " fleet merge --output " +
                             shellQuote(o.dir.string()) + " " + shellQuote(o.dir.string()) + "/shards/*\n";
  return job(o, k8sJobName(o.night) + "-merge", "merge", script, false);
}

int writeKubernetesNight(const K8sOptions& o) {
  std::error_code ec;
  fs::create_directories(o.dir / "k8s", ec);
  for (const auto& [file, text] : {std::pair<std::string, std::string>{"fleet-job.yaml", k8sShardJob(o)},
                                   {"fleet-merge-job.yaml", k8sMergeJob(o)}}) {
    std::ofstream out(o.dir / "k8s" / file, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      std::cerr << "error: cannot write " << (o.dir / "k8s" / file).string() << "\n";
      return kExitUsage;
    }
  }
  std::cerr << "fleet: wrote " << (o.dir / "k8s/fleet-job.yaml").string() << " (" << o.shards << " shards, "
            << o.parallelism << " at once) and " << (o.dir / "k8s/fleet-merge-job.yaml").string()
            << "; their pods run " << o.executable << " in the image " << o.image << "; the volume "
            << o.claim << " must hold " << o.dir.string() << ", the manifest and its sources.\n"
            << "  kubectl apply -f " << (o.dir / "k8s/fleet-job.yaml").string() << "\n"
            << "  kubectl wait --for=condition=complete --timeout=24h job/" << k8sJobName(o.night) << "\n"
            << "  kubectl apply -f " << (o.dir / "k8s/fleet-merge-job.yaml").string() << "\n";
  return kExitOk;
}

}  // namespace migrate::fleet
