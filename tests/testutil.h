/* Shared helpers of the Check suites: fixture paths, temporary files, random data. */
#ifndef GAT_TESTUTIL_H
#define GAT_TESTUTIL_H

#include <check.h>
#include <stdio.h>

#include "gat/gat.h"

/* Path of a file under tests/data (static buffer, overwritten by the next call). */
const char *tu_data(const char *rel);
/* Path of a bundled dataset directory (datasets/NAME). */
const char *tu_dataset(const char *name);
/* A fresh temporary directory (created; removed by tu_rmtree). */
char *tu_tmpdir(void);
void tu_rmtree(const char *dir);
/* Writes text to dir/name; returns the full path (static buffer). */
const char *tu_write(const char *dir, const char *name, const char *text);
/* Runs a Suite with CK_NORMAL output and returns the process exit code. */
int tu_run(Suite *s);

#endif
