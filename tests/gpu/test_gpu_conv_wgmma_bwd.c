/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_conv_wgmma_bwd.c - the second half of test_gpu_conv_wgmma.c (see there): stride-1
 * backward data, TF32, the strided forward and backward data cases, the host cost, children "2"
 * and "3". One file, two programs, so that the GPU tier runs the halves side by side.
 */
#define WG_PART 2
#include "test_gpu_conv_wgmma.c"
