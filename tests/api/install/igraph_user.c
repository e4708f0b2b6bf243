/* An igraph user's first libgat program, from the installed headers and the README only: an
 * igraph graph (a seeded stochastic block model), features in an igraph matrix, labels in an
 * igraph vector, training, and the node embeddings back as an igraph matrix.
 * Build: cc igraph_user.c $(pkg-config --cflags --libs gat) */
#include <gat/gat_igraph.h>

#include <stdio.h>

int main(void)
{
    igraph_t graph;
    igraph_matrix_t pref, features, embedding;
    igraph_vector_int_t sizes, labels;
    gat_csr x = {0};
    gat_dataset ds = {0};
    gat_model *model = NULL;
    int rc = 1;

    igraph_set_error_handler(igraph_error_handler_printignore);
    igraph_rng_seed(igraph_rng_default(), 7);
    igraph_matrix_init(&pref, 2, 2);
    MATRIX(pref, 0, 0) = MATRIX(pref, 1, 1) = 0.3;
    MATRIX(pref, 0, 1) = MATRIX(pref, 1, 0) = 0.02;
    igraph_vector_int_init(&sizes, 2);
    VECTOR(sizes)[0] = VECTOR(sizes)[1] = 40;
    if (igraph_sbm_game(&graph, 80, &pref, &sizes, IGRAPH_UNDIRECTED, IGRAPH_NO_LOOPS)) return 1;

    /* labels = block; features = a noisy block indicator (igraph matrices are column-major) */
    igraph_vector_int_init(&labels, 80);
    igraph_matrix_init(&features, 80, 4);
    igraph_matrix_init(&embedding, 0, 0);
    for (int v = 0; v < 80; v++) {
        VECTOR(labels)[v] = v < 40 ? 0 : 1;
        for (int f = 0; f < 4; f++)
            MATRIX(features, v, f) = RNG_UNIF(0, 0.5) + (f % 2 == VECTOR(labels)[v]);
    }

    gat_dataset_options opt;
    gat_dataset_options_default(&opt);
    opt.train_per_class = 5;
    opt.n_val = 20;
    opt.n_test = 40;
    gat_model_config cfg;
    gat_train_config tc;
    gat_train_result res;
    gat_train_config_default(&tc);
    tc.max_epochs = 100;
    if (gat_csr_from_igraph_matrix(&x, &features) != GAT_OK ||
        gat_dataset_from_igraph(&ds, &graph, 0, &x, &labels, NULL, &opt) != GAT_OK)
        goto done;
    gat_model_config_default(&cfg, ds.n_features, ds.n_classes);
    if (gat_model_create(&model, &cfg, 1) != GAT_OK || gat_train(model, &ds, &tc, &res) != GAT_OK ||
        gat_model_embed_igraph(model, &ds.graph, &ds.x, 0, &embedding) != GAT_OK)
        goto done;
    printf("igraph %ld vertices -> GAT test accuracy %.2f, embeddings %ld x %ld\n",
           (long)igraph_vcount(&graph), res.test_acc, (long)igraph_matrix_nrow(&embedding),
           (long)igraph_matrix_ncol(&embedding));
    rc = igraph_matrix_nrow(&embedding) == 80 && igraph_matrix_ncol(&embedding) == 64 ? 0 : 1;
done:
    if (rc) fprintf(stderr, "igraph_user: %s\n", gat_last_error());
    gat_model_free(model);
    gat_dataset_destroy(&ds);
    gat_csr_destroy(&x);
    igraph_matrix_destroy(&embedding);
    igraph_matrix_destroy(&features);
    igraph_vector_int_destroy(&labels);
    igraph_vector_int_destroy(&sizes);
    igraph_matrix_destroy(&pref);
    igraph_destroy(&graph);
    return rc;
}
