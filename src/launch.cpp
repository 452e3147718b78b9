#include "launch.hpp"

#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>

namespace ladder::detail {

int max_active_clusters(const void* kernel, int threads, size_t smem, int cluster) {
  using Key = std::tuple<const void*, int, int, size_t, int>;
  static std::mutex mu;
  static std::map<Key, int> cache;
  int device = 0;
  cudaGetDevice(&device);
  const Key key{kernel, device, threads, smem, cluster};
  std::lock_guard lock(mu);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(cluster * sm_count()), 1, 1);
  config.blockDim = dim3(static_cast<unsigned>(threads), 1, 1);
  config.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = static_cast<unsigned>(cluster);
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  config.attrs = &attr;
  config.numAttrs = 1;
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess || clusters < 0) {
    cudaGetLastError();
    clusters = 0;  // cannot tell: the caller treats it as "does not fit"
  }
  return cache[key] = clusters;
}

void allow_nonportable_cluster(const void* kernel, std::string_view step_id) {
  static std::mutex mu;
  static std::set<std::pair<const void*, int>> done;
  int device = 0;
  check_attribute(cudaGetDevice(&device), step_id);
  std::lock_guard lock(mu);
  if (done.count({kernel, device})) return;
  check_attribute(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1), step_id);
  done.insert({kernel, device});
}

}  // namespace ladder::detail
