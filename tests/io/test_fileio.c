/* The atomic writer of src/io/fileio.c on targets that are not regular files: a FIFO and a
 * device are written straight into (never replaced by a file), a symbolic link (dangling or not,
 * relative or absolute, chained) replaces the file it names and stays a link, a write error on a
 * device names the path and the reason, a loop of links and a directory are refused; and the
 * whole-file reader that maps regular files. */
#include "testutil.h"

#include "io/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *dir;

static void setup(void)
{
    dir = tu_tmpdir();
}
static void teardown(void)
{
    tu_rmtree(dir);
    free(dir);
}

/* dir/name in buf. */
static const char *in_dir(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", dir, name);
    return buf;
}

/* Writes text to path through the atomic writer; returns the commit's status. */
static gat_status write_text(const char *path, const char *text)
{
    gat_i_afile a;
    gat_status st = gat_i_afile_open(&a, path);
    if (st != GAT_OK) return st;
    fputs(text, a.f);
    return gat_i_afile_commit(&a);
}

/* The contents of path (static buffer), "" if it cannot be read. */
static const char *contents(const char *path)
{
    static char buf[256];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = '\0';
    if (f) fclose(f);
    return buf;
}

/* A ".NAME.tmp-" file is left in dir. */
static int temporary_left(void)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -c '\\.tmp-' >/dev/null", dir);
    return system(cmd) == 0; /* grep found one */
}

START_TEST(fifo_written_into)
{
    char path[4096];
    in_dir(path, sizeof path, "pipe");
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    /* the reader first (non-blocking), so that the writer's open does not wait */
    const int rd = open(path, O_RDONLY | O_NONBLOCK);
    ck_assert_int_ge(rd, 0);
    ck_assert_int_eq(write_text(path, "through the pipe\n"), GAT_OK);
    char got[64] = {0};
    ck_assert_int_eq(read(rd, got, sizeof got - 1), 17);
    ck_assert_str_eq(got, "through the pipe\n");
    close(rd);
    struct stat sb;
    ck_assert_int_eq(lstat(path, &sb), 0);
    ck_assert_msg(S_ISFIFO(sb.st_mode), "the FIFO was replaced");
    ck_assert_msg(!temporary_left(), "a temporary file is left");
}
END_TEST

START_TEST(device_through_link)
{
    /* /dev/null by a link in the temporary directory: a broken writer replaces the link, never
     * /dev/null itself */
    char path[4096];
    in_dir(path, sizeof path, "null");
    ck_assert_int_eq(symlink("/dev/null", path), 0);
    ck_assert_int_eq(write_text(path, "nothing\n"), GAT_OK);
    struct stat sb;
    ck_assert_int_eq(lstat(path, &sb), 0);
    ck_assert_msg(S_ISLNK(sb.st_mode), "the link to /dev/null was replaced");
    ck_assert_int_eq(stat("/dev/null", &sb), 0);
    ck_assert(S_ISCHR(sb.st_mode));
    ck_assert_msg(!temporary_left(), "a temporary file is left");
}
END_TEST

START_TEST(device_write_error)
{
    char path[4096];
    in_dir(path, sizeof path, "full");
    ck_assert_int_eq(symlink("/dev/full", path), 0);
    gat_i_afile a;
    ck_assert_int_eq(gat_i_afile_open(&a, path), GAT_OK);
    fputs("buffered until the commit\n", a.f);
    ASSERT_FAILS(gat_i_afile_commit(&a), GAT_EIO, "No space left on device");
    ck_assert_msg(strstr(gat_last_error(), path) != NULL, "'%s' does not name %s", gat_last_error(),
                  path);
    struct stat sb;
    ck_assert_int_eq(lstat(path, &sb), 0);
    ck_assert(S_ISLNK(sb.st_mode));
}
END_TEST

START_TEST(link_replaces_its_target)
{
    char target[4096], link[4096], link2[4096];
    in_dir(target, sizeof target, "real.txt");
    in_dir(link, sizeof link, "link.txt");
    in_dir(link2, sizeof link2, "link2.txt");
    tu_write(dir, "real.txt", "old\n");
    ck_assert_int_eq(chmod(target, 0640), 0);
    ck_assert_int_eq(symlink("real.txt", link), 0); /* relative */
    ck_assert_int_eq(symlink(link, link2), 0);      /* absolute, to the first link */
    ck_assert_int_eq(write_text(link2, "new\n"), GAT_OK);
    struct stat sb;
    ck_assert_int_eq(lstat(link, &sb), 0);
    ck_assert(S_ISLNK(sb.st_mode));
    ck_assert_int_eq(lstat(link2, &sb), 0);
    ck_assert(S_ISLNK(sb.st_mode));
    ck_assert_str_eq(contents(target), "new\n");
    ck_assert_int_eq(stat(target, &sb), 0);
    ck_assert_int_eq(sb.st_mode & 0777, 0640); /* the target's mode kept */
    ck_assert_msg(!temporary_left(), "a temporary file is left");
}
END_TEST

