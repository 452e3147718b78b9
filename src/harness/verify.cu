#include <cmath>
#include <cstdio>

#include "harness/harness.hpp"

namespace ladder::harness {

double error_bound(int64_t K) { return 2.0 * std::ldexp(1.0, -11) + 2.0 * static_cast<double>(K) * std::ldexp(1.0, -24); }

namespace {

constexpr int kThreads = 256, kBlocks = 512;

struct Partial {
  double diff2, ref2;
  unsigned long long nonfinite;
  double worst;  // |D - ref| of the worst finite element
  long long worst_idx;
};

__global__ void compare_kernel(const __half* D, int64_t ldd, const float* ref, int64_t M, int64_t N, Partial* out) {
  __shared__ Partial sh[kThreads];
  Partial p{0, 0, 0, -1, -1};
  const int64_t total = M * N;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t r = i / N, c = i % N;
    const double got = __half2float(D[r * ldd + c]), want = ref[i];
    if (!isfinite(got)) {
      ++p.nonfinite;
      continue;
    }
    const double d = got - want;
    p.diff2 += d * d;
    p.ref2 += want * want;
    if (fabs(d) > p.worst) p.worst = fabs(d), p.worst_idx = i;
  }
  sh[threadIdx.x] = p;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) {
      Partial& a = sh[threadIdx.x];
      const Partial& b = sh[threadIdx.x + s];
      a.diff2 += b.diff2;
      a.ref2 += b.ref2;
      a.nonfinite += b.nonfinite;
      if (b.worst > a.worst) a.worst = b.worst, a.worst_idx = b.worst_idx;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = sh[0];
}

Verdict finish(double diff2, double ref2, int64_t nonfinite, int64_t worst_idx, double got, double want, int64_t N,
               int64_t K) {
  Verdict v;
  v.rel_err = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  v.bound = error_bound(K);
  v.nonfinite = nonfinite;
  if (worst_idx >= 0) v.worst_row = worst_idx / N, v.worst_col = worst_idx % N;
  v.worst_got = got;
  v.worst_ref = want;
  // NaN never passes: a NaN rel_err fails the comparison too.
  v.pass = nonfinite == 0 && v.rel_err <= v.bound;
  return v;
}

}  // namespace

std::string Verdict::detail() const {
  char buf[256];
  std::snprintf(buf, sizeof buf, "rel_err %.3e (bound %.3e), non-finite %lld, worst (%lld,%lld) got %.5g want %.5g",
                rel_err, bound, static_cast<long long>(nonfinite), static_cast<long long>(worst_row),
                static_cast<long long>(worst_col), worst_got, worst_ref);
  return buf;
}

Verdict compare(const __half* D, int64_t ldd, const float* ref, int64_t M, int64_t N, int64_t K, cudaStream_t s) {
  DeviceBuffer<Partial> parts(kBlocks);
  compare_kernel<<<kBlocks, kThreads, 0, s>>>(D, ldd, ref, M, N, parts.get());
  cuda_check(cudaGetLastError(), "compare");
  std::vector<Partial> h(kBlocks);
  cuda_check(cudaMemcpyAsync(h.data(), parts.get(), kBlocks * sizeof(Partial), cudaMemcpyDeviceToHost, s), "memcpy");
  cuda_check(cudaStreamSynchronize(s), "compare sync");
  double diff2 = 0, ref2 = 0, worst = -1;
  int64_t nonfinite = 0, worst_idx = -1;
  for (const Partial& p : h) {
    diff2 += p.diff2;
    ref2 += p.ref2;
    nonfinite += static_cast<int64_t>(p.nonfinite);
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
  return finish(diff2, ref2, nonfinite, worst_idx, got, want, N, K);
}

Verdict compare_host(const std::vector<double>& got, const std::vector<double>& ref, int64_t M, int64_t N, int64_t K) {
  double diff2 = 0, ref2 = 0, worst = -1;
  int64_t nonfinite = 0, worst_idx = -1;
  for (int64_t i = 0; i < M * N; ++i) {
    if (!std::isfinite(got[i])) {
      ++nonfinite;
      continue;
    }
    const double d = got[i] - ref[i];
    diff2 += d * d;
    ref2 += ref[i] * ref[i];
    if (std::fabs(d) > worst) worst = std::fabs(d), worst_idx = i;
  }
  return finish(diff2, ref2, nonfinite, worst_idx, worst_idx >= 0 ? got[worst_idx] : 0,
                worst_idx >= 0 ? ref[worst_idx] : 0, N, K);
}

}  // namespace ladder::harness
