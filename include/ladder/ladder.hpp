// ladder — a half-precision GEMM built as a ladder of small steps.  C++ API.
//
//   D[M,N] = A[M,K] · B[N,K]ᵀ   fp16 operands, fp32 accumulation, fp16 result, row-major, K contiguous.
//
// Errors are thrown as ladder::Error; code() matches the C ABI's ladder_status, what() its message.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ladder/ladder.h"

namespace ladder {

class LADDER_API Error : public std::runtime_error {
 public:
  Error(ladder_status code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ladder_status code() const noexcept { return code_; }

 private:
  ladder_status code_;
};

struct StepInfo {
  std::string id;          // "h01", "b03"
  std::string arch;        // "hopper" or "blackwell"
  std::string target;      // "sm_90a" or "sm_100a"
  std::string title;       // "one tile"
  std::string change;      // the one hop this step changes
  std::string shapes;      // the shapes and alignments it accepts
};

LADDER_API std::vector<StepInfo> steps();

// Leading dimensions in elements; 0 means dense (K, K, N).
struct Strides {
  int64_t lda = 0, ldb = 0, ldd = 0;
};

LADDER_API void gemm(const __half* A, const __half* B, __half* D, int64_t M, int64_t N, int64_t K,
                     std::string_view step = "best", cudaStream_t stream = nullptr, Strides strides = {});

// The descriptor form (include/ladder/ladder.h): bf16, fp32 output, the fused epilogue.
LADDER_API void gemm(const ladder_gemm_desc& desc, cudaStream_t stream = nullptr);
// What gemm(desc) would launch, in words: the step, the kernel family, its tile and split (throws like gemm).
LADDER_API std::string plan(const ladder_gemm_desc& desc);

// Empty when `step` can run this problem on the current GPU, else the reason (no launch, no throw).
LADDER_API std::string why_not(std::string_view step, int64_t M, int64_t N, int64_t K, Strides strides = {});

// The step "best" resolves to for this problem on the current GPU (throws if none accepts it).
LADDER_API std::string resolve(std::string_view step, int64_t M, int64_t N, int64_t K, Strides strides = {});

}  // namespace ladder
