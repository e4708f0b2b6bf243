/* gat_lap_pe (gat/encode.h): per connected component, the eigenvectors of L = I - D^-1/2 A D^-1/2
 * for eigenvalues 2 .. K+1: dense dsyevr for small components, ARPACK's Lanczos on
 * 2I - L - 2 u u^T (u = D^1/2 1 normalised: the trivial pair deflated) for large ones. */
#include "encode_i.h"
#include "core/core.h"

#include <arpack.h>
#include <math.h>
#include <string.h>

/* LAPACK, Fortran calling convention (as src/analysis/analysis.c: no LAPACKE header in Debian 12
 * for OpenBLAS's LAPACK). */
extern void dsyevr_(const char *jobz, const char *range, const char *uplo, const int *n, double *a,
                    const int *lda, const double *vl, const double *vu, const int *il,
                    const int *iu, const double *abstol, int *m, double *w, double *z,
                    const int *ldz, int *isuppz, double *work, const int *lwork, int *iwork,
                    const int *liwork, int *info, size_t jobz_len, size_t range_len,
                    size_t uplo_len);

/* Components, numbered in the order of their smallest node; members of component c are
 * mem[ptr[c]] .. mem[ptr[c+1]-1], ascending; loc[i] is i's position within its component. */
typedef struct comps {
    gat_idx count;
    gat_idx *ptr, *mem, *loc;
    gat_idx dense_max_size, iter_max_size; /* largest component of each path */
    size_t iter_max_edges; /* most neighbour entries of a component of the iterative path */
} comps;

/* Everything one call allocates, carved from one block. */
typedef struct work {
    gat_i_simple s;
    comps cc;
    double *dinv;         /* (n) 1 / sqrt(d_i), 0 for an isolated node */
    double *a, *w, *z, *dwork; /* dense path: (c, c), (c), (c, K), lwork */
    int *isuppz, *iwork;
    int lwork, liwork;
    double *resid, *v, *workd, *workl, *u, *ev, *ez; /* ARPACK path */
    int *select;
    /* the ARPACK component's adjacency in its own numbering: row r's neighbours lcol[lptr[r]] ..
     * (local positions, in the order of s), and ldinv (c) its nodes' dinv, so that the operator's
     * rows read two contiguous arrays instead of three lookups per edge */
    gat_idx *lptr, *lcol;
    double *ldinv;
    int ncv;
    void *block, *topo; /* the solvers' buffers; the components' arrays and dinv */
    size_t bytes;
} work;

void gat_pe_options_init(gat_pe_options *opt)
{
    if (!opt) return;
    *opt = (gat_pe_options){.dense_max = 512, .tol = 1e-9, .max_restarts = 3000, .threads = 0};
}

static int use_dense(gat_idx c, gat_idx k, const gat_pe_options *o)
{
    return c <= o->dense_max || c < 4 * (k + 1);
}

/* Breadth-first labelling from each unlabelled node in ascending order; then a counting sort of
 * the nodes by component (ascending within each). comp: (n) scratch, queue: (n) scratch. */
static void label_components(const gat_i_simple *s, comps *cc, gat_idx *comp, gat_idx *queue)
{
    const gat_idx n = s->n;
    for (gat_idx i = 0; i < n; i++) comp[i] = -1;
    gat_idx count = 0;
    for (gat_idx r = 0; r < n; r++) {
        if (comp[r] >= 0) continue;
        gat_idx head = 0, tail = 0;
        queue[tail++] = r;
        comp[r] = count;
        while (head < tail) {
            const gat_idx i = queue[head++];
            for (gat_idx e = s->ptr[i]; e < s->ptr[i + 1]; e++)
                if (comp[s->col[e]] < 0) {
                    comp[s->col[e]] = count;
                    queue[tail++] = s->col[e];
                }
        }
        count++;
    }
    cc->count = count;
    for (gat_idx c = 0; c <= count; c++) cc->ptr[c] = 0;
    for (gat_idx i = 0; i < n; i++) cc->ptr[comp[i] + 1]++;
    for (gat_idx c = 0; c < count; c++) cc->ptr[c + 1] += cc->ptr[c];
    for (gat_idx c = 0; c < count; c++) queue[c] = cc->ptr[c];
    for (gat_idx i = 0; i < n; i++) {
        const gat_idx at = queue[comp[i]]++;
        cc->mem[at] = i;
        cc->loc[i] = at - cc->ptr[comp[i]];
    }
}

