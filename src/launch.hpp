// Launch helpers for kernels that need cudaLaunchKernelEx: a runtime cluster size, programmatic dependent
// launch (PDL), and the occupancy they are sized by.
#pragma once
#include <cuda_runtime.h>

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "ladder/ladder.hpp"
#include "step.hpp"
#include "tuning.hpp"

namespace ladder::detail {

// Clusters of `cluster` CTAs of `kernel` (with `threads` threads and `smem` bytes of dynamic SMEM each) that fit on
// the current device at once; cached per (kernel, device, threads, smem, cluster). Call after allow_dynamic_smem
// (and allow_nonportable_cluster for clusters of more than 8).
int max_active_clusters(const void* kernel, int threads, size_t smem, int cluster);
// Allows clusters of more than 8 CTAs (up to 16 on Hopper), once per (kernel, device).
void allow_nonportable_cluster(const void* kernel, std::string_view step_id);

// Launches kernel<<<grid, block, smem, stream>>>(args...) as clusters of `cluster_x` CTAs along x; with `pdl`,
// as a programmatic dependent launch: it may start before the previous kernel on the stream has finished, and
// must itself wait (cudaGridDependencySynchronize) before touching memory that kernel writes or reads.
// Throws ladder::Error (LADDER_ERROR_CUDA) when the launch fails.
template <class... Params, class... Args>
void launch_kernel_ex(void (*kernel)(Params...), dim3 grid, int block, size_t smem, cudaStream_t stream,
                      int cluster_x, bool pdl, std::string_view step_id, Args&&... args) {
  cudaLaunchAttribute attrs[2] = {};
  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim.x = static_cast<unsigned>(cluster_x);
  attrs[0].val.clusterDim.y = 1;
  attrs[0].val.clusterDim.z = 1;
  attrs[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attrs[1].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(static_cast<unsigned>(block), 1, 1);
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = attrs;
  config.numAttrs = pdl ? 2 : 1;
  if (cudaError_t e = cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...); e != cudaSuccess) {
    cudaGetLastError();
    throw Error(LADDER_ERROR_CUDA, std::string(step_id) + ": kernel launch failed: " + cudaGetErrorString(e));
  }
}

// trace_launch with the note built only when tracing is on.
template <class F>
  requires std::is_invocable_v<F>
void trace_launch(std::string_view step_id, int grid, int block, size_t smem, F&& note) {
  if (tuning().trace) trace_launch(step_id, grid, block, smem, std::string_view(std::string(note())));
}

}  // namespace ladder::detail
