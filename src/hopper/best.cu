// `best` — the library default: any M, N, K ≥ 1, any leading dimensions, fp16-aligned pointers.
// Picks per problem:
//   • rows TMA can read (K, lda, ldb % 8 == 0, A and B 16-byte aligned) → h10 if TMA can also store D
//     (ldd % 8 == 0, D 16-byte aligned), else h08, whose register writeback takes any ldd;
//   • otherwise A and B are first copied into a zero-padded workspace with K rounded up to a multiple of 8
//     (the extra zeros add nothing to D), then as above. cuBLAS has no TMA path for such shapes
//     (~130 TFLOP/s at 8191³); the copy costs two passes over A and B.
// The workspace is stream-ordered memory from the library's own pool (detail::Workspace): kept mapped and
// reused across calls, freed on the stream after the GEMM, never leaked.
#include "runtime/runtime.hpp"
#include "step.hpp"

extern const ladder::detail::Step step_h08, step_h10;

namespace ladder::hopper {
namespace {

// dst[r, c] = c < K ? src[r·ld + c] : 0 for c < Kp; 8 outputs (one 16-byte store) per thread.
__global__ void pad_rows_kernel(const __half* __restrict__ src, int64_t ld, int64_t rows, int64_t K, __half* dst,
                                int64_t Kp) {
  const int64_t chunks = Kp / 8;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < rows * chunks; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t r = i / chunks, c0 = (i % chunks) * 8;
    alignas(16) __half v[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) v[j] = c0 + j < K ? src[r * ld + c0 + j] : __float2half(0.0f);
    *reinterpret_cast<uint4*>(dst + r * Kp + c0) = *reinterpret_cast<const uint4*>(v);
  }
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

bool tma_rows(const detail::Problem& p) {
  return p.K % 8 == 0 && p.lda % 8 == 0 && p.ldb % 8 == 0 && aligned16(p.A) && aligned16(p.B);
}

void run_aligned(const detail::Problem& p, cudaStream_t stream) {
  const bool tma_store = p.ldd % 8 == 0 && aligned16(p.D);
  (tma_store ? step_h10 : step_h08).launch(p, stream);
}

void launch(const detail::Problem& p, cudaStream_t stream) {
  if (tma_rows(p)) return run_aligned(p, stream);
  const int64_t Kp = (p.K + 7) / 8 * 8;
  const detail::Workspace a(p.M * Kp * sizeof(__half), stream, "best (padding)"),
      b(p.N * Kp * sizeof(__half), stream, "best (padding)");  // freed on the stream after the GEMM
  auto* pa = static_cast<__half*>(a.get());
  auto* pb = static_cast<__half*>(b.get());
  pad_rows_kernel<<<1024, 256, 0, stream>>>(p.A, p.lda, p.M, p.K, pa, Kp);
  pad_rows_kernel<<<1024, 256, 0, stream>>>(p.B, p.ldb, p.N, p.K, pb, Kp);
  detail::check_launch("best (padding)");
  run_aligned({pa, pb, p.D, p.M, p.N, Kp, Kp, Kp, p.ldd}, stream);
}

std::string check(const detail::Problem& p) {
  if (p.M > INT32_MAX || p.N > INT32_MAX || p.K > INT32_MAX - 8) return "M, N and K must fit in 32 bits (TMA coordinates)";
  return {};
}

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_best = {
    "best", ladder::detail::Arch::hopper, "best",
    "picks per shape: h10, or h08 when D cannot be TMA-stored; K % 8 != 0 or unaligned rows go through a "
    "zero-padded workspace",
    "any M, N, K >= 1; any lda >= K, ldb >= K, ldd >= N; 2-byte aligned pointers", ladder::hopper::check,
    ladder::hopper::launch, {}, nullptr, /*pointer_alignment=*/2};
