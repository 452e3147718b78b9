/* ladder — a half-precision GEMM built as a ladder of small steps.  C ABI.
 *
 *   D[M,N] = A[M,K] · B[N,K]ᵀ     fp16 operands, fp32 accumulation, fp16 result (ladder_gemm_v2: also bf16,
 *                                  an fp32 result and a fused epilogue);
 *   A, B, D row-major, K contiguous in A and B ("TN"); all pointers are device pointers.
 *
 * Every function returns LADDER_OK (0) or an error code; ladder_last_error() then gives the message
 * (thread-local, valid until the next call on this thread). Nothing here aborts or throws.
 */
#ifndef LADDER_LADDER_H
#define LADDER_LADDER_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "ladder/export.h"

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
LADDER_API int ladder_gemm(const void* A, const void* B, void* D, int64_t M, int64_t N, int64_t K, const char* step,
                           cudaStream_t stream);

/* Same with leading dimensions in elements (lda >= K, ldb >= K, ldd >= N). */
LADDER_API int ladder_gemm_ld(const void* A, int64_t lda, const void* B, int64_t ldb, void* D, int64_t ldd, int64_t M,
                              int64_t N, int64_t K, const char* step, cudaStream_t stream);

/* ---- The descriptor-based entry point: dtypes, leading dimensions, a fused epilogue ----------------------
 *
 *   acc[m, n] = sum_k A[m, k] · B[n, k]                  (fp32 accumulation)
 *   y         = act(alpha · acc + bias[n])               (activation after the bias)
 *   D[m, n]   = y + beta · C[m, n]                       (C: a residual, or D itself to accumulate into D)
 *
 * With LADDER_EPILOGUE_SWIGLU, B holds the concatenated [gate; up] weights (N = 2·I rows: gate rows 0..I-1,
 * up rows I..2I-1) and D is M×I:  D[m, j] = silu(alpha·acc[m, j] + bias[j]) · (alpha·acc[m, I + j] + bias[I + j])
 * + beta·C[m, j]  (bias, when given, has 2·I entries; `activation` must be NONE).
 * Everything is applied before the one store of D: no second kernel. Where `best` runs the cooperative 128×256
 * kernel, an activation (GELU, SiLU, SwiGLU) without beta·C, or beta·C without an activation, is applied in SMEM by
 * epilogue warps under the next tile's mainloop, from its input rounded to D's dtype first, as torch's unfused ops
 * round it: act(round(alpha·acc + bias)), or D = round(round(y) + beta·C); a CTA's last tile, with no mainloop left to
 * hide under, rounds once (`ladder_gemm_plan` says "deferred"; LADDER_TUNE defer=0 or 1 keeps them in registers).
 * Zero-initialise the struct and set `struct_size = sizeof(struct ladder_gemm_desc)`; fields added later will
 * keep zero meaning "off". The operands' dtypes must match (fp16 or bf16); D is that dtype or fp32. */
enum ladder_dtype {
  LADDER_DTYPE_F16 = 0,  /* IEEE half */
  LADDER_DTYPE_BF16 = 1, /* bfloat16 */
  LADDER_DTYPE_F32 = 2   /* D, C (as D's dtype) and bias only */
  /* reserved: 3 = fp8 e4m3, 4 = fp8 e5m2 (with the scale fields below) */
};

enum ladder_activation {
  LADDER_ACTIVATION_NONE = 0,
  LADDER_ACTIVATION_RELU = 1,
  LADDER_ACTIVATION_GELU_TANH = 2, /* 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) */
  LADDER_ACTIVATION_GELU_ERF = 3,  /* 0.5·x·(1 + erf(x/√2)) */
  LADDER_ACTIVATION_SILU = 4       /* x·sigmoid(x) */
};

enum ladder_epilogue_kind {
  LADDER_EPILOGUE_DEFAULT = 0, /* D = act(alpha·acc + bias) + beta·C */
  LADDER_EPILOGUE_SWIGLU = 1   /* D = silu(gate) · up, gate/up from the two halves of B (see above) */
};

/* B is not written by the work queued before this GEMM on its stream (a model's weights): with programmatic
 * dependent launch the kernel may load its first weight stages before the previous kernel has finished. */
#define LADDER_FLAG_B_STATIC 1

struct ladder_gemm_desc {
  uint32_t struct_size; /* sizeof(struct ladder_gemm_desc) */
  int64_t M, N, K;      /* N = rows of B (2·I with SWIGLU) */
  const void* A;        /* M×K, row-major, lda >= K (0: dense) */
  int64_t lda;
  const void* B; /* N×K, row-major, ldb >= K (0: dense) */
  int64_t ldb;
  void* D; /* M×N (M×N/2 with SWIGLU), row-major, ldd >= its columns (0: dense) */
  int64_t ldd;
  int32_t ab_dtype; /* enum ladder_dtype of A and B: F16 or BF16 */
  int32_t d_dtype;  /* enum ladder_dtype of D (and of C): ab_dtype or F32 */
  float alpha;      /* ladder_gemm_desc_init() sets 1; a zero-filled struct means alpha = 0 */
  float beta;       /* 0: C is not read */
  const void* C;    /* like D (same dtype and columns), ldc >= its columns (0: D's); may be D itself */
  int64_t ldc;
  const void* bias;   /* NULL or one value per column of the product (N values), dtype bias_dtype */
  int32_t bias_dtype; /* F16, BF16 or F32 */
  int32_t activation; /* enum ladder_activation */
  int32_t epilogue;   /* enum ladder_epilogue_kind */
  int32_t flags;      /* LADDER_FLAG_* bits, 0 for none */
  const float* a_scale; /* reserved for fp8 (per-tensor scales): must be NULL */
  const float* b_scale; /* reserved for fp8: must be NULL */
  const char* step;     /* NULL or "best" (the default), or a step id */
};

/* A descriptor for D = A·Bᵀ (dense, fp16, alpha = 1, beta = 0, no epilogue): set the pointers and sizes. */
LADDER_API void ladder_gemm_desc_init(struct ladder_gemm_desc* desc);
/* Checks everything (arguments, dtypes, epilogue, step, device) and launches on `stream`. */
LADDER_API int ladder_gemm_v2(const struct ladder_gemm_desc* desc, cudaStream_t stream);
/* The kernel that ladder_gemm_v2 would launch for this descriptor, in words ("h12 small-M: ..."), without
 * launching; NULL on error (then ladder_last_error()). The string is valid until the next call on this thread. */
LADDER_API const char* ladder_gemm_plan(const struct ladder_gemm_desc* desc);

LADDER_API const char* ladder_last_error(void);
LADDER_API int ladder_step_count(void);
LADDER_API const char* ladder_step_id(int i); /* NULL when i is out of range */

#ifdef __cplusplus
}
#endif
#endif /* LADDER_LADDER_H */
