/* ladder — a half-precision GEMM built as a ladder of small steps.  C ABI.
 *
 *   D[M,N] = A[M,K] · B[N,K]ᵀ     fp16 operands, fp32 accumulation, fp16 result;
 *   A, B, D row-major, K contiguous in A and B ("TN"); all pointers are device pointers.
 *
 * Every function returns LADDER_OK (0) or an error code; ladder_last_error() then gives the message
 * (thread-local, valid until the next call on this thread). Nothing here aborts or throws.
 */
#ifndef LADDER_LADDER_H
#define LADDER_LADDER_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ladder_status {
  LADDER_OK = 0,
  LADDER_ERROR_INVALID_ARGUMENT = 1, /* null pointer, size <= 0, overflow, leading dimension too small */
  LADDER_ERROR_UNSUPPORTED_SHAPE = 2, /* the step does not accept this M, N, K (message names the rule) */
  LADDER_ERROR_MISALIGNED = 3,        /* a pointer or leading dimension breaks the step's alignment */
  LADDER_ERROR_UNKNOWN_STEP = 4,      /* no step has this id */
  LADDER_ERROR_UNSUPPORTED_DEVICE = 5,/* the current GPU cannot run this step (e.g. b-steps need sm_100) */
  LADDER_ERROR_NO_DEVICE = 6,         /* no CUDA GPU is visible */
  LADDER_ERROR_CUDA = 7,              /* a CUDA runtime error (message has the CUDA text) */
  LADDER_ERROR_INTERNAL = 8
};

/* D = A·Bᵀ with dense rows (lda = ldb = K, ldd = N). step: an id such as "h03", or NULL / "best". */
int ladder_gemm(const void* A, const void* B, void* D, int64_t M, int64_t N, int64_t K, const char* step,
                cudaStream_t stream);

/* Same with leading dimensions in elements (lda >= K, ldb >= K, ldd >= N). */
int ladder_gemm_ld(const void* A, int64_t lda, const void* B, int64_t ldb, void* D, int64_t ldd, int64_t M,
                   int64_t N, int64_t K, const char* step, cudaStream_t stream);

const char* ladder_last_error(void);
int ladder_step_count(void);
const char* ladder_step_id(int i); /* NULL when i is out of range */

#ifdef __cplusplus
}
#endif
#endif /* LADDER_LADDER_H */
