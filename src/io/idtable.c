/* The one reader of tables keyed by node id (split and labels files; rules in io/idtable.h). */
#include "io/idtable.h"
#include "core/core.h"
#include "data/data_i.h"

#include <errno.h>
#include <string.h>

gat_status gat_i_idtable_open(gat_i_idtable *r, const char *path, size_t max_line, int *errnum,
                              const gat_i_strmap *nodes, char *const *ids, gat_idx n,
                              const char *known, const char *value)
{
    memset(r, 0, sizeof *r);
    *errnum = 0;
    r->nodes = nodes;
    r->ids = ids;
    r->known = known;
    r->value = value;
    if (!(r->line_of = gat_calloc((size_t)n, sizeof *r->line_of))) return GAT_ENOMEM;
    gat_status st = gat_i_text_load(&r->t, path, max_line, errnum);
    r->t.csv = gat_i_text_csv_name(path);
    return st;
}

gat_status gat_i_idtable_next(gat_i_idtable *r, gat_idx *node, char **value)
{
    gat_i_text *t = &r->t;
    gat_status st;
    *node = -1;
    *value = NULL;
    gat_idx i = -1;
    for (;;) {
        while ((st = gat_i_text_row(t)) == GAT_OK && t->n_fields > 0 && t->field[0][0] == '#')
            continue;
        if (st != GAT_OK || t->n_fields == 0) return st;
        i = *gat_i_strmap_slot(r->nodes, r->ids, t->field[0]);
        if (!(r->rows++ == 0 && t->csv && i < 0)) break; /* a CSV header ("id,label") */
    }
    if (t->n_fields != 2)
        return gat_i_error(GAT_EFORMAT, "%s:%ld: expected 2 fields (node id, %s), found %zu",
                           t->path, t->line, r->value, t->n_fields);
    if (i < 0)
        return gat_i_error(GAT_EFORMAT, "%s:%ld:%ld: unknown node id '%s' (not %s)", t->path,
                           t->line, gat_i_text_column(t, 0), t->field[0], r->known);
    if (r->line_of[i])
        return gat_i_error(GAT_EFORMAT, "%s:%ld: node '%s' is listed twice (first on line %ld)",
                           t->path, t->line, t->field[0], r->line_of[i]);
    r->line_of[i] = t->line;
    *node = i;
    *value = t->field[1];
    return GAT_OK;
}

void gat_i_idtable_close(gat_i_idtable *r)
{
    gat_i_text_free(&r->t);
    gat_free(r->line_of);
    memset(r, 0, sizeof *r);
}

gat_status gat_i_split_table_read(uint8_t *split, const char *path, size_t max_line, int *absent,
                                  const gat_i_strmap *nodes, char *const *ids, gat_idx n,
                                  const char *known, const gat_idx *label, const char *labels_path)
{
    gat_i_idtable r;
    gat_idx i;
    char *word;
    int errnum;
    gat_status st =
        gat_i_idtable_open(&r, path, max_line, &errnum, nodes, ids, n, known, "train|val|test");

    if (absent) *absent = st == GAT_EIO && errnum == ENOENT;
    if (absent && *absent) {
        gat_i_clear_error();
        st = GAT_OK;
        goto cleanup;
    }
    while (st == GAT_OK && (st = gat_i_idtable_next(&r, &i, &word)) == GAT_OK && i >= 0) {
        const uint8_t v = gat_i_split_value(word);
        if (v == GAT_SPLIT_NONE)
            st = gat_i_error(GAT_EFORMAT,
                             "%s:%ld:%ld: unknown split '%s' (expected train, val or test)", path,
                             r.t.line, gat_i_text_column(&r.t, 1), word);
        else if (!label || label[i] < 0)
            st = gat_i_error(GAT_EFORMAT,
                             "%s:%ld: node '%s' is in the %s split but has no label%s%s", path,
                             r.t.line, r.t.field[0], word, labels_path ? " in " : "",
                             labels_path ? labels_path : " (no labels file)");
        else
            split[i] = v;
    }
cleanup:
    gat_i_idtable_close(&r);
    return st;
}
