/* What gat_dataset_load says about a path that exists but is in no layout it reads: for one of a
 * dataset's own files (cora/cora.cites, MUTAG/MUTAG_A.txt, ind.cora.graph, out1_graph_edges.txt)
 * the dataset to name instead, and for a directory that holds datasets (the folder of Planetoid
 * pickles, of TU sets, of .npz files) the ones it holds. Probes only: stat, and the first bytes
 * of a file (the readers' own sniffs). */
#include "core/core.h"
#include "io/dataset_i.h"
#include "io/graphsage.h"
#include "io/npz.h"
#include "io/planetoid.h"
#include "io/tu.h"
#include "io/ogb.h"
#include "io/wikics.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The most names a directory's message lists; the rest are counted. */
#define LISTED 6

static int is_file(const char *p, const char *suffix)
{
    char b[4096];
    struct stat sb;
    const int w = snprintf(b, sizeof b, "%s%s", p, suffix);
    return w > 0 && (size_t)w < sizeof b && stat(b, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Whether p names a dataset in a layout gat_dataset_load reads (its dispatch, as probes). */
static int is_dataset(const char *p)
{
    char base[4096];
    struct stat sb;
    if (is_file(p, ".content") || is_file(p, ".content.gz") || gat_i_planetoid_is(p) ||
        gat_i_graphsage_is(p) || gat_i_tu_is(p) || gat_i_wikics_is(p))
        return 1;
    if (stat(p, &sb) != 0) return 0;
    if (S_ISREG(sb.st_mode)) return gat_i_datafile_is(p) || gat_i_npz_is(p);
    /* a directory D: Geom-GCN's files, or D/NAME.content[.gz] */
    return gat_i_geomgcn_is(p) || gat_i_ogb_is(p) ||
           (gat_i_path_prefix(p, "", base, sizeof base) &&
            (is_file(base, ".content") || is_file(base, ".content.gz")));
}

/* The dataset a file of it names, into out (size bytes): the longest prefix of path ending before
 * a '.', '_' or '-' of its last component that is a dataset (cora.cites -> cora,
 * ind.cora.test.index -> ind.cora, MUTAG_graph_indicator.txt -> MUTAG, ppi-G.json -> ppi): 1;
 * else, with parent, its directory when that is one (out1_graph_edges.txt): 2; else 0. */
static int dataset_of_file(const char *path, int parent, char *out, size_t size)
{
    const size_t len = strlen(path);
    size_t name = len;
    while (name > 0 && path[name - 1] != '/')
        name--;
    if (len >= size) return 0;
    memcpy(out, path, len + 1);
    for (size_t k = len; k > name + 1; k--) {
        if (path[k - 1] != '.' && path[k - 1] != '_' && path[k - 1] != '-') continue;
        out[k - 1] = '\0';
        if (is_dataset(out)) return 1;
        out[k - 1] = path[k - 1];
    }
    if (!parent || name == 0) return 0;
    const size_t d = name > 1 ? name - 1 : 1; /* "/x": the root */
    memcpy(out, path, d);
    out[d] = '\0';
    return is_dataset(out) ? 2 : 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the datasets dir holds, each once, sorted into *names (*count of them), named
 * relative to dir: its entries that are datasets, and the datasets its files are of. */
static gat_status datasets_in(const char *dir, char ***names, size_t *count)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[4096], ds[4096];
    size_t n = 0, cap = 0;
    char **v = NULL;
    gat_status st = GAT_OK;
    *names = NULL;
    *count = 0;
    if (!d) return GAT_OK; /* unreadable: nothing to list, the message says what it is */
    const size_t dl = strlen(dir);
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        const int w =
            snprintf(p, sizeof p, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", e->d_name);
        if (w < 0 || (size_t)w >= sizeof p) continue;
        const char *found = is_dataset(p) ? p : dataset_of_file(p, 0, ds, sizeof ds) ? ds : NULL;
        if (!found) continue;
        if (n == cap) {
            char **g = gat_realloc(v, cap = cap ? 2 * cap : 16, sizeof *v);
            if (!g) {
                st = GAT_ENOMEM;
                break;
            }
            v = g;
        }
        if (!(v[n] = gat_strdup(found + (size_t)w - strlen(e->d_name)))) {
            st = GAT_ENOMEM;
            break;
        }
        n++;
    }
    closedir(d);
    if (n) qsort(v, n, sizeof *v, by_name);
    size_t u = 0;
    for (size_t k = 0; k < n; k++) {
        if (u && !strcmp(v[u - 1], v[k]))
            gat_free(v[k]);
        else
            v[u++] = v[k];
    }
    *names = v;
    *count = u;
    return st;
}

gat_status gat_i_dataset_unknown(const char *fn, const char *path)
{
    static const char layouts[] =
        "NAME.content[.gz] and NAME.cites, a .gatd or .npz file, Planetoid's ind.NAME.*, "
        "a TU set's NAME_A.txt, a Geom-GCN directory, GraphSAGE's NAME-G.json, WikiCS's data.json, "
        "an OGB directory (raw/edge.csv.gz)";
    struct stat sb;
    char ds[4096];
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        const int of = dataset_of_file(path, 1, ds, sizeof ds);
        if (of)
            return gat_i_error(GAT_EINVAL, "%s: '%s' is %s the dataset '%s': name the dataset", fn,
                               path, of == 1 ? "one of the files of" : "a file in the directory of",
                               ds);
        return gat_i_error(GAT_EFORMAT,
                           "%s: '%s' is a file in no dataset layout libgat reads "
                           "(%s)",
                           fn, path, layouts);
    }
    char **names;
    size_t n;
    gat_status st = datasets_in(path, &names, &n);
    if (st == GAT_OK) {
        char list[256] = "";
        size_t at = 0;
        for (size_t k = 0; k < n && k < LISTED; k++) {
            const int w = snprintf(list + at, sizeof list - at, "%s%s", k ? ", " : "", names[k]);
            if (w < 0 || (size_t)w >= sizeof list - at) break;
            at += (size_t)w;
        }
        if (n > LISTED) snprintf(list + at, sizeof list - at, " and %zu more", n - LISTED);
        if (n)
            st = gat_i_error(GAT_EINVAL,
                             "%s: the directory '%s' is no dataset but holds %zu: %s "
                             "(name one of them: %s/%s)",
                             fn, path, n, list, path, names[0]);
        else
            st = gat_i_error(GAT_EFORMAT,
                             "%s: the directory '%s' holds no dataset in a layout "
                             "libgat reads (%s)",
                             fn, path, layouts);
    }
    for (size_t k = 0; k < n; k++)
        gat_free(names[k]);
    gat_free(names);
    return st;
}
