// The library's workspace pool: one stream-ordered memory pool per device, kept for the process's lifetime.
#include <limits>
#include <map>
#include <mutex>

#include "ladder/ladder.hpp"
#include "runtime/runtime.hpp"

namespace ladder::detail {
namespace {
cudaMemPool_t library_pool(int device) {
  static std::mutex mu;
  static std::map<int, cudaMemPool_t> pools;  // one per device, for the process's lifetime
  std::lock_guard lock(mu);
  if (auto it = pools.find(device); it != pools.end()) return it->second;
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location = {cudaMemLocationTypeDevice, device};
  cudaMemPool_t pool = nullptr;
  if (cudaError_t e = cudaMemPoolCreate(&pool, &props); e != cudaSuccess)
    throw Error(LADDER_ERROR_CUDA, std::string("cannot create the workspace memory pool: ") + cudaGetErrorString(e));
  uint64_t keep = std::numeric_limits<uint64_t>::max();
  cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
  return pools[device] = pool;
}
}  // namespace

Workspace::Workspace(size_t bytes, cudaStream_t stream, std::string_view what) : stream_(stream) {
  int device = 0;
  cudaGetDevice(&device);
  if (cudaError_t e = cudaMallocFromPoolAsync(&ptr_, bytes, library_pool(device), stream); e != cudaSuccess)
    throw Error(LADDER_ERROR_CUDA, std::string(what) + ": cannot allocate " + std::to_string(bytes) +
                                       " bytes of workspace: " + cudaGetErrorString(e));
}

Workspace::~Workspace() {
  if (ptr_) cudaFreeAsync(ptr_, stream_);
}

}  // namespace ladder::detail
