// What GPU we are on, and whether a step's architecture can run on it.
#pragma once
#include <string>

#include "step.hpp"

namespace ladder::harness {

struct DeviceInfo {
  bool present = false;
  int ordinal = -1;
  std::string name;
  int cc = 0;            // 90 for sm_90, 100 for sm_100
  int sms = 0;
  long long l2_bytes = 0;
  std::string error;     // why there is no device, when !present
};

DeviceInfo current_device();
// Empty when `arch` runs on the current device, else e.g.
// "needs a Blackwell (sm_100) GPU; this is NVIDIA H200 (sm_90)".
std::string arch_support(detail::Arch arch);
std::string describe(const DeviceInfo& d);  // "NVIDIA H200 (sm_90, 132 SMs)"

}  // namespace ladder::harness
