/* Check suite "encode": the Laplacian eigenvector encoding against a Jacobi eigen-decomposition of
 * the dense normalised Laplacian written here (projectors compared, so signs and rotations within
 * repeated eigenvalues do not matter), on both solver paths (dsyevr, ARPACK); the random-walk
 * encoding against dense matrix powers; disconnected and directed input; identical results for
 * any thread count; the spec text; bad arguments and allocation failures. */
#include "testutil.h"

#include "core/core.h"

#include <math.h>
#include <stdlib.h>

/* ---- graphs written by the tests ---- */

typedef struct edges {
    gat_idx n, m;
    gat_idx src[40000], dst[40000];
} edges;

static void add(edges *e, gat_idx a, gat_idx b)
{
    ck_assert_int_lt(e->m, (gat_idx)LEN(e->src));
    e->src[e->m] = a;
    e->dst[e->m] = b;
    e->m++;
}

/* Path 0-5 given in one direction only, cycle 6-13 in both with a duplicate, isolated 14,
 * triangle 15-17, edge 18-19, star 20 (centre) - 21..24; built directed (no symmetrize). */
static void mixed_graph(edges *e, gat_idx base)
{
    for (gat_idx i = 0; i < 5; i++) add(e, base + i, base + i + 1);
    for (gat_idx i = 0; i < 8; i++) {
        add(e, base + 6 + i, base + 6 + (i + 1) % 8);
        add(e, base + 6 + (i + 1) % 8, base + 6 + i);
    }
    add(e, base + 6, base + 7);
    add(e, base + 15, base + 16);
    add(e, base + 17, base + 16);
    add(e, base + 15, base + 17);
    add(e, base + 19, base + 18);
    for (gat_idx l = 21; l <= 24; l++) add(e, base + 20, base + l);
    if (e->n < base + 25) e->n = base + 25;
}

/* A circulant graph on n nodes (offsets 1 and `jump`) plus chords from a fixed LCG, at base. */
static void chorded_ring(edges *e, gat_idx base, gat_idx n, gat_idx jump, gat_idx chords)
{
    for (gat_idx i = 0; i < n; i++) {
        add(e, base + i, base + (i + 1) % n);
        add(e, base + i, base + (i + jump) % n);
    }
    uint64_t x = 12345;
    for (gat_idx c = 0; c < chords; c++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        const gat_idx a = (gat_idx)((x >> 33) % (uint64_t)n);
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        const gat_idx b = (gat_idx)((x >> 33) % (uint64_t)n);
        if (a != b) add(e, base + a, base + b);
    }
    if (e->n < base + n) e->n = base + n;
}

static void build(gat_graph *g, const edges *e)
{
    ck_assert_int_eq(gat_graph_from_edges(g, e->n, (size_t)e->m, e->src, e->dst, 0), GAT_OK);
}

/* ---- the dense reference ---- */

/* Dense symmetric 0/1 adjacency of the edge list (both directions, no self-loops), (n, n). */
static double *dense_adj(const edges *e)
{
    const size_t n = (size_t)e->n;
    double *a = calloc(n * n, sizeof *a);
    ck_assert_ptr_nonnull(a);
    for (gat_idx k = 0; k < e->m; k++)
        if (e->src[k] != e->dst[k]) {
            a[(size_t)e->src[k] * n + (size_t)e->dst[k]] = 1;
            a[(size_t)e->dst[k] * n + (size_t)e->src[k]] = 1;
        }
    return a;
}

/* Component labels by repeated relaxation (smallest node of each component). */
static void ref_components(const double *a, gat_idx n, gat_idx *lab)
{
    for (gat_idx i = 0; i < n; i++) lab[i] = i;
    for (int changed = 1; changed;) {
        changed = 0;
        for (gat_idx i = 0; i < n; i++)
            for (gat_idx j = 0; j < n; j++)
                if (a[(size_t)i * n + j] != 0 && lab[j] < lab[i]) lab[i] = lab[j], changed = 1;
    }
}

/* Cyclic Jacobi on the symmetric (c, c) matrix m (destroyed): eigenvalues w ascending, and
 * eigenvectors as the columns of v (c, c) row-major, in the same order. */
