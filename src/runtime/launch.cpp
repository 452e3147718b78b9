// Launch checks, dynamic SMEM limits, persistent grid sizing and launch tracing.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <tuple>
#include <mutex>
#include <set>
#include <utility>

#include "ladder/ladder.hpp"
#include "runtime/runtime.hpp"
#include "runtime/tuning.hpp"

namespace ladder::detail {

void cuda_check(cudaError_t e, std::string_view what) {
  if (e != cudaSuccess) throw Error(LADDER_ERROR_CUDA, std::string(what) + ": " + cudaGetErrorString(e));
}

void check_launch(std::string_view step_id) {
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
    throw Error(LADDER_ERROR_CUDA, std::string(step_id) + ": kernel launch failed: " + cudaGetErrorString(e));
}

void check_attribute(cudaError_t e, std::string_view step_id) {
  if (e != cudaSuccess)
    throw Error(LADDER_ERROR_CUDA, std::string(step_id) + ": cannot set kernel attributes: " + cudaGetErrorString(e));
}

namespace {
// Sets one attribute of `kernel` once per (kernel, device); the attributes are per device.
void set_attribute_once(const void* kernel, cudaFuncAttribute attr, int value, std::string_view step_id) {
  static std::mutex mu;
  static std::set<std::tuple<const void*, int, int>> done;
  int device = 0;
  check_attribute(cudaGetDevice(&device), step_id);
  std::lock_guard lock(mu);
  if (done.count({kernel, device, static_cast<int>(attr)})) return;
  check_attribute(cudaFuncSetAttribute(kernel, attr, value), step_id);
  done.insert({kernel, device, static_cast<int>(attr)});
}
}  // namespace

void allow_dynamic_smem(const void* kernel, size_t bytes, std::string_view step_id) {
  set_attribute_once(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes), step_id);
}

namespace {
int max_blocks_per_sm(const void* kernel, int threads, size_t smem) {
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem) != cudaSuccess || blocks < 1) {
    cudaGetLastError();
    return 1;
  }
  return blocks;
}
}  // namespace

int persistent_grid(const void* kernel, int cluster_size, int threads, size_t smem, int64_t work) {
  static std::mutex mu;
  static std::map<std::pair<const void*, int>, int> resident;  // (kernel, device) → CTAs that fit at once
  int device = 0;
  cudaGetDevice(&device);
  int ctas = 0;
  {
    std::lock_guard lock(mu);
    if (auto it = resident.find({kernel, device}); it != resident.end()) ctas = it->second;
  }
  if (ctas == 0) {
    // 0 clusters: the occupancy query cannot tell; fall back to one CTA per SM.
    const int clusters = cluster_size == 1 ? 0 : max_active_clusters(kernel, threads, smem, cluster_size);
    ctas = cluster_size == 1 ? max_blocks_per_sm(kernel, threads, smem) * sm_count()
                             : (clusters > 0 ? clusters : std::max(1, sm_count() / cluster_size)) * cluster_size;
    std::lock_guard lock(mu);
    resident[{kernel, device}] = ctas;
  }
  return static_cast<int>(std::min<int64_t>(ctas / cluster_size, std::max<int64_t>(work, 1))) * cluster_size;
}

bool tracing() { return tuning().trace; }  // LADDER_TRACE, read once (runtime/tuning.hpp)

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
  set_attribute_once(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1, step_id);
}

void print_launch(std::string_view step_id, int grid, int block, size_t smem, std::string_view note) {
  std::fprintf(stderr, "ladder: %.*s grid %d block %d smem %zu %.*s\n", static_cast<int>(step_id.size()),
               step_id.data(), grid, block, smem, static_cast<int>(note.size()), note.data());
}

}  // namespace ladder::detail
