/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_conv_plan.c - the plan state of the cuda convolution rows (src/core/conv_plan.c;
 * the sm_90a wgmma rows keep tensor maps, launch geometry and kernel arguments per plan, the
 * grouped strided backward data its whole launch) must be invisible: on one handle, the same
 * descriptors are called again with new data in the same buffers, with another set of buffers,
 * with other alpha / beta, and after a descriptor change; each output must equal, bit for bit,
 * the same call on a fresh handle (no plans, the same implementation). Small-integer fills keep
 * every sum exact, so the comparison does not depend on the order of the additions.
 *
 * Problems: HALF and FLOAT (TF32 math) NHWC, a 3x3 stride-1 layer (forward, the MN-major
 * backward data, backward filter), a 3x3 stride-2 layer (the grouped strided backward data:
 * gather-free: MN-major filter views in HALF / BFLOAT16, B loaded by the producers in FLOAT),
 * a 1x1 layer, stride 2 under CUDNN_CONVOLUTION, BFLOAT16, 1x1 and C = 36; every algorithm the
 * handle accepts for each direction.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu_mirror.h"

typedef struct {
    cudnnDataType_t dt;
    int n, c, k, h, w, r, pad, str;
    int conv; /* CUDNN_CONVOLUTION (else cross-correlation) */
} plan_case_t;

typedef struct {
    void *in0, *in1, *out; /* device: the direction's two inputs and its output */
} set_t;

#define MAXB (1 << 20) /* bytes per buffer */
static void *d_ws, *d_init;
static set_t sets[2];
static unsigned char *h_a, *h_b, *h_fill;
static size_t ws_size = (size_t)256 << 20;

static void fill(fd_rng_t *rng, cudnnDataType_t dt, void *dev, size_t elems)
{
    fd_fill_int(rng, dt, h_fill, (int64_t)elems, -2, 2, 0.7);
    cudaMemcpy(dev, h_fill, elems * fd_test_dtype_size(dt), cudaMemcpyHostToDevice);
    cudaDeviceSynchronize(); /* the calls run on gm_stream, which does not wait for the legacy stream */
}

/* One call on h into `out` after resetting it to the shared initial output; the output bytes
 * come back in host. */
static cudnnStatus_t run_on(cudnnHandle_t h, int dir, int algo, cudnnTensorDescriptor_t xd, cudnnFilterDescriptor_t wd,
                            cudnnConvolutionDescriptor_t cd, cudnnTensorDescriptor_t yd, double alpha, double beta,
                            const set_t *s, size_t out_bytes, unsigned char *host)
{
    cudaMemcpy(s->out, d_init, out_bytes, cudaMemcpyDeviceToDevice);
    cudaDeviceSynchronize(); /* a device-to-device copy returns before it lands; gm_stream does not wait */
    void *ptr[4] = {s->in0, s->in1, s->out, d_ws};
    const cudnnStatus_t st = gm_conv_call(h, dir, algo, xd, wd, cd, yd, alpha, beta, ptr, ws_size);
    cudaDeviceSynchronize();
    cudaMemcpy(host, s->out, out_bytes, cudaMemcpyDeviceToHost);
    return st;
}

static int checked, compared;

