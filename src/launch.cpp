#include "launch.hpp"

#include <map>
#include <mutex>
#include <set>
#include <utility>

namespace ladder::detail {

int resident_ctas(const void* kernel, int threads, size_t smem) {
  static std::mutex mu;
  static std::map<std::pair<const void*, int>, int> cache;
  int device = 0;
  cudaGetDevice(&device);
  std::lock_guard lock(mu);
  if (auto it = cache.find({kernel, device}); it != cache.end()) return it->second;
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem) != cudaSuccess || blocks < 1) {
    cudaGetLastError();
    blocks = 1;
  }
  return cache[{kernel, device}] = blocks * sm_count();
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
