/* Fuzz target: model files (gat_model_load, and gat_gps_load for graph transformers): the 8-byte
 * header length, the JSON header with its __metadata__ configuration and tensor table, and the
 * data. The input is the file; both loaders read it, and gat_model_file_is_gps must not contradict
 * the one that accepts it. A loaded model must have finite parameters, run on a small graph and
 * save again; a failure must be a documented status with a message. The same file is read as a
 * training checkpoint (gat_train_checkpoint_history: its state and epoch rows) too. */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The graph transformer's half: the file read by gat_gps_load. */
static void fuzz_gps(const char *path)
{
    gat_gps *m = NULL;
    gat_model_meta meta;
    int gps = -1;
    const gat_status kind = gat_model_file_is_gps(path, &gps);
    gat_status st = gat_gps_load(&m, &meta, path);
    if (st != GAT_OK) {
        FUZZ_CHECK(m == NULL);
        fuzz_check_failure(st, NULL, 0);
        FUZZ_CHECK(meta.n_classes == 0 && !meta.class_names && !meta.dataset && !meta.version);
        return;
    }
    FUZZ_CHECK(kind == GAT_OK && gps == 1);
    size_t P;
    const gat_real *p = gat_gps_params(m, &P);
    for (size_t k = 0; k < P; k++)
        FUZZ_CHECK(isfinite(p[k]));
    const gat_gps_config *cfg = gat_gps_get_config(m);
    FUZZ_CHECK(gat_gps_config_check(cfg) == GAT_OK);
    FUZZ_CHECK(meta.n_classes == 0 || meta.n_classes == cfg->classes);
    if (cfg->in_features <= 4096 && P <= (1u << 20)) {
        gat_graph g;
        gat_csr x;
        const gat_idx src[2] = {0, 1}, dst[2] = {1, 2};
        const gat_idx rowptr[4] = {0, 1, 2, 3}, col[3] = {0, 0, 0}, seg[2] = {0, 3};
        FUZZ_CHECK(gat_graph_from_edges(&g, 3, 2, src, dst, GAT_GRAPH_SYMMETRIZE) == GAT_OK);
        FUZZ_CHECK(gat_csr_from_arrays(&x, 3, cfg->in_features, rowptr, col, NULL) == GAT_OK);
        gat_gps_set_threads(m, 1);
        const gat_real *logits;
        FUZZ_CHECK(gat_gps_forward(m, &g, &x, 1, seg, 0, &logits) == GAT_OK);
        gat_csr_destroy(&x);
        gat_graph_destroy(&g);
    }
    FUZZ_CHECK(gat_gps_save(m, &meta, fuzz_path(1, "copy.gat")) == GAT_OK);
    gat_gps_free(m);
    gat_model_meta_destroy(&meta);
}

/* The checkpoint's half: its epoch rows, numbered 1, 2, ... with a best epoch among them. */
static void fuzz_checkpoint(const char *path)
{
    gat_epoch_info *rows = NULL;
    size_t n = 1;
    gat_status st = gat_train_checkpoint_history(path, &rows, &n);
    if (st != GAT_OK) {
        FUZZ_CHECK(rows == NULL && n == 0);
        fuzz_check_failure(st, NULL, 0);
        return;
    }
    FUZZ_CHECK(n == 0 || rows != NULL);
    for (size_t k = 0; k < n; k++)
        FUZZ_CHECK(rows[k].epoch == (gat_idx)(k + 1) && rows[k].best_epoch >= 0 &&
                   rows[k].best_epoch <= rows[k].epoch);
    free(rows);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gat_model *m = NULL;
    gat_model_meta meta;
    const char *path = fuzz_path(0, "m.gat");
    fuzz_write(path, data, size);
    fuzz_gps(path);
    fuzz_checkpoint(path);
    gat_status st = gat_model_load(&m, &meta, path);
    if (st != GAT_OK) {
        FUZZ_CHECK(m == NULL);
        fuzz_check_failure(st, NULL, 0);
        FUZZ_CHECK(meta.n_classes == 0 && !meta.class_names && !meta.dataset && !meta.version);
        return 0;
    }
    size_t P;
    const gat_real *p = gat_model_params(m, &P);
    for (size_t k = 0; k < P; k++)
        FUZZ_CHECK(isfinite(p[k]));
    const gat_model_config *cfg = gat_model_get_config(m);
    FUZZ_CHECK(gat_model_config_check(cfg) == GAT_OK);
    FUZZ_CHECK(meta.n_classes == 0 || meta.n_classes == cfg->classes);
    /* a 3-node path graph with one-hot-ish features, if the model is small enough to run */
    if (cfg->in_features <= 4096 && P <= (1u << 20)) {
        gat_graph g;
        gat_csr x;
        const gat_idx src[2] = {0, 1}, dst[2] = {1, 2};
        const gat_idx rowptr[4] = {0, 1, 2, 3}, col[3] = {0, 0, 0};
        FUZZ_CHECK(gat_graph_from_edges(&g, 3, 2, src, dst, GAT_GRAPH_SYMMETRIZE) == GAT_OK);
        FUZZ_CHECK(gat_csr_from_arrays(&x, 3, cfg->in_features, rowptr, col, NULL) == GAT_OK);
        gat_model_set_threads(m, 1);
        const gat_real *logits;
        FUZZ_CHECK(gat_model_forward(m, &g, &x, 0, &logits) == GAT_OK);
        gat_csr_destroy(&x);
        gat_graph_destroy(&g);
    }
    st = gat_model_save(m, &meta, fuzz_path(1, "copy.gat"));
    FUZZ_CHECK(st == GAT_OK);
    gat_model_free(m);
    gat_model_meta_destroy(&meta);
    return 0;
}
