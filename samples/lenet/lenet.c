/* SPDX-License-Identifier: MIT */
/*
 * lenet.c - LeNet-5 trained and tested on Fashion-MNIST through the cuDNN API: the idea of
 * NVIDIA's mnistCUDNN sample, except that we train the weights ourselves. Every network layer
 * is a cuDNN call: convolutions (forward, backward data, filter, bias), cudnnAddTensor for the
 * biases, activation, max pooling, log-softmax and its backward pass (which, fed the gradient of
 * the negative log-likelihood, gives the gradient of softmax + cross-entropy). The fully
 * connected layers are convolutions whose filter covers the whole input; cudnnFind* picks their
 * algorithms. The SGD update (with momentum) is two cudnnAddTensor calls per parameter tensor.
 * Only the loss, the one-hot gradient and the predictions are computed on the host. float32,
 * NCHW, the default backend; on cuda the tensors are device memory (see mem_alloc).
 *
 * usage: lenet                      train 1 epoch, save lenet.weights, test it
 *        lenet train [options]      train and save (see usage() for the options)
 *        lenet test --weights FILE  classify the test set with saved weights
 * The weight file format is in README.md.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cudnn.h"
#include "fashion_mnist.h"
#include "freednn.h"

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudnnStatus_t s_ = (call);                                                                 \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                          \
            char why_[512];                                                                        \
            cudnnGetLastErrorString(why_, sizeof why_);                                            \
            fprintf(stderr, "\n%s:%d: %s failed: %s\n  %s\n", __FILE__, __LINE__, #call,           \
                    cudnnGetErrorString(s_), why_);                                                \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* ---- where tensors live ------------------------------------------------------------------
 * Every buffer the API reads or writes comes from mem_alloc, and every transfer between it and
 * host memory goes through mem_copy. On the host backends they are calloc and memcpy. On the
 * cuda backend they are cudaMalloc (+ cudaMemset, so buffers start at zero as calloc's do) and
 * cudaMemcpy with cudaMemcpyDefault: unified addressing tells the direction from the pointers,
 * so the callers need not say which side each pointer is on.
 *
 * The CUDA runtime is loaded with dlopen (libcudart.so.13, .12, then libcudart.so) only when
 * the handle is a cuda one, so the sample builds and runs without the CUDA toolkit (CI). Device
 * pointers from this runtime are valid in freednn's (linked statically into libfreednn): both
 * use the device's primary context. freednn launches on the handle's stream, the legacy
 * default stream here (the sample never calls cudnnSetStream), and a cudaMemcpy on that stream
 * waits for the kernels queued before it, so no explicit synchronisation is needed. */

typedef int cuda_err_t; /* cudaError_t: 0 is cudaSuccess */
enum { CUDA_MEMCPY_DEFAULT = 4 };

static struct {
    int on; /* tensors live in device memory */
    void *dl;
    cuda_err_t (*Malloc)(void **, size_t);
    cuda_err_t (*Free)(void *);
    cuda_err_t (*Memcpy)(void *, const void *, size_t, int);
    cuda_err_t (*Memset)(void *, int, size_t);
    const char *(*GetErrorString)(cuda_err_t);
} cuda;

static void cuda_check(const char *what, cuda_err_t e)
{
    if (e != 0) {
        fprintf(stderr, "\nlenet: %s failed: %s\n", what, cuda.GetErrorString(e));
        exit(1);
    }
}

/* Loads the CUDA runtime for device buffers; -1 with a message when it cannot be loaded. */
static int cuda_load(void)
{
    static const char *const names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !cuda.dl; i++)
        cuda.dl = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!cuda.dl) {
        fprintf(stderr,
                "lenet: the cuda backend needs device buffers from the CUDA runtime, and no "
                "libcudart.so.13, .12 or libcudart.so could be loaded (%s); add its directory "
                "to LD_LIBRARY_PATH, or run with FREEDNN_BACKEND=cpu\n",
                dlerror());
        return -1;
    }
    static const char *const syms[] = {"cudaMalloc", "cudaFree", "cudaMemcpy", "cudaMemset",
                                       "cudaGetErrorString"};
    void *fn[5];
    for (int i = 0; i < 5; i++)
        if (!(fn[i] = dlsym(cuda.dl, syms[i]))) {
            fprintf(stderr, "lenet: the CUDA runtime has no %s\n", syms[i]);
            return -1;
        }
    /* object to function pointer: through memcpy, the conversion ISO C leaves undefined */
    memcpy(&cuda.Malloc, &fn[0], sizeof fn[0]), memcpy(&cuda.Free, &fn[1], sizeof fn[1]);
    memcpy(&cuda.Memcpy, &fn[2], sizeof fn[2]), memcpy(&cuda.Memset, &fn[3], sizeof fn[3]);
    memcpy(&cuda.GetErrorString, &fn[4], sizeof fn[4]);
    cuda.on = 1;
    return 0;
}

