// The launch of a persistent kernel, shared by the persistent steps of both ladders: the dynamic SMEM limit
// raised once per (kernel, device), a grid of what is resident at once (whole clusters, no more than one per
// unit of work), the launch on `stream`, the trace line (LADDER_TRACE=1) and the launch check.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

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

}  // namespace ladder::detail
