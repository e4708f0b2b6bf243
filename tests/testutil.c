/* Shared helpers of the Check suites. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static char pathbuf[4096];

const char *tu_data(const char *rel)
{
    const char *root = getenv("GAT_TEST_DATA");
    snprintf(pathbuf, sizeof pathbuf, "%s/%s", root ? root : "tests/data", rel);
    return pathbuf;
}

const char *tu_dataset(const char *name)
{
    const char *root = getenv("GAT_DATASETS");
    snprintf(pathbuf, sizeof pathbuf, "%s/%s", root ? root : "datasets", name);
    return pathbuf;
}

char *tu_tmpdir(void)
{
    char tmpl[] = "/tmp/gat-test-XXXXXX";
    char *d = mkdtemp(tmpl);
    ck_assert_ptr_nonnull(d);
    return strdup(d);
}

void tu_rmtree(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

const char *tu_write(const char *dir, const char *name, const char *text)
{
    snprintf(pathbuf, sizeof pathbuf, "%s/%s", dir, name);
    FILE *f = fopen(pathbuf, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
    ck_assert_int_eq(fclose(f), 0);
    return pathbuf;
}

int tu_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
