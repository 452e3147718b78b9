// What the fused epilogue computes, element by element, in fp32 registers before the one store of D
// (include/ladder/ladder.h, ladder_gemm_desc):
//   y = act(alpha·acc + bias[n]);  D[m, n] = y + beta·C[m, n]
//   SwiGLU: D[m, j] = silu(alpha·acc[m, j] + bias[j]) · (alpha·acc[m, I + j] + bias[I + j]) + beta·C[m, j]
// Host and device (LADDER_HD): the CPU tests check the activations against std:: formulas.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>

#include "device/descriptors.hpp"  // LADDER_HD

namespace ladder {

enum class DType : int32_t { f16 = 0, bf16 = 1, f32 = 2 };  // = enum ladder_dtype
enum class Activation : int32_t { none = 0, relu = 1, gelu_tanh = 2, gelu_erf = 3, silu = 4 };  // = ladder_activation

inline constexpr int dtype_bytes(DType t) { return t == DType::f32 ? 4 : 2; }

struct EpilogueParams {
  float alpha = 1.0f, beta = 0.0f;
  const void* C = nullptr;  // D's dtype; read only when beta != 0
  int64_t ldc = 0;
  const void* bias = nullptr;  // one value per column of the product (N; 2·I with SwiGLU)
  DType bias_dtype = DType::f16;
  Activation act = Activation::none;
  bool swiglu = false;