static void one(const plan_case_t *pc, fd_rng_t *rng)
{
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnCreateTensorDescriptor(&xd), cudnnCreateTensorDescriptor(&yd);
    cudnnCreateFilterDescriptor(&wd), cudnnCreateConvolutionDescriptor(&cd);
    cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NHWC, pc->dt, pc->n, pc->c, pc->h, pc->w);
    cudnnSetFilter4dDescriptor(wd, pc->dt, CUDNN_TENSOR_NHWC, pc->k, pc->c, pc->r, pc->r);
    cudnnSetConvolution2dDescriptor(cd, pc->pad, pc->pad, pc->str, pc->str, 1, 1,
                                    pc->conv ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    cudnnSetConvolutionMathType(cd, CUDNN_TENSOR_OP_MATH);
    int on, oc, oh, ow;
    cudnnGetConvolution2dForwardOutputDim(cd, xd, wd, &on, &oc, &oh, &ow);
    cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NHWC, pc->dt, on, oc, oh, ow);
    const size_t es = fd_test_dtype_size(pc->dt);
    const size_t xe = (size_t)pc->n * pc->c * pc->h * pc->w, we = (size_t)pc->k * pc->c * pc->r * pc->r,
                 ye = (size_t)on * oc * oh * ow;
    FD_EXPECT(xe * es <= MAXB && we * es <= MAXB && ye * es <= MAXB, "case too large for the buffers");
    static const int algos[3] = {CUDNN_CONVOLUTION_FWD_ALGO_COUNT, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                                 CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT};
    cudnnHandle_t h;
    FD_EXPECT_STATUS(freednnCreateWithBackend(&h, FREEDNN_BACKEND_CUDA), CUDNN_STATUS_SUCCESS);
    cudnnSetStream(h, gm_stream);
    for (int dir = 0; dir < 3; dir++) {
        const size_t in0 = dir == 1 ? ye : xe, in1 = dir == 2 ? ye : we, out = dir == 0 ? ye : dir == 1 ? xe : we;
        for (int algo = 0; algo < algos[dir]; algo++) {
            size_t need = 0;
            cudnnStatus_t q =
                dir == 0 ? cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, (cudnnConvolutionFwdAlgo_t)algo,
                                                                   &need)
                : dir == 1 ? cudnnGetConvolutionBackwardDataWorkspaceSize(h, wd, yd, cd, xd,
                                                                          (cudnnConvolutionBwdDataAlgo_t)algo, &need)
                           : cudnnGetConvolutionBackwardFilterWorkspaceSize(
                                 h, xd, yd, cd, wd, (cudnnConvolutionBwdFilterAlgo_t)algo, &need);
            if (q != CUDNN_STATUS_SUCCESS || need > ws_size)
                continue;
            for (int i = 0; i < 2; i++) {
                fill(rng, pc->dt, sets[i].in0, in0);
                fill(rng, pc->dt, sets[i].in1, in1);
            }
            fill(rng, pc->dt, d_init, out);
            /* (set, alpha, beta, refill set 0 first) in order: the first call makes the plan */
            static const struct {
                int set;
                double alpha, beta;
                int refill;
            } steps[6] = {{0, 1, 0, 0}, {0, 1, 0, 1}, {1, 1, 0, 0}, {0, 0.5, 0.25, 0}, {1, 0.5, 0.25, 0}, {0, 1, 0, 0}};
            for (int sidx = 0; sidx < 6; sidx++) {
                if (steps[sidx].refill)
                    fill(rng, pc->dt, sets[0].in0, in0), fill(rng, pc->dt, sets[0].in1, in1);
                const set_t *s = &sets[steps[sidx].set];
                const cudnnStatus_t sa = run_on(h, dir, algo, xd, wd, cd, yd, steps[sidx].alpha, steps[sidx].beta, s,
                                                out * es, h_a);
                cudnnHandle_t fresh;
                FD_EXPECT_STATUS(freednnCreateWithBackend(&fresh, FREEDNN_BACKEND_CUDA), CUDNN_STATUS_SUCCESS);
                cudnnSetStream(fresh, gm_stream);
                const cudnnStatus_t sb = run_on(fresh, dir, algo, xd, wd, cd, yd, steps[sidx].alpha, steps[sidx].beta,
                                                s, out * es, h_b);
                cudnnDestroy(fresh);
                checked++;
                FD_EXPECT(sa == sb, "%s n%dc%dh%dw%dk%d r%d s%d dir %d algo %d step %d: status %d, a fresh handle %d",
                          fd_test_dtype_short(pc->dt), pc->n, pc->c, pc->h, pc->w, pc->k, pc->r, pc->str, dir, algo,
                          sidx, sa, sb);
                if (sa == CUDNN_STATUS_SUCCESS && sb == CUDNN_STATUS_SUCCESS) {
                    compared++;
                    FD_EXPECT(memcmp(h_a, h_b, out * es) == 0,
                              "%s n%dc%dh%dw%dk%d r%d s%d dir %d algo %d step %d: output differs from a fresh "
                              "handle's",
                              fd_test_dtype_short(pc->dt), pc->n, pc->c, pc->h, pc->w, pc->k, pc->r, pc->str, dir,
                              algo, sidx);
                }
            }
        }
    }
    cudnnDestroy(h);
    cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyFilterDescriptor(wd), cudnnDestroyConvolutionDescriptor(cd);
}

int main(int argc, char **argv)
{
    gm_init(argc, argv, "test_gpu_conv_plan");
    for (int i = 0; i < 2; i++) {
        cudaMalloc(&sets[i].in0, MAXB), cudaMalloc(&sets[i].in1, MAXB), cudaMalloc(&sets[i].out, MAXB);
    }
    cudaMalloc(&d_init, MAXB);
    if (cudaMalloc(&d_ws, ws_size) != cudaSuccess)
        ws_size = 0;
    h_a = malloc(MAXB), h_b = malloc(MAXB), h_fill = malloc(MAXB);
    fd_rng_t rng;
    fd_rng_seed(&rng, 0x91a7);
    static const plan_case_t cases[] = {
        {CUDNN_DATA_HALF, 2, 64, 64, 10, 10, 3, 1, 1, 0},  {CUDNN_DATA_HALF, 2, 64, 128, 13, 11, 3, 1, 2, 0},
        {CUDNN_DATA_HALF, 1, 128, 64, 7, 7, 1, 0, 1, 0},   {CUDNN_DATA_BFLOAT16, 1, 64, 64, 9, 9, 3, 1, 1, 0},
        {CUDNN_DATA_FLOAT, 2, 64, 64, 10, 10, 3, 1, 1, 0}, {CUDNN_DATA_FLOAT, 2, 64, 64, 13, 11, 3, 1, 2, 0},
        /* the gather-free grouped strided backward data (16-bit: MN-major views; FLOAT: the
         * producers' B): flipped views, bfloat16, 1x1, C = 36 */
        {CUDNN_DATA_HALF, 2, 64, 64, 13, 11, 3, 1, 2, 1},   {CUDNN_DATA_BFLOAT16, 1, 64, 128, 9, 12, 3, 1, 2, 0},
        {CUDNN_DATA_HALF, 2, 64, 128, 14, 14, 1, 0, 2, 0},  {CUDNN_DATA_FLOAT, 2, 36, 64, 11, 9, 3, 1, 2, 1},
    };
    const int ncase = gm_smoke ? 2 : (int)(sizeof cases / sizeof *cases);
    for (int i = 0; i < ncase; i++)
        one(&cases[i], &rng);
    printf("test_gpu_conv_plan: %d calls checked, %d outputs compared with a fresh handle\n", checked, compared);
    FD_EXPECT(compared > checked / 2, "only %d of %d calls ran on both handles", compared, checked);
    for (int i = 0; i < 2; i++)
        cudaFree(sets[i].in0), cudaFree(sets[i].in1), cudaFree(sets[i].out);
    cudaFree(d_init), cudaFree(d_ws);
    free(h_a), free(h_b), free(h_fill);
    return gm_finish();
}