static void jacobi(double *m, int c, double *w, double *v)
{
    double *q = calloc((size_t)c * c, sizeof *q);
    ck_assert_ptr_nonnull(q);
    for (int i = 0; i < c; i++) q[(size_t)i * c + i] = 1;
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0;
        for (int i = 0; i < c; i++)
            for (int j = i + 1; j < c; j++) off += m[(size_t)i * c + j] * m[(size_t)i * c + j];
        if (off < 1e-26) break;
        for (int p = 0; p < c; p++)
            for (int r = p + 1; r < c; r++) {
                const double apr = m[(size_t)p * c + r];
                if (fabs(apr) < 1e-300) continue;
                const double th = (m[(size_t)r * c + r] - m[(size_t)p * c + p]) / (2 * apr);
                const double t = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1));
                const double cs = 1 / sqrt(t * t + 1), sn = t * cs;
                for (int k = 0; k < c; k++) { /* columns p, r */
                    const double mkp = m[(size_t)k * c + p], mkr = m[(size_t)k * c + r];
                    m[(size_t)k * c + p] = cs * mkp - sn * mkr;
                    m[(size_t)k * c + r] = sn * mkp + cs * mkr;
                }
                for (int k = 0; k < c; k++) { /* rows p, r */
                    const double mpk = m[(size_t)p * c + k], mrk = m[(size_t)r * c + k];
                    m[(size_t)p * c + k] = cs * mpk - sn * mrk;
                    m[(size_t)r * c + k] = sn * mpk + cs * mrk;
                }
                for (int k = 0; k < c; k++) {
                    const double qkp = q[(size_t)k * c + p], qkr = q[(size_t)k * c + r];
                    q[(size_t)k * c + p] = cs * qkp - sn * qkr;
                    q[(size_t)k * c + r] = sn * qkp + cs * qkr;
                }
            }
    }
    int *ord = malloc((size_t)c * sizeof *ord);
    ck_assert_ptr_nonnull(ord);
    for (int i = 0; i < c; i++) ord[i] = i;
    for (int i = 1; i < c; i++) /* insertion sort by eigenvalue */
        for (int j = i; j > 0 && m[(size_t)ord[j] * c + ord[j]] < m[(size_t)ord[j - 1] * c + ord[j - 1]]; j--) {
            const int t = ord[j];
            ord[j] = ord[j - 1];
            ord[j - 1] = t;
        }
    for (int i = 0; i < c; i++) {
        w[i] = m[(size_t)ord[i] * c + ord[i]];
        for (int k = 0; k < c; k++) v[(size_t)k * c + i] = q[(size_t)k * c + ord[i]];
    }
    free(ord);
    free(q);
}

/* Checks out (n, ld), columns 0..K-1, against the reference per component: columns past the
 * component's c - 1 eigenvectors and rows outside it are 0; the projector onto the columns equals
 * the reference's onto eigenvectors 2..kk+1 (which must end at a gap in the spectrum, asserted);
 * each column has unit norm and its largest-magnitude entry is positive. Returns the largest
 * projector difference. */
