/* The sizes a graph file declares, checked before anything is allocated for them: vertex numbers
 * of edge lists, the counts of DIMACS and Pajek headers, against the index type and the file
 * size. */
#include "io/graphfile_i.h"
#include "core/core.h"
#include "io/fileio.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The largest vertex number field s can stand for: the largest run of digits in it, or its value
 * if it reads whole as a number (igraph's Pajek and DIMACS parsers take "1e9"); saturates at
 * INT64_MAX / 10. Over-estimates are harmless: they only trip the features-file bound below. */
static int64_t id_value(const char *s)
{
    int64_t best = -1;
    char *end;
    const double d = strtod(s, &end);
    if (end != s && !*end && d >= 0)
        best = d < (double)(INT64_MAX / 10) ? (int64_t)d : INT64_MAX / 10;
    for (const char *p = s; *p;) {
        if (*p < '0' || *p > '9') {
            p++;
            continue;
        }
        int64_t x = 0;
        for (; *p >= '0' && *p <= '9'; p++)
            x = x < INT64_MAX / 100 ? x * 10 + (*p - '0') : INT64_MAX / 10;
        if (x > best) best = x;
    }
    return best;
}

/* scanf's %ld on b[*at..len) as glibc does it: white space skipped (across line ends), an
 * optional sign, digits; the value saturates at INT64_MAX / 10. On failure the white space and
 * the sign stay consumed. Returns 0 (nothing converted: scanf would fail) or 1. */
static int scan_long(const char *b, size_t len, size_t *at, int64_t *v)
{
    size_t p = *at;
    int neg = 0;
    while (p < len && isspace((unsigned char)b[p]))
        p++;
    if (p < len && (b[p] == '+' || b[p] == '-')) neg = b[p++] == '-';
    *at = p;
    if (p >= len || b[p] < '0' || b[p] > '9') return 0;
    int64_t x = 0;
    for (; p < len && b[p] >= '0' && b[p] <= '9'; p++)
        x = x < INT64_MAX / 100 ? x * 10 + (b[p] - '0') : INT64_MAX / 10;
    *v = neg ? -x : x;
    *at = p;
    return 1;
}

/* scanf's %Ns (max == N) or %lf, as far as where it stops matters: white space skipped (across
 * line ends), then up to max characters of the next word (a number's conversion stops inside
 * the word at the latest; igraph then skips to the line end, which is the same line end).
 * Returns 0 at the end of the input. */
static int scan_word(const char *b, size_t len, size_t *at, size_t max, const char **word,
                     size_t *n)
{
    size_t p = *at;
    while (p < len && isspace((unsigned char)b[p]))
        p++;
    *word = b + p;
    for (*n = 0; *n < max && p < len && !isspace((unsigned char)b[p]); p++)
        ++*n;
    *at = p;
    return *n > 0;
}

/* What igraph 0.10's DIMACS reader (igraph_read_graph_dimacs_flow) takes from a file, found by
 * repeating its scanf calls on the bytes: per line, two characters ("%2c"), then by the first:
 * "p" the problem ("%20s %ld %ld": name, vertex count N, edge count M), "n" a node ("%ld %1s"
 * in max problems, "%ld %ld" else), "a" an arc ("%ld %ld %lf"), "e" an edge ("%ld %ld"), "c"
 * nothing; then the rest of the line is skipped. Conversions skip white space across line ends,
 * so a field may sit on the next line, and then igraph skips the rest of that line. The scan
 * stops where igraph surely fails (unknown line type, a missing field, a second "p" line) and
 * goes on where it may not, so it never misses what igraph reads. igraph creates max(N, the
 * largest arc or edge endpoint) vertices (numbered from 1) and reserves room for M edges. */
typedef struct dimacs_counts {
    int64_t vertices; /* that vertex count; -1 if the file gives none */
    int64_t edges;    /* M of the "p" line; -1 without one */
    long edges_line;  /* the line of the "p" line */
} dimacs_counts;

static void dimacs_scan(const char *b, size_t len, dimacs_counts *out)
{
    enum { NONE, EDGE, MAX } problem = NONE;
    size_t at = 0;
    out->vertices = out->edges = -1;
    out->edges_line = 0;
    while (at + 2 <= len) {
        const size_t start = at;
        const char kind = b[at];
        const char *w;
        size_t wn;
        int64_t v[2];
        at += 2;
        if (kind == 'p') {
            if (problem != NONE || !scan_word(b, len, &at, 20, &w, &wn) ||
                !scan_long(b, len, &at, &v[0]) || !scan_long(b, len, &at, &v[1]))
                return;
            if (v[0] > out->vertices) out->vertices = v[0];
            out->edges = v[1];
            out->edges_line = 1;
            for (size_t k = 0; k < start; k++)
                out->edges_line += b[k] == '\n';
            problem = wn == 3 && !memcmp(w, "max", 3) ? MAX : EDGE;
        } else if (kind == 'n') {
            if (!scan_long(b, len, &at, &v[0])) return;
            if (problem == MAX) {
                if (!scan_word(b, len, &at, 1, &w, &wn)) return;
            } else {
                scan_long(b, len, &at, &v[1]); /* optional: only the first must convert */
            }
        } else if (kind == 'a' || kind == 'e') {
            if (!scan_long(b, len, &at, &v[0]) || !scan_long(b, len, &at, &v[1])) return;
            if (kind == 'a' && !scan_word(b, len, &at, SIZE_MAX, &w, &wn)) return;
            for (int k = 0; k < 2; k++)
                if (v[k] > out->vertices) out->vertices = v[k];
        } else if (kind != 'c') {
            return;
        }
        while (at < len && b[at++] != '\n')
            continue;
    }
}

/* The shortest text an edge of a DIMACS file takes: an "e" line ("e", a separator, two numbers
 * with white space between them, a line end) has at least 6 bytes, an "a" line more. */
#define DIMACS_MIN_EDGE_BYTES 6

/* Pajek sections, from the "*word" line that opens them. */
enum { PAJEK_OTHER, PAJEK_VERTICES, PAJEK_PAIRS, PAJEK_LISTS };

/* The vertex count that the graph file declares or implies through its vertex numbers (pajek:
 * "*Vertices N", vertex lines and edge/arc endpoints, from 1; dimacs: dimacs_scan), read before
 * igraph allocates that many vertices; -1 for formats that list their vertices (lgl, graphml,
 * gml), whose count the file's size bounds. Edge tables (edgelist, ncol, csv) are read by
 * graphfile_edges.c, which checks its own count. For dimacs also *dc, the counts of its header,
 * and *bytes, the file's size. */
static gat_status declared_vertices(const read_ctx *c, const char *path, int64_t *n,
                                    dimacs_counts *dc, size_t *bytes)
{
    gat_i_text t = {0};
    unsigned char *raw;
    int section = PAJEK_OTHER;
    gat_status st;
    *n = -1;
    if (c->fmt != GAT_GRAPH_FORMAT_PAJEK && c->fmt != GAT_GRAPH_FORMAT_DIMACS) return GAT_OK;
    /* the bytes as igraph sees them (no gzip inflation), cut into fields by the text reader */
    if ((st = gat_i_read_file(path, &raw, &t.len)) != GAT_OK) return st;
    *bytes = t.len;
    t.path = path;
    t.buf = (char *)raw;
    if (c->fmt == GAT_GRAPH_FORMAT_DIMACS) {
        dimacs_scan(t.buf, t.len, dc);
        *n = dc->vertices;
        gat_i_text_free(&t);
        return GAT_OK;
    }
    /* igraph reads past NUL bytes and splits at any white space: so do we, here */
    for (size_t k = 0; k < t.len; k++)
        if ((unsigned char)t.buf[k] < 0x20 && t.buf[k] != '\n') t.buf[k] = ' ';
    while ((st = gat_i_text_next(&t)) == GAT_OK && t.n_fields > 0) {
        size_t last = 0;    /* fields [0, last) hold vertex numbers */
        int64_t count = -1; /* a declared count */
        const char *f0 = t.field[0];
        if (f0[0] == '*') {
            section = !strcasecmp(f0, "*vertices")                            ? PAJEK_VERTICES
                      : !strcasecmp(f0, "*edges") || !strcasecmp(f0, "*arcs") ? PAJEK_PAIRS
                      : !strcasecmp(f0, "*edgeslist") || !strcasecmp(f0, "*arcslist") ? PAJEK_LISTS
                                                                                      : PAJEK_OTHER;
            if (section == PAJEK_VERTICES && t.n_fields >= 2) count = id_value(t.field[1]);
        } else {
            last = section == PAJEK_VERTICES ? 1
                   : section == PAJEK_PAIRS  ? 2
                   : section == PAJEK_LISTS  ? t.n_fields
                                             : 0;
        }
        if (last > t.n_fields) last = t.n_fields;
        for (size_t k = 0; k < last; k++) {
            const int64_t v = id_value(t.field[k]); /* vertices 1..v */
            if (v >= 0 && v > count) count = v;
        }
        if (count > *n) *n = count;
    }
    gat_i_text_free(&t);
    return st;
}

/* The counts a graph file declares, checked before igraph allocates for them. A DIMACS header's
 * edge count must fit the file's size (igraph reserves room for that many edges: "p max 4
 * 444444441" would ask for gigabytes); the vertex count as gat_i_gf_check_vertices says. */
gat_status gat_i_gf_check_counts(const read_ctx *c, const features *F, const char *path)
{
    int64_t n;
    dimacs_counts dc = {.vertices = -1, .edges = -1};
    size_t bytes = 0;
    gat_status st = declared_vertices(c, path, &n, &dc, &bytes);
    if (st != GAT_OK) return st;
    if (dc.edges > 0 && (uint64_t)dc.edges > (bytes + 1) / DIMACS_MIN_EDGE_BYTES)
        return gat_i_error(GAT_EFORMAT,
                           "%s:%ld: header declares %lld edges, more than a file of %zu bytes "
                           "can hold",
                           path, dc.edges_line, (long long)dc.edges, bytes);
    return gat_i_gf_check_vertices(F, path, n, bytes, 0);
}

/* With a features file F, every vertex needs a features line, so a graph file declaring more
 * vertices than F has lines fails (a few bytes of "*Vertices 2000000000" would otherwise ask for
 * gigabytes). Without one, every vertex becomes a one-hot node, and a vertex count the file's own
 * size cannot justify is refused: more vertices than the file has bytes (a real graph names
 * nearly all its vertices, each in two bytes or more; "0 1999999999" alone asked for 20 GiB and
 * minutes). Isolated vertices beyond that need a features file, whose lines declare them. */
gat_status gat_i_gf_check_vertices(const features *F, const char *path, int64_t n, size_t bytes,
                                   int numbered)
{
    if (!F) {
        if (n <= (int64_t)bytes) return GAT_OK;
        return gat_i_error(GAT_EFORMAT,
                           "%s: implies %lld vertices, more than a file of %zu bytes can name "
                           "(each would become a one-hot node); give a features file to declare "
                           "isolated vertices",
                           path, (long long)n, bytes);
    }
    if (n <= F->x.rows) return GAT_OK;
    if (!numbered)
        return gat_i_error(GAT_EFORMAT,
                           "%s: declares %lld vertices but %s has %d lines: every vertex needs "
                           "its features",
                           path, (long long)n, F->t.path, F->x.rows);
    /* vertices are named by their numbers 0..n-1: name the first one without a line */
    unsigned char *has = gat_calloc((size_t)F->x.rows + 1, 1);
    int64_t missing = 0;
    if (!has) return GAT_ENOMEM;
    for (gat_idx r = 0; r < F->x.rows; r++) {
        const int64_t v = gat_i_gf_parse_count(F->ids[r], (int64_t)F->x.rows + 1);
        if (v >= 0) has[v] = 1;
    }
    while (has[missing])
        missing++;
    gat_free(has);
    return gat_i_error(GAT_EFORMAT,
                       "%s: no line for node '%lld' (every vertex of %s needs its "
                       "features)",
                       F->t.path, (long long)missing, path);
}