static void *mem_alloc(size_t bytes)
{
    void *p = NULL;
    if (cuda.on) {
        cuda_check("cudaMalloc", cuda.Malloc(&p, bytes ? bytes : 1));
        cuda_check("cudaMemset", cuda.Memset(p, 0, bytes ? bytes : 1));
        return p;
    }
    p = calloc(1, bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "lenet: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

static void mem_free(void *p)
{
    if (cuda.on) {
        if (p)
            cuda_check("cudaFree", cuda.Free(p));
        return;
    }
    free(p);
}

static void mem_copy(void *dst, const void *src, size_t bytes)
{
    if (cuda.on) {
        if (bytes)
            cuda_check("cudaMemcpy", cuda.Memcpy(dst, src, bytes, CUDA_MEMCPY_DEFAULT));
        return;
    }
    memcpy(dst, src, bytes);
}

/* ---- the network -------------------------------------------------------------------------- */

enum { CONV1, CONV2, FC1, FC2, FC3, NLAYERS };
enum { ACT_RELU = 0, ACT_TANH = 1 };
static const char *const act_names[] = {"relu", "tanh"};

/* A batch of activations (n x c x h x w) and the gradient of the loss with respect to it. */
typedef struct {
    int c, h, w;
    cudnnTensorDescriptor_t d;
    float *v, *g;
} tensor_t;

/* One layer: a convolution (K x C x R x S filter, zero padding pad) plus bias, optionally
 * followed by the activation and a 2x2 max pool. The fully connected layers are convolutions
 * with R x S equal to the input's H x W. */
typedef struct {
    int k, c, r, s, pad, act, pool;
    cudnnFilterDescriptor_t wd;
    cudnnTensorDescriptor_t wtd, bd; /* the filter as a K x C x R x S tensor (update), bias */
    cudnnConvolutionDescriptor_t cd;
    cudnnConvolutionFwdAlgo_t fwd_algo;
    cudnnConvolutionBwdDataAlgo_t bwd_data_algo;
    cudnnConvolutionBwdFilterAlgo_t bwd_filter_algo;
    float *w, *b, *dw, *db, *mw, *mb; /* parameters, their gradients, momentum buffers */
    tensor_t *in, z, a, p;            /* input, conv + bias, activation, pool */
    tensor_t *out;                    /* the last of z, a, p this layer has */
} layer_t;

/* LeNet-5 (LeCun et al., 1998; max pooling, ReLU by default): {K, C, R, S, pad, act, pool}. */
static const int lenet5[NLAYERS][7] = {
    {6, 1, 5, 5, 2, 1, 1},    /* conv 5x5, 1 -> 6, pad 2: 28x28 -> 28x28, pool -> 14x14 */
    {16, 6, 5, 5, 0, 1, 1},   /* conv 5x5, 6 -> 16: 14x14 -> 10x10, pool -> 5x5 */
    {120, 16, 5, 5, 0, 1, 0}, /* FC 400 -> 120 */
    {84, 120, 1, 1, 0, 1, 0}, /* FC 120 -> 84 */
    {10, 84, 1, 1, 0, 0, 0},  /* FC 84 -> 10, then log-softmax */
};

/* The algorithms cudnnFind* chose for one batch size. */
typedef struct {
    int n;
    cudnnConvolutionFwdAlgo_t fwd[NLAYERS];
    cudnnConvolutionBwdDataAlgo_t bwd_data[NLAYERS];
    cudnnConvolutionBwdFilterAlgo_t bwd_filter[NLAYERS];
} algo_choice_t;

typedef struct {
    cudnnHandle_t h;
    int act, max_batch, n;  /* activation kind, buffers' batch size, current batch size */
    int training;           /* choose backward algorithms too */
    algo_choice_t found[4]; /* a full batch and the odd sizes of last batches */
    int n_found;
    cudnnActivationDescriptor_t actd;
    cudnnPoolingDescriptor_t poold;
    tensor_t x, y; /* input images, log-probabilities */
    layer_t l[NLAYERS];
    void *ws;
    size_t ws_size;
    float *host_x, *host_y, *host_dy; /* host staging for the batch */
} net_t;

/* Input normalisation: Fashion-MNIST's training-set pixel mean and standard deviation. */
#define PIXEL_MEAN 0.2860f
#define PIXEL_STD 0.3530f
#define IMG 28

static uint64_t rng_state;

static uint64_t rng_next(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double rng_uniform(void) /* [0, 1) */
{
    return (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0);
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void tensor_init(tensor_t *t, int c, int h, int w, int max_batch)
{
    size_t n = (size_t)max_batch * c * h * w;
    t->c = c, t->h = h, t->w = w;
    CHECK(cudnnCreateTensorDescriptor(&t->d));
    t->v = mem_alloc(n * sizeof(float));
    t->g = mem_alloc(n * sizeof(float));
}

static void tensor_destroy(tensor_t *t)
{
    if (!t->d)
        return;
    cudnnDestroyTensorDescriptor(t->d);
    mem_free(t->v), mem_free(t->g);
}

static size_t layer_params(const layer_t *L)
{
    return (size_t)L->k * L->c * L->r * L->s;
}

static size_t max_size(size_t a, size_t b)
{
    return a > b ? a : b;
}

/* Picks the convolution algorithms for the current batch size: the fastest by
 * cudnnFind*Algorithm, measured once per batch size (a training run sees at most the full batch
 * and one shorter last batch), and grows the workspace to what they need. */
static void net_choose_algos(net_t *net)
{
    cudnnHandle_t h = net->h;
    algo_choice_t *a = NULL;
    for (int i = 0; i < net->n_found && !a; i++)
        if (net->found[i].n == net->n)
            a = &net->found[i];
    if (!a) {
        a = &net->found[net->n_found < 4 ? net->n_found++ : 3];
        a->n = net->n;
        for (int i = 0; i < NLAYERS; i++) {
            layer_t *L = &net->l[i];
            int got;
            cudnnConvolutionFwdAlgoPerf_t fperf;
            cudnnConvolutionBwdDataAlgoPerf_t dperf;
            cudnnConvolutionBwdFilterAlgoPerf_t wperf;
            CHECK(cudnnFindConvolutionForwardAlgorithm(h, L->in->d, L->wd, L->cd, L->z.d, 1, &got,
                                                       &fperf));
            CHECK(fperf.status);
            a->fwd[i] = fperf.algo;
            a->bwd_data[i] = CUDNN_CONVOLUTION_BWD_DATA_ALGO_0;
            a->bwd_filter[i] = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0;
            if (!net->training)
                continue;
            if (i > 0) { /* the input image needs no gradient */
                CHECK(cudnnFindConvolutionBackwardDataAlgorithm(h, L->wd, L->z.d, L->cd, L->in->d,
                                                                1, &got, &dperf));
                CHECK(dperf.status);
                a->bwd_data[i] = dperf.algo;
            }
            CHECK(cudnnFindConvolutionBackwardFilterAlgorithm(h, L->in->d, L->z.d, L->cd, L->wd, 1,
                                                              &got, &wperf));
            CHECK(wperf.status);
            a->bwd_filter[i] = wperf.algo;
        }
    }
    size_t ws = 0, sz;
    for (int i = 0; i < NLAYERS; i++) {
        layer_t *L = &net->l[i];
        L->fwd_algo = a->fwd[i], L->bwd_data_algo = a->bwd_data[i],
        L->bwd_filter_algo = a->bwd_filter[i];
        CHECK(cudnnGetConvolutionForwardWorkspaceSize(h, L->in->d, L->wd, L->cd, L->z.d,
                                                      L->fwd_algo, &sz));
        ws = max_size(ws, sz);
        if (!net->training)
            continue;
        if (i > 0) {
            CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, L->wd, L->z.d, L->cd, L->in->d,
                                                               L->bwd_data_algo, &sz));
            ws = max_size(ws, sz);
        }
        CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, L->in->d, L->z.d, L->cd, L->wd,
                                                             L->bwd_filter_algo, &sz));
        ws = max_size(ws, sz);
    }
    if (ws > net->ws_size) {
        mem_free(net->ws);
        net->ws = mem_alloc(ws);
        net->ws_size = ws;
    }
}

