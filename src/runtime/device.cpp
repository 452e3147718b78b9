// The device the API runs on, and whether a step's architecture runs there.
#include <atomic>
#include <map>
#include <mutex>

#include "runtime/runtime.hpp"

namespace ladder::detail {
namespace {
DeviceInfo query_device() {
  DeviceInfo d;
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    d.error = e != cudaSuccess ? std::string("no CUDA GPU is usable: ") + cudaGetErrorString(e)
                               : std::string("no CUDA GPU is visible");
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return d;
  }
  cudaGetDevice(&d.ordinal);
  cudaDeviceProp prop{};
  if (cudaError_t e = cudaGetDeviceProperties(&prop, d.ordinal); e != cudaSuccess) {
    d.error = std::string("cannot query the GPU: ") + cudaGetErrorString(e);
    return d;
  }
  d.present = true;
  d.name = prop.name;
  d.cc = prop.major * 10 + prop.minor;
  d.sms = prop.multiProcessorCount;
  d.l2_bytes = prop.l2CacheSize;
  return d;
}
}  // namespace

// Cached per device ordinal: gemm() consults it on every call.
DeviceInfo current_device() {
  static std::mutex mu;
  static std::map<int, DeviceInfo> cache;
  int ordinal = -1;
  if (cudaGetDevice(&ordinal) != cudaSuccess) {
    cudaGetLastError();
    return query_device();
  }
  std::lock_guard lock(mu);
  if (auto it = cache.find(ordinal); it != cache.end()) return it->second;
  DeviceInfo d = query_device();
  if (d.present) cache[ordinal] = d;
  return d;
}

std::string describe(const DeviceInfo& d) {
  if (!d.present) return d.error;
  return d.name + " (sm_" + std::to_string(d.cc) + ", " + std::to_string(d.sms) + " SMs)";
}

std::string arch_support(Arch arch) {
  const DeviceInfo d = current_device();
  if (!d.present) return d.error;
  const int need = required_cc(arch);
  if (d.cc == need) return {};
  const char* family = arch == Arch::hopper ? "Hopper (sm_90)" : "Blackwell (sm_100)";
  return std::string("needs a ") + family + " GPU; this is " + d.name + " (sm_" + std::to_string(d.cc) + ")";
}

namespace {
std::atomic<int> sms_for_tests{0};
}  // namespace

int sm_count() {
  const int o = sms_for_tests.load(std::memory_order_relaxed);
  return o > 0 ? o : current_device().sms;
}

void set_sm_count_for_tests(int sms) { sms_for_tests.store(sms, std::memory_order_relaxed); }

}  // namespace ladder::detail
