/* SPDX-License-Identifier: MIT */
/*
 * cpu_kernel_case.h - what tests/impl/test_cpu_conv_winograd.c and test_cpu_conv_depthwise.c
 * share: one case through the public API on a cpu handle (tests/ref/conv_case.h: guarded
 * strided buffers, poisoned outputs, unchanged-input hashes, workspace guards) checked against
 * the independent oracle (tests/ref/conv_oracle.h) with a tolerance multiplier (0: exact), the
 * implementation that ran (FREEDNN_LOG_DISPATCH through cudnnSetCallback), and the child-process
 * runs that compare output hashes across thread counts (and instruction-set paths).
 */
#ifndef FD_CPU_KERNEL_CASE_H_
#define FD_CPU_KERNEL_CASE_H_

#define _GNU_SOURCE /* popen, readlink, setenv */
#include <unistd.h>

#include "../ref/conv_case.h"

static char kc_last_impl[128];
static int kc_runs, kc_dispatch_checked;
static double kc_worst_ratio; /* max |got - want| / (1x tolerance) over real-fill runs */

static void kc_on_log(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)udata, (void)dbg;
    const char *arrow = strstr(msg, "dispatch: ");
    const char *to = arrow ? strstr(arrow, " -> ") : NULL;
    if (to)
        snprintf(kc_last_impl, sizeof kc_last_impl, "%s", to + 4);
}

static void kc_log_on(void)
{
    setenv("FREEDNN_LOG_DISPATCH", "1", 1);
    FD_EXPECT_STATUS(cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, kc_on_log), CUDNN_STATUS_SUCCESS);
}

static void kc_log_off(void)
{
    cudnnSetCallback(0, NULL, NULL);
    unsetenv("FREEDNN_LOG_DISPATCH");
}

/* Runs c in `mode`; values must agree with the oracle within tol_mult times the tolerance
 * table's bound (tol_mult 0: bit for bit). With `normwise` the bound of every element uses the
 * largest K and sum|terms| of the whole output (a transform algorithm mixes the terms of
 * neighbouring outputs, so its error follows their size, not the element's own).
 * want_impl: the row that must run ("" = any). Returns 1 when everything held. */
static int kc_run_ex(cudnnHandle_t h, const cc_case_t *c, cc_mode_t mode, double tol_mult,
                     int normwise, const char *want_impl)
{
    int before = fd_test_failed;
    cc_data_t d = cc_data_new(c);
    double *want = malloc(sizeof(double) * (size_t)d.nout + 1);
    co_acc_t acc = cc_data_fill(c, &d, mode, want);
    kc_last_impl[0] = '\0';
    cc_result_t res = cc_exec(h, c, &d, c->algo);
    kc_runs++;
    char rep[512];
    cc_repro(c, rep, sizeof rep);
    const char *what = mode == CC_EXACT ? "exact fill" : "real fill";
    if (cc_check_run(c, &res, what) == 0) {
        int64_t bad = 0, first = -1, kmax = 1;
        double smax = 0.0;
        for (int64_t i = 0; normwise && i < res.nout; i++) {
            kmax = acc.terms[i] > kmax ? acc.terms[i] : kmax;
            smax = acc.abs_sum[i] > smax ? acc.abs_sum[i] : smax;
        }
        for (int64_t i = 0; i < res.nout; i++) {
            if (normwise)
                acc.terms[i] = kmax, acc.abs_sum[i] = smax;
            double tol = fd_tolerance(c->dt, c->comp, acc.terms[i], acc.abs_sum[i], want[i]);
            double err = fabs(res.got[i] - want[i]);
            int ok = tol_mult == 0.0 ? res.got[i] == want[i] : err <= tol_mult * tol;
            if (!(err == err))
                ok = 0;
            if (tol > 0.0 && err / tol > kc_worst_ratio && mode == CC_REAL)
                kc_worst_ratio = err / tol;
            if (!ok && bad++ == 0)
                first = i;
        }
        FD_EXPECT(bad == 0, "%s: %" PRId64 " of %" PRId64 " values off (tolerance x%g); %s", what,
                  bad, res.nout, tol_mult, rep);
        if (bad && fd_test_should_print())
            printf("  element %" PRId64 ": got %.9g want %.9g tol %.3g\n", first, res.got[first],
                   want[first],
                   tol_mult * fd_tolerance(c->dt, c->comp, acc.terms[first], acc.abs_sum[first],
                                           want[first]));
        if (want_impl && *want_impl) {
            kc_dispatch_checked++;
            FD_EXPECT(strcmp(kc_last_impl, want_impl) == 0, "dispatch: ran %s, expected %s; %s",
                      kc_last_impl[0] ? kc_last_impl : "(nothing logged)", want_impl, rep);
        }
    }
    cc_result_free(&res);
    co_acc_free(&acc);
    free(want);
    cc_data_free(&d);
    return fd_test_failed == before;
}