/* Describes every tensor for a batch of n (n <= max_batch) and picks the algorithms for it. */
static void net_set_batch(net_t *net, int n)
{
    net->n = n;
    CHECK(
        cudnnSetTensor4dDescriptor(net->x.d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, 1, IMG, IMG));
    for (int i = 0; i < NLAYERS; i++) {
        layer_t *L = &net->l[i];
        int on, oc, oh, ow;
        CHECK(cudnnGetConvolution2dForwardOutputDim(L->cd, L->in->d, L->wd, &on, &oc, &oh, &ow));
        if (oc != L->z.c || oh != L->z.h || ow != L->z.w) {
            fprintf(stderr, "lenet: layer %d gives %dx%dx%d, expected %dx%dx%d\n", i, oc, oh, ow,
                    L->z.c, L->z.h, L->z.w);
            exit(1);
        }
        CHECK(
            cudnnSetTensor4dDescriptor(L->z.d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, oc, oh, ow));
        if (L->act)
            CHECK(cudnnSetTensor4dDescriptor(L->a.d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, oc, oh,
                                             ow));
        if (L->pool) {
            int pn, pc, ph, pw;
            CHECK(cudnnGetPooling2dForwardOutputDim(net->poold, L->a.d, &pn, &pc, &ph, &pw));
            CHECK(cudnnSetTensor4dDescriptor(L->p.d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, pn, pc,
                                             ph, pw));
        }
    }
    CHECK(cudnnSetTensor4dDescriptor(net->y.d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, 10, 1, 1));
    net_choose_algos(net);
}

