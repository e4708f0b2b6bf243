/* gat-communities: libgat inside a graph-analytics program, as a user would write it (README.md).
 * Reads a GraphML or GML graph with libgat, trains a GAT on its numeric vertex attributes
 * (features) and one class attribute (labels; a missing or negative value means unlabelled), reads
 * it again with igraph for igraph's analytics (the same vertex order), and
 * prints per vertex igraph's Louvain community and PageRank beside the GAT's predicted class and
 * embedding norm, then how closely the communities follow the predicted classes (NMI).
 * Uses only the installed headers: cc gat-communities.c $(pkg-config --cflags --libs gat) -lm */
#include <gat/gat.h>
#include <gat/gat_igraph.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

/* After a failed libgat call: its message, and exit code 1. */
static int fail(const char *what)
{
    fprintf(stderr, "gat-communities: %s: %s\n", what, gat_last_error());
    return 1;
}

static int on_epoch(const gat_epoch_info *e, void *user)
{
    (void)user;
    if (e->epoch % 50 == 0)
        fprintf(stderr, "epoch %4d  train loss %.3f  val loss %.3f  val acc %5.1f%%\n", e->epoch,
                e->train_loss, e->val_loss, 100 * e->val_acc);
    return 0; /* non-zero would stop training */
}

static void usage(FILE *out)
{
    fprintf(out, "usage: gat-communities GRAPH.graphml|GRAPH.gml [LABEL-ATTRIBUTE]\n"
                 "  features: every other numeric vertex attribute; labels: the attribute "
                 "LABEL-ATTRIBUTE (default \"class\")\n"
                 "  --help     show this help and exit\n"
                 "  --version  show the libgat version and exit\n");
}

int main(int argc, char **argv)
{
    /* the options of every libgat tool: --help, --version; anything else with a dash is a usage
     * error (exit 2), not a file name */
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(argv[k], "--version")) {
            printf("gat-communities (libgat) %s\n", gat_version());
            return 0;
        }
        if (argv[k][0] == '-' && argv[k][1] != '\0') {
            fprintf(stderr, "gat-communities: unknown option '%s' (try --help)\n", argv[k]);
            return 2;
        }
    }
    if (argc < 2 || argc > 3) {
        usage(stderr);
        return 2;
    }
    const char *path = argv[1], *label = argc > 2 ? argv[2] : "class";
    int rc = 1;

    /* igraph setup, once and single-threaded: vertex attributes, and errors as return codes */
    igraph_set_attribute_table(&igraph_cattribute_table);
    igraph_set_error_handler(igraph_error_handler_printignore);

    igraph_t graph;
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    const char *dot = strrchr(path, '.');
    igraph_error_t ig = dot && !strcmp(dot, ".gml") ? igraph_read_graph_gml(&graph, f)
                                                    : igraph_read_graph_graphml(&graph, f, 0);
    fclose(f);
    if (ig != IGRAPH_SUCCESS) return 1;

    igraph_vector_t pagerank, modularity, probability;
    igraph_vector_int_t membership, predicted;
    igraph_matrix_t embedding;
    igraph_vector_init(&pagerank, 0);
    igraph_vector_init(&modularity, 0), igraph_vector_init(&probability, 0);
    igraph_vector_int_init(&membership, 0), igraph_vector_int_init(&predicted, 0);
    igraph_matrix_init(&embedding, 0, 0);
    gat_dataset ds = {0};
    gat_model *model = NULL;
    const igraph_integer_t n = igraph_vcount(&graph);

    /* the dataset from the same file: features from every numeric vertex attribute but the
     * class (one-hot vertex identities if there are none), labels from the class attribute, the
     * default options: a seeded random split of the labelled vertices (20 per class train, 500
     * validate, 1000 test, fewer on small graphs), features row-normalised only if none is
     * negative. Its node v is igraph's vertex v: both keep the file's vertex order. */
    const gat_dataset_files files = {.graph = path,
                                     .label_attribute = label,
                                     .n_feature_attributes = GAT_ALL_ATTRIBUTES};
    if (gat_dataset_read(&ds, &files, NULL) != GAT_OK) {
        rc = fail("dataset");
        goto done;
    }
    gat_idx labelled = 0;
    for (gat_idx v = 0; v < ds.n; v++)
        labelled += ds.labels[v] >= 0;
    fprintf(stderr, "split %d/%d/%d of %d labelled vertices; features %s\n", ds.n_train, ds.n_val,
            ds.n_test, labelled, ds.normalized ? "row-normalised" : "as given (some are negative)");

    /* train a GAT (the GAT paper's Cora settings), printing progress through the callback */
    gat_model_config mc;
    gat_model_config_default(&mc, ds.n_features, ds.n_classes);
    gat_train_config tc;
    gat_train_config_default(&tc);
    tc.max_epochs = 300;
    tc.progress = on_epoch;
    gat_train_result res;
    if (gat_model_create(&model, &mc, 1) != GAT_OK) {
        rc = fail("model");
        goto done;
    }
    gat_model_set_threads(model, n < 20000 ? 1 : 0); /* small graphs: threads cost more */
    if (gat_train(model, &ds, &tc, &res) != GAT_OK) {
        rc = fail("training");
        goto done;
    }

    /* libgat results as igraph objects: classes, their probabilities, hidden-layer embeddings */
    if (gat_model_predict_igraph(model, &ds.graph, &ds.x, &predicted, &probability) != GAT_OK ||
        gat_model_embed_igraph(model, &ds.graph, &ds.x, 0, &embedding) != GAT_OK) {
        rc = fail("inference");
        goto done;
    }

    /* igraph analytics on the same graph */
    igraph_real_t nmi;
    if (igraph_community_multilevel(&graph, NULL, 1.0, &membership, NULL, &modularity) ||
        igraph_pagerank(&graph, IGRAPH_PAGERANK_ALGO_PRPACK, &pagerank, NULL, igraph_vss_all(), 0,
                        0.85, NULL, NULL) ||
        igraph_compare_communities(&membership, &predicted, &nmi, IGRAPH_COMMCMP_NMI))
        goto done;

    printf("vertex\tcommunity\tpagerank\tclass\tprobability\tembedding_norm\n");
    for (igraph_integer_t v = 0; v < n; v++) {
        double norm = 0;
        for (igraph_integer_t k = 0; k < igraph_matrix_ncol(&embedding); k++)
            norm += MATRIX(embedding, v, k) * MATRIX(embedding, v, k);
        printf("%s\t%lld\t%.5f\t%s\t%.3f\t%.3f\n", ds.node_ids[v],
               (long long)VECTOR(membership)[v], VECTOR(pagerank)[v],
               ds.class_names[VECTOR(predicted)[v]], VECTOR(probability)[v], sqrt(norm));
    }
    printf("# %lld vertices, %lld communities (modularity %.3f); GAT test accuracy %.1f%% "
           "(best epoch %d); NMI(communities, GAT classes) = %.3f\n",
           (long long)n, (long long)igraph_vector_int_max(&membership) + 1,
           igraph_vector_tail(&modularity), 100 * res.test_acc, res.best_epoch, nmi);
    rc = 0;

done:
    gat_model_free(model);
    gat_dataset_destroy(&ds);
    igraph_matrix_destroy(&embedding);
    igraph_vector_int_destroy(&predicted), igraph_vector_int_destroy(&membership);
    igraph_vector_destroy(&probability), igraph_vector_destroy(&modularity);
    igraph_vector_destroy(&pagerank);
    igraph_destroy(&graph);
    return rc;
}
