/* SPDX-License-Identifier: MIT */
/*
 * fashion_mnist.c - the IDX reader behind fashion_mnist.h. zlib's gzread decompresses the
 * Debian files and passes uncompressed files through unchanged. IDX: a big-endian magic
 * (0x00000803 images, 0x00000801 labels), big-endian u32 dimensions, then unsigned bytes.
 */
#define _POSIX_C_SOURCE 200809L
#include "fashion_mnist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

const char *const fmnist_class_names[FMNIST_CLASSES] = {
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
    "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot",
};

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Reads all of `path` (or `path` without its ".gz") into a malloc'd buffer. */
static uint8_t *read_all(const char *path, size_t *size, char *err, size_t err_size)
{
    char plain[4096];
    snprintf(plain, sizeof plain, "%s", path);
    size_t len = strlen(plain);
    if (access(path, R_OK) != 0 && len > 3 && strcmp(plain + len - 3, ".gz") == 0) {
        plain[len - 3] = '\0';
        if (access(plain, R_OK) == 0)
            path = plain;
    }
    gzFile f = gzopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "cannot open %s", path);
        return NULL;
    }
    size_t cap = 1 << 20, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            snprintf(err, err_size, "out of memory reading %s", path);
            gzclose(f);
            return NULL;
        }
        int got = gzread(f, buf + n, (unsigned)(cap - n));
        if (got < 0) {
            int zerr;
            snprintf(err, err_size, "cannot read %s: %s", path, gzerror(f, &zerr));
            free(buf);
            gzclose(f);
            return NULL;
        }
        if (got == 0)
            break;
        n += (size_t)got;
        if (n == cap) {
            uint8_t *bigger = realloc(buf, cap *= 2);
            if (!bigger)
                free(buf);
            buf = bigger;
        }
    }
    gzclose(f);
    *size = n;
    return buf;
}

/* Checks the IDX header of `buf` (rank dims, given magic) and returns a pointer to its data. */
static const uint8_t *idx_data(const uint8_t *buf, size_t size, uint32_t magic, int rank,
                               uint32_t *dims, const char *path, char *err, size_t err_size)
{
    size_t header = 4 + 4 * (size_t)rank;
    if (size < header || be32(buf) != magic) {
        snprintf(err, err_size, "%s is not an IDX file with magic 0x%08x", path, magic);
        return NULL;
    }
    size_t count = 1;
    for (int i = 0; i < rank; i++) {
        dims[i] = be32(buf + 4 + 4 * i);
        count *= dims[i];
    }
    if (size != header + count) {
        snprintf(err, err_size, "%s holds %zu data bytes, its header says %zu", path, size - header,
                 count);
        return NULL;
    }
    return buf + header;
}

int fmnist_load(const char *dir, const char *split, fmnist_set_t *set, char *err, size_t err_size)
{
    char ipath[4096], lpath[4096];
    size_t isize = 0, lsize = 0;
    uint32_t idims[3], ldims[1];
    memset(set, 0, sizeof *set);
    snprintf(ipath, sizeof ipath, "%s/%s-images-idx3-ubyte.gz", dir, split);
    snprintf(lpath, sizeof lpath, "%s/%s-labels-idx1-ubyte.gz", dir, split);
    uint8_t *ibuf = read_all(ipath, &isize, err, err_size);
    uint8_t *lbuf = ibuf ? read_all(lpath, &lsize, err, err_size) : NULL;
    const uint8_t *images = NULL, *labels = NULL;
    if (lbuf) {
        images = idx_data(ibuf, isize, 0x803, 3, idims, ipath, err, err_size);
        labels = images ? idx_data(lbuf, lsize, 0x801, 1, ldims, lpath, err, err_size) : NULL;
    }
    if (labels && ldims[0] != idims[0]) {
        snprintf(err, err_size, "%s has %u images but %s has %u labels", ipath, idims[0], lpath,
                 ldims[0]);
        labels = NULL;
    }
    for (uint32_t i = 0; labels && i < ldims[0]; i++)
        if (labels[i] >= FMNIST_CLASSES) {
            snprintf(err, err_size, "%s: label %u of image %u is not a class 0..9", lpath,
                     labels[i], i);
            labels = NULL;
        }
    if (!labels) {
        free(ibuf), free(lbuf);
        return -1;
    }
    set->n = (int)idims[0], set->rows = (int)idims[1], set->cols = (int)idims[2];
    set->images = malloc((size_t)set->n * set->rows * set->cols);
    set->labels = malloc((size_t)set->n);
    if (!set->images || !set->labels) {
        snprintf(err, err_size, "out of memory for %d images", set->n);
        fmnist_free(set);
        free(ibuf), free(lbuf);
        return -1;
    }
    memcpy(set->images, images, (size_t)set->n * set->rows * set->cols);
    memcpy(set->labels, labels, (size_t)set->n);
    free(ibuf), free(lbuf);
    return 0;
}

void fmnist_free(fmnist_set_t *set)
{
    free(set->images), free(set->labels);
    memset(set, 0, sizeof *set);
}
