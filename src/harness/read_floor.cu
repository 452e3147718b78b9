// The read floor: a plain streaming-read kernel (16-byte ld.global.cs, grid-stride, four loads in flight per
// thread) over `bytes` of device memory. Timed in the same run as a GEMM on the same number of bytes, it
// gives the GEMM's memory limit as a same-run ratio ("% of the read floor").
#include <algorithm>

#include "harness/harness.hpp"

namespace ladder::harness {
namespace {

__global__ void read_floor_kernel(const uint4* __restrict__ p, size_t n, uint4* sink) {
  uint4 acc = make_uint4(0, 0, 0, 0);
  const size_t stride = size_t{gridDim.x} * blockDim.x;
  size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 a = __ldcs(p + i), b = __ldcs(p + i + stride), c = __ldcs(p + i + 2 * stride), d = __ldcs(p + i + 3 * stride);
    acc.x ^= a.x ^ b.x ^ c.x ^ d.x, acc.y ^= a.y ^ b.y ^ c.y ^ d.y;
    acc.z ^= a.z ^ b.z ^ c.z ^ d.z, acc.w ^= a.w ^ b.w ^ c.w ^ d.w;
  }
  for (; i < n; i += stride) {
    const uint4 a = __ldcs(p + i);
    acc.x ^= a.x, acc.y ^= a.y, acc.z ^= a.z, acc.w ^= a.w;
  }
  // Keeps the loads alive; random data never XORs to this pattern in practice, and a write would be harmless.
  if (acc.x == 0x9E3779B9u && acc.y == 0x7F4A7C15u && acc.z == 0xF39CC060u && acc.w == 0x5CEDC834u) *sink = acc;
}

}  // namespace

void read_floor(const void* p, size_t bytes, void* sink, int sms, cudaStream_t stream) {
  const size_t n = bytes / 16;
  constexpr int kThreads = 512;
  // Enough threads for four loads each, up to 8 waves of 4 blocks per SM.
  const size_t want = (n + 4 * kThreads - 1) / (4 * kThreads);
  const int blocks = static_cast<int>(std::min<size_t>(std::max<size_t>(want, 1), size_t{32} * sms));
  read_floor_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const uint4*>(p), n, static_cast<uint4*>(sink));
  cuda_check(cudaGetLastError(), "read_floor");
}

}  // namespace ladder::harness
