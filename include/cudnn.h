/* SPDX-License-Identifier: MIT */
/*
 * cudnn.h - freednn umbrella header: the complete classic cuDNN C API.
 *
 * freednn is an open re-implementation of NVIDIA cuDNN's classic (legacy, cuDNN 7 style) API,
 * source compatible with programs written against cuDNN 7.6.5 through 9.x. Including this header
 * gives everything; the parts can also be included on their own:
 *
 *   cudnn_version.h  interface and freednn version numbers
 *   cudnn_graph.h    handle, status codes, data types, versions, errors, logging callback
 *   cudnn_ops.h      tensors, filters, elementwise ops, reductions, softmax, pooling,
 *                    activation, LRN, batch/generic normalization, spatial transformer,
 *                    dropout, algorithm descriptors
 *   cudnn_cnn.h      convolutions and fused operations
 *   cudnn_adv.h      RNNs, multi-head attention, CTC loss
 *
 * freednn-specific extensions (backend selection) live in freednn.h.
 */
#ifndef CUDNN_H_
#define CUDNN_H_

#include "cudnn_version.h"
#include "cudnn_graph.h"
#include "cudnn_ops.h"
#include "cudnn_cnn.h"
#include "cudnn_adv.h"

#endif /* CUDNN_H_ */