START_TEST(dangling_link_creates_target)
{
    char sub[4096], link[4096], target[4096];
    in_dir(sub, sizeof sub, "sub");
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    in_dir(link, sizeof link, "dangling");
    in_dir(target, sizeof target, "sub/made.txt");
    ck_assert_int_eq(symlink("sub/made.txt", link), 0);
    ck_assert_int_eq(write_text(link, "made\n"), GAT_OK);
    struct stat sb;
    ck_assert_int_eq(lstat(link, &sb), 0);
    ck_assert(S_ISLNK(sb.st_mode));
    ck_assert_int_eq(lstat(target, &sb), 0);
    ck_assert(S_ISREG(sb.st_mode));
    ck_assert_str_eq(contents(link), "made\n");
}
END_TEST

START_TEST(regular_file_replaced)
{
    char path[4096];
    in_dir(path, sizeof path, "plain.txt");
    tu_write(dir, "plain.txt", "old\n");
    gat_i_afile a;
    ck_assert_int_eq(gat_i_afile_open(&a, path), GAT_OK);
    ck_assert_ptr_nonnull(a.tmp); /* still through a temporary file */
    fputs("new\n", a.f);
    ck_assert_str_eq(contents(path), "old\n"); /* untouched until the commit */
    ck_assert_int_eq(gat_i_afile_commit(&a), GAT_OK);
    ck_assert_str_eq(contents(path), "new\n");
}
END_TEST

START_TEST(refused)
{
    char a[4096], b[4096];
    in_dir(a, sizeof a, "loop-a");
    in_dir(b, sizeof b, "loop-b");
    ck_assert_int_eq(symlink(b, a), 0);
    ck_assert_int_eq(symlink(a, b), 0);
    ASSERT_FAILS(write_text(a, "x"), GAT_EIO, "symbolic links to follow");
    ASSERT_FAILS(write_text(dir, "x"), GAT_EIO, "cannot replace");
    ck_assert_msg(!temporary_left(), "a temporary file is left");
}
END_TEST

/* gat_i_map_file: a regular file mapped, an empty one, a device and a FIFO read, a directory
 * and a missing file refused by name. */
START_TEST(map_file)
{
    char path[4096];
    const unsigned char *buf;
    size_t len;
    int mapped;
    in_dir(path, sizeof path, "data");
    ck_assert_int_eq(write_text(path, "mapped bytes\n"), GAT_OK);
    ck_assert_int_eq(gat_i_map_file(path, &buf, &len, &mapped), GAT_OK);
    ck_assert_int_eq(mapped, 1);
    ck_assert_uint_eq(len, 13);
    ck_assert(memcmp(buf, "mapped bytes\n", 13) == 0);
    gat_i_release_file(buf, len, mapped);
    in_dir(path, sizeof path, "empty");
    ck_assert_int_eq(write_text(path, ""), GAT_OK);
    ck_assert_int_eq(gat_i_map_file(path, &buf, &len, &mapped), GAT_OK);
    ck_assert_int_eq(mapped, 0);
    ck_assert_uint_eq(len, 0);
    gat_i_release_file(buf, len, mapped);
    ck_assert_int_eq(gat_i_map_file("/dev/null", &buf, &len, &mapped), GAT_OK);
    ck_assert_int_eq(mapped, 0);
    ck_assert_uint_eq(len, 0);
    gat_i_release_file(buf, len, mapped);
    /* a FIFO is read: a writer's (a child's) bytes come through */
    in_dir(path, sizeof path, "fifo");
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    const pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        const int wr = open(path, O_WRONLY);
        _exit(wr >= 0 && write(wr, "piped\n", 6) == 6 && close(wr) == 0 ? 0 : 1);
    }
    ck_assert_int_eq(gat_i_map_file(path, &buf, &len, &mapped), GAT_OK);
    ck_assert_int_eq(mapped, 0);
    ck_assert_uint_eq(len, 6);
    ck_assert(memcmp(buf, "piped\n", 6) == 0);
    gat_i_release_file(buf, len, mapped);
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ASSERT_FAILS(gat_i_map_file(dir, &buf, &len, &mapped), GAT_EIO, "it is a directory");
    ck_assert_ptr_null(buf);
    in_dir(path, sizeof path, "missing");
    ASSERT_FAILS(gat_i_map_file(path, &buf, &len, &mapped), GAT_EIO, "cannot open");
    ck_assert_ptr_null(buf);
}
END_TEST

static Suite *fileio_suite(void)
{
    Suite *s = suite_create("fileio");
    TCase *tc = tcase_create("not regular files");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, fifo_written_into);
    tcase_add_test(tc, device_through_link);
    tcase_add_test(tc, device_write_error);
    tcase_add_test(tc, link_replaces_its_target);
    tcase_add_test(tc, dangling_link_creates_target);
    tcase_add_test(tc, regular_file_replaced);
    tcase_add_test(tc, refused);
    tcase_add_test(tc, map_file);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(fileio_suite());
}
