// What every step is to the rest of ladder: an entry of the one registry (src/registry.cpp).
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "device/epilogue_op.hpp"
#include "ladder/ladder.hpp"

namespace ladder::detail {

// D[M,N] = A[M,K] · B[N,K]ᵀ; row-major, K contiguous in A and B; leading dimensions in elements.
// The teaching steps take the seed's problem: fp16 in and out, no epilogue (the defaults below). Steps with
// `Step::fused` also take bf16 operands (A, B, D then point at bf16 data), an fp32 D and the epilogue; with
// SwiGLU, N counts B's rows (2·I) and D has N/2 columns.
struct Problem {
  const __half* A;
  const __half* B;
  __half* D;
  int64_t M, N, K;
  int64_t lda, ldb, ldd;
  DType ab = DType::f16;  // A and B
  DType d = DType::f16;   // D (and C)
  EpilogueParams ep = {};
  bool b_static = false;  // B is not written by the work before this GEMM on the stream (PDL may prefetch it)

  constexpr int64_t out_cols() const { return ep.swiglu ? N / 2 : N; }
  constexpr bool plain() const { return ab == DType::f16 && d == DType::f16 && ep.plain(); }
};

enum class Arch { hopper, blackwell };

struct Step {
  std::string_view id;      // "h01", "b03"
  Arch arch;
  std::string_view title;   // "one tile"
  std::string_view change;  // the one hop this step changes
  std::string_view shapes;  // human-readable constraints, e.g. "M%128==0, N%128==0, K%64==0"
  // Empty when the step accepts the problem, else a message naming the violated constraint.
  std::string (*check)(const Problem&);
  void (*launch)(const Problem&, cudaStream_t);
  // Optional fault-injection variants (a deliberately broken build of the same kernel, to show that the
  // verifier catches the bug): names, comma-separated, and their launcher.
  std::string_view faults = {};
  void (*launch_fault)(const Problem&, cudaStream_t, std::string_view fault) = nullptr;
  // Alignment (bytes) the step needs of A, B and D: 16 for 16-byte vectors and TMA.
  int pointer_alignment = 16;
  // Takes bf16 operands, an fp32 D and the fused epilogue (Problem::ab, d, ep); otherwise fp16 only, no epilogue.
  bool fused = false;
  // Optional: what the step launches for this problem, in words (tile, split, kernel family); `plan` shows it.
  std::string (*describe)(const Problem&) = nullptr;
};

std::span<const Step* const> registry();
const Step* find_step(std::string_view id);  // nullptr when unknown

inline constexpr int required_cc(Arch a) { return a == Arch::hopper ? 90 : 100; }
inline constexpr std::string_view arch_name(Arch a) { return a == Arch::hopper ? "hopper" : "blackwell"; }
inline constexpr std::string_view arch_target(Arch a) { return a == Arch::hopper ? "sm_90a" : "sm_100a"; }

// Shared constraint helpers for the steps' check functions.
std::string require_multiple(std::string_view what, int64_t value, int64_t multiple);
std::string require_equal(std::string_view what, int64_t value, int64_t expected);
std::string require_dense(const Problem& p);  // lda == K, ldb == K, ldd == N
// TMA reads rows through a tensor map whose row stride must be a multiple of 16 bytes: K, lda, ldb % 8 == 0.
std::string require_tma_rows(const Problem& p);

// Throws ladder::Error on a CUDA error after a launch.
void check_launch(std::string_view step_id);
// Number of SMs of the current device (cached): persistent grids are sized by it.
int sm_count();
// Grid of a persistent kernel: as many CTAs as fit on the current device at once (whole clusters of
// `cluster_size`), but no more than `work` clusters (or CTAs, for cluster_size 1). Occupancy is cached per
// (kernel, device); call after allow_dynamic_smem.
int persistent_grid(const void* kernel, int cluster_size, int threads, size_t smem, int64_t work);
// With LADDER_TRACE=1 in the environment, prints a launch's shape to stderr (for tuning; off by default).
void trace_launch(std::string_view step_id, int grid, int block, size_t smem, std::string_view note = {});
// Throws ladder::Error when a kernel attribute (e.g. the dynamic SMEM limit) could not be set.
void check_attribute(cudaError_t e, std::string_view step_id);
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
// Raises `kernel`'s dynamic SMEM limit to `bytes` on the current device, once per (kernel, device).
void allow_dynamic_smem(const void* kernel, size_t bytes, std::string_view step_id);

}  // namespace ladder::detail
