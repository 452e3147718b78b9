// Verification: a normwise and an elementwise comparison against a reference (harness.hpp has the bounds).
#include <cmath>
#include <cstdio>

#include "harness/harness.hpp"

namespace ladder::harness {

double error_bound(int64_t K, double u_out) {
  return 2.0 * u_out + 2.0 * static_cast<double>(K) * kUnitRoundoffAccumulator;
}

ElementBound element_bound(int64_t K, double ref_rms, double u_out) {
  return {2.0 * u_out, (u_out + 2.0 * static_cast<double>(K) * kUnitRoundoffAccumulator) * ref_rms};
}

namespace {

constexpr int kThreads = 256, kBlocks = 512;

// Pass 1: the norms (the rms of the reference sets the elementwise bound's absolute term).
struct Norms {
  double diff2, ref2;
  unsigned long long nonfinite;
};
// Pass 2: the elements over the elementwise bound, and the worst ratio.
struct Excess {
  unsigned long long over;
  double worst;  // |D − ref| / bound of the worst finite element
  long long worst_idx;
};

__device__ __forceinline__ double ratio(double err, double tol) {
  return tol > 0 ? err / tol : (err > 0 ? INFINITY : 0);
}

// Block-wide sum/max of one partial per thread; thread 0 writes the block's result.
template <class T, class Combine>
__device__ void block_reduce(T p, T* out, Combine combine) {
  __shared__ T sh[kThreads];
  sh[threadIdx.x] = p;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) combine(sh[threadIdx.x], sh[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = sh[0];
}

__global__ void norms_kernel(const __half* D, int64_t ldd, const float* ref, int64_t M, int64_t N, Norms* out) {
  Norms p{0, 0, 0};
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < M * N; i += int64_t{gridDim.x} * blockDim.x) {
    const double got = __half2float(D[i / N * ldd + i % N]), want = ref[i];
    p.ref2 += want * want;
    if (!isfinite(got)) {
      ++p.nonfinite;
      continue;
    }
    p.diff2 += (got - want) * (got - want);
  }
  block_reduce(p, out, [](Norms& a, const Norms& b) {
    a.diff2 += b.diff2;
    a.ref2 += b.ref2;
    a.nonfinite += b.nonfinite;
  });
}

__global__ void excess_kernel(const __half* D, int64_t ldd, const float* ref, int64_t M, int64_t N, ElementBound bound,
                              Excess* out) {
  Excess p{0, -1, -1};
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < M * N; i += int64_t{gridDim.x} * blockDim.x) {
    const double got = __half2float(D[i / N * ldd + i % N]), want = ref[i];
    if (!isfinite(got)) continue;  // counted in pass 1
    const double r = ratio(fabs(got - want), bound.rel * fabs(want) + bound.abs);
    if (r > 1) ++p.over;
    if (r > p.worst) p.worst = r, p.worst_idx = i;
  }
  block_reduce(p, out, [](Excess& a, const Excess& b) {
    a.over += b.over;
    if (b.worst > a.worst) a.worst = b.worst, a.worst_idx = b.worst_idx;
  });
}

// The verdict from both passes' totals.
Verdict finish(double diff2, double ref2, int64_t nonfinite, int64_t over, double worst, int64_t worst_idx, double got,
               double want, int64_t N, double bound, ElementBound element) {
  Verdict v;
  v.rel_err = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  v.bound = bound;
  v.element = element;
  v.over_bound = over;
  v.nonfinite = nonfinite;
  v.worst_ratio = worst < 0 ? 0 : worst;
  if (worst_idx >= 0) v.worst_row = worst_idx / N, v.worst_col = worst_idx % N;
  v.worst_got = got;
  v.worst_ref = want;
  // NaN never passes: a NaN rel_err fails the comparison too.
  v.pass = nonfinite == 0 && over == 0 && v.rel_err <= v.bound;
  return v;
}

double rms(double ref2, int64_t M, int64_t N) { return std::sqrt(ref2 / static_cast<double>(M * N)); }

}  // namespace

