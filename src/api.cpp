// The C++ API: argument validation (the same for every step), step resolution, launch.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "ladder/ladder.hpp"
#include "runtime/runtime.hpp"
#include "step.hpp"
#include "runtime/tuning.hpp"

namespace ladder {
namespace {

using detail::Problem;
using detail::Step;
using ladder::DType;
using ladder::Activation;

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
  if (p.ldd < p.out_cols())
    throw Error(LADDER_ERROR_INVALID_ARGUMENT, std::string(p.ep.swiglu ? "ldd must be >= N/2 (SwiGLU)" : "ldd must be >= N") +
                                                   " (got ldd=" + std::to_string(p.ldd) + ")");
  // Element counts (rows × leading dimension) must fit in bytes addressable with int64.
  constexpr int64_t kMaxElems = std::numeric_limits<int64_t>::max() / 2;
  auto fits = [&](int64_t rows, int64_t ld) { return rows <= kMaxElems / ld; };
  if (!fits(p.M, p.lda) || !fits(p.N, p.ldb) || !fits(p.M, p.ldd) || (p.ep.C && !fits(p.M, p.ep.ldc)))
    throw Error(LADDER_ERROR_INVALID_ARGUMENT, "matrix sizes overflow 64-bit byte offsets");
}

void validate_pointers(const Problem& p, const Step& s) {
  if (!p.A || !p.B || !p.D) throw Error(LADDER_ERROR_INVALID_ARGUMENT, "A, B and D must be non-null device pointers");
  const auto a = static_cast<uintptr_t>(s.pointer_alignment);
  auto ok = [](const void* q, uintptr_t n) { return reinterpret_cast<uintptr_t>(q) % n == 0; };
  // The teaching steps also store D with 16-byte vectors or TMA; the fused steps store it element-wise, but for
  // those that always store it by TMA (Step::d_alignment).
  const uintptr_t d_align = s.d_alignment ? static_cast<uintptr_t>(s.d_alignment) : s.fused ? dtype_bytes(p.d) : a;
  if (!ok(p.A, a) || !ok(p.B, a) || !ok(p.D, d_align))
    throw Error(LADDER_ERROR_MISALIGNED,
                std::string(s.id) + ": A, B and D must be " + std::to_string(a) + "-byte aligned" +
                    (a == 16 ? " (16-byte vectors and TMA; step 'best' takes any element-aligned pointer)" : ""));
  if (p.ep.C && !ok(p.ep.C, dtype_bytes(p.d)))
    throw Error(LADDER_ERROR_MISALIGNED, std::string(s.id) + ": C must be aligned to its element size");
  if (p.ep.bias && !ok(p.ep.bias, dtype_bytes(p.ep.bias_dtype)))
    throw Error(LADDER_ERROR_MISALIGNED, std::string(s.id) + ": the bias must be aligned to its element size");
}

std::string fused_steps() {
  std::string out;
  for (const Step* st : detail::registry())
    if (st->fused) out += (out.empty() ? "" : " ") + std::string(st->id);
  return out;
}

// Resolves a step id ("" means "best") to a step that accepts the problem; throws otherwise.
const Step& resolve_step(std::string_view id, const Problem& p) {
  if (id.empty()) id = "best";
  const Step* s = detail::find_step(id);
  if (!s) throw Error(LADDER_ERROR_UNKNOWN_STEP, "unknown step '" + std::string(id) + "'; known steps: " + known_steps());
  if (!s->fused && !p.plain())
    throw Error(LADDER_ERROR_UNSUPPORTED_SHAPE,
                std::string(s->id) + " does not accept this problem: it takes fp16 operands and an fp16 D without an "
                                     "epilogue (the seed's problem); bf16, an fp32 D and the epilogue are taken by: " +
                    fused_steps());
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

[[noreturn]] void bad_desc(const std::string& why) { throw Error(LADDER_ERROR_INVALID_ARGUMENT, why); }

DType dtype_of(int32_t v, const char* what, bool f32_ok) {
  if (v == LADDER_DTYPE_F16) return DType::f16;
  if (v == LADDER_DTYPE_BF16) return DType::bf16;
  if (v == LADDER_DTYPE_F32 && f32_ok) return DType::f32;
  bad_desc(std::string(what) + " must be " + (f32_ok ? "LADDER_DTYPE_F16, _BF16 or _F32" : "LADDER_DTYPE_F16 or _BF16") +
           " (got " + std::to_string(v) + ")");
}

// The descriptor, checked field by field (everything that needs no step and no device).
Problem problem_from(const ladder_gemm_desc& d) {
  if (d.struct_size != sizeof(ladder_gemm_desc))
    bad_desc("ladder_gemm_desc.struct_size must be sizeof(struct ladder_gemm_desc) = " +
             std::to_string(sizeof(ladder_gemm_desc)) + " (got " + std::to_string(d.struct_size) +
             "): initialise it with ladder_gemm_desc_init");
  Problem p = make_problem(static_cast<const __half*>(d.A), static_cast<const __half*>(d.B), static_cast<__half*>(d.D),
                           d.M, d.N, d.K, {d.lda, d.ldb, 0});
  p.ab = dtype_of(d.ab_dtype, "ab_dtype", false);
  p.d = dtype_of(d.d_dtype, "d_dtype", true);
  if (p.d != DType::f32 && p.d != p.ab) bad_desc("d_dtype must be ab_dtype or LADDER_DTYPE_F32");
  if (d.epilogue != LADDER_EPILOGUE_DEFAULT && d.epilogue != LADDER_EPILOGUE_SWIGLU)
    bad_desc("epilogue must be LADDER_EPILOGUE_DEFAULT or LADDER_EPILOGUE_SWIGLU (got " + std::to_string(d.epilogue) + ")");
  p.ep.swiglu = d.epilogue == LADDER_EPILOGUE_SWIGLU;
  if (d.activation < LADDER_ACTIVATION_NONE || d.activation > LADDER_ACTIVATION_SILU)
    bad_desc("activation must be one of enum ladder_activation (got " + std::to_string(d.activation) + ")");
  p.ep.act = static_cast<Activation>(d.activation);
  if (p.ep.swiglu && p.ep.act != Activation::none) bad_desc("SwiGLU is its own activation: activation must be NONE");
  if (p.ep.swiglu && d.N % 2 != 0)
    bad_desc("SwiGLU needs an even N: B is [gate; up] with N/2 rows each (got N=" + std::to_string(d.N) + ")");
  p.ldd = d.ldd ? d.ldd : p.out_cols();
  p.ep.alpha = d.alpha;
  p.ep.beta = d.beta;
  if (!std::isfinite(d.alpha) || !std::isfinite(d.beta)) bad_desc("alpha and beta must be finite");
  if (d.beta != 0.0f) {
    if (!d.C) bad_desc("beta != 0 needs C (a residual, or D itself)");
    p.ep.C = d.C;
    p.ep.ldc = d.ldc ? d.ldc : p.ldd;
    if (p.ep.ldc < p.out_cols()) bad_desc("ldc must be >= the columns of D (got ldc=" + std::to_string(p.ep.ldc) + ")");
  }
  if (d.bias) {
    p.ep.bias = d.bias;
    p.ep.bias_dtype = dtype_of(d.bias_dtype, "bias_dtype", true);
  }
  if (d.a_scale || d.b_scale) bad_desc("a_scale and b_scale are reserved for fp8 and must be NULL");
  if (d.flags & ~LADDER_FLAG_B_STATIC) bad_desc("unknown bits in flags (" + std::to_string(d.flags) + ")");
  p.b_static = (d.flags & LADDER_FLAG_B_STATIC) != 0;
  return p;
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

void gemm(const ladder_gemm_desc& desc, cudaStream_t stream) {
  const Problem p = problem_from(desc);
  validate_sizes(p);
  const Step& s = resolve_step(desc.step ? desc.step : "best", p);
  validate_pointers(p, s);
  require_device(s);
  s.launch(p, stream);
}

std::string plan(const ladder_gemm_desc& desc) {
  const Problem p = problem_from(desc);
  validate_sizes(p);
  const Step& s = resolve_step(desc.step ? desc.step : "best", p);
  require_device(s);
  return s.describe ? s.describe(p) : std::string(s.id) + " (" + std::string(s.title) + ")";
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
