// A stand-in for libcudart.so.13 with no GPU behind it: the 23 entry points libladder imports, answered as an
// H100/H200 would (132 SMs, 228 KB of SMEM an SM, clusters packed into 8 GPCs) and launching nothing; with
// FAKE_CUDART_CC=100, as a B200 (compute capability 10.0, 148 SMs), for the Blackwell steps' host path. Loaded in
// place of the real runtime (LD_LIBRARY_PATH), it lets ladder's own host path (argument checks, best's choice, the
// plan, the tensor-map cache, the launch arguments) be timed and profiled on a machine without a GPU. What it
// cannot show: the driver's own time (cudaLaunchKernelExC, cuTensorMapEncodeTiled), stubbed here.
//
// With recording on (fake_cudart.h) it also keeps every launch, tensor map, memset and workspace allocation, for
// launch_contract.cpp to check against CUDA's limits and the caller's buffers.
//
// Built by scripts/host_path_cpu.sh and by the tests (LaunchContract); not part of the library.
#include "fake_cudart.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace {
constexpr size_t kSmemPerSm = 228 * 1024, kSmemReservedPerCta = 1024, kSmemOptin = kSmemPerSm - kSmemReservedPerCta;

// The device it answers as: an H100/H200, or with FAKE_CUDART_CC=100 a B200.
struct FakeDevice {
  int cc;
  std::vector<int> gpc_sms;  // clusters are packed into GPCs
  int sms() const {
    int n = 0;
    for (int g : gpc_sms) n += g;
    return n;
  }
};
const FakeDevice& device() {
  static const FakeDevice d = [] {
    const char* cc = std::getenv("FAKE_CUDART_CC");
    if (cc && std::atoi(cc) >= 100) return FakeDevice{100, {18, 18, 18, 18, 18, 18, 20, 20}};  // 148 SMs
    return FakeDevice{90, {18, 18, 16, 16, 16, 16, 16, 16}};                                     // 132 SMs
  }();
  return d;
}

// Recording is per thread (each thread's calls are checked on their own); what the runtime keeps for the process (the
// kernels' names and attributes, the pool) is shared, behind a mutex, as the real runtime is thread-safe.
thread_local bool g_recording = false;
thread_local std::vector<FakeLaunch> g_launches;
thread_local std::vector<FakeMap> g_maps;
thread_local std::vector<FakeRange> g_memsets, g_allocations;
thread_local size_t g_live = 0;  // blocks this thread allocated and has not freed
std::mutex g_mu;
std::map<const void*, int> g_smem_attribute;
std::map<const void*, bool> g_nonportable;
std::map<const void*, const char*> g_kernel_names;  // host stub → device function name (__cudaRegisterFunction)

// The pool keeps what it maps, as ladder's real pool does (release threshold: unlimited): freed blocks are reused by
// size. Device addresses are never dereferenced on the host, so the pool hands out addresses only, from a range of
// its own (2^60 up, above launch_contract's buffers), of any size.
std::map<size_t, std::vector<void*>> g_free;
std::map<void*, size_t> g_size;
uintptr_t g_next = uintptr_t{1} << 60;
char g_pool_handle;

// <<<grid, block, smem, stream>>> pushes its configuration; the generated stub pops it and passes it to the launch.
struct CallConfiguration {
  dim3 grid, block;
  size_t smem;
  CUstream_st* stream;
};
thread_local std::vector<CallConfiguration> g_call_configurations;

void kernel_attributes(FakeLaunch& l) {
  std::lock_guard lock(g_mu);
  auto name = g_kernel_names.find(l.kernel);
  l.name = name != g_kernel_names.end() ? name->second : "";
  if (auto it = g_smem_attribute.find(l.kernel); it != g_smem_attribute.end()) l.smem_attribute = it->second;
  l.nonportable = g_nonportable[l.kernel];
}

int ctas_per_sm(int threads, size_t smem) {
  const int by_smem = static_cast<int>(kSmemPerSm / (smem + kSmemReservedPerCta));
  const int by_threads = 2048 / std::max(threads, 1);
  return std::max(0, std::min({by_smem, by_threads, 32}));
}

unsigned elem_bytes(CUtensorMapDataType t) {
  switch (t) {
    case CU_TENSOR_MAP_DATA_TYPE_UINT8: return 1;
    case CU_TENSOR_MAP_DATA_TYPE_UINT16: case CU_TENSOR_MAP_DATA_TYPE_FLOAT16: case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16: return 2;
    case CU_TENSOR_MAP_DATA_TYPE_UINT32: case CU_TENSOR_MAP_DATA_TYPE_INT32: case CU_TENSOR_MAP_DATA_TYPE_FLOAT32: return 4;
    default: return 8;
  }
}