/* Makes the entry of largest magnitude of z (c) positive (the first one on ties). */
static void fix_sign(double *z, gat_idx c)
{
    gat_idx big = 0;
    for (gat_idx r = 1; r < c; r++)
        if (fabs(z[r]) > fabs(z[big])) big = r;
    if (z[big] < 0)
        for (gat_idx r = 0; r < c; r++) z[r] = -z[r];
}

/* Component `id` by dsyevr: the dense L (both triangles), eigenpairs 2 .. kk+1. */
static gat_status dense_component(work *wk, gat_idx id, gat_idx kk, gat_real *out, size_t ld)
{
    const comps *cc = &wk->cc;
    const gat_idx *mem = cc->mem + cc->ptr[id];
    const int c = cc->ptr[id + 1] - cc->ptr[id];
    double *a = wk->a;
    memset(a, 0, (size_t)c * (size_t)c * sizeof *a);
    for (int r = 0; r < c; r++) {
        const gat_idx i = mem[r];
        a[(size_t)r * c + r] = wk->dinv[i] > 0 ? 1 : 0;
        for (gat_idx e = wk->s.ptr[i]; e < wk->s.ptr[i + 1]; e++) {
            const gat_idx j = wk->s.col[e];
            a[(size_t)cc->loc[j] * c + r] = -wk->dinv[i] * wk->dinv[j];
        }
    }
    const int il = 2, iu = kk + 1;
    const double vl = 0, vu = 0, abstol = 0;
    int m = 0, info = 0;
    dsyevr_("V", "I", "L", &c, a, &c, &vl, &vu, &il, &iu, &abstol, &m, wk->w, wk->z, &c,
            wk->isuppz, wk->dwork, &wk->lwork, wk->iwork, &wk->liwork, &info, 1, 1, 1);
    if (info != 0 || m != kk)
        return gat_i_error(GAT_EDEP, "gat_lap_pe: LAPACK dsyevr failed on the component of node "
                           "%d (%d nodes): info %d, %d of %d eigenpairs", mem[0], c, info, m,
                           kk);
    for (int q = 0; q < kk; q++) {
        double *zq = wk->z + (size_t)q * c;
        fix_sign(zq, c);
        for (int r = 0; r < c; r++) out[(size_t)mem[r] * ld + q] = (gat_real)zq[r];
    }
    return GAT_OK;
}

/* y = (2I - L - 2 u u^T) x = x + S x - 2 u (u . x) on the component in wk's local arrays (c
 * nodes). Rows are independent gathers (any thread count gives the same bits); the dot product
 * is serial. */
static void apply_op(const work *wk, gat_idx c, const double *x, double *y, int nt)
{
    const double *u = wk->u, *dl = wk->ldinv;
    const gat_idx *lptr = wk->lptr, *lcol = wk->lcol;
    double ux = 0;
    for (gat_idx r = 0; r < c; r++) ux += u[r] * x[r];
    (void)nt;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && c > 4096)
    for (gat_idx r = 0; r < c; r++) {
        double acc = 0;
        for (gat_idx e = lptr[r]; e < lptr[r + 1]; e++) acc += dl[lcol[e]] * x[lcol[e]];
        y[r] = x[r] + dl[r] * acc - 2 * u[r] * ux;
    }
}

/* The local arrays of component mem (c nodes). */
static void local_adjacency(work *wk, const gat_idx *mem, gat_idx c)
{
    gat_idx at = 0;
    for (gat_idx r = 0; r < c; r++) {
        const gat_idx i = mem[r];
        wk->lptr[r] = at;
        wk->ldinv[r] = wk->dinv[i];
        for (gat_idx e = wk->s.ptr[i]; e < wk->s.ptr[i + 1]; e++)
            wk->lcol[at++] = wk->cc.loc[wk->s.col[e]];
    }
    wk->lptr[c] = at;
}

/* Component `id` by ARPACK (dsaupd/dseupd, mode 1, largest algebraic) with a start vector fixed
 * by the node numbers, so that every run repeats. */
