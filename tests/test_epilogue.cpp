// CPU tests of the fused epilogue's host side (src/device/epilogue_op.hpp): which kernel copy a problem's
// epilogue selects, and the host formulas (the device's fast forms are checked on the GPU against torch:
// scripts/check_v2_torch.py).
#include <gtest/gtest.h>

#include <cmath>

#include "device/epilogue_op.hpp"

namespace ladder {
namespace {

TEST(FusedKind, PlainGemmCompilesNoEpilogue) {
  EXPECT_EQ(fused_kind(EpilogueParams{}), Fused::none);
}

TEST(FusedKind, AnyAlphaBiasOrResidualWithoutActivationIsActNone) {
  EpilogueParams alpha;
  alpha.alpha = 0.5f;
  EXPECT_EQ(fused_kind(alpha), Fused::act_none);
  EpilogueParams residual;
  residual.beta = 1.0f;
  EXPECT_EQ(fused_kind(residual), Fused::act_none);
  static const float bias[1] = {0.0f};
  EpilogueParams biased;
  biased.bias = bias;
  EXPECT_EQ(fused_kind(biased), Fused::act_none);
}

TEST(FusedKind, EachActivationSelectsItsOwnCopy) {
  const std::pair<Activation, Fused> expected[] = {{Activation::relu, Fused::relu},
                                                   {Activation::gelu_tanh, Fused::gelu_tanh},
                                                   {Activation::gelu_erf, Fused::gelu_erf},
                                                   {Activation::silu, Fused::silu}};
  for (const auto& [act, kind] : expected) {
    EpilogueParams ep;
    ep.act = act;
    EXPECT_EQ(fused_kind(ep), kind) << static_cast<int>(act);
    ep.beta = 1.0f;  // a residual does not change the copy
    EXPECT_EQ(fused_kind(ep), kind) << static_cast<int>(act);
  }
}

TEST(FusedKind, SwigluWinsOverItsSiluActivationField) {
  EpilogueParams ep;
  ep.swiglu = true;
  EXPECT_EQ(fused_kind(ep), Fused::swiglu);
  ep.act = Activation::silu;  // SwiGLU's silu is its own; the field is not read
  EXPECT_EQ(fused_kind(ep), Fused::swiglu);
}

// The device's formulas (x · 1/(1 + 2^v), erfcc), here with exp2f and a division in place of the MUFU forms.
TEST(Activate, HostFormulasMatchTheirDefinitions) {
  for (float x : {-6.0f, -1.5f, -0.25f, 0.0f, 0.3f, 2.0f, 7.5f}) {
    const double xd = x;
    EXPECT_NEAR(activate(Activation::relu, x), xd > 0 ? xd : 0.0, 0.0);
    EXPECT_NEAR(activate(Activation::silu, x), xd / (1 + std::exp(-xd)), 1e-6 * (1 + std::fabs(xd)));
    EXPECT_NEAR(activate(Activation::gelu_erf, x), 0.5 * xd * std::erfc(-xd / std::sqrt(2.0)), 1e-6 * (1 + std::fabs(xd)));
    const double u = std::sqrt(2.0 / M_PI) * (xd + 0.044715 * xd * xd * xd);
    EXPECT_NEAR(activate(Activation::gelu_tanh, x), 0.5 * xd * (1 + std::tanh(u)), 1e-6 * (1 + std::fabs(xd)));
  }
}

// The one-kind copies' GELU (erf), erfcc: relative error < 1.2e-7 in erfc, plus fp32's rounding of the exponent
// −z² + P (x²·2^-25 absolute), down the negative tail too (x = −9: x·Φ(x) ≈ −1e-18, relative error 1.5e-6).
TEST(Activate, BranchFreeGeluErfMatchesErfc) {
  for (float x = -9.0f; x <= 9.0f; x += 0.0625f) {
    const double xd = x, ref = 0.5 * xd * std::erfc(-xd / std::sqrt(2.0));
    EXPECT_NEAR(activate<Activation::gelu_erf>(x), ref, (4e-7 + 2e-7 * xd * xd) * std::fabs(ref) + 1e-30) << x;
  }
}

TEST(Activate, NanAndInfinities) {
  const float nan = std::nanf(""), inf = INFINITY;
  for (Activation a : {Activation::relu, Activation::silu, Activation::gelu_tanh, Activation::gelu_erf})
    EXPECT_TRUE(std::isnan(activate(a, nan))) << static_cast<int>(a);  // NaN is never hidden (relu too)
  EXPECT_TRUE(std::isnan(activate<Activation::gelu_erf>(nan)));
  EXPECT_EQ(activate(Activation::relu, -inf), 0.0f);
  EXPECT_EQ(activate(Activation::silu, inf), inf);
  EXPECT_EQ(activate(Activation::gelu_tanh, inf), inf);
  EXPECT_EQ(activate<Activation::gelu_erf>(inf), inf);
  EXPECT_EQ(activate(Activation::gelu_tanh, 40.0f), 40.0f);
  EXPECT_EQ(activate(Activation::gelu_tanh, -40.0f), -0.0f);
}

}  // namespace
}  // namespace ladder
