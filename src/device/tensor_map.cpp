#include "device/tensor_map.hpp"

#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "ladder/ladder.hpp"

namespace ladder {
namespace {

// cuTensorMapEncodeTiled lives in the driver library; fetch it through the runtime so that libladder
// need not link libcuda (cudaGetDriverEntryPoint is deprecated in CUDA 13: use the ByVersion form).
PFN_cuTensorMapEncodeTiled_v12000 encode_fn() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || p == nullptr)
      throw Error(LADDER_ERROR_CUDA, std::string("cannot get cuTensorMapEncodeTiled from the driver: ") +
                                         cudaGetErrorString(e));
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

}  // namespace

namespace {
CUtensorMap encode(const void* base, int64_t rows, int64_t cols, int64_t ld, uint32_t box_rows, uint32_t box_cols,
                   CUtensorMapSwizzle swizzle, CUtensorMapL2promotion promotion) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};  // innermost first
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * 2};                             // bytes, rank-1 entries
  const cuuint32_t box[2] = {box_cols, box_rows};
  const cuuint32_t elem_strides[2] = {1, 1};
  const CUresult r = encode_fn()(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<void*>(base), dims, strides, box,
                                 elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, promotion,
                                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw Error(LADDER_ERROR_CUDA, "cuTensorMapEncodeTiled failed (CUresult " + std::to_string(static_cast<int>(r)) +
                                       ") for a " + std::to_string(rows) + "x" + std::to_string(cols) + " matrix, ld " +
                                       std::to_string(ld));
  return map;
}
}  // namespace

// A map depends only on its arguments, so it can be cached by them: a hit is correct even when the memory was
// freed and reallocated at the same address. The cache saves ~1 µs of host time per map on small problems,
// where a launch takes ~10 µs. Bounded: it is cleared when full.
CUtensorMap make_tensor_map_2d(const void* base, int64_t rows, int64_t cols, int64_t ld, uint32_t box_rows,
                               uint32_t box_cols, CUtensorMapSwizzle swizzle, CUtensorMapL2promotion promotion) {
  using Key = std::tuple<const void*, int64_t, int64_t, int64_t, uint32_t, uint32_t, int, int>;
  static std::mutex mu;
  static std::map<Key, CUtensorMap> cache;
  const Key key{base, rows, cols, ld, box_rows, box_cols, static_cast<int>(swizzle), static_cast<int>(promotion)};
  {
    std::lock_guard lock(mu);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  const CUtensorMap map = encode(base, rows, cols, ld, box_rows, box_cols, swizzle, promotion);
  std::lock_guard lock(mu);
  if (cache.size() >= 256) cache.clear();
  cache.emplace(key, map);
  return map;
}

}  // namespace ladder