static int kc_run(cudnnHandle_t h, const cc_case_t *c, cc_mode_t mode, double tol_mult,
                  const char *want_impl)
{
    return kc_run_ex(h, c, mode, tol_mult, 0, want_impl);
}

/* FNV-1a of the output bytes of c on real data (0 when the call failed). */
static uint64_t kc_hash(cudnnHandle_t h, const cc_case_t *c)
{
    cc_data_t d = cc_data_new(c);
    fd_rng_t rd;
    fd_rng_seed(&rd, c->seed);
    cc_fill(&rd, c->dt, d.a, d.na, CC_REAL, 1, 1.0, 1);
    cc_fill(&rd, c->dt, d.b, d.nb, CC_REAL, 1, 1.0, 1);
    if (d.old)
        cc_fill(&rd, c->dt, d.old, d.nout, CC_REAL, 1, 1.0, 1);
    cc_result_t res = cc_exec(h, c, &d, c->algo);
    uint64_t hv = 1469598103934665603ull;
    size_t bytes = (size_t)res.nout * fd_test_dtype_size(c->dt);
    for (size_t i = 0; res.raw && i < bytes; i++)
        hv = (hv ^ res.raw[i]) * 1099511628211ull;
    if (res.status != CUDNN_STATUS_SUCCESS)
        hv = 0;
    cc_result_free(&res);
    cc_data_free(&d);
    return hv;
}

