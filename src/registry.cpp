// The one registry of steps, in ladder order. The CLI, the tests, the benchmark and the report all
// iterate it; each step describes itself (id, change, shapes, launcher) in its own file.
#include <algorithm>

#include "step.hpp"

// Hopper ladder (sm_90a): src/hopper/NN_*.cu
extern const ladder::detail::Step step_h01, step_h02, step_h03;
// Blackwell ladder (sm_100a): src/blackwell/NN_*.cu

namespace ladder::detail {

std::span<const Step* const> registry() {
  static const Step* const steps[] = {
      // Hopper
      &step_h01, &step_h02, &step_h03,
      // Blackwell
  };
  return steps;
}

const Step* find_step(std::string_view id) {
  for (const Step* s : registry())
    if (s->id == id) return s;
  return nullptr;
}

std::string require_multiple(std::string_view what, int64_t value, int64_t multiple) {
  if (value % multiple == 0) return {};
  return std::string(what) + " must be a multiple of " + std::to_string(multiple) + " (got " +
         std::to_string(value) + ")";
}

std::string require_equal(std::string_view what, int64_t value, int64_t expected) {
  if (value == expected) return {};
  return std::string(what) + " must be exactly " + std::to_string(expected) + " (got " + std::to_string(value) +
         ")";
}

std::string require_dense(const Problem& p) {
  if (p.lda != p.K || p.ldb != p.K || p.ldd != p.N)
    return "this step needs dense rows (lda == K, ldb == K, ldd == N)";
  return {};
}

}  // namespace ladder::detail
