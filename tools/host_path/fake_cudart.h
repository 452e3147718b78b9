// What the fake runtime (fake_cudart.cpp) records while recording is on: every kernel launch, tensor-map encode,
// memset and workspace allocation libladder asks of it, with the CUDA limits each one broke. Read by
// launch_contract.cpp through dlsym, so that a program need not link the fake to use the real runtime.
#pragma once
#include <cstddef>
#include <cstdint>

extern "C" {

struct FakeLaunch {
  const void* kernel;
  const char* name;  // the device function's (mangled) name, as nvcc's registration gave it; "" if unregistered
  unsigned grid[3], block[3], cluster[3];  // cluster {0,0,0}: none given at launch
  size_t smem;
  bool pdl;
  int smem_attribute;  // cudaFuncAttributeMaxDynamicSharedMemorySize last set for the kernel (-1: never)
  bool nonportable;    // cudaFuncAttributeNonPortableClusterSizeAllowed set for the kernel
};

struct FakeMap {
  uintptr_t base;
  unsigned rank, elem_bytes, swizzle_bytes;  // swizzle_bytes 0: none
  uint64_t dims[5], strides[4];              // strides in bytes, rank-1 entries
  uint32_t box[5], elem_strides[5];
  size_t launches_before;                    // launches recorded when it was encoded: its kernel is the next one
};

struct FakeRange {
  uintptr_t base;
  size_t bytes;
  size_t freed_at;  // a pool block: launches recorded when it was freed (stream order), SIZE_MAX while allocated
};

struct FakeRecord {
  const FakeLaunch* launches;
  size_t n_launches;
  const FakeMap* maps;
  size_t n_maps;
  const FakeRange* memsets;
  size_t n_memsets;
  const FakeRange* allocations;  // every allocation from the pool while recording, freed or not
  size_t n_allocations;
  size_t live_allocations;       // allocated and not yet freed
};

// Starts recording afresh (on) or stops it (off); host_path times the calls with it off.
void fake_cudart_record(int on);
FakeRecord fake_cudart_recorded(void);
}