static double check_lap(const edges *e, const gat_real *out, size_t ld, gat_idx K)
{
    const gat_idx n = e->n;
    double *a = dense_adj(e), worst = 0;
    gat_idx *lab = malloc((size_t)n * sizeof *lab), *mem = malloc((size_t)n * sizeof *mem);
    ck_assert(lab && mem);
    ref_components(a, n, lab);
    for (gat_idx root = 0; root < n; root++) {
        if (lab[root] != root) continue;
        int c = 0;
        for (gat_idx i = 0; i < n; i++)
            if (lab[i] == root) mem[c++] = i;
        const int kk = c - 1 < K ? c - 1 : K;
        for (gat_idx i = 0; i < n; i++) /* zero outside the component's used columns */
            for (int q = 0; q < K; q++)
                if (lab[i] == root && q >= kk)
                    ck_assert_double_eq((double)out[(size_t)i * ld + q], 0);
        if (kk < 1) continue;
        double *L = calloc((size_t)c * c, sizeof *L), *w = malloc((size_t)c * sizeof *w);
        double *v = malloc((size_t)c * c * sizeof *v), *deg = calloc((size_t)c, sizeof *deg);
        ck_assert(L && w && v && deg);
        for (int r = 0; r < c; r++)
            for (int s = 0; s < c; s++) deg[r] += a[(size_t)mem[r] * n + mem[s]];
        for (int r = 0; r < c; r++)
            for (int s = 0; s < c; s++)
                L[(size_t)r * c + s] = (r == s) - a[(size_t)mem[r] * n + mem[s]] / sqrt(deg[r] * deg[s]);
        jacobi(L, c, w, v);
        ck_assert_double_lt(fabs(w[0]), 1e-9);
        if (kk + 1 < c) ck_assert_double_gt(w[kk + 1] - w[kk], 1e-4);
        for (int r = 0; r < c; r++)
            for (int s = 0; s < c; s++) {
                double p_got = 0, p_ref = 0;
                for (int q = 0; q < kk; q++) {
                    p_got += (double)out[(size_t)mem[r] * ld + q] * (double)out[(size_t)mem[s] * ld + q];
                    p_ref += v[(size_t)r * c + q + 1] * v[(size_t)s * c + q + 1];
                }
                if (fabs(p_got - p_ref) > worst) worst = fabs(p_got - p_ref);
            }
        for (int q = 0; q < kk; q++) {
            double norm = 0, big = 0, top = 0; /* largest |x|, largest positive x */
            for (int r = 0; r < c; r++) {
                const double x = (double)out[(size_t)mem[r] * ld + q];
                norm += x * x;
                if (fabs(x) > big) big = fabs(x);
                if (x > top) top = x;
            }
            ck_assert_double_eq_tol(norm, 1, 1e-5);
            ck_assert_double_ge(top, big - 1e-5); /* the sign convention, up to ties */
        }
        free(L), free(w), free(v), free(deg);
    }
    free(a), free(lab), free(mem);
    return worst;
}

static gat_real *zeros(size_t n)
{
    gat_real *x = calloc(n ? n : 1, sizeof *x);
    ck_assert_ptr_nonnull(x);
    return x;
}

/* (D^-1 A)^k_ii for k = 1..K by dense products, (n, K). */
static double *ref_rw(const edges *e, gat_idx K)
{
    const size_t n = (size_t)e->n;
    double *a = dense_adj(e), *p = calloc(n * n, sizeof *p), *pk = calloc(n * n, sizeof *pk);
    double *t = calloc(n * n, sizeof *t), *out = calloc(n * (size_t)K, sizeof *out);
    ck_assert(p && pk && t && out);
    for (size_t i = 0; i < n; i++) {
        double d = 0;
        for (size_t j = 0; j < n; j++) d += a[i * n + j];
        for (size_t j = 0; j < n; j++) p[i * n + j] = d > 0 ? a[i * n + j] / d : 0;
    }
    memcpy(pk, p, n * n * sizeof *pk);
    for (gat_idx k = 0; k < K; k++) {
        for (size_t i = 0; i < n; i++) out[i * (size_t)K + (size_t)k] = pk[i * n + i];
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                double s = 0;
                for (size_t l = 0; l < n; l++) s += pk[i * n + l] * p[l * n + j];
                t[i * n + j] = s;
            }
        memcpy(pk, t, n * n * sizeof *pk);
    }
    free(a), free(p), free(pk), free(t);
    return out;
}

/* The mixed disconnected, partly directed graph with dsyevr: every component's projector. */
START_TEST(lap_dense_mixed)
{
    static edges e;
    e = (edges){0};
    mixed_graph(&e, 0);
    gat_graph g;
    build(&g, &e);
    enum { K = 4, LD = 6 };
    gat_real *out = zeros((size_t)e.n * LD);
    for (size_t i = 0; i < (size_t)e.n * LD; i++) out[i] = 7; /* columns K.. stay 7 */
    gat_pe_cost cost;
    ck_assert_int_eq(gat_lap_pe(&g, K, NULL, out, LD, &cost), GAT_OK);
    const double worst = check_lap(&e, out, LD, K);
    printf("lap dense: largest projector difference %.3g\n", worst);
    ck_assert_double_lt(worst, 1e-5);
    for (gat_idx i = 0; i < e.n; i++) ck_assert_double_eq(out[(size_t)i * LD + K], 7);
    ck_assert_int_eq(cost.components, 6);
    ck_assert_int_eq(cost.dense, 5);
    ck_assert_int_eq(cost.iterative, 0);
    for (gat_idx q = 0; q < K; q++) ck_assert_double_eq(out[(size_t)14 * LD + q], 0);
    free(out);
    gat_graph_destroy(&g);
}
END_TEST

