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

// Unit roundoff of a result format: the largest relative error of one rounding to nearest.
inline constexpr double kUnitRoundoffF16 = 0x1p-11, kUnitRoundoffBF16 = 0x1p-8, kUnitRoundoffF32 = 0x1p-24;
inline constexpr double kUnitRoundoffAccumulator = kUnitRoundoffF32;  // every step accumulates in fp32

// Normwise relative error bound for a K-long fp32-accumulated dot product rounded once to a format of unit
// roundoff u_out: two roundings of the result (2·u_out) plus fp32 accumulation growth (2·K·2⁻²⁴).
double error_bound(int64_t K, double u_out = kUnitRoundoffF16);

// The elementwise bound, which every element must meet: |D − ref| ≤ rel·|ref| + abs, with
//   rel = 2·u_out                      one rounding of the result, doubled for safety;
//   abs = (u_out + 2·K·2⁻²⁴)·ref_rms   near zero, one rounding at the typical magnitude of an element (the
//                                      reference's rms), plus fp32 accumulation in the step and in the
//                                      reference: K adds each, each off by up to an ulp of a partial sum
//                                      of that magnitude (no cancellation assumed: tensor cores may truncate).
// With inputs uniform in [-1, 1), ref_rms = √K/3, so abs ≥ 1.6·10⁻⁴·√K: looser than 2⁻¹⁰·|ref| + 10⁻⁴·√K,
// which `best` was measured to meet on every shape. Yet one element off by a few ulps fails it, where the
// normwise bound lets whole wrong elements through at large sizes (4096³: one off by 100 passes).
struct ElementBound {
  double rel = 0, abs = 0;
  double operator()(double ref) const { return rel * (ref < 0 ? -ref : ref) + abs; }
};
ElementBound element_bound(int64_t K, double ref_rms, double u_out = kUnitRoundoffF16);

struct Verdict {
  double rel_err = 0;          // ‖D − Dref‖_F / ‖Dref‖_F over the finite elements
  double bound = 0;            // its normwise bound (error_bound)
  ElementBound element;        // the elementwise bound
  int64_t over_bound = 0;      // finite elements with |D − ref| > element(ref)
  int64_t nonfinite = 0;       // NaN/Inf elements (unwritten poison shows up here)
  double worst_ratio = 0;      // the largest |D − ref| / element(ref): ≤ 1 passes
  int64_t worst_row = -1, worst_col = -1;  // where it is
  double worst_got = 0, worst_ref = 0;
  bool pass = false;           // no non-finite element, none over its bound, and rel_err ≤ bound
  std::string detail() const;  // one line: both errors, their bounds, the worst element
};

// Compares fp16 D (ldd) against an fp32 reference (dense M×N) on the device.
Verdict compare(const __half* D, int64_t ldd, const float* ref, int64_t M, int64_t N, int64_t K, cudaStream_t s);
// Compares host values against a double reference (both dense M×N); `u_out` is the unit roundoff of `got`'s
// format (kUnitRoundoffF32 for cuBLAS's fp32 output).
Verdict compare_host(const std::vector<double>& got, const std::vector<double>& ref, int64_t M, int64_t N, int64_t K,
                     double u_out = kUnitRoundoffF16);

struct Stats {
  double median_ms = 0, min_ms = 0, max_ms = 0;  // GPU time a call (CUDA events)
  int reps = 0;
  // Host time a call (the launch path on the CPU, with the launch queue empty: nothing blocks on the GPU). Where
  // it reaches median_ms, back-to-back calls are paced by the host: the GPU waits for each launch.
  double host_us = 0;
};
struct TimingOptions {
  double warmup_ms = 150;   // before timing, all the interleaved functions together
  double target_ms = 400;   // total timed time per candidate (sets the repetition count)
  int min_reps = 20, max_reps = 1000;
};
// Streams `bytes` (a multiple of 16, 16-byte aligned) of device memory through the SMs once: the read floor.
// `sink` is 16 bytes of device memory the kernel may write.
void read_floor(const void* p, size_t bytes, void* sink, int sms, cudaStream_t stream);

// Times fs[0], fs[1], … interleaved sample by sample with CUDA events, rotating over `sets` input sets
// (call(set) runs on `stream`). Returns the stats of each, with each one's host time a call (Stats::host_us).
std::vector<Stats> time_interleaved(const std::vector<std::function<void(int)>>& fs, int sets, cudaStream_t stream,
                                    const TimingOptions& opt);

}  // namespace ladder::harness
