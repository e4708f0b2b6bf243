/* A client written against the public headers of the previous release (0.1.0 as of commit
 * 6d932d1^, the last before the const name arrays; there are no release tags): it must still
 * compile, link and run against the installed headers (tests/api/test_compat.sh). Lines marked
 * BREAK(x) use what CHANGES.md lists as an incompatible change of release x; the test allows
 * the compiler's diagnostics on exactly those lines, as warnings, and no other. */
#include <gat/gat.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    gat_dataset ds;
    gat_model *m = NULL;
    gat_model_config mc;
    gat_model_meta meta;
    char *names[] = {"no", "yes"};
    const char *path = argc > 2 ? argv[2] : "compat.gat";
    if (argc < 2) {
        fprintf(stderr, "usage: client DATASET [MODEL]\n");
        return 2;
    }
    if (gat_dataset_load(&ds, argv[1], NULL) != GAT_OK) {
        fprintf(stderr, "load: %s (%s)\n", gat_last_error(), gat_strerror(GAT_EIO));
        return 1;
    }
    char **classes = ds.class_names; /* BREAK(0.2.0) */
    printf("%d nodes, %d classes, first '%s', libgat %s\n", ds.n, ds.n_classes, classes[0],
           gat_version());
    gat_model_config_default(&mc, ds.n_features, 2);
    mc.hidden = 2;
    mc.heads = 1;
    if (gat_model_create(&m, &mc, 1) != GAT_OK) return 1;
    gat_model_meta_init(&meta);
    meta.n_classes = 2;
    meta.class_names = names; /* BREAK(0.2.0) */
    meta.dataset = argv[1];
    int rc = gat_model_save(m, &meta, path) == GAT_OK ? 0 : 1;
    if (rc) fprintf(stderr, "save: %s\n", gat_last_error());
    gat_model_free(m);
    gat_dataset_destroy(&ds);
    return rc;
}
