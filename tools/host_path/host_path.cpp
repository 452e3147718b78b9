// ladder's host path a call, through the C ABI (ladder_gemm_v2), on the fake runtime (fake_cudart.cpp): the time
// ladder's own code takes to check, choose, plan and launch, without the driver's. Prints µs a call per shape.
//
//   host_path [--calls N] [MxNxK ...]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ladder/ladder.h"

int main(int argc, char** argv) {
  int calls = 20000;
  std::vector<std::string> shapes;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--calls") == 0 && i + 1 < argc) calls = std::atoi(argv[++i]);
    else shapes.push_back(argv[i]);
  }
  if (shapes.empty())
    shapes = {"1x4096x4096",  "1x1024x4096",  "16x1024x4096", "1x4096x14336", "32x1024x8192", "1x14336x4096",
              "64x4096x4096", "512x1024x4096", "512x4096x4096", "4096x4096x4096", "1x4096x4095"};
  std::printf("shape,us_per_call,us_per_call_new_A,plan\n");
  for (const std::string& s : shapes) {
    long long M = 0, N = 0, K = 0;
    if (std::sscanf(s.c_str(), "%lldx%lldx%lld", &M, &N, &K) != 3) return std::fprintf(stderr, "bad shape %s\n", s.c_str()), 2;
    // Addresses only (nothing is read): 256-byte aligned, and a run with A at a new address each call (4096 of them: the tensor-map cache misses).
    auto fake = [](uintptr_t base) { return reinterpret_cast<void*>(base); };
    ladder_gemm_desc d;
    ladder_gemm_desc_init(&d);
    d.M = M, d.N = N, d.K = K;
    d.A = fake(0x7f0000000000), d.B = fake(0x7f4000000000), d.D = fake(0x7f8000000000);
    d.flags = LADDER_FLAG_B_STATIC;
    const char* plan = ladder_gemm_plan(&d);
    if (!plan) return std::fprintf(stderr, "%s: %s\n", s.c_str(), ladder_last_error()), 1;
    const std::string plan_text = plan;
    auto time = [&](bool new_a) {
      for (int i = 0; i < calls / 10; ++i) ladder_gemm_v2(&d, nullptr);  // warm the caches
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < calls; ++i) {
        if (new_a) d.A = fake(0x7f0000000000 + (i % 4096) * 0x100000ull);
        if (ladder_gemm_v2(&d, nullptr) != 0) return std::fprintf(stderr, "%s: %s\n", s.c_str(), ladder_last_error()), -1.0;
      }
      const std::chrono::duration<double, std::micro> dt = std::chrono::steady_clock::now() - t0;
      return dt.count() / calls;
    };
    const double same = time(false), alternating = time(true);
    std::printf("%s,%.3f,%.3f,\"%s\"\n", s.c_str(), same, alternating, plan_text.c_str());
  }
  return 0;
}