/* Two chorded rings solved by ARPACK (dense_max 0) beside the small components solved densely,
 * in one call; and the same with dsyevr everywhere. */
START_TEST(lap_arpack)
{
    static edges e;
    e = (edges){0};
    chorded_ring(&e, 0, 200, 7, 30);
    chorded_ring(&e, 200, 150, 11, 20);
    mixed_graph(&e, 350);
    gat_graph g;
    build(&g, &e);
    gat_pe_options o;
    gat_pe_options_init(&o);
    gat_real *a = zeros((size_t)e.n * 8), *b = zeros((size_t)e.n * 8);
    int tested = 0;
    for (gat_idx K = 3; K <= 8; K++) {
        o.dense_max = 0;
        gat_pe_cost cost;
        ck_assert_int_eq(gat_lap_pe(&g, K, &o, a, 8, &cost), GAT_OK);
        ck_assert_int_eq(cost.iterative, 2);
        ck_assert_int_gt(cost.matvecs, 0);
        o.dense_max = 1000;
        ck_assert_int_eq(gat_lap_pe(&g, K, &o, b, 8, &cost), GAT_OK);
        ck_assert_int_eq(cost.iterative, 0);
        /* compared against the reference at K where the rings' spectra have a gap after
         * eigenvalue K+1 (check_lap asserts it) */
        if (K != 4 && K != 6) continue;
        const double wa = check_lap(&e, a, 8, K), wb = check_lap(&e, b, 8, K);
        printf("lap K=%d: ARPACK %.3g, dsyevr %.3g (largest projector differences)\n", K, wa, wb);
        ck_assert_double_lt(wa, 1e-4);
        ck_assert_double_lt(wb, 1e-5);
        tested++;
    }
    ck_assert_int_eq(tested, 2);
    free(a), free(b);
    gat_graph_destroy(&g);
}
END_TEST

/* The random-walk encoding against dense powers of D^-1 A, K odd and even. */
START_TEST(rw_dense)
{
    static edges e;
    e = (edges){0};
    mixed_graph(&e, 0);
    chorded_ring(&e, 25, 30, 4, 10);
    gat_graph g;
    build(&g, &e);
    for (gat_idx K = 1; K <= 7; K += 3) {
        const size_t ld = (size_t)K + 2;
        gat_real *out = zeros((size_t)e.n * ld);
        double *ref = ref_rw(&e, K);
        ck_assert_int_eq(gat_rw_pe(&g, K, 0, out, ld, NULL), GAT_OK);
        double worst = 0;
        for (gat_idx i = 0; i < e.n; i++)
            for (gat_idx k = 0; k < K; k++) {
                const double d = fabs((double)out[(size_t)i * ld + k] - ref[(size_t)i * K + k]);
                if (d > worst) worst = d;
            }
        printf("rw K=%d: largest difference %.3g\n", K, worst);
        ck_assert_double_lt(worst, 1e-6);
        /* hand values: an isolated node never returns; on the edge 18-19 the walk is back
         * after every even number of steps; the star's centre after 2 steps with certainty */
        for (gat_idx k = 0; k < K; k++) {
            ck_assert_double_eq(out[14 * ld + (size_t)k], 0);
            ck_assert_double_eq_tol(out[18 * ld + (size_t)k], k % 2 ? 1 : 0, 1e-7);
        }
        if (K >= 2) ck_assert_double_eq_tol(out[20 * ld + 1], 1, 1e-7);
        free(out), free(ref);
    }
    gat_graph_destroy(&g);
}
END_TEST

/* Results are the same bits for 1, 2 and 3 threads (ARPACK's operator runs threaded above
 * 4096 nodes, the random walks per node). */
