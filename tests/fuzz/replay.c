/* Replays fuzz inputs without libFuzzer: calls LLVMFuzzerTestOneInput on every file of the
 * directories (or files) given as arguments, so that every build, the sanitized one included,
 * re-checks the committed corpus and every crash ever found. Exits 1 if an argument cannot be
 * read; a failing input aborts through the harness's checks or a sanitizer. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    if (!f) {
        perror(path);
        return 1;
    }
    for (;;) {
        if (len == cap) {
            cap = cap ? 2 * cap : 4096;
            uint8_t *nb = realloc(buf, cap);
            if (!nb) abort();
            buf = nb;
        }
        const size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    fclose(f);
    /* a copy of exactly len bytes, so that ASan catches a harness reading past the input */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) abort();
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    int bad = 0;
    long runs = 0;
    for (int k = 1; k < argc; k++) {
        struct stat sb;
        if (stat(argv[k], &sb) != 0) {
            perror(argv[k]);
            bad = 1;
            continue;
        }
        if (!S_ISDIR(sb.st_mode)) {
            bad |= run_file(argv[k]);
            runs++;
            continue;
        }
        DIR *d = opendir(argv[k]);
        struct dirent *e;
        char **names = NULL;
        size_t n = 0;
        if (!d) {
            perror(argv[k]);
            bad = 1;
            continue;
        }
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue; /* ., .. and .gitkeep */
            names = realloc(names, (n + 1) * sizeof *names);
            if (!names || !(names[n] = malloc(strlen(argv[k]) + strlen(e->d_name) + 2))) abort();
            sprintf(names[n++], "%s/%s", argv[k], e->d_name);
        }
        closedir(d);
        if (n > 1) qsort(names, n, sizeof *names, cmp_names);
        for (size_t i = 0; i < n; i++) {
            bad |= run_file(names[i]);
            runs++;
            free(names[i]);
        }
        free(names);
    }
    printf("replayed %ld inputs\n", runs);
    return bad;
}
