// The one registry of steps, in ladder order. The CLI, the tests, the benchmark and the report all
// iterate it; each step describes itself (id, change, shapes, launcher) in its own file.
#include <algorithm>
#include <cstdint>

#include "step.hpp"

// Hopper ladder (sm_90a): src/hopper/NN_*.cu
extern const ladder::detail::Step step_h01, step_h02, step_h03, step_h04, step_h05, step_h06, step_h07,
    step_h08, step_h09, step_h10, step_h11, step_h12, step_h13, step_best;
// Blackwell ladder (sm_100a): src/blackwell/NN_*.cu
extern const ladder::detail::Step step_b01, step_b02, step_b03, step_b04, step_b05, step_b06,
    step_b07, step_b08, step_b09, step_b10;

namespace ladder::detail {

std::span<const Step* const> registry() {
  static const Step* const steps[] = {
      // Hopper
      &step_h01, &step_h02, &step_h03, &step_h04, &step_h05, &step_h06, &step_h07, &step_h08, &step_h09, &step_h10,
      &step_h11, &step_h12, &step_h13,  // beyond the book
      &step_best,  // the library default: picks among the Hopper steps per problem
      // Blackwell
      &step_b01, &step_b02, &step_b03, &step_b04, &step_b05, &step_b06, &step_b07,
      &step_b08, &step_b09, &step_b10,
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

std::string require_tma_rows(const Problem& p) {
  if (p.K % 8 != 0)
    return "K must be a multiple of 8 (got " + std::to_string(p.K) +
           "): TMA needs 16-byte aligned rows; use step 'best' for any K";
  if (p.lda % 8 != 0 || p.ldb % 8 != 0) return "lda and ldb must be multiples of 8 (16-byte aligned rows for TMA)";
  if (p.M > INT32_MAX || p.N > INT32_MAX || p.K > INT32_MAX) return "M, N and K must fit in 32 bits (TMA coordinates)";
  return {};
}

std::string require_grid_y(const Problem& p, int64_t blk_n) {
  if ((p.N + blk_n - 1) / blk_n <= 65535) return {};
  return "N must be at most 65535*" + std::to_string(blk_n) + " (grid y limit)";
}

std::string require_one_tile(const Problem& p, int64_t blk_m, int64_t blk_n, int64_t blk_k) {
  if (auto e = require_equal("M", p.M, blk_m); !e.empty()) return e;
  if (auto e = require_equal("N", p.N, blk_n); !e.empty()) return e;
  if (auto e = require_equal("K", p.K, blk_k); !e.empty()) return e;
  return require_dense(p);
}

std::string require_k_loop(const Problem& p, int64_t blk_m, int64_t blk_n, int64_t blk_k) {
  if (auto e = require_equal("M", p.M, blk_m); !e.empty()) return e;
  if (auto e = require_equal("N", p.N, blk_n); !e.empty()) return e;
  if (auto e = require_multiple("K", p.K, blk_k); !e.empty()) return e;
  return require_dense(p);
}

std::string require_grid_2d(const Problem& p, int64_t blk_m, int64_t blk_n, int64_t blk_k) {
  if (auto e = require_multiple("M", p.M, blk_m); !e.empty()) return e;
  if (auto e = require_multiple("N", p.N, blk_n); !e.empty()) return e;
  if (auto e = require_multiple("K", p.K, blk_k); !e.empty()) return e;
  if (auto e = require_grid_y(p, blk_n); !e.empty()) return e;
  return require_dense(p);
}

}  // namespace ladder::detail
