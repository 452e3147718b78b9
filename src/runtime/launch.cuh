// The launch of a persistent kernel, shared by the persistent steps of both ladders: the dynamic SMEM limit
// raised once per (kernel, device), a grid of what is resident at once (whole clusters, no more than one per
// unit of work), the launch on `stream`, the trace line (LADDER_TRACE=1) and the launch check.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "ladder/ladder.hpp"
#include "runtime/runtime.hpp"

namespace ladder::detail {

struct PersistentShape {
  int threads;           // per CTA
  size_t smem;           // dynamic SMEM per CTA, bytes
  int cluster_size = 1;  // CTAs per cluster: the kernel's __cluster_dims__
};

// `work`: tiles (cluster tiles for a cluster kernel), so that no CTA is launched without one. Returns the grid.
template <class... Params, class... Args>
int launch_persistent(std::string_view step_id, void (*kernel)(Params...), PersistentShape shape, int64_t work,
                      cudaStream_t stream, Args&&... args) {
  const void* k = reinterpret_cast<const void*>(kernel);
  allow_dynamic_smem(k, shape.smem, step_id);
  const int grid = persistent_grid(k, shape.cluster_size, shape.threads, shape.smem, work);
  kernel<<<grid, shape.threads, shape.smem, stream>>>(std::forward<Args>(args)...);
  trace_launch(step_id, grid, shape.threads, shape.smem);
  check_launch(step_id);
  return grid;
}

// Launches kernel<<<grid, block, smem, stream>>>(args...) as clusters of `cluster_x` CTAs along x (0: the
// kernel's own __cluster_dims__); with `pdl`, as a programmatic dependent launch: it may start before the
// previous kernel on the stream has finished, and must itself wait (cudaGridDependencySynchronize) before
// touching memory that kernel writes or reads. Throws ladder::Error (LADDER_ERROR_CUDA) when the launch fails.
template <class... Params, class... Args>
void launch_kernel_ex(void (*kernel)(Params...), dim3 grid, int block, size_t smem, cudaStream_t stream,
                      int cluster_x, bool pdl, std::string_view step_id, Args&&... args) {
  cudaLaunchAttribute attrs[2] = {};
  unsigned n = 0;
  if (cluster_x > 0) {
    attrs[n].id = cudaLaunchAttributeClusterDimension;
    attrs[n++].val.clusterDim = {static_cast<unsigned>(cluster_x), 1, 1};
  }
  if (pdl) {
    attrs[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[n++].val.programmaticStreamSerializationAllowed = 1;
  }
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(static_cast<unsigned>(block), 1, 1);
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = attrs;
  config.numAttrs = n;
  if (cudaError_t e = cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...); e != cudaSuccess) {
    cudaGetLastError();
    throw Error(LADDER_ERROR_CUDA, std::string(step_id) + ": kernel launch failed: " + cudaGetErrorString(e));
  }
}

}  // namespace ladder::detail
