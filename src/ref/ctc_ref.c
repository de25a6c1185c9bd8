/* SPDX-License-Identifier: MIT */
/*
 * ctc_ref.c - reference CTC loss (FD_OP_CTC_LOSS), both algorithm enums, as defined in
 * src/core/ctc.h: the forward (alpha) and backward (beta) recursions of Graves et al. in log
 * space and double, one sample after another.
 *
 * Workspace, reused by every sample (doubles): log y of the sample, T x A; alpha and beta,
 * T x S each with S = 2 * max_label + 1; one row of A per-symbol occupancies. alpha_t(s) holds
 * the prefixes ending in extended-label state s at t (emission at t included), beta_t(s) the
 * suffixes after t (emission at t excluded), so alpha_t(s) + beta_t(s) is the log of the
 * probability mass of the paths through s at t. FLOAT/DOUBLE/HALF/BFLOAT16, strided probs and
 * gradients. Deterministic.
 */
#include <math.h>

#include "../core/ctc.h"

static double lse2(double a, double b) /* log(e^a + e^b); NaN propagates */
{
    if (a == -INFINITY)
        return b;
    if (b == -INFINITY)
        return a;
    double m = a > b ? a : b;
    return m + log1p(exp(-fabs(a - b)));
}

static int64_t table_cols(const fd_ctc_problem_t *p)
{
    return 2 * (int64_t)p->max_label + 1;
}

int fd_ctc_loss_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_ctc_loss_ref_workspace(const void *problem)
{
    const fd_ctc_problem_t *p = problem;
    int64_t doubles = p->t * p->a + 2 * p->t * table_cols(p) + p->a;
    return (size_t)doubles * sizeof(double);
}

/* Extended label l'_s: blanks at even s, the labels at odd s. */
static int ext_label(const int *lab, int64_t s)
{
    return (s & 1) ? lab[s >> 1] : 0;
}

/* log y[t, k] for t < tn into lp (tn x A). */
static void log_probs(const fd_ctc_problem_t *p, const void *probs, int64_t n, int64_t tn,
                      double *lp)
{
    for (int64_t t = 0; t < tn; t++) {
        double *row = lp + t * p->a;
        int64_t base = t * p->ps[0] + n * p->ps[1];
        for (int64_t k = 0; k < p->a; k++)
            row[k] = fd_load(p->dt, probs, base + k * p->ps[2]);
        if (!p->softmax) {
            for (int64_t k = 0; k < p->a; k++)
                row[k] = log(row[k]);
            continue;
        }
        double m = row[0];
        for (int64_t k = 1; k < p->a; k++)
            m = row[k] > m ? row[k] : m;
        double sum = 0.0;
        for (int64_t k = 0; k < p->a; k++)
            sum += exp(row[k] - m);
        double lse = m + log(sum);
        for (int64_t k = 0; k < p->a; k++)
            row[k] -= lse;
    }
}

/* Returns log P(label | y). */
static double recursions(const fd_ctc_problem_t *p, const double *lp, const int *lab, int64_t tn,
                         int64_t s_count, double *la, double *lb)
{
    const int64_t a = p->a, sc = s_count;
    for (int64_t s = 0; s < sc; s++)
        la[s] = s < 2 ? lp[ext_label(lab, s)] : -INFINITY;
    for (int64_t t = 1; t < tn; t++) {
        const double *prev = la + (t - 1) * sc;
        double *cur = la + t * sc;
        for (int64_t s = 0; s < sc; s++) {
            int l = ext_label(lab, s);
            double v = prev[s];
            if (s >= 1)
                v = lse2(v, prev[s - 1]);
            if (s >= 2 && l != 0 && l != ext_label(lab, s - 2))
                v = lse2(v, prev[s - 2]);
            cur[s] = lp[t * a + l] + v;
        }
    }
    double *last = lb + (tn - 1) * sc;
    for (int64_t s = 0; s < sc; s++)
        last[s] = s >= sc - 2 ? 0.0 : -INFINITY;
    for (int64_t t = tn - 2; t >= 0; t--) {
        const double *next = lb + (t + 1) * sc, *lpn = lp + (t + 1) * a;
        double *cur = lb + t * sc;
        for (int64_t s = 0; s < sc; s++) {
            int l = ext_label(lab, s);
            double v = lpn[l] + next[s];
            if (s + 1 < sc)
                v = lse2(v, lpn[ext_label(lab, s + 1)] + next[s + 1]);
            if (s + 2 < sc) {
                int l2 = ext_label(lab, s + 2);
                if (l2 != 0 && l2 != l)
                    v = lse2(v, lpn[l2] + next[s + 2]);
            }
            cur[s] = v;
        }
    }
    const double *end = la + (tn - 1) * sc;
    return sc >= 2 ? lse2(end[sc - 1], end[sc - 2]) : end[sc - 1];
}

static void store_grad(const fd_ctc_problem_t *p, void *grads, int64_t t, int64_t n, int64_t k,
                       double v)
{
    fd_store(p->dt, grads, t * p->gs[0] + n * p->gs[1] + k * p->gs[2], v);
}

cudnnStatus_t fd_ctc_loss_ref_run(const void *problem, const void *args)
{
    const fd_ctc_problem_t *p = problem;
    const fd_ctc_args_t *a = args;
    /* The _v8 label arrays reach the implementation unchecked: check before any write. */
    FD_TRY(fd_ctc_check_labels(p, a->labels, a->label_lengths, a->input_lengths));

    const int64_t cols = table_cols(p);
    double *lp = a->workspace;
    double *la = lp + p->t * p->a, *lb = la + p->t * cols, *occ = lb + p->t * cols;
    int64_t off = 0;
    for (int64_t n = 0; n < p->n; n++) {
        const int *lab = a->labels + off;
        int64_t tn = a->input_lengths[n], sc = 2 * (int64_t)a->label_lengths[n] + 1;
        off += a->label_lengths[n];

        log_probs(p, a->probs, n, tn, lp);
        double logp = recursions(p, lp, lab, tn, sc, la, lb);
        fd_store(p->dt, a->costs, n, -logp);
        if (!p->has_grad)
            continue;
        if (logp == -INFINITY) { /* cannot be aligned: zero or leave the sample's gradient */
            if (p->zero_oob)
                for (int64_t t = 0; t < p->t; t++)
                    for (int64_t k = 0; k < p->a; k++)
                        store_grad(p, a->grads, t, n, k, 0.0);
            continue;
        }
        for (int64_t t = 0; t < tn; t++) {
            for (int64_t k = 0; k < p->a; k++)
                occ[k] = -INFINITY;
            for (int64_t s = 0; s < sc; s++) {
                int l = ext_label(lab, s);
                occ[l] = lse2(occ[l], la[t * sc + s] + lb[t * sc + s]);
            }
            for (int64_t k = 0; k < p->a; k++) {
                double y = p->softmax ? exp(lp[t * p->a + k])
                                      : fd_load(p->dt, a->probs,
                                                t * p->ps[0] + n * p->ps[1] + k * p->ps[2]);
                store_grad(p, a->grads, t, n, k, y - exp(occ[k] - logp));
            }
        }
        for (int64_t t = tn; t < p->t; t++)
            for (int64_t k = 0; k < p->a; k++)
                store_grad(p, a->grads, t, n, k, 0.0);
    }
    return CUDNN_STATUS_SUCCESS;
}