static gat_status iterative_component(work *wk, gat_idx id, gat_idx kk,
                                      const gat_pe_options *o, int nt, gat_real *out, size_t ld,
                                      long *matvecs)
{
    const comps *cc = &wk->cc;
    const gat_idx *mem = cc->mem + cc->ptr[id];
    const int c = cc->ptr[id + 1] - cc->ptr[id];
    const int ncv = c < wk->ncv ? c : wk->ncv, lworkl = ncv * (ncv + 8);
    double norm = 0;
    for (int r = 0; r < c; r++) norm += 1 / (wk->dinv[mem[r]] * wk->dinv[mem[r]]);
    norm = sqrt(norm);
    for (int r = 0; r < c; r++) {
        wk->u[r] = 1 / (wk->dinv[mem[r]] * norm);
        wk->resid[r] = (double)(gat_i_hash64(0x9e3779b9u, (uint64_t)mem[r]) >> 11) * 0x1p-53 - 0.5;
    }
    int iparam[11] = {0}, ipntr[14] = {0}, ido = 0, info = 1;
    iparam[0] = 1;
    iparam[2] = o->max_restarts;
    iparam[6] = 1;
    local_adjacency(wk, mem, c);
    for (;;) {
        dsaupd_c(&ido, "I", c, "LA", kk, o->tol, wk->resid, ncv, wk->v, c, iparam, ipntr,
                 wk->workd, wk->workl, lworkl, &info);
        if (ido != -1 && ido != 1) break;
        apply_op(wk, c, wk->workd + ipntr[0] - 1, wk->workd + ipntr[1] - 1, nt);
        ++*matvecs;
    }
    if (info != 0 || iparam[4] < kk)
        return gat_i_error(GAT_EDEP, "gat_lap_pe: ARPACK dsaupd %s on the component of node %d "
                           "(%d nodes): info %d, %d of %d eigenpairs after %d restarts "
                           "(gat_pe_options.tol %g, max_restarts %d)",
                           info == 1 ? "did not converge" : "failed", mem[0], c, info,
                           iparam[4], kk, iparam[2], o->tol, o->max_restarts);
    dseupd_c(1, "A", wk->select, wk->ev, wk->ez, c, 0, "I", c, "LA", kk, o->tol, wk->resid, ncv,
             wk->v, c, iparam, ipntr, wk->workd, wk->workl, lworkl, &info);
    if (info != 0)
        return gat_i_error(GAT_EDEP, "gat_lap_pe: ARPACK dseupd failed on the component of node "
                           "%d (%d nodes): info %d", mem[0], c, info);
    /* column q: the q-th largest Ritz value (2 - lambda, so lambda ascending); ties keep
     * ARPACK's order */
    for (int t = 0; t < kk; t++) wk->select[t] = 0;
    for (int q = 0; q < kk; q++) {
        int best = -1;
        for (int t = 0; t < kk; t++)
            if (wk->select[t] != -1 && (best < 0 || wk->ev[t] > wk->ev[best])) best = t;
        wk->select[best] = -1;
        double *zq = wk->ez + (size_t)best * c;
        fix_sign(zq, c);
        for (int r = 0; r < c; r++) out[(size_t)mem[r] * ld + q] = (gat_real)zq[r];
    }
    return GAT_OK;
}

/* Carves the solvers' buffers (base NULL: sizes only), for the largest dense and iterative
 * components. */