/* Runs this program with `env` prepended and argument --hashes; returns its stdout. */
static char *kc_run_child(const char *env)
{
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return NULL;
    self[len] = '\0';
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "%s '%s' --hashes", env, self);
    FILE *f = popen(cmd, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - 1 - n, f)) > 0)
        n += got;
    int st = pclose(f);
    if (buf)
        buf[n] = '\0';
    if (st != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Every child (env strings) prints the same non-empty hash list as the first. */
static void kc_same_hashes(const char *const *envs, int count)
{
    char *first = NULL;
    for (int i = 0; i < count; i++) {
        char *out = kc_run_child(envs[i]);
        FD_EXPECT(out != NULL && strlen(out) > 16, "child run '%s' failed", envs[i]);
        if (!out)
            continue;
        if (!first) {
            first = out;
            continue;
        }
        FD_EXPECT(strcmp(first, out) == 0, "'%s' gave other bits than '%s'", envs[i], envs[0]);
        free(out);
    }
    if (first) {
        int lines = 0;
        for (const char *p = first; *p; p++)
            lines += *p == '\n';
        printf("determinism: %d problems, identical bits under %d settings\n", lines, count);
    }
    free(first);
}


/* A hand-picked groups-1 problem of 1 or 2 spatial dims, and the FLOAT case it makes: direction
 * `dir`, algorithm `algo`, alpha 1, beta 0, packed bias stride, seed from `salt` and `turn`. */
typedef struct {
    int nsp, n, c, k;
    int in[2], flt[2], pad[2], stride[2], dil[2];
} kc_shape_t;

static inline cc_case_t kc_make_case(const kc_shape_t *sh, co_dir_t dir, int algo, uint64_t salt, int turn)
{
    cc_case_t c;
    memset(&c, 0, sizeof c);
    c.dir = dir, c.dt = CUDNN_DATA_FLOAT, c.comp = CUDNN_DATA_FLOAT;
    c.seed = fd_test_mix(salt, (uint64_t)turn);
    c.s.nsp = sh->nsp, c.s.n = sh->n, c.s.c = sh->c, c.s.k = sh->k, c.s.g = 1;
    for (int i = 0; i < sh->nsp; i++) {
        c.s.in[i] = sh->in[i], c.s.flt[i] = sh->flt[i], c.s.pad[i] = sh->pad[i];
        c.s.stride[i] = sh->stride[i], c.s.dil[i] = sh->dil[i];
    }
    c.bstride = 1, c.alpha = 1.0, c.beta = 0.0;
    c.algo = algo;
    return c;
}

/* One hand-picked shape in its 12 variants: 6 x / y layout pairs x 2 filter formats, with the
 * mode, a misaligned base, the 4-d API and the alpha / beta pair cycling with *turn; each run
 * with an exact fill (bit-identical) and a real fill, and the dispatch log naming `row`.
 * make(shape, turn) builds the program's base case. */
static inline void kc_layout_variants(cudnnHandle_t h, cc_case_t (*make)(const void *shape, int turn),
                                      const void *shape, int *turn, const char *row)
{
    static const cc_layout_t lay[][2] = {{CC_NCHW, CC_NCHW},     {CC_NHWC, CC_NHWC},
                                         {CC_PADDED, CC_PADDED}, {CC_PERMUTED, CC_NCHW},
                                         {CC_NCHW, CC_PERMUTED}, {CC_NHWC, CC_NCHW}};
    static const double ab[4][2] = {{1.0, 0.0}, {0.5, 0.25}, {-2.0, 1.0}, {1.0, 0.0}};
    for (size_t v = 0; v < sizeof lay / sizeof lay[0]; v++)
        for (int wf = 0; wf < 2; wf++) {
            const int t = (*turn)++;
            cc_case_t c = make(shape, t);
            fd_rng_t r;
            fd_rng_seed(&r, c.seed);
            cc_set_layouts(&c, lay[v][0], lay[v][1], &r);
            c.wnhwc = wf;
            c.s.flip = (t / 2) % 2;
            c.misalign = t % 5 == 0;
            c.use4d = c.s.nsp == 2 && t % 3 == 0;
            c.alpha = ab[t % 4][0], c.beta = ab[t % 4][1];
            kc_run(h, &c, CC_EXACT, 0.0, row);
            kc_run(h, &c, CC_REAL, 1.0, row);
        }
}

/* The thread-count check's hashes: each of `count` shapes (`size` bytes apart) in NCHW and then
 * NHWC (filter KRSC there, the mode flipped when `flip`, beta 0.25), alpha 0.5, one hash per
 * line; the cases are numbered from 9000 in that order. */
static inline void kc_print_hashes(cudnnHandle_t h, cc_case_t (*make)(const void *shape, int turn),
                                   const void *shapes, size_t count, size_t size, int flip)
{
    int turn = 0;
    for (size_t si = 0; si < count; si++)
        for (int lay = 0; lay < 2; lay++) {
            cc_case_t c = make((const char *)shapes + si * size, 9000 + turn++);
            fd_rng_t r;
            fd_rng_seed(&r, c.seed);
            cc_set_layouts(&c, lay ? CC_NHWC : CC_NCHW, lay ? CC_NHWC : CC_NCHW, &r);
            c.wnhwc = lay;
            if (flip)
                c.s.flip = lay;
            c.alpha = 0.5, c.beta = lay ? 0.25 : 0.0;
            printf("%016llx\n", (unsigned long long)kc_hash(h, &c));
        }
}

/* The random sweep: cc_sweep_count(count) problems of direction `dir` drawn from seed stream
 * `stream`, fill exact and real in turn. adapt(c, seed, i) sets the algorithm, may reshape the
 * case towards the row under test, and returns the row the dispatch log must name ("" for any)
 * or NULL to skip the draw. Returns the number run; *taken counts those checked against a row. */
static inline int kc_sweep(cudnnHandle_t h, co_dir_t dir, uint64_t stream, int count,
                           const char *(*adapt)(cc_case_t *c, uint64_t seed, int i), int *taken)
{
    const int ncases = cc_sweep_count(count);
    int done = 0;
    *taken = 0;
    for (int i = 0; i < ncases * 40 && done < ncases; i++) {
        const uint64_t seed = cc_sweep_seed(stream, 0, i);
        cc_case_t c = cc_case_gen(dir, CUDNN_DATA_FLOAT, seed, 0);
        const char *want = adapt(&c, seed, i);
        if (want == NULL)
            continue;
        *taken += want[0] != '\0';
        kc_run(h, &c, i % 2 ? CC_REAL : CC_EXACT, i % 2 ? 1.0 : 0.0, want);
        done++;
    }
    return done;
}

/* The checks of this program in a child process: `env` prepended, argument --checks; 1 when
 * it passed. */
static inline int kc_child_checks(const char *env)
{
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return 0;
    self[len] = '\0';
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "%s '%s' --checks", env, self);
    return system(cmd) == 0;
}