std::string Verdict::detail() const {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "rel_err %.3e (bound %.3e); elementwise bound %.2e*|ref| + %.2e: %lld over, worst %.3gx at "
                "(%lld,%lld) got %.5g want %.5g; non-finite %lld",
                rel_err, bound, element.rel, element.abs, static_cast<long long>(over_bound), worst_ratio,
                static_cast<long long>(worst_row), static_cast<long long>(worst_col), worst_got, worst_ref,
                static_cast<long long>(nonfinite));
  return buf;
}

Verdict compare(const __half* D, int64_t ldd, const float* ref, int64_t M, int64_t N, int64_t K, cudaStream_t s) {
  DeviceBuffer<Norms> norm_parts(kBlocks);
  norms_kernel<<<kBlocks, kThreads, 0, s>>>(D, ldd, ref, M, N, norm_parts.get());
  cuda_check(cudaGetLastError(), "compare (norms)");
  std::vector<Norms> norms(kBlocks);
  cuda_check(cudaMemcpyAsync(norms.data(), norm_parts.get(), kBlocks * sizeof(Norms), cudaMemcpyDeviceToHost, s),
             "memcpy");
  cuda_check(cudaStreamSynchronize(s), "compare sync");
  double diff2 = 0, ref2 = 0;
  int64_t nonfinite = 0;
  for (const Norms& p : norms) diff2 += p.diff2, ref2 += p.ref2, nonfinite += static_cast<int64_t>(p.nonfinite);

  const ElementBound element = element_bound(K, rms(ref2, M, N));
  DeviceBuffer<Excess> excess_parts(kBlocks);
  excess_kernel<<<kBlocks, kThreads, 0, s>>>(D, ldd, ref, M, N, element, excess_parts.get());
  cuda_check(cudaGetLastError(), "compare (elementwise)");
  std::vector<Excess> excess(kBlocks);
  cuda_check(cudaMemcpyAsync(excess.data(), excess_parts.get(), kBlocks * sizeof(Excess), cudaMemcpyDeviceToHost, s),
             "memcpy");
  cuda_check(cudaStreamSynchronize(s), "compare sync");
  int64_t over = 0, worst_idx = -1;
  double worst = -1;
  for (const Excess& p : excess) {
    over += static_cast<int64_t>(p.over);
    if (p.worst > worst) worst = p.worst, worst_idx = p.worst_idx;
  }

  double got = 0, want = 0;
  if (worst_idx >= 0) {
    __half g;
    float w;
    const int64_t r = worst_idx / N, c = worst_idx % N;
    cuda_check(cudaMemcpy(&g, D + r * ldd + c, sizeof g, cudaMemcpyDeviceToHost), "memcpy");
    cuda_check(cudaMemcpy(&w, ref + worst_idx, sizeof w, cudaMemcpyDeviceToHost), "memcpy");
    got = __half2float(g);
    want = w;
  }
  return finish(diff2, ref2, nonfinite, over, worst, worst_idx, got, want, N, error_bound(K), element);
}

Verdict compare_host(const std::vector<double>& got, const std::vector<double>& ref, int64_t M, int64_t N, int64_t K,
                     double u_out) {
  double diff2 = 0, ref2 = 0;
  int64_t nonfinite = 0;
  for (int64_t i = 0; i < M * N; ++i) {
    ref2 += ref[i] * ref[i];
    if (!std::isfinite(got[i])) {
      ++nonfinite;
      continue;
    }
    diff2 += (got[i] - ref[i]) * (got[i] - ref[i]);
  }
  const ElementBound element = element_bound(K, rms(ref2, M, N), u_out);
  int64_t over = 0, worst_idx = -1;
  double worst = -1;
  for (int64_t i = 0; i < M * N; ++i) {
    if (!std::isfinite(got[i])) continue;
    const double err = std::fabs(got[i] - ref[i]), tol = element(ref[i]);
    const double r = tol > 0 ? err / tol : (err > 0 ? INFINITY : 0);
    if (r > 1) ++over;
    if (r > worst) worst = r, worst_idx = i;
  }
  return finish(diff2, ref2, nonfinite, over, worst, worst_idx, worst_idx >= 0 ? got[worst_idx] : 0,
                worst_idx >= 0 ? ref[worst_idx] : 0, N, error_bound(K, u_out), element);
}

}  // namespace ladder::harness
