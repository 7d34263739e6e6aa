#pragma once
/// `fleet run --scheduler k8s`: the night as Kubernetes Jobs — an Indexed Job with one index per
/// shard (each runs `fleet run --shard I/N` into DIR/shards/I) and a merge Job that combines the
/// shard stores into DIR/fleet.db and writes the dashboard. We write the manifests; the cluster
/// runs them (we never schedule ourselves).

#include <filesystem>
#include <string>

namespace migrate::fleet {

struct K8sOptions {
  std::filesystem::path manifest;  ///< the fleet manifest as the containers see it
  std::filesystem::path dir;       ///< the fleet directory as the containers see it (the volume's mount path)
  std::string night;               ///< the night's label, the same for every shard
  int shards = 4;
  int parallelism = 2;  ///< shards at once
  std::string image = "migrate-pipeline:latest";
  std::string claim = "migrate-fleet";  ///< the PersistentVolumeClaim mounted at `dir`
  std::string cpu = "2";
  std::string memory = "8Gi";
  std::string executable = "migrate-pipeline";  ///< in the image
};

/// The Indexed Job (`kind: Job`, `completionMode: Indexed`) as YAML.
std::string k8sShardJob(const K8sOptions& options);
/// The merge Job as YAML.
std::string k8sMergeJob(const K8sOptions& options);
/// The Job's name: "migrate-fleet-" and the night label made a DNS label.
std::string k8sJobName(const std::string& night);

/// `fleet run --scheduler k8s`: writes `options.dir`/k8s/fleet-job.yaml and fleet-merge-job.yaml
/// and prints how to apply them; runs nothing. Returns the exit code.
int writeKubernetesNight(const K8sOptions& options);

}  // namespace migrate::fleet
