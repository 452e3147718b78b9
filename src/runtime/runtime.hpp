// The launch runtime: what the API and the steps' launchers need from the CUDA runtime. The device and
// whether a step's architecture runs on it, persistent grid sizing, dynamic SMEM limits, launch checks, the
// workspace pool and launch tracing. Part of the library: it knows nothing of the harness (no cuBLAS).
#pragma once
#include <cuda_runtime.h>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "step.hpp"

namespace ladder::detail {

// ---- the device (runtime/device.cpp) -------------------------------------------------------------------
struct DeviceInfo {
  bool present = false;
  int ordinal = -1;
  std::string name;
  int cc = 0;  // 90 for sm_90, 100 for sm_100
  int sms = 0;
  long long l2_bytes = 0;
  std::string error;  // why there is no device, when !present
};

// The current device, cached per ordinal (the API consults it on every call).
DeviceInfo current_device();
// Empty when `arch` runs on the current device, else e.g.
// "needs a Blackwell (sm_100) GPU; this is NVIDIA H200 (sm_90)".
std::string arch_support(Arch arch);
std::string describe(const DeviceInfo& d);  // "NVIDIA H200 (sm_90, 132 SMs)"
// Number of SMs of the current device (cached): persistent grids are sized by it.
int sm_count();
// CPU tests only: the SM count sm_count() reports in place of the device's (0: the device's again), so that
// best's rules can be checked for the H200's 132 SMs on a machine without a GPU (tests/test_best_model.cpp).
void set_sm_count_for_tests(int sms);

// ---- launching (runtime/launch.cpp) --------------------------------------------------------------------
// Throws ladder::Error(LADDER_ERROR_CUDA) "what: <CUDA message>" when `e` is an error.
void cuda_check(cudaError_t e, std::string_view what);
// Throws ladder::Error on a CUDA error after a launch.
void check_launch(std::string_view step_id);
// Throws ladder::Error when a kernel attribute (e.g. the dynamic SMEM limit) could not be set.
void check_attribute(cudaError_t e, std::string_view step_id);
// Raises `kernel`'s dynamic SMEM limit to `bytes` on the current device, once per (kernel, device).
void allow_dynamic_smem(const void* kernel, size_t bytes, std::string_view step_id);
// Grid of a persistent kernel: as many CTAs as fit on the current device at once (whole clusters of
// `cluster_size`), but no more than `work` clusters (or CTAs, for cluster_size 1). Occupancy is cached per
// (kernel, device); call after allow_dynamic_smem.
int persistent_grid(const void* kernel, int cluster_size, int threads, size_t smem, int64_t work);

// Clusters of `cluster` CTAs of `kernel` (with `threads` threads and `smem` bytes of dynamic SMEM each) that fit on
// the current device at once; cached per (kernel, device, threads, smem, cluster). Call after allow_dynamic_smem
// (and allow_nonportable_cluster for clusters of more than 8).
int max_active_clusters(const void* kernel, int threads, size_t smem, int cluster);
// Allows clusters of more than 8 CTAs (up to 16 on Hopper), once per (kernel, device).
void allow_nonportable_cluster(const void* kernel, std::string_view step_id);

// LADDER_TRACE=1 (runtime/tuning.hpp: read once; set_tuning switches it for tests).
bool tracing();
void print_launch(std::string_view step_id, int grid, int block, size_t smem, std::string_view note);
// With LADDER_TRACE=1, prints a launch's shape to stderr (for tuning; off by default). `note` returns the extra
// text; it is called only when tracing is on, so a launch builds no string otherwise.
template <class Note>
  requires std::invocable<Note&>
void trace_launch(std::string_view step_id, int grid, int block, size_t smem, Note&& note) {
  if (tracing()) print_launch(step_id, grid, block, smem, note());
}
inline void trace_launch(std::string_view step_id, int grid, int block, size_t smem) {
  if (tracing()) print_launch(step_id, grid, block, smem, {});
}

// ---- scratch memory (runtime/workspace.cpp) -----------------------------------------------------------
// Stream-ordered scratch memory (e.g. stream-K partial sums) from the library's own memory pool on the current
// device. The pool keeps what it has mapped (release threshold: unlimited), so repeated calls reuse it
// without mapping memory again; freed on `stream` (cudaFreeAsync) when the Workspace goes out of scope.
class Workspace {
 public:
  Workspace(size_t bytes, cudaStream_t stream, std::string_view what);
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_;
};

}  // namespace ladder::detail
