#include <string>

#include "harness/harness.hpp"
#include "ladder/ladder.hpp"

namespace ladder::harness {

namespace {
void cublas_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw Error(LADDER_ERROR_CUDA, std::string(what) + ": cuBLAS status " + cublasGetStatusString(s));
}
}  // namespace

Cublas::Cublas() { cublas_check(cublasCreate(&handle_), "cublasCreate"); }
Cublas::~Cublas() {
  if (handle_) cublasDestroy(handle_);
}

namespace {
// Row-major D[M,N] = A·Bᵀ is column-major Dᵀ[N,M] = Bᵀᵀ… : op(B) = T on the column-major K×N view of B,
// op(A) = N on the column-major K×M view of A, result N×M column-major with ld N = D row-major.
void gemm_ex(cublasHandle_t h, const __half* A, const __half* B, void* D, cudaDataType dtype, int64_t M, int64_t N,
             int64_t K, cudaStream_t s) {
  cublas_check(cublasSetStream(h, s), "cublasSetStream");
  const float alpha = 1.0f, beta = 0.0f;
  cublas_check(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(N), static_cast<int>(M), static_cast<int>(K),
                            &alpha, B, CUDA_R_16F, static_cast<int>(K), A, CUDA_R_16F, static_cast<int>(K), &beta, D,
                            dtype, static_cast<int>(N), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx");
}
}  // namespace

void Cublas::gemm_f16(const __half* A, const __half* B, __half* D, int64_t M, int64_t N, int64_t K, cudaStream_t s) {
  gemm_ex(handle_, A, B, D, CUDA_R_16F, M, N, K, s);
}

void Cublas::gemm_f32_out(const __half* A, const __half* B, float* D, int64_t M, int64_t N, int64_t K,
                          cudaStream_t s) {
  gemm_ex(handle_, A, B, D, CUDA_R_32F, M, N, K, s);
}

std::vector<double> cpu_gemm(const std::vector<__half>& A, const std::vector<__half>& B, int64_t M, int64_t N,
                             int64_t K) {
  std::vector<double> a(A.size()), b(B.size()), d(static_cast<size_t>(M * N));
  for (size_t i = 0; i < A.size(); ++i) a[i] = __half2float(A[i]);
  for (size_t i = 0; i < B.size(); ++i) b[i] = __half2float(B[i]);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0;
      const double* ar = &a[m * K];
      const double* br = &b[n * K];
      for (int64_t k = 0; k < K; ++k) acc += ar[k] * br[k];
      d[m * N + n] = acc;
    }
  return d;
}

}  // namespace ladder::harness
