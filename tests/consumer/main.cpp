// Uses ladder through both APIs as an outside project would; runs without a GPU.
#include <ladder/ladder.h>

#include <cstdio>
#include <ladder/ladder.hpp>

int main() {
  const int count = ladder_step_count();
  const std::vector<ladder::StepInfo> steps = ladder::steps();
  if (count <= 0 || static_cast<int>(steps.size()) != count) {
    std::fprintf(stderr, "step count %d, steps() %zu\n", count, steps.size());
    return 1;
  }
  for (int i = 0; i < count; ++i) std::printf("%s %s: %s\n", ladder_step_id(i), steps[i].target.c_str(), steps[i].title.c_str());

  // Validation runs before any device access, so this fails the same way with or without a GPU.
  const int rc = ladder_gemm(nullptr, nullptr, nullptr, 128, 128, 64, "best", nullptr);
  std::printf("ladder_gemm(null) -> %d: %s\n", rc, ladder_last_error());
  try {
    ladder::gemm(nullptr, nullptr, nullptr, 128, 128, 64);
  } catch (const ladder::Error& e) {
    std::printf("ladder::gemm(null) -> ladder::Error %d\n", static_cast<int>(e.code()));
    return rc == LADDER_ERROR_INVALID_ARGUMENT && e.code() == LADDER_ERROR_INVALID_ARGUMENT ? 0 : 1;
  }
  return 1;
}
