// The host harness: device buffers, random inputs, references (cuBLAS and CPU double), verification
// and timing. Used by the CLI, the tests and the benchmark alike; a library of its own (ladder_harness), so that
// libladder.so carries none of it and needs no cuBLAS.
#pragma once
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/runtime.hpp"

namespace ladder::harness {

using detail::cuda_check;  // throws ladder::Error(LADDER_ERROR_CUDA)

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t n) : n_(n) {
    cuda_check(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T) + 16), "cudaMalloc");
  }
  ~DeviceBuffer() {
    if (p_) cudaFree(p_);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  T* get() const { return p_; }
  size_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};

// Uniform in [-1, 1), from a counter-based hash of (seed, index): reproducible, never all zeros.
void fill_random(__half* p, size_t n, uint64_t seed, cudaStream_t stream);
// Quiet NaN everywhere: an element a kernel forgets to write stays NaN and fails verification.
void fill_poison(__half* p, size_t n, cudaStream_t stream);

class Cublas {
 public:
  Cublas();
  ~Cublas();
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  // Row-major D[M,N] = A[M,K]·B[N,K]ᵀ via the transpose identity: column-major Dᵀ = op_T(B)·op_N(A).
  void gemm_f16(const __half* A, const __half* B, __half* D, int64_t M, int64_t N, int64_t K, cudaStream_t s);
  // Same product with an fp32 result: the reference for verification (no fp16 rounding of its own).
  void gemm_f32_out(const __half* A, const __half* B, float* D, int64_t M, int64_t N, int64_t K, cudaStream_t s);

 private:
  cublasHandle_t handle_ = nullptr;
};

// CPU reference in double precision (for small problems; also checks the cuBLAS path itself).
std::vector<double> cpu_gemm(const std::vector<__half>& A, const std::vector<__half>& B, int64_t M, int64_t N, int64_t K);

// Normwise relative error bound for fp16 output of an fp32-accumulated K-long dot product:
// two fp16 roundings of the result (2·2⁻¹¹) plus fp32 accumulation growth (2·K·2⁻²⁴).
double error_bound(int64_t K);

struct Verdict {
  double rel_err = 0;          // ‖D − Dref‖_F / ‖Dref‖_F
  double bound = 0;
  int64_t nonfinite = 0;       // NaN/Inf elements (unwritten poison shows up here)
  int64_t worst_row = -1, worst_col = -1;
  double worst_got = 0, worst_ref = 0;
  bool pass = false;
  std::string detail() const;  // one line: error, bound, worst element
};

// Compares fp16 D (ldd) against an fp32 reference (dense M×N) on the device.
Verdict compare(const __half* D, int64_t ldd, const float* ref, int64_t M, int64_t N, int64_t K, cudaStream_t s);
// Compares host values against a double reference (both dense M×N).
Verdict compare_host(const std::vector<double>& got, const std::vector<double>& ref, int64_t M, int64_t N, int64_t K);

struct Stats {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int reps = 0;
};
struct TimingOptions {
  double warmup_ms = 150;   // per pair, before timing
  double target_ms = 400;   // total timed time per candidate (sets the repetition count)
  int min_reps = 20, max_reps = 1000;
};
// Times f and g interleaved (f, g, f, g, …) with CUDA events, one launch per event pair, rotating over
// `sets` input sets (call(set) runs on `stream`). Returns {stats of f, stats of g}.
std::pair<Stats, Stats> time_interleaved(const std::function<void(int)>& f, const std::function<void(int)>& g,
                                         int sets, cudaStream_t stream, const TimingOptions& opt);

}  // namespace ladder::harness
