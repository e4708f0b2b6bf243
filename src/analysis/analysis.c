/* gat/analysis.h: PCA to two dimensions (covariance in double, then LAPACK's dsyevr for its two
 * largest eigenpairs) and attention entropy H(i,h) = -sum_e alpha ln alpha against ln deg(i). */
#include "gat/analysis.h"
#include "core/core.h"

#include <math.h>
#include <string.h>

/* LAPACK (OpenBLAS ships it; Debian 12 packages no LAPACKE header for it), Fortran calling
 * convention: every argument by reference, then the hidden lengths of the character arguments
 * that gfortran-built libraries expect. */
extern void dsyevr_(const char *jobz, const char *range, const char *uplo, const int *n, double *a,
                    const int *lda, const double *vl, const double *vu, const int *il,
                    const int *iu, const double *abstol, int *m, double *w, double *z,
                    const int *ldz, int *isuppz, double *work, const int *lwork, int *iwork,
                    const int *liwork, int *info, size_t jobz_len, size_t range_len,
                    size_t uplo_len);

gat_status gat_pca_2d(const gat_real *x, gat_idx n, gat_idx d, double *out, double *var)
{
    gat_status st = GAT_OK;
    double *mean = NULL, *cov = NULL, *z = NULL, *w = NULL, *work = NULL;
    int *iwork = NULL;
    int m = 0, info = 0, lwork = -1, liwork = -1, iwork_query = 0, isuppz[4];
    double work_query = 0;

    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_pca_2d", 2, (const void *[]){x, out},
                               (const char *[]){"x", "out"})) != GAT_OK)
        return st;
    if (n < 1 || d < 1)
        return gat_i_error(GAT_EINVAL, "gat_pca_2d: n = %d rows of d = %d values, expected at "
                           "least 1 of each", n, d);
    const size_t N = (size_t)n, D = (size_t)d;
    for (size_t i = 0; i < N; i++)
        for (size_t c = 0; c < D; c++)
            if (!isfinite((double)x[i * D + c]))
                return gat_i_error(GAT_ENUMERIC, "gat_pca_2d: x[%zu][%zu] = %g is not finite", i,
                                   c, (double)x[i * D + c]);
    if (!(mean = gat_calloc(D, sizeof *mean)) || !(cov = gat_calloc(D * D, sizeof *cov)) ||
        !(z = gat_calloc(2 * D, sizeof *z)) || !(w = gat_calloc(D, sizeof *w))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    for (size_t i = 0; i < N; i++)
        for (size_t c = 0; c < D; c++) mean[c] += (double)x[i * D + c];
    for (size_t c = 0; c < D; c++) mean[c] /= (double)N;
    /* lower triangle, column-major for LAPACK (cov[c * D + r] with r >= c); symmetric anyway */
    for (size_t i = 0; i < N; i++) {
        const gat_real *xi = x + i * D;
        for (size_t c = 0; c < D; c++) {
            const double a = (double)xi[c] - mean[c];
            for (size_t r = c; r < D; r++) cov[c * D + r] += a * ((double)xi[r] - mean[r]);
        }
    }
    for (size_t k = 0; k < D * D; k++) cov[k] /= (double)N;

    /* the eigenpairs il..iu of D, ascending: the two largest are D-1 and D */
    const int nd = d, il = d >= 2 ? d - 1 : 1, iu = d, ldz = d;
    const double vl = 0, vu = 0, abstol = 0;
    /* workspace query, then the call */
    dsyevr_("V", "I", "L", &nd, cov, &nd, &vl, &vu, &il, &iu, &abstol, &m, w, z, &ldz, isuppz,
            &work_query, &lwork, &iwork_query, &liwork, &info, 1, 1, 1);
    if (info == 0) {
        lwork = (int)work_query;
        liwork = iwork_query;
        if (!(work = gat_malloc((size_t)lwork, sizeof *work)) ||
            !(iwork = gat_malloc((size_t)liwork, sizeof *iwork))) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
        dsyevr_("V", "I", "L", &nd, cov, &nd, &vl, &vu, &il, &iu, &abstol, &m, w, z, &ldz,
                isuppz, work, &lwork, iwork, &liwork, &info, 1, 1, 1);
    }
    if (info != 0 || m != iu - il + 1) {
        st = gat_i_error(GAT_EDEP, "gat_pca_2d: LAPACK dsyevr failed on the %d x %d covariance "
                         "matrix (info %d, %d of %d eigenvalues)", d, d, info, m, iu - il + 1);
        goto cleanup;
    }
    /* largest first: axis 0 is the last eigenpair found */
    double *axis[2] = {z + (size_t)(m - 1) * D, m == 2 ? z : NULL};
    const double w_all[2] = {w[m - 1], m == 2 ? w[0] : 0};
    for (int a = 0; a < 2; a++) {
        if (!axis[a]) continue;
        size_t big = 0;
        for (size_t c = 1; c < D; c++)
            if (fabs(axis[a][c]) > fabs(axis[a][big])) big = c;
        if (axis[a][big] < 0)
            for (size_t c = 0; c < D; c++) axis[a][c] = -axis[a][c];
    }
    for (size_t i = 0; i < N; i++) {
        double p[2] = {0, 0};
        for (size_t c = 0; c < D; c++) {
            const double a = (double)x[i * D + c] - mean[c];
            p[0] += a * axis[0][c];
            if (axis[1]) p[1] += a * axis[1][c];
        }
        out[2 * i] = p[0];
        out[2 * i + 1] = p[1];
    }
    if (var) {
        /* rounding can leave a zero eigenvalue slightly negative */
        var[0] = w_all[0] > 0 ? w_all[0] : 0;
        var[1] = w_all[1] > 0 ? w_all[1] : 0;
    }

cleanup:
    gat_free(mean);
    gat_free(cov);
    gat_free(z);
    gat_free(w);
    gat_free(work);
    gat_free(iwork);
    return st;
}

gat_status gat_attention_entropy(const gat_graph *g, const gat_real *alpha, gat_idx heads,
                                 double *entropy, double *uniform)
{
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_attention_entropy", 3, (const void *[]){g, alpha, entropy},
                               (const char *[]){"graph g", "alpha", "entropy"})) != GAT_OK)
        return st;
    if (heads < 1)
        return gat_i_error(GAT_EINVAL, "gat_attention_entropy: heads = %d, expected at least 1",
                           heads);
    if ((st = gat_graph_check(g)) != GAT_OK) return st;
    const size_t H = (size_t)heads;
    /* all checks before the first output, so a failure leaves the outputs untouched */
    for (gat_idx i = 0; i < g->n; i++)
        for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++)
            for (size_t h = 0; h < H; h++) {
                const double a = (double)alpha[(size_t)e * H + h];
                if (!(a >= 0 && a <= 1)) /* written so that NaN fails too */
                    return gat_i_error(GAT_EINVAL, "gat_attention_entropy: alpha of edge %d "
                                       "(%d -> %d), head %zu, is %g: not a probability", e,
                                       g->col[e], i, h, a);
            }
    for (gat_idx i = 0; i < g->n; i++) {
        for (size_t h = 0; h < H; h++) {
            double s = 0;
            for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++) {
                const double a = (double)alpha[(size_t)e * H + h];
                if (a > 0) s -= a * log(a);
            }
            entropy[(size_t)i * H + h] = s;
        }
        if (uniform) {
            const gat_idx deg = g->rowptr[i + 1] - g->rowptr[i];
            uniform[i] = deg > 0 ? log((double)deg) : 0;
        }
    }
    return GAT_OK;
}