static void carve_solvers(work *wk, char *base, size_t *off, gat_idx k)
{
    const size_t dm = (size_t)wk->cc.dense_max_size, im = (size_t)wk->cc.iter_max_size;
    const size_t K = (size_t)k, ncv = (size_t)wk->ncv;
    wk->a = gat_i_carve(base, off, dm * dm, sizeof(double));
    wk->w = gat_i_carve(base, off, dm, sizeof(double));
    wk->z = gat_i_carve(base, off, dm * K, sizeof(double));
    wk->dwork = gat_i_carve(base, off, (size_t)wk->lwork, sizeof(double));
    wk->isuppz = gat_i_carve(base, off, 2 * dm, sizeof(int));
    wk->iwork = gat_i_carve(base, off, (size_t)wk->liwork, sizeof(int));
    wk->resid = gat_i_carve(base, off, im, sizeof(double));
    wk->u = gat_i_carve(base, off, im, sizeof(double));
    wk->v = gat_i_carve(base, off, im * (im ? ncv : 0), sizeof(double));
    wk->workd = gat_i_carve(base, off, 3 * im, sizeof(double));
    wk->workl = gat_i_carve(base, off, im ? ncv * (ncv + 8) : 0, sizeof(double));
    wk->ev = gat_i_carve(base, off, im ? K : 0, sizeof(double));
    wk->ez = gat_i_carve(base, off, im * K, sizeof(double));
    wk->select = gat_i_carve(base, off, im ? ncv : 0, sizeof(int));
    wk->lptr = gat_i_carve(base, off, im ? im + 1 : 0, sizeof(gat_idx));
    wk->lcol = gat_i_carve(base, off, wk->cc.iter_max_edges, sizeof(gat_idx));
    wk->ldinv = gat_i_carve(base, off, im, sizeof(double));
}

/* The components (cc), dinv and the largest component of each path, in wk->topo. */
static gat_status find_components(work *wk, gat_idx k, const gat_pe_options *o)
{
    const size_t n = (size_t)wk->s.n;
    size_t off = 0;
    for (int pass = 0; pass < 2; pass++) {
        char *base = pass ? wk->topo : NULL;
        wk->cc.ptr = gat_i_carve(base, &off, n + 1, sizeof(gat_idx));
        wk->cc.mem = gat_i_carve(base, &off, n, sizeof(gat_idx));
        wk->cc.loc = gat_i_carve(base, &off, n, sizeof(gat_idx));
        wk->dinv = gat_i_carve(base, &off, n, sizeof(double));
        if (!pass && !(wk->topo = gat_malloc(off, 1))) return GAT_ENOMEM;
        if (!pass) off = 0;
    }
    wk->bytes += off;
    /* comp and queue borrow dinv's bytes (2n gat_idx = 8n bytes) before dinv is filled */
    gat_idx *comp = (gat_idx *)(void *)wk->dinv, *queue = comp + n;
    label_components(&wk->s, &wk->cc, comp, queue);
    for (size_t i = 0; i < n; i++) {
        const gat_idx d = wk->s.ptr[i + 1] - wk->s.ptr[i];
        wk->dinv[i] = d > 0 ? 1 / sqrt((double)d) : 0;
    }
    for (gat_idx c = 0; c < wk->cc.count; c++) {
        const gat_idx size = wk->cc.ptr[c + 1] - wk->cc.ptr[c];
        if (size < 2) continue;
        gat_idx *big = use_dense(size, k, o) ? &wk->cc.dense_max_size : &wk->cc.iter_max_size;
        if (size > *big) *big = size;
        if (use_dense(size, k, o)) continue;
        size_t edges = 0;
        for (gat_idx r = wk->cc.ptr[c]; r < wk->cc.ptr[c + 1]; r++) {
            const gat_idx i = wk->cc.mem[r];
            edges += (size_t)(wk->s.ptr[i + 1] - wk->s.ptr[i]);
        }
        if (edges > wk->cc.iter_max_edges) wk->cc.iter_max_edges = edges;
    }
    return GAT_OK;
}

/* dsyevr's workspace for the largest dense component (its optimum covers smaller ones). */
static gat_status dense_workspace(work *wk, gat_idx k)
{
    const int c = wk->cc.dense_max_size;
    wk->lwork = wk->liwork = 0;
    if (c < 2) return GAT_OK;
    const int il = 2, iu = (k + 1 < c ? k + 1 : c), lq = -1;
    const double vl = 0, vu = 0, abstol = 0;
    int m = 0, info = 0, iq = 0, isuppz[2];
    double wq = 0, a = 0, w = 0, z = 0;
    dsyevr_("V", "I", "L", &c, &a, &c, &vl, &vu, &il, &iu, &abstol, &m, &w, &z, &c, isuppz,
            &wq, &lq, &iq, &lq, &info, 1, 1, 1);
    if (info != 0)
        return gat_i_error(GAT_EDEP, "gat_lap_pe: LAPACK dsyevr's workspace query failed "
                           "(n %d, info %d)", c, info);
    wk->lwork = (int)wq > 26 * c ? (int)wq : 26 * c;
    wk->liwork = iq > 10 * c ? iq : 10 * c;
    return GAT_OK;
}

