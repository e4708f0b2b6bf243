/* cli_blas_threads (tools/cli.c): --threads T caps OpenBLAS's threads at T for the tool's
 * process; 0 leaves OpenBLAS's own choice; a larger T never raises it. */
#include "../tools/cli.h"

#include <cblas.h>
#include "testutil.h"
#include <stdlib.h>

START_TEST(caps_at_t)
{
    openblas_set_num_threads(2); /* the starting point, whatever the machine's cores */
    const int start = openblas_get_num_threads();
    ck_assert_int_ge(start, 1);
    cli_blas_threads(0);
    ck_assert_int_eq(openblas_get_num_threads(), start);
    cli_blas_threads(start + 5);
    ck_assert_int_eq(openblas_get_num_threads(), start);
    cli_blas_threads(1);
    ck_assert_int_eq(openblas_get_num_threads(), 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cli_threads");
    TCase *tc = tcase_create("blas");
    tcase_add_test(tc, caps_at_t);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
