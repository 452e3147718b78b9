// The C ABI: the C++ API behind a try/catch; errors become a code plus a thread-local message.
#include <exception>
#include <string>

#include "ladder/ladder.h"
#include "ladder/ladder.hpp"
#include "step.hpp"

namespace {
thread_local std::string g_last_error;

template <class F>
int guarded(F&& f) {
  try {
    f();
    g_last_error.clear();
    return LADDER_OK;
  } catch (const ladder::Error& e) {
    g_last_error = e.what();
    return e.code();
  } catch (const std::exception& e) {
    g_last_error = std::string("internal error: ") + e.what();
    return LADDER_ERROR_INTERNAL;
  } catch (...) {
    g_last_error = "internal error";
    return LADDER_ERROR_INTERNAL;
  }
}
}  // namespace

extern "C" {

int ladder_gemm(const void* A, const void* B, void* D, int64_t M, int64_t N, int64_t K, const char* step,
                cudaStream_t stream) {
  return guarded([&] {
    ladder::gemm(static_cast<const __half*>(A), static_cast<const __half*>(B), static_cast<__half*>(D), M, N, K,
                 step ? step : "best", stream);
  });
}

int ladder_gemm_ld(const void* A, int64_t lda, const void* B, int64_t ldb, void* D, int64_t ldd, int64_t M, int64_t N,
                   int64_t K, const char* step, cudaStream_t stream) {
  return guarded([&] {
    // Here 0 is not "dense" (as in the C++ Strides): every leading dimension is given explicitly.
    if (M > 0 && N > 0 && K > 0 && (lda <= 0 || ldb <= 0 || ldd <= 0))
      throw ladder::Error(LADDER_ERROR_INVALID_ARGUMENT, "leading dimensions must be >= the row length (lda, ldb >= K, ldd >= N)");
    ladder::gemm(static_cast<const __half*>(A), static_cast<const __half*>(B), static_cast<__half*>(D), M, N, K,
                 step ? step : "best", stream, {lda, ldb, ldd});
  });
}

void ladder_gemm_desc_init(struct ladder_gemm_desc* desc) {
  if (!desc) return;
  *desc = {};
  desc->struct_size = sizeof(struct ladder_gemm_desc);
  desc->ab_dtype = LADDER_DTYPE_F16;
  desc->d_dtype = LADDER_DTYPE_F16;
  desc->alpha = 1.0f;
}

int ladder_gemm_v2(const struct ladder_gemm_desc* desc, cudaStream_t stream) {
  return guarded([&] {
    if (!desc) throw ladder::Error(LADDER_ERROR_INVALID_ARGUMENT, "desc must not be NULL");
    ladder::gemm(*desc, stream);
  });
}

namespace {
thread_local std::string g_plan;
}

const char* ladder_gemm_plan(const struct ladder_gemm_desc* desc) {
  const int code = guarded([&] {
    if (!desc) throw ladder::Error(LADDER_ERROR_INVALID_ARGUMENT, "desc must not be NULL");
    g_plan = ladder::plan(*desc);
  });
  return code == LADDER_OK ? g_plan.c_str() : nullptr;
}

const char* ladder_last_error(void) { return g_last_error.c_str(); }

int ladder_step_count(void) { return static_cast<int>(ladder::detail::registry().size()); }

const char* ladder_step_id(int i) {
  auto steps = ladder::detail::registry();
  if (i < 0 || i >= static_cast<int>(steps.size())) return nullptr;
  return steps[i]->id.data();  // ids are string literals: NUL-terminated, static lifetime
}
}