static void net_init(net_t *net, int max_batch, int act, int training)
{
    memset(net, 0, sizeof *net);
    CHECK(cudnnCreate(&net->h));
    net->act = act, net->max_batch = max_batch, net->training = training;
    CHECK(cudnnCreateActivationDescriptor(&net->actd));
    CHECK(cudnnSetActivationDescriptor(
        net->actd, act == ACT_TANH ? CUDNN_ACTIVATION_TANH : CUDNN_ACTIVATION_RELU,
        CUDNN_PROPAGATE_NAN, 0.0));
    CHECK(cudnnCreatePoolingDescriptor(&net->poold));
    CHECK(cudnnSetPooling2dDescriptor(net->poold, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 0,
                                      0, 2, 2));

    tensor_init(&net->x, 1, IMG, IMG, max_batch);
    tensor_t *in = &net->x;
    for (int i = 0; i < NLAYERS; i++) {
        layer_t *L = &net->l[i];
        const int *spec = lenet5[i];
        L->k = spec[0], L->c = spec[1], L->r = spec[2], L->s = spec[3], L->pad = spec[4];
        L->act = spec[5], L->pool = spec[6];
        L->in = in;
        CHECK(cudnnCreateFilterDescriptor(&L->wd));
        CHECK(cudnnSetFilter4dDescriptor(L->wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, L->k, L->c,
                                         L->r, L->s));
        CHECK(cudnnCreateTensorDescriptor(&L->wtd));
        CHECK(cudnnSetTensor4dDescriptor(L->wtd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, L->k, L->c,
                                         L->r, L->s));
        CHECK(cudnnCreateTensorDescriptor(&L->bd));
        CHECK(
            cudnnSetTensor4dDescriptor(L->bd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, L->k, 1, 1));
        CHECK(cudnnCreateConvolutionDescriptor(&L->cd));
        CHECK(cudnnSetConvolution2dDescriptor(L->cd, L->pad, L->pad, 1, 1, 1, 1,
                                              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
        size_t np = layer_params(L);
        L->w = mem_alloc(np * sizeof(float)), L->dw = mem_alloc(np * sizeof(float));
        L->mw = mem_alloc(np * sizeof(float));
        L->b = mem_alloc((size_t)L->k * sizeof(float)),
        L->db = mem_alloc((size_t)L->k * sizeof(float));
        L->mb = mem_alloc((size_t)L->k * sizeof(float));

        int oh = in->h + 2 * L->pad - L->r + 1, ow = in->w + 2 * L->pad - L->s + 1;
        tensor_init(&L->z, L->k, oh, ow, max_batch);
        L->out = &L->z;
        if (L->act) {
            tensor_init(&L->a, L->k, oh, ow, max_batch);
            L->out = &L->a;
        }
        if (L->pool) {
            tensor_init(&L->p, L->k, oh / 2, ow / 2, max_batch);
            L->out = &L->p;
        }
        in = L->out;
    }
    tensor_init(&net->y, 10, 1, 1, max_batch);
    net->host_x = malloc((size_t)max_batch * IMG * IMG * sizeof(float));
    net->host_y = malloc((size_t)max_batch * 10 * sizeof(float));
    net->host_dy = malloc((size_t)max_batch * 10 * sizeof(float));
    if (!net->host_x || !net->host_y || !net->host_dy) {
        fprintf(stderr, "lenet: out of memory\n");
        exit(1);
    }
    net_set_batch(net, max_batch);
}

static void net_destroy(net_t *net)
{
    for (int i = 0; i < NLAYERS; i++) {
        layer_t *L = &net->l[i];
        cudnnDestroyFilterDescriptor(L->wd), cudnnDestroyConvolutionDescriptor(L->cd);
        cudnnDestroyTensorDescriptor(L->wtd), cudnnDestroyTensorDescriptor(L->bd);
        mem_free(L->w), mem_free(L->dw), mem_free(L->mw);
        mem_free(L->b), mem_free(L->db), mem_free(L->mb);
        tensor_destroy(&L->z), tensor_destroy(&L->a), tensor_destroy(&L->p);
    }
    tensor_destroy(&net->x), tensor_destroy(&net->y);
    mem_free(net->ws);
    free(net->host_x), free(net->host_y), free(net->host_dy);
    cudnnDestroyActivationDescriptor(net->actd), cudnnDestroyPoolingDescriptor(net->poold);
    cudnnDestroy(net->h);
}

/* Uniform initialisation scaled by fan-in (He for ReLU layers, LeCun otherwise); zero biases. */
static void net_init_weights(net_t *net)
{
    for (int i = 0; i < NLAYERS; i++) {
        layer_t *L = &net->l[i];
        size_t np = layer_params(L);
        int fan_in = L->c * L->r * L->s;
        double bound = sqrt((L->act && net->act == ACT_RELU ? 6.0 : 3.0) / fan_in);
        float *w = malloc(np * sizeof(float));
        for (size_t j = 0; j < np; j++)
            w[j] = (float)((2.0 * rng_uniform() - 1.0) * bound);
        mem_copy(L->w, w, np * sizeof(float));
        free(w);
        /* mem_alloc zeroes: biases and momentum start at 0 */
    }
}

/* Copies images idx[0..n) of set into the input tensor, normalised, and sets the batch size. */
static void net_load_batch(net_t *net, const fmnist_set_t *set, const int *idx, int n)
{
    if (n != net->n)
        net_set_batch(net, n);
    for (int i = 0; i < n; i++) {
        const uint8_t *img = set->images + (size_t)idx[i] * IMG * IMG;
        float *dst = net->host_x + (size_t)i * IMG * IMG;
        for (int j = 0; j < IMG * IMG; j++)
            dst[j] = ((float)img[j] / 255.0f - PIXEL_MEAN) / PIXEL_STD;
    }
    mem_copy(net->x.v, net->host_x, (size_t)n * IMG * IMG * sizeof(float));
}

/* Forward pass of the current batch; leaves the log-probabilities in host_y. */
static void net_forward(net_t *net)
{
    const float one = 1.0f, zero = 0.0f;
    cudnnHandle_t h = net->h;
    for (int i = 0; i < NLAYERS; i++) {
        layer_t *L = &net->l[i];
        CHECK(cudnnConvolutionForward(h, &one, L->in->d, L->in->v, L->wd, L->w, L->cd, L->fwd_algo,
                                      net->ws, net->ws_size, &zero, L->z.d, L->z.v));
        CHECK(cudnnAddTensor(h, &one, L->bd, L->b, &one, L->z.d, L->z.v));
        if (L->act)
            CHECK(
                cudnnActivationForward(h, net->actd, &one, L->z.d, L->z.v, &zero, L->a.d, L->a.v));
        if (L->pool)
            CHECK(cudnnPoolingForward(h, net->poold, &one, L->a.d, L->a.v, &zero, L->p.d, L->p.v));
    }
    layer_t *last = &net->l[NLAYERS - 1];
    CHECK(cudnnSoftmaxForward(h, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, &one, last->out->d,
                              last->out->v, &zero, net->y.d, net->y.v));
    mem_copy(net->host_y, net->y.v, (size_t)net->n * 10 * sizeof(float));
}

/* Mean cross-entropy of the batch against labels, and its gradient with respect to the
 * log-probabilities (-1/n at each image's label), handed to the device. */
static double net_loss(net_t *net, const uint8_t *labels)
{
    double loss = 0.0;
    memset(net->host_dy, 0, (size_t)net->n * 10 * sizeof(float));
    for (int i = 0; i < net->n; i++) {
        loss -= net->host_y[i * 10 + labels[i]];
        net->host_dy[i * 10 + labels[i]] = -1.0f / (float)net->n;
    }
    mem_copy(net->y.g, net->host_dy, (size_t)net->n * 10 * sizeof(float));
    return loss / net->n;
}

/* Backward pass: gradients of every parameter, from net->y.g. */
static void net_backward(net_t *net)
{
    const float one = 1.0f, zero = 0.0f;
    cudnnHandle_t h = net->h;
    layer_t *last = &net->l[NLAYERS - 1];
    /* log-softmax backward: dx = dy - softmax * sum(dy) = (softmax - onehot) / n */
    CHECK(cudnnSoftmaxBackward(h, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, &one, net->y.d,
                               net->y.v, net->y.d, net->y.g, &zero, last->out->d, last->out->g));
    for (int i = NLAYERS - 1; i >= 0; i--) {
        layer_t *L = &net->l[i];
        if (L->pool)
            CHECK(cudnnPoolingBackward(h, net->poold, &one, L->p.d, L->p.v, L->p.d, L->p.g, L->a.d,
                                       L->a.v, &zero, L->a.d, L->a.g));
        if (L->act)
            CHECK(cudnnActivationBackward(h, net->actd, &one, L->a.d, L->a.v, L->a.d, L->a.g,
                                          L->z.d, L->z.v, &zero, L->z.d, L->z.g));
        CHECK(cudnnConvolutionBackwardBias(h, &one, L->z.d, L->z.g, &zero, L->bd, L->db));
        CHECK(cudnnConvolutionBackwardFilter(h, &one, L->in->d, L->in->v, L->z.d, L->z.g, L->cd,
                                             L->bwd_filter_algo, net->ws, net->ws_size, &zero,
                                             L->wd, L->dw));
        if (i > 0) /* the input image needs no gradient */
            CHECK(cudnnConvolutionBackwardData(h, &one, L->wd, L->w, L->z.d, L->z.g, L->cd,
                                               L->bwd_data_algo, net->ws, net->ws_size, &zero,
                                               L->in->d, L->in->g));
    }
}

/* SGD with momentum, through the API: m = momentum * m + g, then p = p - lr * m. */
static void net_update(net_t *net, float lr, float momentum)
{
    const float one = 1.0f, neg_lr = -lr;
    cudnnHandle_t h = net->h;
    for (int i = 0; i < NLAYERS; i++) {
        layer_t *L = &net->l[i];
        CHECK(cudnnAddTensor(h, &one, L->wtd, L->dw, &momentum, L->wtd, L->mw));
        CHECK(cudnnAddTensor(h, &neg_lr, L->wtd, L->mw, &one, L->wtd, L->w));
        CHECK(cudnnAddTensor(h, &one, L->bd, L->db, &momentum, L->bd, L->mb));
        CHECK(cudnnAddTensor(h, &neg_lr, L->bd, L->mb, &one, L->bd, L->b));
    }
}

/* ---- the weight file (README.md): little-endian, whatever the host ------------------------- */

#define WEIGHTS_MAGIC "FDLENET5"
#define WEIGHTS_VERSION 1u

static void put_u32(FILE *f, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    fwrite(b, 1, 4, f);
}

static int get_u32(FILE *f, uint32_t *v)
{
    uint8_t b[4];
    if (fread(b, 1, 4, f) != 4)
        return -1;
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return 0;
}

static void put_floats(FILE *f, const float *dev, size_t n)
{
    float *host = malloc(n * sizeof(float));
    mem_copy(host, dev, n * sizeof(float));
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &host[i], 4);
        put_u32(f, u);
    }
    free(host);
}

