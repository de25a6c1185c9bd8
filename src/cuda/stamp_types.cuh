/* SPDX-License-Identifier: MIT */
/*
 * stamp_types.cuh - includes FD_STAMP_FILE once per storage type of the simple kernels, with
 * FD_T (the storage type), FD_ACC (the accumulation type: float, double for DOUBLE) and FD_SFX
 * (the name suffix: f32, f64, f16, bf16) defined around each inclusion, so kernel_<sfx> exist
 * for FD_CUDA_TYPED_LAUNCH (elem.cuh). No templates over types (STYLE.md): one text, stamped.
 * Usage: #define FD_STAMP_FILE "pooling_kernels.cuh" then #include "stamp_types.cuh".
 */
#ifndef FD_STAMP_FILE
#error "define FD_STAMP_FILE before including stamp_types.cuh"
#endif

#define FD_T float
#define FD_ACC float
#define FD_SFX f32
#include FD_STAMP_FILE
#undef FD_T
#undef FD_ACC
#undef FD_SFX

#define FD_T double
#define FD_ACC double
#define FD_SFX f64
#include FD_STAMP_FILE
#undef FD_T
#undef FD_ACC
#undef FD_SFX

#define FD_T __half
#define FD_ACC float
#define FD_SFX f16
#include FD_STAMP_FILE
#undef FD_T
#undef FD_ACC
#undef FD_SFX

#define FD_T __nv_bfloat16
#define FD_ACC float
#define FD_SFX bf16
#include FD_STAMP_FILE
#undef FD_T
#undef FD_ACC
#undef FD_SFX

#undef FD_STAMP_FILE
