/* SPDX-License-Identifier: MIT */
/*
 * fashion_mnist.h - reads the Fashion-MNIST IDX files (gzip-compressed, as Debian's
 * dataset-fashion-mnist ships them, or already decompressed) into memory.
 */
#ifndef LENET_FASHION_MNIST_H_
#define LENET_FASHION_MNIST_H_

#include <stddef.h>
#include <stdint.h>

#define FMNIST_DEFAULT_DIR "/usr/share/datasets/fashion-mnist"
#define FMNIST_CLASSES 10

typedef struct {
    int n, rows, cols; /* n images of rows x cols pixels */
    uint8_t *images;   /* n * rows * cols bytes, 0 = background, 255 = full ink */
    uint8_t *labels;   /* n bytes, 0..9 */
} fmnist_set_t;

/* Loads `<dir>/<split>-images-idx3-ubyte.gz` and `<dir>/<split>-labels-idx1-ubyte.gz` (split is
 * "train" or "t10k"); without the .gz, the uncompressed files are tried. On failure returns -1
 * with a sentence in err and leaves *set empty. */
int fmnist_load(const char *dir, const char *split, fmnist_set_t *set, char *err, size_t err_size);

void fmnist_free(fmnist_set_t *set);

/* The ten class names, in label order. */
extern const char *const fmnist_class_names[FMNIST_CLASSES];

#endif /* LENET_FASHION_MNIST_H_ */
