/* Prints the layout of struct ladder_gemm_desc as this C compiler lays it out, one field a line:
 *     sizeof 160
 *     <field> <offset> <size>
 * python/tests/test_desc_layout.py compares it with the ctypes mirror (ladder._library.GemmDesc). Built as C,
 * so it also checks that ladder.h is a valid C header. */
#include <stddef.h>
#include <stdio.h>

#include "ladder/ladder.h"

#define FIELD(name) \
  printf("%s %zu %zu\n", #name, offsetof(struct ladder_gemm_desc, name), sizeof(((struct ladder_gemm_desc*)0)->name))

int main(void) {
  printf("sizeof %zu\n", sizeof(struct ladder_gemm_desc));
  FIELD(struct_size);
  FIELD(M);
  FIELD(N);
  FIELD(K);
  FIELD(A);
  FIELD(lda);
  FIELD(B);
  FIELD(ldb);
  FIELD(D);
  FIELD(ldd);
  FIELD(ab_dtype);
  FIELD(d_dtype);
  FIELD(alpha);
  FIELD(beta);
  FIELD(C);
  FIELD(ldc);
  FIELD(bias);
  FIELD(bias_dtype);
  FIELD(activation);
  FIELD(epilogue);
  FIELD(flags);
  FIELD(a_scale);
  FIELD(b_scale);
  FIELD(step);
  /* enum values, which the Python enums mirror */
  printf("enum LADDER_DTYPE_F16 %d\nenum LADDER_DTYPE_BF16 %d\nenum LADDER_DTYPE_F32 %d\n", LADDER_DTYPE_F16,
         LADDER_DTYPE_BF16, LADDER_DTYPE_F32);
  printf("enum LADDER_ACTIVATION_NONE %d\nenum LADDER_ACTIVATION_RELU %d\nenum LADDER_ACTIVATION_GELU_TANH %d\n"
         "enum LADDER_ACTIVATION_GELU_ERF %d\nenum LADDER_ACTIVATION_SILU %d\n",
         LADDER_ACTIVATION_NONE, LADDER_ACTIVATION_RELU, LADDER_ACTIVATION_GELU_TANH, LADDER_ACTIVATION_GELU_ERF,
         LADDER_ACTIVATION_SILU);
  printf("enum LADDER_EPILOGUE_DEFAULT %d\nenum LADDER_EPILOGUE_SWIGLU %d\n", LADDER_EPILOGUE_DEFAULT,
         LADDER_EPILOGUE_SWIGLU);
  return 0;
}