static int get_floats(FILE *f, float *dev, size_t n)
{
    float *host = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        if (get_u32(f, &u) != 0) {
            free(host);
            return -1;
        }
        memcpy(&host[i], &u, 4);
    }
    mem_copy(dev, host, n * sizeof(float));
    free(host);
    return 0;
}

static int net_save(const net_t *net, const char *path)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        fprintf(stderr, "lenet: cannot write %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    fwrite(WEIGHTS_MAGIC, 1, 8, f);
    put_u32(f, WEIGHTS_VERSION);
    put_u32(f, (uint32_t)net->act);
    put_u32(f, NLAYERS);
    for (int i = 0; i < NLAYERS; i++) {
        const layer_t *L = &net->l[i];
        put_u32(f, (uint32_t)L->k), put_u32(f, (uint32_t)L->c), put_u32(f, (uint32_t)L->r);
        put_u32(f, (uint32_t)L->s), put_u32(f, (uint32_t)L->pad);
    }
    for (int i = 0; i < NLAYERS; i++) {
        const layer_t *L = &net->l[i];
        put_floats(f, L->w, layer_params(L));
        put_floats(f, L->b, (size_t)L->k);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        fprintf(stderr, "lenet: cannot write %s: %s\n", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

/* Reads the activation kind of a weight file (to build the net), or -1 with a message. */
static int weights_open(const char *path, FILE **fp, int *act)
{
    FILE *f = fopen(path, "rb");
    char magic[8];
    uint32_t version, a;
    if (!f) {
        fprintf(stderr, "lenet: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (fread(magic, 1, 8, f) != 8 || memcmp(magic, WEIGHTS_MAGIC, 8) != 0) {
        fprintf(stderr, "lenet: %s is not a LeNet weight file (no %s magic)\n", path,
                WEIGHTS_MAGIC);
        fclose(f);
        return -1;
    }
    if (get_u32(f, &version) != 0 || version != WEIGHTS_VERSION || get_u32(f, &a) != 0 ||
        a > ACT_TANH) {
        fprintf(stderr, "lenet: %s: unsupported version or activation\n", path);
        fclose(f);
        return -1;
    }
    *fp = f, *act = (int)a;
    return 0;
}

static int net_load(net_t *net, FILE *f, const char *path)
{
    uint32_t layers, dims[5];
    if (get_u32(f, &layers) != 0 || layers != NLAYERS) {
        fprintf(stderr, "lenet: %s does not hold %d layers\n", path, NLAYERS);
        return -1;
    }
    for (int i = 0; i < NLAYERS; i++) {
        const layer_t *L = &net->l[i];
        for (int j = 0; j < 5; j++)
            if (get_u32(f, &dims[j]) != 0)
                dims[j] = UINT32_MAX;
        if (dims[0] != (uint32_t)L->k || dims[1] != (uint32_t)L->c || dims[2] != (uint32_t)L->r ||
            dims[3] != (uint32_t)L->s || dims[4] != (uint32_t)L->pad) {
            fprintf(stderr,
                    "lenet: %s: layer %d is %ux%ux%ux%u pad %u, LeNet-5 has %dx%dx%dx%d pad %d\n",
                    path, i, dims[0], dims[1], dims[2], dims[3], dims[4], L->k, L->c, L->r, L->s,
                    L->pad);
            return -1;
        }
    }
    for (int i = 0; i < NLAYERS; i++) {
        layer_t *L = &net->l[i];
        if (get_floats(f, L->w, layer_params(L)) != 0 || get_floats(f, L->b, (size_t)L->k) != 0) {
            fprintf(stderr, "lenet: %s is truncated (layer %d)\n", path, i);
            return -1;
        }
    }
    if (fgetc(f) != EOF) {
        fprintf(stderr, "lenet: %s has bytes after the last layer\n", path);
        return -1;
    }
    return 0;
}

/* ---- training and testing ------------------------------------------------------------------ */

typedef struct {
    int epochs, batch, limit, test_limit, seed, trace, act, show;
    float lr, momentum;
    const char *weights, *data;
} options_t;

static void progress(int epoch, int epochs, int done, int total, double loss, double rate,
                     int final)
{
    char bar[31];
    int fill = total ? (int)((long long)done * 30 / total) : 30;
    for (int i = 0; i < 30; i++)
        bar[i] = i < fill ? '=' : (i == fill ? '>' : ' ');
    bar[30] = '\0';
    double eta = rate > 0 ? (total - done) / rate : 0;
    fprintf(stderr, "\repoch %d/%d [%s] %6d/%d  loss %.4f  %6.0f img/s  eta %3d:%02d", epoch,
            epochs, bar, done, total, loss, rate, (int)eta / 60, (int)eta % 60);
    if (final)
        fputc('\n', stderr);
    fflush(stderr);
}

static int load_set(const options_t *o, const char *split, fmnist_set_t *set)
{
    char err[4400];
    if (fmnist_load(o->data, split, set, err, sizeof err) != 0) {
        fprintf(stderr,
                "lenet: %s\n  Fashion-MNIST is expected in %s: install Debian's "
                "dataset-fashion-mnist, or pass --data DIR\n",
                err, o->data);
        return -1;
    }
    if (set->rows != IMG || set->cols != IMG) {
        fprintf(stderr, "lenet: %s images are %dx%d, LeNet-5 here takes %dx%d\n", split, set->rows,
                set->cols, IMG, IMG);
        fmnist_free(set);
        return -1;
    }
    return 0;
}

/* Classifies the first `limit` test images; prints the accuracy and `show` sample predictions. */
static double evaluate(net_t *net, const fmnist_set_t *test, int limit, int show)
{
    int n = limit > 0 && limit < test->n ? limit : test->n, correct = 0;
    int *idx = malloc((size_t)net->max_batch * sizeof(int));
    double t0 = seconds();
    if (show > n)
        show = n;
    if (show > 0)
        printf("sample predictions (test image: true class -> predicted class, probability):\n");
    for (int start = 0; start < n; start += net->max_batch) {
        int b = n - start < net->max_batch ? n - start : net->max_batch;
        for (int i = 0; i < b; i++)
            idx[i] = start + i;
        net_load_batch(net, test, idx, b);
        net_forward(net);
        for (int i = 0; i < b; i++) {
            const float *lp = net->host_y + i * 10;
            int best = 0;
            for (int c = 1; c < 10; c++)
                if (lp[c] > lp[best])
                    best = c;
            int label = test->labels[start + i];
            correct += best == label;
            if (start + i < show)
                printf("  #%-5d %-12s -> %-12s %5.1f%%%s\n", start + i, fmnist_class_names[label],
                       fmnist_class_names[best], 100.0 * exp(lp[best]),
                       best == label ? "" : "  (wrong)");
        }
    }
    free(idx);
    double acc = 100.0 * correct / n;
    printf("test accuracy: %.2f%% (%d/%d) in %.1f s\n", acc, correct, n, seconds() - t0);
    return acc;
}

static int train(const options_t *o, int evaluate_after)
{
    fmnist_set_t set, test = {0};
    if (load_set(o, "train", &set) != 0)
        return 1;
    if (evaluate_after && load_set(o, "t10k", &test) != 0) {
        fmnist_free(&set);
        return 1;
    }
    int n = o->limit > 0 && o->limit < set.n ? o->limit : set.n;
    net_t net;
    net_init(&net, o->batch, o->act, 1);
    rng_state = (uint64_t)o->seed;
    net_init_weights(&net);
    printf("LeNet-5 (%s) on Fashion-MNIST: %d training images, batch %d, lr %g, momentum %g, "
           "seed %d\n",
           act_names[o->act], n, o->batch, o->lr, o->momentum, o->seed);

    /* The subset is the first n images of the training file, shuffled anew every epoch. */
    int *order = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        order[i] = i;
    uint8_t *labels = malloc((size_t)o->batch);
    int step = 0, rc = 1;
    enum { WINDOW = 50 };
    double recent[WINDOW];
    for (int e = 1; e <= o->epochs; e++) {
        for (int i = n - 1; i > 0; i--) {
            int j = (int)(rng_next() % (uint64_t)(i + 1)), t = order[i];
            order[i] = order[j], order[j] = t;
        }
        double t0 = seconds(), last_draw = 0.0, sum = 0.0;
        int steps = 0;
        for (int start = 0; start < n; start += o->batch) {
            int b = n - start < o->batch ? n - start : o->batch;
            for (int i = 0; i < b; i++)
                labels[i] = set.labels[order[start + i]];
            net_load_batch(&net, &set, order + start, b);
            net_forward(&net);
            double loss = net_loss(&net, labels);
            net_backward(&net);
            net_update(&net, o->lr, o->momentum);
            if (!isfinite(loss)) {
                fprintf(stderr, "\nlenet: the loss diverged at step %d (lr %g too large?)\n", step,
                        o->lr);
                goto cleanup;
            }
            if (o->trace)
                printf("step %d loss %.6f\n", step, loss);
            recent[steps % WINDOW] = loss;
            sum += loss, step++, steps++;
            double now = seconds(), shown = 0.0;
            int window = steps < WINDOW ? steps : WINDOW, done = start + b;
            if (now - last_draw > 0.25 || done == n) {
                for (int i = 0; i < window; i++)
                    shown += recent[i];
                progress(e, o->epochs, done, n, shown / window, done / (now - t0), done == n);
                last_draw = now;
            }
        }
        double dt = seconds() - t0;
        printf("epoch %d: mean loss %.4f, %d images in %.1f s (%.0f images/s)\n", e, sum / steps, n,
               dt, n / dt);
        fflush(stdout);
    }
    if (net_save(&net, o->weights) != 0)
        goto cleanup;
    printf("weights saved to %s\n", o->weights);
    if (evaluate_after)
        evaluate(&net, &test, o->test_limit, 0);
    rc = 0;
cleanup:
    free(order), free(labels);
    net_destroy(&net);
    fmnist_free(&set), fmnist_free(&test);
    return rc;
}

static int test(const options_t *o)
{
    FILE *f;
    int act;
    fmnist_set_t set;
    if (weights_open(o->weights, &f, &act) != 0)
        return 1;
    net_t net;
    net_init(&net, o->batch, act, 0);
    if (net_load(&net, f, o->weights) != 0) {
        fclose(f);
        net_destroy(&net);
        return 1;
    }
    fclose(f);
    int rc = 1;
    if (load_set(o, "t10k", &set) == 0) {
        printf("LeNet-5 (%s) from %s on the Fashion-MNIST test set\n", act_names[act], o->weights);
        evaluate(&net, &set, o->limit, o->show);
        fmnist_free(&set);
        rc = 0;
    }
    net_destroy(&net);
    return rc;
}

/* ---- command line ---------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: lenet                        train 1 epoch, save lenet.weights, then test it\n"
        "       lenet train [options]        train LeNet-5 on Fashion-MNIST and save the weights\n"
        "       lenet test [options]         classify the test set with saved weights\n"
        "options:\n"
        "  --epochs N       training epochs (1)\n"
        "  --batch B        batch size (32)\n"
        "  --lr LR          learning rate (0.01)\n"
        "  --momentum M     SGD momentum (0.9)\n"
        "  --limit N        train: use the first N training images; test: the first N test images\n"
        "  --test-limit N   train: afterwards classify the first N test images (0: all, -1: none;\n"
        "                   default none)\n"
        "  --seed S         initialisation and shuffling seed (1)\n"
        "  --act relu|tanh  activation (relu)\n"
        "  --weights FILE   weight file to write or read (lenet.weights)\n"
        "  --data DIR       Fashion-MNIST directory (%s)\n"
        "  --show N         test: print N sample predictions (10)\n"
        "  --trace          train: print the loss of every step on stdout\n"
        "The backend is cudnnCreate's (FREEDNN_BACKEND=ref|cpu|cuda overrides).\n",
        FMNIST_DEFAULT_DIR);
}

static int parse_int(const char *opt, const char *s, int lo, int *out)
{
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || errno || *end || v < lo || v > 1000000000) {
        fprintf(stderr, "lenet: %s needs an integer >= %d, got '%s'\n", opt, lo, s ? s : "");
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int parse_float(const char *opt, const char *s, float lo, float hi, float *out)
{
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : 0.0;
    if (!s || errno || *end || !(v >= lo && v <= hi)) {
        fprintf(stderr, "lenet: %s needs a number in [%g, %g], got '%s'\n", opt, lo, hi,
                s ? s : "");
        return -1;
    }
    *out = (float)v;
    return 0;
}

static int parse_options(int argc, char **argv, options_t *o)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0, takes = 1;
        if (!strcmp(a, "--epochs"))
            bad = parse_int(a, v, 1, &o->epochs);
        else if (!strcmp(a, "--batch"))
            bad = parse_int(a, v, 1, &o->batch);
        else if (!strcmp(a, "--limit"))
            bad = parse_int(a, v, 1, &o->limit);
        else if (!strcmp(a, "--test-limit"))
            bad = parse_int(a, v, -1, &o->test_limit);
        else if (!strcmp(a, "--seed"))
            bad = parse_int(a, v, 0, &o->seed);
        else if (!strcmp(a, "--show"))
            bad = parse_int(a, v, 0, &o->show);
        else if (!strcmp(a, "--lr"))
            bad = parse_float(a, v, 1e-6f, 10.0f, &o->lr);
        else if (!strcmp(a, "--momentum"))
            bad = parse_float(a, v, 0.0f, 0.999f, &o->momentum);
        else if (!strcmp(a, "--weights") && v)
            o->weights = v;
        else if (!strcmp(a, "--data") && v)
            o->data = v;
        else if (!strcmp(a, "--act") && v && (!strcmp(v, "relu") || !strcmp(v, "tanh")))
            o->act = strcmp(v, "tanh") ? ACT_RELU : ACT_TANH;
        else if (!strcmp(a, "--trace"))
            o->trace = 1, takes = 0;
        else {
            fprintf(stderr, "lenet: unknown option or missing value: %s\n", a);
            usage(stderr);
            return -1;
        }
        if (bad)
            return -1;
        i += takes;
    }
    return 0;
}

int main(int argc, char **argv)
{
    options_t o = {.epochs = 1,
                   .batch = 32,
                   .limit = 0,
                   .test_limit = -1,
                   .seed = 1,
                   .trace = 0,
                   .act = ACT_RELU,
                   .show = 10,
                   .lr = 0.01f,
                   .momentum = 0.9f,
                   .weights = "lenet.weights",
                   .data = FMNIST_DEFAULT_DIR};
    const char *env = getenv("FREEDNN_FASHION_MNIST");
    if (env && *env)
        o.data = env;
    const char *cmd = argc > 1 ? argv[1] : "";
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
        usage(stdout);
        return 0;
    }
    if (argc > 1 && strcmp(cmd, "train") && strcmp(cmd, "test")) {
        usage(stderr);
        return 2;
    }
    if (argc > 2 && parse_options(argc - 2, argv + 2, &o) != 0)
        return 2;

    setvbuf(stdout, NULL, _IOLBF, 0); /* the loss trace and results, as they come */
    cudnnHandle_t h;
    freednnBackend_t backend;
    CHECK(cudnnCreate(&h));
    CHECK(freednnGetBackend(h, &backend));
    cudnnDestroy(h);
    printf("freednn %zu serving the cuDNN %zu API; backend %s\n", freednnGetVersion(),
           cudnnGetVersion(), freednnGetBackendName(backend));
    if (backend == FREEDNN_BACKEND_CUDA && cuda_load() != 0)
        return 1;

    if (!strcmp(cmd, "train"))
        return train(&o, o.test_limit >= 0);
    if (!strcmp(cmd, "test"))
        return test(&o);
    int rc = train(&o, 0); /* no arguments: train 1 epoch, then test the saved file */
    return rc ? rc : test(&o);
}
