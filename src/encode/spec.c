/* gat/encode.h: the encoding spec ("lap:K,rw:K") in text, both encodings into one matrix and the
 * per-column sign flip. */
#include "encode_i.h"
#include "core/core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One "name:K" part of length len at p into *k (seen once). */
static gat_status parse_part(const char *text, const char *p, size_t len, gat_pe_spec *sp)
{
    gat_idx *slot = NULL;
    size_t name = 0;
    if (len > 4 && !strncmp(p, "lap:", 4)) slot = &sp->lap_k, name = 4;
    else if (len > 3 && !strncmp(p, "rw:", 3)) slot = &sp->rw_k, name = 3;
    if (!slot)
        return gat_i_error(GAT_EINVAL, "gat_pe_spec_parse: '%.*s' in '%s' is not lap:K or rw:K",
                           (int)len, p, text);
    if (*slot)
        return gat_i_error(GAT_EINVAL, "gat_pe_spec_parse: '%.*s' given twice in '%s'",
                           (int)name - 1, p, text);
    long v = 0;
    for (size_t c = name; c < len; c++) {
        if (p[c] < '0' || p[c] > '9' || v > GAT_PE_MAX_K) {
            v = -1;
            break;
        }
        v = v * 10 + (p[c] - '0');
    }
    if (v < 1 || v > GAT_PE_MAX_K)
        return gat_i_error(GAT_EINVAL, "gat_pe_spec_parse: K in '%.*s' of '%s' must be an "
                           "integer in 1..%d", (int)len, p, text, GAT_PE_MAX_K);
    *slot = (gat_idx)v;
    return GAT_OK;
}

gat_status gat_pe_spec_parse(const char *text, gat_pe_spec *out)
{
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_pe_spec_parse", 2, (const void *[]){text, out},
                               (const char *[]){"text", "out"})) != GAT_OK)
        return st;
    gat_pe_spec sp = {0, 0};
    const char *p = text;
    for (;;) {
        const char *end = strchr(p, ',');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        if ((st = parse_part(text, p, len, &sp)) != GAT_OK) return st;
        if (!end) break;
        p = end + 1;
    }
    *out = sp;
    return GAT_OK;
}

static gat_status check_spec(const char *fn, const gat_pe_spec *spec)
{
    if (spec->lap_k < 0 || spec->lap_k > GAT_PE_MAX_K || spec->rw_k < 0 ||
        spec->rw_k > GAT_PE_MAX_K)
        return gat_i_error(GAT_EINVAL, "%s: spec lap_k = %d, rw_k = %d, expected 0..%d each", fn,
                           spec->lap_k, spec->rw_k, GAT_PE_MAX_K);
    return GAT_OK;
}

gat_status gat_pe_spec_format(const gat_pe_spec *spec, char *buf, size_t size)
{
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_pe_spec_format", 2, (const void *[]){spec, buf},
                               (const char *[]){"spec", "buf"})) != GAT_OK)
        return st;
    if ((st = check_spec("gat_pe_spec_format", spec)) != GAT_OK) return st;
    char tmp[32] = "";
    int m = 0;
    if (spec->lap_k) m += snprintf(tmp + m, sizeof tmp - (size_t)m, "lap:%d", spec->lap_k);
    if (spec->rw_k)
        m += snprintf(tmp + m, sizeof tmp - (size_t)m, "%srw:%d", m ? "," : "", spec->rw_k);
    if ((size_t)m >= size)
        return gat_i_error(GAT_EINVAL, "gat_pe_spec_format: '%s' needs %d bytes, buf has %zu",
                           tmp, m + 1, size);
    memcpy(buf, tmp, (size_t)m + 1);
    return GAT_OK;
}

gat_status gat_pe_compute(const gat_graph *g, const gat_pe_spec *spec, const gat_pe_options *opt,
                          gat_real *out, size_t width, size_t col, gat_pe_cost *cost)
{
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_pe_compute", 3, (const void *[]){g, spec, out},
                               (const char *[]){"graph g", "spec", "out"})) != GAT_OK)
        return st;
    if ((st = check_spec("gat_pe_compute", spec)) != GAT_OK) return st;
    if (!spec->lap_k && !spec->rw_k)
        return gat_i_error(GAT_EINVAL, "gat_pe_compute: the spec asks for no encoding");
    const size_t need = col + (size_t)spec->lap_k + (size_t)spec->rw_k;
    if (width < need)
        return gat_i_error(GAT_EINVAL, "gat_pe_compute: width %zu < column %zu + %d + %d", width,
                           col, spec->lap_k, spec->rw_k);
    gat_pe_cost a = {0}, b = {0};
    if (spec->lap_k && (st = gat_lap_pe(g, spec->lap_k, opt, out + col, width, &a)) != GAT_OK)
        return st;
    const int threads = opt ? opt->threads : 0;
    if (spec->rw_k &&
        (st = gat_rw_pe(g, spec->rw_k, threads, out + col + (size_t)spec->lap_k, width, &b)) !=
            GAT_OK)
        return st;
    if (cost)
        *cost = (gat_pe_cost){.seconds = a.seconds + b.seconds,
                              .bytes = a.bytes > b.bytes ? a.bytes : b.bytes,
                              .components = a.components, .dense = a.dense,
                              .iterative = a.iterative, .matvecs = a.matvecs};
    return GAT_OK;
}

void gat_pe_flip_signs(gat_real *x, gat_idx n, size_t width, size_t col, size_t n_cols,
                       uint64_t seed)
{
    if (!x || n <= 0) return;
    for (size_t q = 0; q < n_cols; q++) {
        if (!(gat_i_hash64(seed, q) & 1)) continue;
        for (gat_idx i = 0; i < n; i++) x[(size_t)i * width + col + q] = -x[(size_t)i * width + col + q];
    }
}