START_TEST(threads_identical)
{
    static edges e;
    e = (edges){0};
    chorded_ring(&e, 0, 6000, 97, 3000);
    gat_graph g;
    build(&g, &e);
    const size_t n = (size_t)e.n, w = 3 + 6;
    gat_pe_spec spec = {3, 6};
    gat_pe_options o;
    gat_pe_options_init(&o);
    gat_real *ref = zeros(n * w), *got = zeros(n * w);
    o.threads = 1;
    gat_pe_cost cost;
    ck_assert_int_eq(gat_pe_compute(&g, &spec, &o, ref, w, 0, &cost), GAT_OK);
    ck_assert_int_eq(cost.iterative, 1);
    for (int t = 2; t <= 3; t++) {
        o.threads = t;
        ck_assert_int_eq(gat_pe_compute(&g, &spec, &o, got, w, 0, NULL), GAT_OK);
        ck_assert_int_eq(memcmp(ref, got, n * w * sizeof *ref), 0);
    }
    free(ref), free(got);
    gat_graph_destroy(&g);
}
END_TEST

START_TEST(spec_text)
{
    gat_pe_spec s = {-5, -5};
    char buf[32];
    ck_assert_int_eq(gat_pe_spec_parse("lap:8,rw:16", &s), GAT_OK);
    ck_assert_int_eq(s.lap_k, 8);
    ck_assert_int_eq(s.rw_k, 16);
    ck_assert_int_eq(gat_pe_spec_parse("rw:3,lap:2", &s), GAT_OK);
    ck_assert_int_eq(gat_pe_spec_format(&s, buf, sizeof buf), GAT_OK);
    ck_assert_str_eq(buf, "lap:2,rw:3");
    ck_assert_int_eq(gat_pe_spec_parse("rw:64", &s), GAT_OK);
    ck_assert_int_eq(gat_pe_spec_format(&s, buf, sizeof buf), GAT_OK);
    ck_assert_str_eq(buf, "rw:64");
    const char *bad[] = {"", "lap:0", "lap:65", "lap:8,lap:2", "foo:3", "lap:x", "lap:8,",
                         "lap:", "lap:1e3", "lap:-1"};
    for (size_t k = 0; k < LEN(bad); k++) {
        s = (gat_pe_spec){9, 9};
        ck_assert_int_eq(gat_pe_spec_parse(bad[k], &s), GAT_EINVAL);
        ck_assert_int_eq(s.lap_k, 9); /* untouched on failure */
    }
    ASSERT_FAILS(gat_pe_spec_parse("lap:8,lap:2", &s), GAT_EINVAL, "given twice");
    ASSERT_FAILS(gat_pe_spec_parse("lap:99", &s), GAT_EINVAL, "1..64");
    ASSERT_FAILS(gat_pe_spec_parse(NULL, &s), GAT_EINVAL, "NULL text");
    s = (gat_pe_spec){8, 16};
    ASSERT_FAILS(gat_pe_spec_format(&s, buf, 5), GAT_EINVAL, "needs 12 bytes");
    s = (gat_pe_spec){-1, 0};
    ASSERT_FAILS(gat_pe_spec_format(&s, buf, sizeof buf), GAT_EINVAL, "lap_k = -1");
}
END_TEST

/* Flipping is a function of (seed, column), an involution, and flips some column. */
START_TEST(flip_signs)
{
    gat_real x[3 * 12], y[3 * 12];
    for (int i = 0; i < 36; i++) x[i] = y[i] = (gat_real)(i + 1);
    gat_pe_flip_signs(y, 3, 12, 2, 8, 42);
    int flipped = 0;
    for (int i = 0; i < 3; i++)
        for (int q = 0; q < 12; q++) {
            const gat_real a = x[i * 12 + q], b = y[i * 12 + q];
            if (q < 2 || q >= 10) ck_assert(a == b);
            else ck_assert(a == b || a == -b);
            if (i == 0 && a == -b) flipped++;
            ck_assert(a == -b ? y[q] == -x[q] : y[q] == x[q]); /* whole columns */
        }
    ck_assert_int_gt(flipped, 0);
    ck_assert_int_lt(flipped, 8);
    gat_pe_flip_signs(y, 3, 12, 2, 8, 42);
    ck_assert_int_eq(memcmp(x, y, sizeof x), 0);
}
END_TEST

