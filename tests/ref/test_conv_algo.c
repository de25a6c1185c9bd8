/* SPDX-License-Identifier: MIT */
/*
 * test_conv_algo.c - every algorithm enum and every algorithm query of the three directions.
 *
 * For random problems of each dtype and direction:
 * - each algorithm enum value runs with exactly the workspace Get*WorkspaceSize reports
 *   (guarded on both sides) and gives the oracle's exact result;
 * - Get*AlgorithmMaxCount is the enum's ALGO_COUNT;
 * - Get*Algorithm_v7 returns ALGO_COUNT entries (each algorithm once, SUCCESS entries first,
 *   the first one SUCCESS, memory = the workspace query, CUDNN_DETERMINISTIC on the reference,
 *   mathType = the descriptor's) and honours requestedAlgoCount (1, 3, more than there are);
 * - Find*Algorithm: the same list properties, SUCCESS entries sorted by time, times >= 0;
 * - Find*AlgorithmEx on the caller's guarded buffers: same, inputs unchanged, guards and holes
 *   intact, and the best algorithm then computes the oracle's result;
 * - the cuDNN 7 Get*Algorithm with NO_WORKSPACE, PREFER_FASTEST and SPECIFY_WORKSPACE_LIMIT
 *   (limit 0 and 1 GiB) returns an algorithm within the limit that computes the right result.
 */
#include "conv_case.h"

#define SHAPES_PER_CELL 3

typedef struct {
    int algo;
    cudnnStatus_t status;
    float time;
    size_t memory;
    cudnnDeterminism_t determinism;
    cudnnMathType_t math;
} perf_t;

#define PERF_COPY(dst, src, n)                                                                     \
    for (int i_ = 0; i_ < (n); i_++) {                                                             \
        (dst)[i_].algo = (int)(src)[i_].algo;                                                      \
        (dst)[i_].status = (src)[i_].status;                                                       \
        (dst)[i_].time = (src)[i_].time;                                                           \
        (dst)[i_].memory = (src)[i_].memory;                                                       \
        (dst)[i_].determinism = (src)[i_].determinism;                                             \
        (dst)[i_].math = (src)[i_].mathType;                                                       \
    }

enum { Q_GET_V7, Q_FIND, Q_FIND_EX };

/* One of the three list queries for the case's direction. Ex uses the buffers in `b`. */
static cudnnStatus_t query(cudnnHandle_t h, const cc_case_t *c, cc_bufs_t *b, int kind,
                           int requested, int *returned, perf_t *out, void *ws, size_t ws_size)
{
    cudnnConvolutionFwdAlgoPerf_t pf[16];
    cudnnConvolutionBwdDataAlgoPerf_t pd[16];
    cudnnConvolutionBwdFilterAlgoPerf_t pw[16];
    const cc_desc_t *d = &b->desc;
    cudnnStatus_t st = CUDNN_STATUS_INTERNAL_ERROR;
    *returned = -1;
    if (requested > 16)
        requested = 16;
    void *x = cc_tensor_ptr(&b->tx), *w = cc_tensor_ptr(&b->tw), *y = cc_tensor_ptr(&b->ty);
    switch (c->dir) {
    case CO_FWD:
        st = kind == Q_GET_V7 ? cudnnGetConvolutionForwardAlgorithm_v7(h, d->x, d->w, d->conv, d->y,
                                                                       requested, returned, pf)
             : kind == Q_FIND
                 ? cudnnFindConvolutionForwardAlgorithm(h, d->x, d->w, d->conv, d->y, requested,
                                                        returned, pf)
                 : cudnnFindConvolutionForwardAlgorithmEx(h, d->x, x, d->w, w, d->conv, d->y, y,
                                                          requested, returned, pf, ws, ws_size);
        if (st == CUDNN_STATUS_SUCCESS)
            PERF_COPY(out, pf, *returned);
        break;
    case CO_BWD_DATA:
        st = kind == Q_GET_V7 ? cudnnGetConvolutionBackwardDataAlgorithm_v7(
                                    h, d->w, d->y, d->conv, d->x, requested, returned, pd)
             : kind == Q_FIND
                 ? cudnnFindConvolutionBackwardDataAlgorithm(h, d->w, d->y, d->conv, d->x,
                                                             requested, returned, pd)
                 : cudnnFindConvolutionBackwardDataAlgorithmEx(
                       h, d->w, w, d->y, y, d->conv, d->x, x, requested, returned, pd, ws, ws_size);
        if (st == CUDNN_STATUS_SUCCESS)
            PERF_COPY(out, pd, *returned);
        break;
    default:
        st = kind == Q_GET_V7 ? cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                                    h, d->x, d->y, d->conv, d->w, requested, returned, pw)
             : kind == Q_FIND
                 ? cudnnFindConvolutionBackwardFilterAlgorithm(h, d->x, d->y, d->conv, d->w,
                                                               requested, returned, pw)
                 : cudnnFindConvolutionBackwardFilterAlgorithmEx(
                       h, d->x, x, d->y, y, d->conv, d->w, w, requested, returned, pw, ws, ws_size);
        if (st == CUDNN_STATUS_SUCCESS)
            PERF_COPY(out, pw, *returned);
        break;
    }
    return st;
}

