/* A first libgat program, written from the installed <gat/gat.h> and the README only: a graph
 * from an edge list, dense features, labels, a training run, and the embeddings back.
 * Build: cc minimal.c $(pkg-config --cflags --libs gat) */
#include <gat/gat.h>

#include <stdio.h>

enum { N = 12, M = 16, F = 3 };

int main(void)
{
    /* two triangles-of-triangles joined by one edge; class 0 is nodes 0..5, class 1 is 6..11 */
    const gat_idx src[M] = {0, 1, 2, 3, 4, 5, 0, 3, 6, 7, 8, 9, 10, 11, 6, 5};
    const gat_idx dst[M] = {1, 2, 0, 4, 5, 3, 3, 1, 7, 8, 6, 10, 11, 9, 9, 6};
    gat_real features[N * F];
    gat_idx labels[N];
    uint8_t split[N];
    for (int i = 0; i < N; i++) {
        labels[i] = i < 6 ? 0 : 1;
        features[i * F + 0] = (gat_real)(labels[i] == 0);
        features[i * F + 1] = (gat_real)(labels[i] == 1);
        features[i * F + 2] = (gat_real)(i % 2);
        split[i] = i % 3 == 0 ? GAT_SPLIT_TRAIN : i % 3 == 1 ? GAT_SPLIT_VAL : GAT_SPLIT_TEST;
    }

    gat_graph g = {0};
    gat_csr x = {0};
    gat_dataset ds = {0};
    gat_model *model = NULL;
    gat_real embedding[N * 64];
    int rc = 1;
    if (gat_graph_from_edges(&g, N, M, src, dst, GAT_GRAPH_SYMMETRIZE) != GAT_OK ||
        gat_csr_from_dense(&x, N, F, features) != GAT_OK)
        goto done;
    gat_dataset_parts parts = {
        .graph = &g, .features = &x, .labels = labels, .n_classes = 2, .split = split};
    if (gat_dataset_from_parts(&ds, &parts, NULL) != GAT_OK) goto done;

    gat_model_config cfg;
    gat_model_config_default(&cfg, ds.n_features, ds.n_classes);
    gat_train_config tc;
    gat_train_config_default(&tc);
    tc.max_epochs = 50;
    gat_train_result res;
    if (gat_model_create(&model, &cfg, 42) != GAT_OK || gat_train(model, &ds, &tc, &res) != GAT_OK)
        goto done;
    const gat_idx width = gat_model_embed_width(model, 0); /* hidden layer: 8 heads x 8 */
    if (width != 64 || gat_model_embed(model, &ds.graph, &ds.x, 0, embedding) != GAT_OK) goto done;
    printf("libgat %s: trained %d epochs, test accuracy %.2f, embedding %d x %d, e[0][0] = %g\n",
           gat_version(), res.epochs, res.test_acc, ds.n, width, (double)embedding[0]);
    rc = 0;
done:
    if (rc) fprintf(stderr, "minimal: %s\n", gat_last_error());
    gat_model_free(model);
    gat_dataset_destroy(&ds);
    gat_csr_destroy(&x);
    gat_graph_destroy(&g);
    return rc;
}