  LADDER_HD constexpr bool plain() const {
    return alpha == 1.0f && beta == 0.0f && bias == nullptr && act == Activation::none && !swiglu;
  }
};

// What a kernel compiles in after its mainloop, one copy per kind: the fused epilogue's code for every activation
// and dtype at once made a kernel ~27× larger (measured: docs/notes.md, "the epilogue's code"). `none`: the plain
// GEMM; act_none … silu: alpha, bias and beta·C with that activation (the Activation's value); `swiglu`; `any`:
// all of it, chosen at run time (the register writeback's one copy).
enum class Fused : int32_t { none = -1, act_none = 0, relu = 1, gelu_tanh = 2, gelu_erf = 3, silu = 4, swiglu = 5, any = 6 };

LADDER_HD constexpr Fused fused_kind(const EpilogueParams& ep) {
  if (ep.plain()) return Fused::none;
  return ep.swiglu ? Fused::swiglu : static_cast<Fused>(static_cast<int32_t>(ep.act));
}

// On the device, 2^x and 1/x are single MUFU operations (ex2/rcp.approx.ftz: ~2 and 1 ulp of fp32, far below D's
// one fp16/bf16 rounding; results below 2^-126 flush to zero): the IEEE division's slow-path call, unrolled over a
// tile's registers, was most of a kernel's code, and the non-ftz forms' range fix-ups were a third of the GELU's
// instructions. The activations are written as x · 1/(1 + 2^v), v folding in the log2(e) of the exponential.
// On the host (the CPU tests) the same formulas run with exp2f and a division, so the tests check them.
LADDER_HD inline float ex2_approx(float x) {
#ifdef __CUDA_ARCH__
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#else
  return exp2f(x);
#endif
}
LADDER_HD inline float rcp_approx(float x) {
#ifdef __CUDA_ARCH__
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#else
  return 1.0f / x;
#endif
}
inline constexpr float kLog2e = 1.4426950408889634f;

LADDER_HD inline float silu(float x) { return x * rcp_approx(1.0f + ex2_approx(-kLog2e * x)); }

// GELU (erf) = x·Φ(x), Φ(x) = 1 − erfc(x/√2)/2: erfc(z) = t·exp(−z² + P(t)), t = 1/(1 + z/2), P of degree 9
// (Numerical Recipes' erfcc, relative error < 1.2e-7 for every z ≥ 0), for both signs of x by symmetry. Two MUFU
// operations and no branch, where erff takes one of two paths per element (a warp runs both).
LADDER_HD inline float gelu_erf(float x) {
  const float z = fabsf(x) * 0.7071067811865476f;
  const float t = rcp_approx(1.0f + 0.5f * z);
  float p = 0.17087277f;
  p = fmaf(p, t, -0.82215223f);
  p = fmaf(p, t, 1.48851587f);
  p = fmaf(p, t, -1.13520398f);
  p = fmaf(p, t, 0.27886807f);
  p = fmaf(p, t, -0.18628806f);
  p = fmaf(p, t, 0.09678418f);
  p = fmaf(p, t, 0.37409196f);
  p = fmaf(p, t, 1.00002368f);
  p = fmaf(p, t, -1.26551223f);
  const float half_erfc = 0.5f * t * ex2_approx(kLog2e * fmaf(-z, z, p));  // Φ(−|x|)
  return x * (x >= 0.0f ? 1.0f - half_erfc : half_erfc);
}

LADDER_HD inline float activate(Activation a, float x) {
  switch (a) {
    case Activation::none: return x;
    case Activation::relu: return x < 0.0f ? 0.0f : x;  // NaN stays NaN (as torch's relu)
    case Activation::gelu_tanh: {
      // 0.5·(1 + tanh u) = 1/(1 + e^(−2u)), u = √(2/π)·(x + 0.044715x³): silu's cost, not tanhf's
      constexpr float c0 = -2.0f * 0.7978845608028654f * kLog2e, c1 = c0 * 0.044715f;
      return x * rcp_approx(1.0f + ex2_approx(x * fmaf(c1, x * x, c0)));
    }
    // erff itself here: this switch is compiled per element where the kind is chosen at run time (the register
    // writeback, the small-M kernel), and with gelu_erf's polynomial inlined there cicc ran for over 18 minutes on
    // small_m.cu (7 s with erff).
    case Activation::gelu_erf: return 0.5f * x * (1.0f + erff(x * 0.7071067811865476f));
    case Activation::silu: return silu(x);
  }
  return x;
}

// The activation of a kernel copy that compiles in one kind (Fused): gelu_erf's branch-free form.
template <Activation A>
LADDER_HD inline float activate(float x) {
  if constexpr (A == Activation::gelu_erf) return gelu_erf(x);
  else return activate(A, x);
}

// One element of a matrix or vector of dtype t.
LADDER_HD inline float load_as_float(const void* p, DType t, int64_t i) {
  switch (t) {
    case DType::f16: return __half2float(static_cast<const __half*>(p)[i]);
    case DType::bf16: return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
    case DType::f32: return static_cast<const float*>(p)[i];
  }
  return 0.0f;
}

// alpha·acc + bias, activated: everything before the residual. `n` is the product's column.
LADDER_HD inline float pre_residual(const EpilogueParams& ep, float acc, int64_t n) {
  float y = ep.alpha * acc;
  if (ep.bias) y += load_as_float(ep.bias, ep.bias_dtype, n);
  return activate(ep.act, y);
}

// The whole epilogue for one output element (m, n) of a non-SwiGLU product; C has D's dtype `d`.
LADDER_HD inline float epilogue(const EpilogueParams& ep, DType d, float acc, int64_t m, int64_t n) {
  float y = pre_residual(ep, acc, n);
  if (ep.beta != 0.0f) y += ep.beta * load_as_float(ep.C, d, m * ep.ldc + n);
  return y;
}

// SwiGLU output element (m, j) from the gate and up accumulators; `half` = I (the up rows' offset in B).
LADDER_HD inline float epilogue_swiglu(const EpilogueParams& ep, DType d, float gate, float up, int64_t m, int64_t j,
                                       int64_t half) {
  float g = ep.alpha * gate, u = ep.alpha * up;
  if (ep.bias) {
    g += load_as_float(ep.bias, ep.bias_dtype, j);
    u += load_as_float(ep.bias, ep.bias_dtype, half + j);
  }
  float y = silu(g) * u;
  if (ep.beta != 0.0f) y += ep.beta * load_as_float(ep.C, d, m * ep.ldc + j);
  return y;
}

}  // namespace ladder