static cudnnStatus_t get_pref(cudnnHandle_t h, const cc_case_t *c, const cc_desc_t *d, int pref,
                              size_t limit, int *algo)
{
    cudnnStatus_t st;
    switch (c->dir) {
    case CO_FWD: {
        cudnnConvolutionFwdAlgo_t a = (cudnnConvolutionFwdAlgo_t)-1;
        st = cudnnGetConvolutionForwardAlgorithm(h, d->x, d->w, d->conv, d->y,
                                                 (cudnnConvolutionFwdPreference_t)pref, limit, &a);
        *algo = (int)a;
        return st;
    }
    case CO_BWD_DATA: {
        cudnnConvolutionBwdDataAlgo_t a = (cudnnConvolutionBwdDataAlgo_t)-1;
        st = cudnnGetConvolutionBackwardDataAlgorithm(
            h, d->w, d->y, d->conv, d->x, (cudnnConvolutionBwdDataPreference_t)pref, limit, &a);
        *algo = (int)a;
        return st;
    }
    default: {
        cudnnConvolutionBwdFilterAlgo_t a = (cudnnConvolutionBwdFilterAlgo_t)-1;
        st = cudnnGetConvolutionBackwardFilterAlgorithm(
            h, d->x, d->y, d->conv, d->w, (cudnnConvolutionBwdFilterPreference_t)pref, limit, &a);
        *algo = (int)a;
        return st;
    }
    }
}

static cudnnStatus_t max_count(cudnnHandle_t h, co_dir_t dir, int *n)
{
    return dir == CO_FWD        ? cudnnGetConvolutionForwardAlgorithmMaxCount(h, n)
           : dir == CO_BWD_DATA ? cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, n)
                                : cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h, n);
}

/* Checks a perf list of n entries (full: all ALGO_COUNT expected). ws[a] is the workspace
 * query of algorithm a. */
static void check_list(const perf_t *p, int n, int full, int timed, const size_t *ws,
                       const cc_case_t *c, const char *what, const char *rep)
{
    const int count = cc_algo_count(c->dir);
    int seen[16] = {0}, bad_algo = 0, order = 0, mem = 0, det = 0, math = 0, time_bad = 0,
        sorted = 1;
    for (int i = 0; i < n; i++) {
        if (p[i].algo < 0 || p[i].algo >= count || seen[p[i].algo]++) {
            bad_algo++;
            continue;
        }
        if (i > 0 && p[i].status == CUDNN_STATUS_SUCCESS && p[i - 1].status != CUDNN_STATUS_SUCCESS)
            order++;
        if (p[i].status != CUDNN_STATUS_SUCCESS)
            continue;
        mem += p[i].memory != ws[p[i].algo];
        det += p[i].determinism != CUDNN_DETERMINISTIC; /* the reference is deterministic */
        math += p[i].math != CUDNN_DEFAULT_MATH;
        if (timed) {
            time_bad += !(p[i].time >= 0.0f);
            if (i > 0 && p[i - 1].status == CUDNN_STATUS_SUCCESS && p[i].time < p[i - 1].time)
                sorted = 0;
        }
    }
    FD_EXPECT(bad_algo == 0, "%s: %d entries with an invalid or repeated algo; %s", what, bad_algo,
              rep);
    FD_EXPECT(!full || n == count, "%s: %d entries, expected all %d; %s", what, n, count, rep);
    FD_EXPECT(n > 0 && p[0].status == CUDNN_STATUS_SUCCESS, "%s: first entry status %s; %s", what,
              n > 0 ? cudnnGetErrorString(p[0].status) : "(none)", rep);
    FD_EXPECT(order == 0, "%s: a SUCCESS entry after a failed one; %s", what, rep);
    FD_EXPECT(mem == 0, "%s: %d entries whose memory differs from Get*WorkspaceSize; %s", what, mem,
              rep);
    FD_EXPECT(det == 0, "%s: %d reference entries not flagged CUDNN_DETERMINISTIC; %s", what, det,
              rep);
    FD_EXPECT(math == 0, "%s: %d entries whose mathType is not the descriptor's (DEFAULT); %s",
              what, math, rep);
    if (timed) {
        FD_EXPECT(time_bad == 0, "%s: %d SUCCESS entries with a negative or NaN time; %s", what,
                  time_bad, rep);
        FD_EXPECT(sorted, "%s: SUCCESS entries not sorted by time; %s", what, rep);
    }
    int statuses_ok = 1; /* on the reference every algorithm maps to the reference: all SUCCESS */
    for (int i = 0; i < n; i++)
        statuses_ok &= p[i].status == CUDNN_STATUS_SUCCESS;
    FD_EXPECT(statuses_ok,
              "%s: an algorithm of the reference backend reported a failure status; %s", what, rep);
}