/* main() of a kernel program with AVX-512 / AVX2 / generic paths (FREEDNN_CPU_ISA): --hashes
 * runs hashes() (the bits of a fixed problem set, one line each), --checks runs checks() only
 * (the child of the per-path runs); otherwise checks() on the default path, then the same in
 * children on the avx2 and generic paths, and the same hashes for 1 / 2 / 3 threads on each. */
static inline int kc_isa_main(int argc, char **argv, void (*checks)(cudnnHandle_t h), int (*hashes)(void))
{
    if (argc > 1 && strcmp(argv[1], "--hashes") == 0)
        return hashes();
    const int child = argc > 1 && strcmp(argv[1], "--checks") == 0;
    kc_log_on();
    cudnnHandle_t h = cc_handle(FREEDNN_BACKEND_CPU);
    checks(h);
    kc_log_off();
    const char *isa = getenv("FREEDNN_CPU_ISA");
    printf("%s%s: %d runs, %d with the implementation checked; worst real-fill error %.3g x the "
           "f32 table bound\n",
           child ? "FREEDNN_CPU_ISA=" : "default path", child && isa ? isa : "", kc_runs,
           kc_dispatch_checked, kc_worst_ratio);
    fflush(stdout);
    uint64_t forced;
    if (!child && !fd_test_seed_forced(&forced)) {
        FD_EXPECT(kc_child_checks("FREEDNN_CPU_ISA=avx2"), "the checks failed on the avx2 path");
        FD_EXPECT(kc_child_checks("FREEDNN_CPU_ISA=generic OMP_NUM_THREADS=2"),
                  "the checks failed on the generic path");
        static const char *const envs_default[] = {"OMP_NUM_THREADS=1", "OMP_NUM_THREADS=2",
                                                   "OMP_NUM_THREADS=3"};
        static const char *const envs_avx2[] = {"OMP_NUM_THREADS=1 FREEDNN_CPU_ISA=avx2",
                                                "OMP_NUM_THREADS=2 FREEDNN_CPU_ISA=avx2"};
        static const char *const envs_generic[] = {"OMP_NUM_THREADS=1 FREEDNN_CPU_ISA=generic",
                                                   "OMP_NUM_THREADS=3 FREEDNN_CPU_ISA=generic"};
        kc_same_hashes(envs_default, 3);
        kc_same_hashes(envs_avx2, 2);
        kc_same_hashes(envs_generic, 2);
    }
    cudnnDestroy(h);
    return fd_test_finish();
}

#endif /* FD_CPU_KERNEL_CASE_H_ */