unsigned swizzle_bytes(CUtensorMapSwizzle s) {
  return s == CU_TENSOR_MAP_SWIZZLE_32B ? 32 : s == CU_TENSOR_MAP_SWIZZLE_64B ? 64 : s == CU_TENSOR_MAP_SWIZZLE_128B ? 128 : 0;
}

CUresult fake_encode(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank, void* base, const cuuint64_t* dims,
                     const cuuint64_t* strides, const cuuint32_t* box, const cuuint32_t* elem_strides,
                     CUtensorMapInterleave, CUtensorMapSwizzle swizzle, CUtensorMapL2promotion,
                     CUtensorMapFloatOOBfill) {
  if (rank < 1 || rank > 5) return CUDA_ERROR_INVALID_VALUE;
  if (g_recording) {
    FakeMap m{};
    m.base = reinterpret_cast<uintptr_t>(base);
    m.rank = rank, m.elem_bytes = elem_bytes(type), m.swizzle_bytes = swizzle_bytes(swizzle);
    for (cuuint32_t i = 0; i < rank; ++i) m.dims[i] = dims[i], m.box[i] = box[i], m.elem_strides[i] = elem_strides[i];
    for (cuuint32_t i = 0; i + 1 < rank; ++i) m.strides[i] = strides[i];
    m.launches_before = g_launches.size();
    g_maps.push_back(m);
  }
  // An opaque 128 bytes: the base and the first dims, so that maps of different matrices differ.
  std::memset(map, 0, sizeof *map);
  std::memcpy(map, &base, sizeof base);
  std::memcpy(reinterpret_cast<char*>(map) + 8, dims, std::min<cuuint32_t>(rank, 2) * sizeof *dims);
  return CUDA_SUCCESS;
}

void record_launch(FakeLaunch l) {
  kernel_attributes(l);
  g_launches.push_back(l);
}
}  // namespace