/* Runs algo on the case and expects the exact oracle result. */
static void run_algo(cudnnHandle_t h, const cc_case_t *c, const cc_data_t *d, const double *want,
                     const co_acc_t *acc, int algo, const char *what)
{
    cc_case_t ca = *c;
    ca.algo = algo;
    cc_result_t res = cc_exec(h, &ca, d, algo);
    if (cc_check_run(&ca, &res, what) == 0)
        cc_compare(&ca, &res, want, acc, CC_EXACT, what);
    cc_result_free(&res);
}

int main(void)
{
    cudnnHandle_t h = cc_handle(FREEDNN_BACKEND_REF);
    const int nshapes = cc_sweep_count(SHAPES_PER_CELL);
    int problems = 0, algo_runs = 0;
    for (int dir = CO_FWD; dir <= CO_BWD_FILTER; dir++) {
        int n = -1;
        FD_EXPECT_STATUS(max_count(h, (co_dir_t)dir, &n), CUDNN_STATUS_SUCCESS);
        FD_EXPECT(n == cc_algo_count((co_dir_t)dir), "Get*AlgorithmMaxCount(%s) = %d, expected %d",
                  cc_dir_names[dir], n, cc_algo_count((co_dir_t)dir));
        for (int t = 0; t < 4; t++)
            for (int i = 0; i < nshapes; i++) {
                uint64_t seed = cc_sweep_seed(0xA1605ull, dir * 16 + t, i);
                cc_case_t c = cc_case_gen((co_dir_t)dir, cc_dtypes[t], seed, 0);
                c.alpha = 1.0, c.beta = 0.0; /* Find*Ex computes with alpha 1, beta 0 */
                char rep[512];
                cc_repro(&c, rep, sizeof rep);
                cc_data_t d = cc_data_new(&c);
                double *want = malloc(sizeof(double) * (size_t)d.nout + 1);
                co_acc_t acc = cc_data_fill(&c, &d, CC_EXACT, want);
                const int count = cc_algo_count(c.dir);
                size_t ws[16] = {0}, ws_max = 0;
                cc_bufs_t b;
                if (cc_bufs_setup(&b, &c, &d))
                    goto next;
                /* every algorithm, exactly its workspace */
                for (int a = 0; a < count; a++) {
                    FD_EXPECT_STATUS(cc_workspace_size(h, &c, &b.desc, a, &ws[a]),
                                     CUDNN_STATUS_SUCCESS);
                    ws_max = ws[a] > ws_max ? ws[a] : ws_max;
                    char what[64];
                    snprintf(what, sizeof what, "algo %d", a);
                    run_algo(h, &c, &d, want, &acc, a, what);
                    algo_runs++;
                }
                /* Get*Algorithm_v7 */
                perf_t full[16], part[16];
                int got = 0;
                FD_EXPECT_STATUS(query(h, &c, &b, Q_GET_V7, count, &got, full, NULL, 0),
                                 CUDNN_STATUS_SUCCESS);
                if (got == count)
                    check_list(full, got, 1, 0, ws, &c, "Get*Algorithm_v7", rep);
                else
                    FD_EXPECT(0, "Get*Algorithm_v7 returned %d entries for %d requested; %s", got,
                              count, rep);
                static const int reqs[3] = {1, 3, 12};
                for (int r = 0; r < 3; r++) {
                    int want_n = reqs[r] < count ? reqs[r] : count;
                    FD_EXPECT_STATUS(query(h, &c, &b, Q_GET_V7, reqs[r], &got, part, NULL, 0),
                                     CUDNN_STATUS_SUCCESS);
                    int same = got == want_n;
                    for (int k = 0; same && k < got; k++)
                        same = part[k].algo == full[k].algo && part[k].status == full[k].status;
                    FD_EXPECT(same,
                              "Get*Algorithm_v7 with requestedAlgoCount %d returned %d entries "
                              "(expected the first %d "
                              "of the full list); %s",
                              reqs[r], got, want_n, rep);
                }
                /* Find*Algorithm */
                FD_EXPECT_STATUS(query(h, &c, &b, Q_FIND, count, &got, full, NULL, 0),
                                 CUDNN_STATUS_SUCCESS);
                if (got == count)
                    check_list(full, got, 1, 1, ws, &c, "Find*Algorithm", rep);
                else
                    FD_EXPECT(0, "Find*Algorithm returned %d entries for %d requested; %s", got,
                              count, rep);
                FD_EXPECT_STATUS(query(h, &c, &b, Q_FIND, 2, &got, part, NULL, 0),
                                 CUDNN_STATUS_SUCCESS);
                FD_EXPECT(got == 2, "Find*Algorithm with requestedAlgoCount 2 returned %d; %s", got,
                          rep);
                if (got == 2)
                    check_list(part, got, 0, 1, ws, &c, "Find*Algorithm (2)", rep);
                /* Find*AlgorithmEx on guarded caller buffers */
                {
                    fd_buf_t wsb = fd_buf_alloc(ws_max);
                    FD_EXPECT_STATUS(query(h, &c, &b, Q_FIND_EX, count, &got, full,
                                           ws_max ? wsb.data : NULL, ws_max),
                                     CUDNN_STATUS_SUCCESS);
                    if (got == count)
                        check_list(full, got, 1, 1, ws, &c, "Find*AlgorithmEx", rep);
                    else
                        FD_EXPECT(0, "Find*AlgorithmEx returned %d entries for %d requested; %s",
                                  got, count, rep);
                    FD_EXPECT(cc_bufs_inputs_ok(&b), "Find*AlgorithmEx changed an input; %s", rep);
                    FD_EXPECT(fd_buf_guards_ok(&b.tout->buf),
                              "Find*AlgorithmEx overwrote output guards; %s", rep);
                    FD_EXPECT(cc_tensor_holes_ok(b.tout),
                              "Find*AlgorithmEx wrote between output elements; %s", rep);
                    FD_EXPECT(fd_buf_guards_ok(&wsb),
                              "Find*AlgorithmEx overwrote workspace guards; %s", rep);
                    fd_buf_free(&wsb);
                    if (got > 0 && full[0].status == CUDNN_STATUS_SUCCESS)
                        run_algo(h, &c, &d, want, &acc, full[0].algo,
                                 "after Find*AlgorithmEx, its best algo");
                }
                /* cuDNN 7 Get*Algorithm with a preference */
                {
                    static const size_t limits[4] = {0, 0, 0, (size_t)1 << 30};
                    static const int prefs[4] = {
                        0, 1, 2, 2}; /* NO_WORKSPACE, FASTEST, LIMIT 0, LIMIT 1 GiB */
                    for (int p = 0; p < 4; p++) {
                        int algo = -1;
                        cudnnStatus_t st = get_pref(h, &c, &b.desc, prefs[p], limits[p], &algo);
                        FD_EXPECT(st == CUDNN_STATUS_SUCCESS && algo >= 0 && algo < count,
                                  "Get*Algorithm(preference %d, limit %zu): status %s, algo %d; %s",
                                  prefs[p], limits[p], cudnnGetErrorString(st), algo, rep);
                        if (st != CUDNN_STATUS_SUCCESS || algo < 0 || algo >= count)
                            continue;
                        size_t cap = prefs[p] == 0 ? 0 : prefs[p] == 1 ? (size_t)-1 : limits[p];
                        FD_EXPECT(ws[algo] <= cap,
                                  "Get*Algorithm(preference %d) chose algo %d needing %zu bytes > "
                                  "%zu; %s",
                                  prefs[p], algo, ws[algo], cap, rep);
                        char what[64];
                        snprintf(what, sizeof what, "Get*Algorithm preference %d -> algo %d",
                                 prefs[p], algo);
                        run_algo(h, &c, &d, want, &acc, algo, what);
                    }
                }
                cc_bufs_free(&b);
            next:
                problems++;
                co_acc_free(&acc);
                free(want);
                cc_data_free(&d);
            }
    }
    printf("%d problems, %d algorithm runs\n", problems, algo_runs);
    cudnnDestroy(h);
    return fd_test_finish();
}