START_TEST(bad_arguments)
{
    static edges e;
    e = (edges){0};
    mixed_graph(&e, 0);
    gat_graph g;
    build(&g, &e);
    gat_real *out = zeros((size_t)e.n * 8);
    gat_pe_options o;
    gat_pe_options_init(&o);
    ASSERT_FAILS(gat_lap_pe(NULL, 2, NULL, out, 2, NULL), GAT_EINVAL, "NULL graph g");
    ASSERT_FAILS(gat_lap_pe(&g, 2, NULL, NULL, 2, NULL), GAT_EINVAL, "NULL out");
    ASSERT_FAILS(gat_lap_pe(&g, 0, NULL, out, 2, NULL), GAT_EINVAL, "k = 0");
    ASSERT_FAILS(gat_lap_pe(&g, 65, NULL, out, 80, NULL), GAT_EINVAL, "k = 65");
    ASSERT_FAILS(gat_lap_pe(&g, 4, NULL, out, 3, NULL), GAT_EINVAL, "ld = 3");
    o.tol = -1;
    ASSERT_FAILS(gat_lap_pe(&g, 2, &o, out, 2, NULL), GAT_EINVAL, "tol = -1");
    gat_pe_options_init(&o);
    o.max_restarts = 0;
    ASSERT_FAILS(gat_lap_pe(&g, 2, &o, out, 2, NULL), GAT_EINVAL, "max_restarts = 0");
    ASSERT_FAILS(gat_rw_pe(NULL, 2, 0, out, 2, NULL), GAT_EINVAL, "NULL graph g");
    ASSERT_FAILS(gat_rw_pe(&g, 0, 0, out, 2, NULL), GAT_EINVAL, "K = 0");
    ASSERT_FAILS(gat_rw_pe(&g, 3, 0, out, 2, NULL), GAT_EINVAL, "ld = 2");
    ASSERT_FAILS(gat_rw_pe(&g, 3, -1, out, 3, NULL), GAT_EINVAL, "threads = -1");
    gat_pe_spec s = {0, 0};
    ASSERT_FAILS(gat_pe_compute(&g, &s, NULL, out, 8, 0, NULL), GAT_EINVAL, "no encoding");
    s = (gat_pe_spec){4, 4};
    ASSERT_FAILS(gat_pe_compute(&g, &s, NULL, out, 8, 1, NULL), GAT_EINVAL, "width 8");
    gat_graph empty = {0};
    ck_assert_int_eq(gat_lap_pe(&empty, 2, NULL, out, 2, NULL), GAT_OK);
    ck_assert_int_eq(gat_rw_pe(&empty, 2, 0, out, 2, NULL), GAT_OK);
    /* ARPACK held to one restart does not converge on a 200-node ring: GAT_EDEP */
    e = (edges){0};
    chorded_ring(&e, 0, 200, 7, 0);
    gat_graph ring;
    build(&ring, &e);
    gat_pe_options_init(&o);
    o.dense_max = 0;
    o.max_restarts = 1;
    o.tol = 1e-14;
    gat_real *big = zeros(200 * 8);
    ASSERT_FAILS(gat_lap_pe(&ring, 8, &o, big, 8, NULL), GAT_EDEP, "did not converge");
    free(big), free(out);
    gat_graph_destroy(&ring);
    gat_graph_destroy(&g);
}
END_TEST

/* Every allocation of each path fails in turn: GAT_ENOMEM, then success. */
START_TEST(alloc_failure)
{
    static edges e;
    e = (edges){0};
    chorded_ring(&e, 0, 60, 5, 10);
    mixed_graph(&e, 60);
    gat_graph g;
    build(&g, &e);
    gat_real *out = zeros((size_t)e.n * 8);
    gat_pe_options o;
    gat_pe_options_init(&o);
    for (int path = 0; path < 3; path++) {
        o.dense_max = path == 1 ? 0 : 512;
        long k = 0;
        for (;; k++) {
            gat_i_alloc_fail_at(k);
            const gat_status st = path < 2 ? gat_lap_pe(&g, 3, &o, out, 8, NULL)
                                           : gat_rw_pe(&g, 5, 0, out, 8, NULL);
            if (st == GAT_OK) break;
            ck_assert_int_eq(st, GAT_ENOMEM);
        }
        gat_i_alloc_fail_at(-1);
        ck_assert_int_ge(k, 2);
    }
    free(out);
    gat_graph_destroy(&g);
}
END_TEST