static gat_status check_lap_args(const gat_graph *g, gat_idx k, const gat_pe_options *o,
                                 const gat_real *out, size_t ld)
{
    gat_status st = gat_i_check_args("gat_lap_pe", 2, (const void *[]){g, out},
                                     (const char *[]){"graph g", "out"});
    if (st != GAT_OK) return st;
    if (k < 1 || k > GAT_PE_MAX_K)
        return gat_i_error(GAT_EINVAL, "gat_lap_pe: k = %d, expected 1..%d", k, GAT_PE_MAX_K);
    if (ld < (size_t)k)
        return gat_i_error(GAT_EINVAL, "gat_lap_pe: row stride ld = %zu is less than k = %d", ld,
                           k);
    if (o->dense_max < 0 || !(o->tol >= 0 && o->tol < 1) || o->max_restarts < 1 ||
        o->threads < 0)
        return gat_i_error(GAT_EINVAL, "gat_lap_pe: options dense_max = %d (>= 0), tol = %g "
                           "(in [0, 1)), max_restarts = %d (>= 1), threads = %d (>= 0)",
                           o->dense_max, o->tol, o->max_restarts, o->threads);
    if (g->n < 0 || (g->n > 0 && (!g->rowptr || !g->col || !g->t_rowptr || !g->t_col)))
        return gat_i_error(GAT_EINVAL, "gat_lap_pe: graph g is not built (n %d, missing CSR "
                           "arrays)", g->n);
    return GAT_OK;
}

gat_status gat_lap_pe(const gat_graph *g, gat_idx k, const gat_pe_options *opt, gat_real *out,
                      size_t ld, gat_pe_cost *cost)
{
    const double t0 = gat_i_encode_now();
    gat_pe_options o;
    gat_status st;
    work wk = {0};
    long matvecs = 0;
    gat_idx n_dense = 0, n_iter = 0;

    gat_i_clear_error();
    if (opt) o = *opt;
    else gat_pe_options_init(&o);
    if ((st = check_lap_args(g, k, &o, out, ld)) != GAT_OK) return st;
    const int nt = gat_i_encode_threads(o.threads);
    wk.ncv = 2 * k + 1 > 20 ? 2 * k + 1 : 20;
    if ((st = gat_i_simple_build(&wk.s, g, &wk.bytes)) != GAT_OK) goto cleanup;
    if ((st = find_components(&wk, k, &o)) != GAT_OK) goto cleanup;
    if ((st = dense_workspace(&wk, k)) != GAT_OK) goto cleanup;
    size_t off = 0;
    carve_solvers(&wk, NULL, &off, k);
    if (!(wk.block = gat_malloc(off ? off : 1, 1))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    wk.bytes += off;
    off = 0;
    carve_solvers(&wk, wk.block, &off, k);
    for (gat_idx i = 0; i < g->n; i++)
        for (gat_idx q = 0; q < k; q++) out[(size_t)i * ld + q] = 0;
    for (gat_idx c = 0; c < wk.cc.count && st == GAT_OK; c++) {
        const gat_idx size = wk.cc.ptr[c + 1] - wk.cc.ptr[c];
        const gat_idx kk = size - 1 < k ? size - 1 : k;
        if (kk < 1) continue;
        if (use_dense(size, k, &o)) {
            st = dense_component(&wk, c, kk, out, ld);
            n_dense++;
        } else {
            st = iterative_component(&wk, c, kk, &o, nt, out, ld, &matvecs);
            n_iter++;
        }
    }
    if (st == GAT_OK && cost)
        *cost = (gat_pe_cost){.seconds = gat_i_encode_now() - t0, .bytes = wk.bytes,
                              .components = wk.cc.count, .dense = n_dense,
                              .iterative = n_iter, .matvecs = matvecs};
cleanup:
    gat_free(wk.block);
    gat_free(wk.topo);
    gat_i_simple_destroy(&wk.s);
    return st;
}
