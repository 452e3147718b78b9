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
  // Alignment (bytes) D's base needs; 0: pointer_alignment, or D's element size for a fused step (best's register
  // writeback stores elements). 16 where D is always written by TMA stores (h09-h11).
  int d_alignment = 0;
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
// A grid [ceil(M / blk_m), ceil(N / blk_n)] has at most 65535 tiles along N (the grid's y limit).
std::string require_grid_y(const Problem& p, int64_t blk_n);

// The shape rules of steps 01-03, the same in both ladders. Their copies address rows by K and N, so rows are
// dense. One tile: exactly blk_m × blk_n with K = blk_k. K-loop: any number of K-tiles. 2D grid: whole tiles.
std::string require_one_tile(const Problem& p, int64_t blk_m, int64_t blk_n, int64_t blk_k);
std::string require_k_loop(const Problem& p, int64_t blk_m, int64_t blk_n, int64_t blk_k);
std::string require_grid_2d(const Problem& p, int64_t blk_m, int64_t blk_n, int64_t blk_k);

}  // namespace ladder::detail