extern "C" {
cudaError_t cudaGetDeviceCount(int* n) { return *n = 1, cudaSuccess; }
cudaError_t cudaGetDevice(int* d) { return *d = 0, cudaSuccess; }
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int) {
  std::memset(p, 0, sizeof *p);
  std::strcpy(p->name, device().cc >= 100 ? "NVIDIA B200 (fake runtime)" : "NVIDIA H200 (fake runtime)");
  p->major = device().cc / 10, p->minor = device().cc % 10;
  p->multiProcessorCount = device().sms();
  p->l2CacheSize = 50 << 20;
  p->sharedMemPerMultiprocessor = kSmemPerSm;
  p->sharedMemPerBlockOptin = kSmemOptin;
  return cudaSuccess;
}
cudaError_t cudaGetLastError() { return cudaSuccess; }
const char* cudaGetErrorString(cudaError_t) { return "fake runtime"; }
cudaError_t cudaFuncSetAttribute(const void* f, cudaFuncAttribute attr, int value) {
  std::lock_guard lock(g_mu);
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
    if (value < 0 || static_cast<size_t>(value) > kSmemOptin) return cudaErrorInvalidValue;  // as the runtime refuses
    g_smem_attribute[f] = value;
  }
  if (attr == cudaFuncAttributeNonPortableClusterSizeAllowed) g_nonportable[f] = value != 0;
  return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* n, const void*, int threads, size_t smem) {
  return *n = ctas_per_sm(threads, smem), cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveClusters(int* n, const void*, const cudaLaunchConfig_t* c) {
  int cluster = 1;
  for (unsigned i = 0; i < c->numAttrs; ++i)
    if (c->attrs[i].id == cudaLaunchAttributeClusterDimension)
      cluster = static_cast<int>(c->attrs[i].val.clusterDim.x * c->attrs[i].val.clusterDim.y * c->attrs[i].val.clusterDim.z);
  if (cluster < 1) return cudaErrorInvalidValue;
  const int per_sm = ctas_per_sm(static_cast<int>(c->blockDim.x * c->blockDim.y * c->blockDim.z), c->dynamicSmemBytes);
  *n = 0;
  for (int sms : device().gpc_sms) *n += sms * per_sm / cluster;
  return cudaSuccess;
}
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* c, const void* f, void**) {
  if (g_recording) {
    FakeLaunch l{f, "", {c->gridDim.x, c->gridDim.y, c->gridDim.z}, {c->blockDim.x, c->blockDim.y, c->blockDim.z},
                 {0, 0, 0}, c->dynamicSmemBytes, false, -1, false};
    for (unsigned i = 0; i < c->numAttrs; ++i) {
      const cudaLaunchAttribute& a = c->attrs[i];
      if (a.id == cudaLaunchAttributeClusterDimension)
        l.cluster[0] = a.val.clusterDim.x, l.cluster[1] = a.val.clusterDim.y, l.cluster[2] = a.val.clusterDim.z;
      if (a.id == cudaLaunchAttributeProgrammaticStreamSerialization) l.pdl = a.val.programmaticStreamSerializationAllowed;
    }
    record_launch(l);
  }
  return cudaSuccess;
}
cudaError_t cudaGetDriverEntryPointByVersion(const char* name, void** fn, unsigned, unsigned long long,
                                             cudaDriverEntryPointQueryResult* q) {
  if (std::strcmp(name, "cuTensorMapEncodeTiled") != 0) return *q = cudaDriverEntryPointSymbolNotFound, cudaErrorSymbolNotFound;
  *fn = reinterpret_cast<void*>(&fake_encode);
  *q = cudaDriverEntryPointSuccess;
  return cudaSuccess;
}
cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const cudaMemPoolProps*) {
  *pool = reinterpret_cast<cudaMemPool_t>(&g_pool_handle);
  return cudaSuccess;
}
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t, cudaMemPoolAttr, void*) { return cudaSuccess; }
cudaError_t cudaMallocFromPoolAsync(void** p, size_t bytes, cudaMemPool_t, cudaStream_t) {
  const size_t rounded = (bytes + 255) / 256 * 256;
  std::lock_guard lock(g_mu);
  if (auto& v = g_free[rounded]; !v.empty()) {
    *p = v.back(), v.pop_back();
  } else {
    *p = reinterpret_cast<void*>(g_next);
    g_next += rounded + 4096;  // a gap after each block, so that an overrun lands in no block
    g_size[*p] = rounded;
  }
  ++g_live;
  if (g_recording) g_allocations.push_back({reinterpret_cast<uintptr_t>(*p), bytes, SIZE_MAX});
  return cudaSuccess;
}
cudaError_t cudaFreeAsync(void* p, cudaStream_t) {
  std::lock_guard lock(g_mu);
  auto it = g_size.find(p);
  if (it == g_size.end()) return cudaErrorInvalidValue;
  --g_live;
  for (FakeRange& a : g_allocations)  // stream order: the block is free for every launch after this point
    if (a.base == reinterpret_cast<uintptr_t>(p) && a.freed_at == SIZE_MAX) a.freed_at = g_launches.size();
  return g_free[it->second].push_back(p), cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* p, int, size_t bytes, cudaStream_t) {
  if (g_recording) g_memsets.push_back({reinterpret_cast<uintptr_t>(p), bytes, SIZE_MAX});
  return cudaSuccess;
}

void fake_cudart_record(int on) {
  g_recording = on != 0;
  g_launches.clear(), g_maps.clear(), g_memsets.clear(), g_allocations.clear();
}
FakeRecord fake_cudart_recorded(void) {
  return {g_launches.data(), g_launches.size(), g_maps.data(),       g_maps.size(),
          g_memsets.data(),  g_memsets.size(),  g_allocations.data(), g_allocations.size(), g_live};
}

// What nvcc's generated code calls: module registration and the <<<>>> launches.
void** __cudaRegisterFatBinary(void*) {
  static void* handle = nullptr;
  return &handle;
}
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}
void __cudaRegisterFunction(void**, const char* host_fun, char* device_fun, const char*, int, uint3*, uint3*, dim3*,
                            dim3*, int*) {
  std::lock_guard lock(g_mu);
  g_kernel_names[host_fun] = device_fun;
}
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t smem, CUstream_st* stream) {
  g_call_configurations.push_back({grid, block, smem, stream});
  return 0;
}
cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* smem, void* stream) {
  if (g_call_configurations.empty()) return cudaErrorInvalidConfiguration;
  const CallConfiguration c = g_call_configurations.back();
  g_call_configurations.pop_back();
  *grid = c.grid, *block = c.block, *smem = c.smem;
  *static_cast<CUstream_st**>(stream) = c.stream;
  return cudaSuccess;
}
cudaError_t __cudaGetKernel(cudaKernel_t* k, const void* f) {
  *k = reinterpret_cast<cudaKernel_t>(const_cast<void*>(f));
  return cudaSuccess;
}
cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 grid, dim3 block, void**, size_t smem, cudaStream_t) {
  if (g_recording)
    record_launch({reinterpret_cast<const void*>(k), "", {grid.x, grid.y, grid.z}, {block.x, block.y, block.z},
                   {0, 0, 0}, smem, false, -1, false});
  return cudaSuccess;
}
}