/* Features with encodings: x's entries, then the K encodings gat_pe_compute gives, all stored;
 * the CSR flip matches the dense one on the Laplacian columns and undoes itself. */
START_TEST(append_features)
{
    static edges e;
    e = (edges){0};
    mixed_graph(&e, 0);
    gat_graph g;
    build(&g, &e);
    const gat_idx n = e.n, F = 5, K = 5;
    gat_real *dx = zeros((size_t)n * F);
    for (gat_idx i = 0; i < n; i++)
        if (i % 3) dx[(size_t)i * F + (size_t)(i % F)] = (gat_real)(i + 1);
    gat_csr x, y;
    ck_assert_int_eq(gat_csr_from_dense(&x, n, F, dx), GAT_OK);
    const gat_pe_spec spec = {3, 2};
    gat_pe_cost cost;
    ck_assert_int_eq(gat_pe_append(&g, &x, &spec, NULL, &y, &cost), GAT_OK);
    ck_assert_int_eq(y.rows, n);
    ck_assert_int_eq(y.cols, F + K);
    ck_assert_int_eq(gat_csr_check(&y), GAT_OK);
    ck_assert_int_eq(cost.components, 6);
    gat_real *p = zeros((size_t)n * K);
    ck_assert_int_eq(gat_pe_compute(&g, &spec, NULL, p, (size_t)K, 0, NULL), GAT_OK);
    for (gat_idx i = 0; i < n; i++) {
        const gat_idx a = x.rowptr[i], b = x.rowptr[i + 1], c = y.rowptr[i];
        ck_assert_int_eq(y.rowptr[i + 1] - c, b - a + K);
        for (gat_idx t = 0; t < b - a; t++) {
            ck_assert_int_eq(y.col[c + t], x.col[a + t]);
            ck_assert(y.val[c + t] == x.val[a + t]);
        }
        for (gat_idx q = 0; q < K; q++) {
            ck_assert_int_eq(y.col[c + b - a + q], F + q);
            ck_assert(y.val[c + b - a + q] == p[(size_t)i * K + q]);
        }
    }
    /* flips of the three Laplacian columns: the dense function's, and an involution */
    gat_pe_flip_signs(p, n, (size_t)K, 0, 3, 7);
    ck_assert_int_eq(gat_pe_flip_signs_csr(&y, F, 3, 7), GAT_OK);
    int changed = 0;
    for (gat_idx i = 0; i < n; i++)
        for (gat_idx q = 0; q < K; q++) {
            const gat_idx at = y.rowptr[i + 1] - K + q;
            ck_assert(y.val[at] == p[(size_t)i * K + q]);
        }
    ck_assert_int_eq(gat_pe_flip_signs_csr(&y, F, 3, 7), GAT_OK);
    gat_pe_flip_signs(p, n, (size_t)K, 0, 3, 7);
    for (gat_idx i = 0; i < n; i++)
        for (gat_idx q = 0; q < K; q++) {
            const gat_idx at = y.rowptr[i + 1] - K + q;
            ck_assert(y.val[at] == p[(size_t)i * K + q]);
        }
    /* some seed flips some column with a non-zero entry */
    for (uint64_t seed = 1; seed < 8 && !changed; seed++) {
        gat_csr z;
        ck_assert_int_eq(gat_csr_copy(&z, &y), GAT_OK);
        gat_pe_flip_signs_csr(&z, F, 3, seed);
        for (gat_idx k = 0; k < z.rowptr[n]; k++) changed |= z.val[k] != y.val[k];
        gat_csr_destroy(&z);
    }
    ck_assert(changed);
    /* errors */
    gat_csr short_x;
    ck_assert_int_eq(gat_csr_from_dense(&short_x, n - 1, F, dx), GAT_OK);
    ASSERT_FAILS(gat_pe_append(&g, &short_x, &spec, NULL, &y, NULL), GAT_EDIM, "rows");
    ASSERT_FAILS(gat_pe_append(&g, NULL, &spec, NULL, &y, NULL), GAT_EINVAL, "NULL features x");
    const gat_pe_spec none = {0, 0};
    ASSERT_FAILS(gat_pe_append(&g, &x, &none, NULL, &y, NULL), GAT_EINVAL, "lap_k = 0");
    ASSERT_FAILS(gat_pe_flip_signs_csr(&y, F, 6, 1), GAT_EINVAL, "columns");
    ASSERT_FAILS(gat_pe_flip_signs_csr(NULL, 0, 1, 1), GAT_EINVAL, "NULL x");
    /* every allocation failing in turn */
    gat_csr_destroy(&y);
    long k = 0;
    for (;; k++) {
        gat_i_alloc_fail_at(k);
        const gat_status st = gat_pe_append(&g, &x, &spec, NULL, &y, NULL);
        if (st == GAT_OK) break;
        ck_assert_int_eq(st, GAT_ENOMEM);
    }
    gat_i_alloc_fail_at(-1);
    ck_assert_int_ge(k, 3);
    gat_csr_destroy(&y);
    gat_csr_destroy(&short_x);
    gat_csr_destroy(&x);
    free(p), free(dx);
    gat_graph_destroy(&g);
}
END_TEST

