// A stand-in for libcudart.so.13 with no GPU behind it: the 23 entry points libladder imports, answered as an
// H100/H200 would (132 SMs, 228 KB of SMEM an SM, clusters packed into 8 GPCs) and launching nothing. Loaded in
// place of the real runtime (LD_LIBRARY_PATH), it lets ladder's own host path (argument checks, best's choice, the
// plan, the tensor-map cache, the launch arguments) be timed and profiled on a machine without a GPU. What it
// cannot show: the driver's own time (cudaLaunchKernelExC, cuTensorMapEncodeTiled), stubbed here.
//
// Built and run by scripts/host_path_cpu.sh; not part of the library.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

namespace {
constexpr int kSms = 132;
constexpr int kGpcSms[8] = {18, 18, 16, 16, 16, 16, 16, 16};  // 132 SMs
constexpr size_t kSmemPerSm = 228 * 1024, kSmemReservedPerCta = 1024;

int ctas_per_sm(int threads, size_t smem) {
  const int by_smem = static_cast<int>(kSmemPerSm / (smem + kSmemReservedPerCta));
  const int by_threads = 2048 / std::max(threads, 1);
  return std::max(0, std::min({by_smem, by_threads, 32}));
}

CUresult fake_encode(CUtensorMap* map, CUtensorMapDataType, cuuint32_t, void* base, const cuuint64_t* dims,
                     const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                     CUtensorMapL2promotion, CUtensorMapFloatOOBfill) {
  std::memset(map, 0, sizeof *map);
  std::memcpy(map, &base, sizeof base);
  std::memcpy(reinterpret_cast<char*>(map) + 8, dims, 16);
  return CUDA_SUCCESS;
}
}  // namespace

extern "C" {
cudaError_t cudaGetDeviceCount(int* n) { return *n = 1, cudaSuccess; }
cudaError_t cudaGetDevice(int* d) { return *d = 0, cudaSuccess; }
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int) {
  std::memset(p, 0, sizeof *p);
  std::strcpy(p->name, "NVIDIA H200 (fake runtime)");
  p->major = 9, p->minor = 0;
  p->multiProcessorCount = kSms;
  p->l2CacheSize = 50 << 20;
  p->sharedMemPerMultiprocessor = kSmemPerSm;
  p->sharedMemPerBlockOptin = kSmemPerSm - kSmemReservedPerCta;
  return cudaSuccess;
}
cudaError_t cudaGetLastError() { return cudaSuccess; }
const char* cudaGetErrorString(cudaError_t) { return "fake runtime"; }
cudaError_t cudaFuncSetAttribute(const void*, cudaFuncAttribute, int) { return cudaSuccess; }
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* n, const void*, int threads, size_t smem) {
  return *n = ctas_per_sm(threads, smem), cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveClusters(int* n, const void*, const cudaLaunchConfig_t* c) {
  int cluster = 1;
  for (unsigned i = 0; i < c->numAttrs; ++i)
    if (c->attrs[i].id == cudaLaunchAttributeClusterDimension)
      cluster = static_cast<int>(c->attrs[i].val.clusterDim.x * c->attrs[i].val.clusterDim.y * c->attrs[i].val.clusterDim.z);
  const int per_sm = ctas_per_sm(static_cast<int>(c->blockDim.x * c->blockDim.y * c->blockDim.z), c->dynamicSmemBytes);
  *n = 0;
  for (int sms : kGpcSms) *n += sms * per_sm / cluster;
  return cudaSuccess;
}
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t*, const void*, void**) { return cudaSuccess; }
cudaError_t cudaGetDriverEntryPointByVersion(const char* name, void** fn, unsigned, unsigned long long,
                                             cudaDriverEntryPointQueryResult* q) {
  if (std::strcmp(name, "cuTensorMapEncodeTiled") != 0) return *q = cudaDriverEntryPointSymbolNotFound, cudaErrorSymbolNotFound;
  *fn = reinterpret_cast<void*>(&fake_encode);
  *q = cudaDriverEntryPointSuccess;
  return cudaSuccess;
}
cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const cudaMemPoolProps*) {
  *pool = reinterpret_cast<cudaMemPool_t>(std::malloc(1));
  return cudaSuccess;
}
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t, cudaMemPoolAttr, void*) { return cudaSuccess; }
// The pool keeps what it maps, as ladder's real pool does (release threshold: unlimited): freed blocks are reused by
// size, so a padded call does not time glibc's mmap of megabytes. Addresses only; nothing is written to them.
std::map<size_t, std::vector<void*>> g_free;
std::map<void*, size_t> g_size;
cudaError_t cudaMallocFromPoolAsync(void** p, size_t bytes, cudaMemPool_t, cudaStream_t) {
  bytes = (bytes + 255) / 256 * 256;
  if (auto& v = g_free[bytes]; !v.empty()) return *p = v.back(), v.pop_back(), cudaSuccess;
  *p = std::aligned_alloc(256, bytes);
  g_size[*p] = bytes;
  return cudaSuccess;
}
cudaError_t cudaFreeAsync(void* p, cudaStream_t) { return g_free[g_size[p]].push_back(p), cudaSuccess; }
cudaError_t cudaMemsetAsync(void*, int, size_t, cudaStream_t) { return cudaSuccess; }

// What nvcc's generated code calls: module registration and the <<<>>> launches.
void** __cudaRegisterFatBinary(void*) {
  static void* handle = nullptr;
  return &handle;
}
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}
void __cudaRegisterFunction(void**, const char*, char*, const char*, int, uint3*, uint3*, dim3*, dim3*, int*) {}
unsigned __cudaPushCallConfiguration(dim3, dim3, size_t, CUstream_st*) { return 0; }
cudaError_t __cudaPopCallConfiguration(dim3*, dim3*, size_t*, void*) { return cudaSuccess; }
cudaError_t __cudaGetKernel(cudaKernel_t* k, const void* f) {
  *k = reinterpret_cast<cudaKernel_t>(const_cast<void*>(f));
  return cudaSuccess;
}
cudaError_t __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t) { return cudaSuccess; }
}
