#include "harness/harness.hpp"

namespace ladder::harness {
namespace {

__device__ __forceinline__ uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__global__ void fill_random_kernel(__half* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    const uint64_t r = splitmix64(seed * 0x100000001B3ull ^ i);
    const float u = static_cast<float>(r >> 40) * (1.0f / 16777216.0f);  // [0, 1), 24 bits
    p[i] = __float2half_rn(2.0f * u - 1.0f);
  }
}

__global__ void fill_value_kernel(__half* p, size_t n, __half v) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) p[i] = v;
}

}  // namespace

void fill_random(__half* p, size_t n, uint64_t seed, cudaStream_t stream) {
  fill_random_kernel<<<1024, 256, 0, stream>>>(p, n, seed);
  cuda_check(cudaGetLastError(), "fill_random");
}

void fill_poison(__half* p, size_t n, cudaStream_t stream) {
  fill_value_kernel<<<1024, 256, 0, stream>>>(p, n, __ushort_as_half(0x7E00));  // fp16 quiet NaN
  cuda_check(cudaGetLastError(), "fill_poison");
}

}  // namespace ladder::harness