/* A model file keeps the spec (gat_model_meta.pe); a bad one is refused on save and on load. */
START_TEST(model_file_spec)
{
    gat_model_config cfg;
    gat_model_config_default(&cfg, 12, 3);
    gat_model *m = NULL, *back = NULL;
    ck_assert_int_eq(gat_model_create(&m, &cfg, 1), GAT_OK);
    char *dir = tu_tmpdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/m.safetensors", dir);
    gat_model_meta meta, got;
    gat_model_meta_init(&meta);
    ck_assert_ptr_null(meta.pe);
    meta.pe = "lap:4,rw:3";
    ck_assert_int_eq(gat_model_save(m, &meta, path), GAT_OK);
    ck_assert_int_eq(gat_model_load(&back, &got, path), GAT_OK);
    ck_assert_str_eq(got.pe, "lap:4,rw:3");
    gat_model_meta_destroy(&got);
    gat_model_free(back);
    meta.pe = "lap:4,rw:8"; /* 12 columns of 12 inputs */
    ASSERT_FAILS(gat_model_save(m, &meta, path), GAT_EINVAL, "the model only 12 inputs");
    meta.pe = "lap:x";
    ASSERT_FAILS(gat_model_save(m, &meta, path), GAT_EINVAL, "pe \"lap:x\"");
    /* a file without pe loads with NULL; one whose pe text is damaged is refused */
    meta.pe = NULL;
    ck_assert_int_eq(gat_model_save(m, &meta, path), GAT_OK);
    ck_assert_int_eq(gat_model_load(&back, &got, path), GAT_OK);
    ck_assert_ptr_null(got.pe);
    gat_model_meta_destroy(&got);
    gat_model_free(back);
    meta.pe = "lap:4";
    ck_assert_int_eq(gat_model_save(m, &meta, path), GAT_OK);
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    char head[4096];
    const size_t got_n = fread(head, 1, sizeof head, f);
    char *at = NULL;
    for (size_t b = 0; b + 5 <= got_n && !at; b++)
        if (!memcmp(head + b, "lap:4", 5)) at = head + b;
    ck_assert_ptr_nonnull(at);
    at[4] = 'y';
    fseek(f, at - head, SEEK_SET);
    fwrite(at, 1, 5, f);
    fclose(f);
    ASSERT_FAILS(gat_model_load(&back, &got, path), GAT_EFORMAT, "lap:y");
    ck_assert_ptr_null(back);
    gat_model_free(m);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("encode");
    TCase *tc = tcase_create("laplacian");
    tcase_add_test(tc, lap_dense_mixed);
    tcase_add_test(tc, lap_arpack);
    suite_add_tcase(s, tc);
    tc = tcase_create("random_walk");
    tcase_add_test(tc, rw_dense);
    suite_add_tcase(s, tc);
    tc = tcase_create("threads");
    tcase_add_test(tc, threads_identical);
    suite_add_tcase(s, tc);
    tc = tcase_create("spec");
    tcase_add_test(tc, spec_text);
    tcase_add_test(tc, flip_signs);
    suite_add_tcase(s, tc);
    tc = tcase_create("features");
    tcase_add_test(tc, append_features);
    tcase_add_test(tc, model_file_spec);
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, alloc_failure);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(suite());
}
