// The C++ API: argument validation (the same for every step), step resolution, launch.
#include <cstdint>
#include <limits>
#include <string>

#include "ladder/ladder.hpp"
#include "runtime/runtime.hpp"
#include "step.hpp"

namespace ladder {
namespace {

using detail::Problem;
using detail::Step;

std::string known_steps() {
  std::string s;
  for (const Step* st : detail::registry()) s += std::string(st->id) + " ";
  return s;
}

Problem make_problem(const __half* A, const __half* B, __half* D, int64_t M, int64_t N, int64_t K, Strides st) {
  return Problem{A, B, D, M, N, K, st.lda ? st.lda : K, st.ldb ? st.ldb : K, st.ldd ? st.ldd : N};
}

// Checks that hold for every step. Throws ladder::Error.
void validate_sizes(const Problem& p) {
  if (p.M <= 0 || p.N <= 0 || p.K <= 0)
    throw Error(LADDER_ERROR_INVALID_ARGUMENT, "M, N and K must be positive (got M=" + std::to_string(p.M) +
                                                   ", N=" + std::to_string(p.N) + ", K=" + std::to_string(p.K) + ")");
  if (p.lda < p.K) throw Error(LADDER_ERROR_INVALID_ARGUMENT, "lda must be >= K (got lda=" + std::to_string(p.lda) + ")");
  if (p.ldb < p.K) throw Error(LADDER_ERROR_INVALID_ARGUMENT, "ldb must be >= K (got ldb=" + std::to_string(p.ldb) + ")");
  if (p.ldd < p.N) throw Error(LADDER_ERROR_INVALID_ARGUMENT, "ldd must be >= N (got ldd=" + std::to_string(p.ldd) + ")");
  // Element counts (rows × leading dimension) must fit in bytes addressable with int64.
  constexpr int64_t kMaxElems = std::numeric_limits<int64_t>::max() / 2;
  auto fits = [&](int64_t rows, int64_t ld) { return rows <= kMaxElems / ld; };
  if (!fits(p.M, p.lda) || !fits(p.N, p.ldb) || !fits(p.M, p.ldd))
    throw Error(LADDER_ERROR_INVALID_ARGUMENT, "matrix sizes overflow 64-bit byte offsets");
}

void validate_pointers(const Problem& p, const Step& s) {
  if (!p.A || !p.B || !p.D) throw Error(LADDER_ERROR_INVALID_ARGUMENT, "A, B and D must be non-null device pointers");
  const auto a = static_cast<uintptr_t>(s.pointer_alignment);
  auto ok = [&](const void* q) { return reinterpret_cast<uintptr_t>(q) % a == 0; };
  if (!ok(p.A) || !ok(p.B) || !ok(p.D))
    throw Error(LADDER_ERROR_MISALIGNED,
                std::string(s.id) + ": A, B and D must be " + std::to_string(a) + "-byte aligned" +
                    (a == 16 ? " (16-byte vectors and TMA; step 'best' takes any fp16-aligned pointer)" : ""));
}

// Resolves a step id ("" means "best") to a step that accepts the problem; throws otherwise.
const Step& resolve_step(std::string_view id, const Problem& p) {
  if (id.empty()) id = "best";
  const Step* s = detail::find_step(id);
  if (!s) throw Error(LADDER_ERROR_UNKNOWN_STEP, "unknown step '" + std::string(id) + "'; known steps: " + known_steps());
  if (std::string why = s->check(p); !why.empty())
    throw Error(LADDER_ERROR_UNSUPPORTED_SHAPE, std::string(s->id) + " does not accept this problem: " + why);
  return *s;
}

void require_device(const Step& s) {
  const detail::DeviceInfo dev = detail::current_device();
  if (!dev.present) throw Error(LADDER_ERROR_NO_DEVICE, std::string(s.id) + ": " + dev.error);
  if (std::string why = detail::arch_support(s.arch); !why.empty())
    throw Error(LADDER_ERROR_UNSUPPORTED_DEVICE, std::string(s.id) + " " + why);
}

}  // namespace

std::vector<StepInfo> steps() {
  std::vector<StepInfo> out;
  for (const Step* s : detail::registry())
    out.push_back({std::string(s->id), std::string(detail::arch_name(s->arch)), std::string(detail::arch_target(s->arch)),
                   std::string(s->title), std::string(s->change), std::string(s->shapes)});
  return out;
}

void gemm(const __half* A, const __half* B, __half* D, int64_t M, int64_t N, int64_t K, std::string_view step,
          cudaStream_t stream, Strides strides) {
  const Problem p = make_problem(A, B, D, M, N, K, strides);
  validate_sizes(p);
  const Step& s = resolve_step(step, p);
  validate_pointers(p, s);
  require_device(s);
  s.launch(p, stream);
}

std::string why_not(std::string_view step, int64_t M, int64_t N, int64_t K, Strides strides) {
  try {
    const Problem p = make_problem(nullptr, nullptr, nullptr, M, N, K, strides);
    validate_sizes(p);
    require_device(resolve_step(step, p));
    return {};
  } catch (const Error& e) {
    return e.what();
  }
}

std::string resolve(std::string_view step, int64_t M, int64_t N, int64_t K, Strides strides) {
  const Problem p = make_problem(nullptr, nullptr, nullptr, M, N, K, strides);
  validate_sizes(p);
  return std::string(resolve_step(step, p).id);
}

}  // namespace ladder
