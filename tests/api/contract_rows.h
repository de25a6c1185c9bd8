/* SPDX-License-Identifier: MIT */
/*
 * contract_rows.h - the rows of test_contract.c (included twice with ROW defined).
 *
 * ROW(name, expected status, word(s) the reason must contain, setup, call)
 *   - the word list is "a|b": either alternative satisfies it; NULL for SUCCESS rows;
 *   - setup is a statement run on the fresh fixture (S(expr) asserts a setup call succeeds);
 *   - the call is an expression of type cudnnStatus_t.
 * Statuses follow contract §1.2 (cuDNN 9.19 as observed) and the decisions of §4.6; where 9.19
 * crashes (NULL dimA/strideA, NULL out-params) the answer is BAD_PARAM.
 * Fixture: TV tensor 1x3x8x8 f32; FV filter 4x3x3x3; CV conv 2-d pad 1; TU/FU/CU created, never
 * set; XD 2x4x9x9, WD 8x4x3x3, CD pad 1, YD 2x8x9x9, BD 1x8x1x1 with data X W Y DX DW DY DB WS.
 */

/* ==== handle, versions, errors, callbacks ================================================ */
ROW(create_null, BAD, "handle", NONE, cudnnCreate(NULL))
ROW(destroy_null_is_success, OK, NULL, NONE, cudnnDestroy(NULL))
ROW(destroy_garbage_handle, BAD, "not a live", NONE, cudnnDestroy(GARBAGE_HANDLE))
ROW(set_stream_null_handle, BAD, "handle", NONE, cudnnSetStream(NULL, NULL))
ROW(set_stream_garbage_handle, BAD, "not a live", NONE, cudnnSetStream(GARBAGE_HANDLE, NULL))
ROW(set_stream_ok, OK, NULL, NONE, cudnnSetStream(HD, (cudaStream_t)(void *)&O))
ROW(get_stream_null_handle, BAD, "handle", NONE, cudnnGetStream(NULL, &O.stream))
ROW(get_stream_garbage_handle, BAD, "not a live", NONE, cudnnGetStream(GARBAGE_HANDLE, &O.stream))
ROW(get_stream_null_out, BAD, "streamId", NONE, cudnnGetStream(HD, NULL))
ROW(get_property_null_value, BAD, "value", NONE, cudnnGetProperty(MAJOR_VERSION, NULL))
ROW(get_property_type_3, BAD, "type 3", NONE, cudnnGetProperty((libraryPropertyType)3, &O.i[0]))
ROW(get_property_type_neg1, BAD, "type -1", NONE,
    cudnnGetProperty((libraryPropertyType)-1, &O.i[0]))
ROW(get_property_type_int_max, BAD, "type 2147483647", NONE,
    cudnnGetProperty((libraryPropertyType)INT_MAX, &O.i[0]))
ROW(get_property_patch_ok, OK, NULL, NONE, cudnnGetProperty(PATCH_LEVEL, &O.i[0]))
ROW(query_rt_null_handle, BAD, "handle", NONE,
    cudnnQueryRuntimeError(NULL, &O.rs, CUDNN_ERRQUERY_RAWCODE, NULL))
ROW(query_rt_garbage_handle, BAD, "not a live", NONE,
    cudnnQueryRuntimeError(GARBAGE_HANDLE, &O.rs, CUDNN_ERRQUERY_RAWCODE, NULL))
ROW(query_rt_null_rstatus, BAD, "rstatus", NONE,
    cudnnQueryRuntimeError(HD, NULL, CUDNN_ERRQUERY_BLOCKING, NULL))
ROW(query_rt_mode_3, BAD, "mode 3", NONE,
    cudnnQueryRuntimeError(HD, &O.rs, (cudnnErrQueryMode_t)3, NULL))
ROW(query_rt_mode_neg1, BAD, "mode -1", NONE,
    cudnnQueryRuntimeError(HD, &O.rs, (cudnnErrQueryMode_t)-1, NULL))
ROW(query_rt_mode_int_max, BAD, "mode 2147483647", NONE,
    cudnnQueryRuntimeError(HD, &O.rs, (cudnnErrQueryMode_t)INT_MAX, NULL))
ROW(query_rt_tag_not_null, BAD, "tag", NONE,
    cudnnQueryRuntimeError(HD, &O.rs, CUDNN_ERRQUERY_RAWCODE,
                           (cudnnRuntimeTag_t *)(void *)&runtime_tag_storage))
ROW(query_rt_nonblocking_ok, OK, NULL, NONE,
    cudnnQueryRuntimeError(HD, &O.rs, CUDNN_ERRQUERY_NONBLOCKING, NULL))
ROW(create_with_backend_cuda_unavailable, NOT_INIT, "cuda", NONE, create_cuda_unavailable(f))
ROW(create_with_backend_3, BAD, "backend 3", NONE,
    freednnCreateWithBackend(&O.h, (freednnBackend_t)3))
ROW(create_with_backend_neg2, BAD, "backend -2", NONE,
    freednnCreateWithBackend(&O.h, (freednnBackend_t)-2))
ROW(create_with_backend_int_max, BAD, "backend 2147483647", NONE,
    freednnCreateWithBackend(&O.h, (freednnBackend_t)INT_MAX))
ROW(create_with_backend_null, BAD, "handle", NONE,
    freednnCreateWithBackend(NULL, FREEDNN_BACKEND_REF))
ROW(get_backend_null_handle, BAD, "handle", NONE, freednnGetBackend(NULL, &O.backend))
ROW(get_backend_garbage_handle, BAD, "not a live", NONE,
    freednnGetBackend(GARBAGE_HANDLE, &O.backend))
ROW(get_backend_null_out, BAD, "backend", NONE, freednnGetBackend(HD, NULL))
ROW(get_callback_null_mask, BAD, "mask", NONE, cudnnGetCallback(NULL, &O.udata, &O.cb))
ROW(get_callback_null_udata, BAD, "udata", NONE, cudnnGetCallback(&O.mask, NULL, &O.cb))
ROW(get_callback_null_fptr, BAD, "fptr", NONE, cudnnGetCallback(&O.mask, &O.udata, NULL))
ROW(stub_create_rnn_descriptor, NS, "not supported", NONE, cudnnCreateRNNDescriptor(NULL))
ROW(stub_create_attn_descriptor, NS, "not supported", NONE, cudnnCreateAttnDescriptor(NULL))

/* ==== tensor descriptors ================================================================= */
ROW(tensor_create_null, BAD, "tensorDesc", NONE, cudnnCreateTensorDescriptor(NULL))
ROW(tensor_destroy_null_is_success, OK, NULL, NONE, cudnnDestroyTensorDescriptor(NULL))
ROW(tensor_destroy_garbage, BAD, "not a live", NONE, cudnnDestroyTensorDescriptor(GARBAGE_TENSOR))
/* 4d */
ROW(t4_ok, OK, NULL, NONE, cudnnSetTensor4dDescriptor(TV, NCHW, F32, 2, 4, 5, 6))
ROW(t4_null_desc, BAD, "tensorDesc", NONE, cudnnSetTensor4dDescriptor(NULL, NCHW, F32, 1, 3, 8, 8))
ROW(t4_garbage_desc, BAD, "not a live", NONE,
    cudnnSetTensor4dDescriptor(GARBAGE_TENSOR, NCHW, F32, 1, 3, 8, 8))
ROW(t4_n_0, BAD, "0, 3, 8, 8", NONE, cudnnSetTensor4dDescriptor(TV, NCHW, F32, 0, 3, 8, 8))
ROW(t4_c_0, BAD, "2, 0, 8, 8", NONE, cudnnSetTensor4dDescriptor(TV, NCHW, F32, 2, 0, 8, 8))
ROW(t4_h_0, BAD, "2, 3, 0, 8", NONE, cudnnSetTensor4dDescriptor(TV, NCHW, F32, 2, 3, 0, 8))
ROW(t4_w_0, BAD, "2, 3, 8, 0", NONE, cudnnSetTensor4dDescriptor(TV, NCHW, F32, 2, 3, 8, 0))
ROW(t4_n_neg1, BAD, "-1, 5, 9, 9", NONE, cudnnSetTensor4dDescriptor(TV, NCHW, F32, -1, 5, 9, 9))
ROW(t4_c_neg1, BAD, "1, -1, 8, 8", NONE, cudnnSetTensor4dDescriptor(TV, NCHW, F32, 1, -1, 8, 8))
ROW(t4_h_neg1, BAD, "1, 3, -1, 8", NONE, cudnnSetTensor4dDescriptor(TV, NCHW, F32, 1, 3, -1, 8))
ROW(t4_w_neg1, BAD, "1, 3, 8, -1", NONE, cudnnSetTensor4dDescriptor(TV, NCHW, F32, 1, 3, 8, -1))
ROW(t4_n_int_max_alone_ok, OK, NULL, NONE,
    cudnnSetTensor4dDescriptor(TV, NCHW, F32, INT_MAX, 1, 1, 1))
ROW(t4_w_int_max_alone_ok, OK, NULL, NONE,
    cudnnSetTensor4dDescriptor(TV, NCHW, F32, 1, 1, 1, INT_MAX))
ROW(t4_n_int_max, NS, "2^31", NONE, cudnnSetTensor4dDescriptor(TV, NCHW, F32, INT_MAX, 3, 8, 8))
ROW(t4_c_int_max, NS, "2^31", NONE, cudnnSetTensor4dDescriptor(TV, NCHW, F32, 1, INT_MAX, 8, 8))
ROW(t4_h_int_max, NS, "2^31", NONE, cudnnSetTensor4dDescriptor(TV, NCHW, F32, 1, 3, INT_MAX, 8))
ROW(t4_w_int_max, NS, "2^31", NONE, cudnnSetTensor4dDescriptor(TV, NCHW, F32, 1, 3, 8, INT_MAX))
ROW(t4_46340_squared_ok, OK, NULL, NONE,
    cudnnSetTensor4dDescriptor(TV, NCHW, F32, 1, 1, 46340, 46340))
ROW(t4_2pow31_elements, NS, "2^31", NONE,
    cudnnSetTensor4dDescriptor(TV, NCHW, F32, 2, 1, 32768, 32768))
ROW(t4_2pow32_elements, NS, "2^31", NONE,
    cudnnSetTensor4dDescriptor(TV, NCHW, F32, 65536, 65536, 1, 1))
ROW(t4_nhwc_2pow31_elements, NS, "2^31", NONE,
    cudnnSetTensor4dDescriptor(TV, NHWC, F16, 2, 32768, 1, 32768))
ROW(t4_format_3, BAD, "format 3", NONE,
    cudnnSetTensor4dDescriptor(TV, (cudnnTensorFormat_t)3, F32, 1, 3, 8, 8))
ROW(t4_format_neg1, BAD, "format -1", NONE,
    cudnnSetTensor4dDescriptor(TV, (cudnnTensorFormat_t)-1, F32, 1, 3, 8, 8))
ROW(t4_format_int_max, BAD, "format 2147483647", NONE,
    cudnnSetTensor4dDescriptor(TV, (cudnnTensorFormat_t)INT_MAX, F32, 1, 3, 8, 8))
ROW(t4_dtype_22, BAD, "dataType 22", NONE,
    cudnnSetTensor4dDescriptor(TV, NCHW, (cudnnDataType_t)22, 1, 3, 8, 8))
ROW(t4_dtype_99, BAD, "dataType 99", NONE,
    cudnnSetTensor4dDescriptor(TV, NCHW, (cudnnDataType_t)99, 1, 3, 8, 8))
ROW(t4_dtype_neg1, BAD, "dataType -1", NONE,
    cudnnSetTensor4dDescriptor(TV, NCHW, (cudnnDataType_t)-1, 1, 3, 8, 8))
ROW(t4_dtype_int_max, BAD, "dataType 2147483647", NONE,
    cudnnSetTensor4dDescriptor(TV, NCHW, (cudnnDataType_t)INT_MAX, 1, 3, 8, 8))
ROW(t4_vect_c_float, BAD, "CUDNN_DATA_FLOAT", NONE,
    cudnnSetTensor4dDescriptor(TV, VECT, F32, 1, 4, 8, 8))
ROW(t4_vect_c_int8_c3, BAD, "CUDNN_DATA_INT8", NONE,
    cudnnSetTensor4dDescriptor(TV, VECT, I8, 1, 3, 8, 8))
ROW(t4_vect_c_int8x4_c3, BAD, "multiple of 4", NONE,
    cudnnSetTensor4dDescriptor(TV, VECT, I8x4, 1, 3, 8, 8))
ROW(t4_vect_c_int8x32_c16, BAD, "multiple of 32", NONE,
    cudnnSetTensor4dDescriptor(TV, VECT, I8x32, 1, 16, 8, 8))
ROW(t4_nchw_int8x4, BAD, "INT8x4", NONE, cudnnSetTensor4dDescriptor(TV, NCHW, I8x4, 1, 4, 8, 8))
ROW(t4_vect_c_int8x4_c8_ok, OK, NULL, NONE, cudnnSetTensor4dDescriptor(TV, VECT, I8x4, 1, 8, 8, 8))
ROW(t4_vect_c_int8x32_c64_ok, OK, NULL, NONE,
    cudnnSetTensor4dDescriptor(TV, VECT, I8x32, 1, 64, 2, 2))
ROW(t4_nhwc_half_ok, OK, NULL, NONE, cudnnSetTensor4dDescriptor(TV, NHWC, F16, 2, 3, 5, 7))
/* 4dEx */
ROW(t4ex_padded_strides_ok, OK, NULL, NONE,
    cudnnSetTensor4dDescriptorEx(TV, F32, 1, 3, 8, 8, 500, 100, 10, 1))
ROW(t4ex_null_desc, BAD, "tensorDesc", NONE,
    cudnnSetTensor4dDescriptorEx(NULL, F32, 1, 3, 8, 8, 192, 64, 8, 1))
ROW(t4ex_garbage_desc, BAD, "not a live", NONE,
    cudnnSetTensor4dDescriptorEx(GARBAGE_TENSOR, F32, 1, 3, 8, 8, 192, 64, 8, 1))
ROW(t4ex_n_0, BAD, "[0] is 0", NONE,
    cudnnSetTensor4dDescriptorEx(TV, F32, 0, 3, 8, 8, 192, 64, 8, 1))
ROW(t4ex_c_0, BAD, "[1] is 0", NONE,
    cudnnSetTensor4dDescriptorEx(TV, F32, 1, 0, 8, 8, 192, 64, 8, 1))
ROW(t4ex_h_neg1, BAD, "[2] is -1", NONE,
    cudnnSetTensor4dDescriptorEx(TV, F32, 1, 3, -1, 8, 192, 64, 8, 1))
ROW(t4ex_w_int_min, BAD, "[3] is -2147483648", NONE,
    cudnnSetTensor4dDescriptorEx(TV, F32, 1, 3, 8, INT_MIN, 192, 64, 8, 1))
ROW(t4ex_n_int_max_ok, OK, NULL, NONE,
    cudnnSetTensor4dDescriptorEx(TV, F32, INT_MAX, 1, 1, 1, 1, 1, 1, 1))
ROW(t4ex_c_int_max, NS, "2^31", NONE,
    cudnnSetTensor4dDescriptorEx(TV, F32, 1, INT_MAX, 8, 8, 192, 64, 8, 1))
ROW(t4ex_h_stride_int_max, NS, "2^31", NONE,
    cudnnSetTensor4dDescriptorEx(TV, F32, 1, 3, 8, 8, 192, 64, INT_MAX, 1))
ROW(t4ex_w_stride_int_min, NS, "2^31", NONE,
    cudnnSetTensor4dDescriptorEx(TV, F32, 1, 3, 8, 8, 192, 64, 8, INT_MIN))
ROW(t4ex_w_stride_0, BAD, "strideA[3]", NONE,
    cudnnSetTensor4dDescriptorEx(TV, F32, 1, 3, 8, 8, 192, 64, 8, 0))
ROW(t4ex_c_stride_0, BAD, "strideA[1]", NONE,
    cudnnSetTensor4dDescriptorEx(TV, F32, 1, 3, 8, 8, 192, 0, 8, 1))
ROW(t4ex_n_stride_0_on_n1_ok, OK, NULL, NONE,
    cudnnSetTensor4dDescriptorEx(TV, F32, 1, 3, 8, 8, 0, 64, 8, 1))
ROW(t4ex_negative_stride_ok, OK, NULL, NONE,
    cudnnSetTensor4dDescriptorEx(TV, F32, 1, 3, 8, 8, 192, 64, -8, 1))
ROW(t4ex_overlapping_ok, OK, NULL, NONE,
    cudnnSetTensor4dDescriptorEx(TV, F32, 2, 3, 8, 8, 1, 1, 1, 1))
ROW(t4ex_stride_int_max_on_dim1_ok, OK, NULL, NONE,
    cudnnSetTensor4dDescriptorEx(TV, F32, 1, 3, 8, 8, INT_MAX, 64, 8, 1))
ROW(t4ex_extent_2_times_int_max, NS, "2^31", NONE,
    cudnnSetTensor4dDescriptorEx(TV, F32, 2, 1, 1, 1, INT_MAX, 1, 1, 1))
ROW(t4ex_extent_3_times_2pow30, NS, "2^31", NONE,
    cudnnSetTensor4dDescriptorEx(TV, F32, 3, 1, 1, 1, 1 << 30, 1, 1, 1))
ROW(t4ex_extent_negative_stride, NS, "2^31", NONE,
    cudnnSetTensor4dDescriptorEx(TV, F32, 2, 1, 1, 1, -INT_MAX, 1, 1, 1))
ROW(t4ex_dtype_99, BAD, "dataType 99", NONE,
    cudnnSetTensor4dDescriptorEx(TV, (cudnnDataType_t)99, 1, 3, 8, 8, 192, 64, 8, 1))
ROW(t4ex_int8x4_needs_vect_c, BAD, "NCHW_VECT_C", NONE,
    cudnnSetTensor4dDescriptorEx(TV, I8x4, 1, 4, 8, 8, 64, 64, 8, 1))
/* Nd */
ROW(tnd_nbdims_0, BAD, "nbDims is 0", NONE,
    cudnnSetTensorNdDescriptor(TV, F32, 0, DIMS(1), DIMS(1)))
ROW(tnd_nbdims_1, BAD, "nbDims is 1", NONE,
    cudnnSetTensorNdDescriptor(TV, F32, 1, DIMS(5), DIMS(1)))
ROW(tnd_nbdims_neg1, BAD, "nbDims is -1", NONE,
    cudnnSetTensorNdDescriptor(TV, F32, -1, DIMS(5), DIMS(1)))
ROW(tnd_nbdims_int_min, BAD, "nbDims is -2147483648", NONE,
    cudnnSetTensorNdDescriptor(TV, F32, INT_MIN, DIMS(5), DIMS(1)))
ROW(tnd_nbdims_2_ok, OK, NULL, NONE, cudnnSetTensorNdDescriptor(TV, F32, 2, DIMS(4, 5), DIMS(5, 1)))
ROW(tnd_nbdims_3_ok, OK, NULL, NONE,
    cudnnSetTensorNdDescriptor(TV, F32, 3, DIMS(2, 4, 5), DIMS(20, 5, 1)))
ROW(tnd_nbdims_8_ok, OK, NULL, NONE,
    cudnnSetTensorNdDescriptor(TV, F32, 8, DIMS(1, 2, 1, 2, 1, 2, 1, 2),
                               DIMS(8, 4, 4, 2, 2, 1, 1, 1)))
ROW(tnd_nbdims_9, NS, "nbDims is 9", NONE,
    cudnnSetTensorNdDescriptor(TV, F32, 9, DIMS(1, 1, 1, 1, 1, 1, 1, 1, 1),
                               DIMS(1, 1, 1, 1, 1, 1, 1, 1, 1)))
ROW(tnd_nbdims_int_max, NS, "nbDims is 2147483647", NONE,
    cudnnSetTensorNdDescriptor(TV, F32, INT_MAX, DIMS(1), DIMS(1)))
ROW(tnd_single_dim_int_max_ok, OK, NULL, NONE,
    cudnnSetTensorNdDescriptor(TV, F32, 3, DIMS(1, INT_MAX, 1), DIMS(INT_MAX, 1, 1)))
ROW(tnd_null_desc, BAD, "tensorDesc", NONE,
    cudnnSetTensorNdDescriptor(NULL, F32, 4, DIMS(1, 3, 8, 8), DIMS(192, 64, 8, 1)))
ROW(tnd_garbage_desc, BAD, "not a live", NONE,
    cudnnSetTensorNdDescriptor(GARBAGE_TENSOR, F32, 4, DIMS(1, 3, 8, 8), DIMS(192, 64, 8, 1)))
ROW(tnd_null_dima, BAD, "dimA", NONE,
    cudnnSetTensorNdDescriptor(TV, F32, 4, NULL, DIMS(192, 64, 8, 1)))
ROW(tnd_null_stridea, BAD, "strideA", NONE,
    cudnnSetTensorNdDescriptor(TV, F32, 4, DIMS(1, 3, 8, 8), NULL))
ROW(tnd_null_both, BAD, "dimA", NONE, cudnnSetTensorNdDescriptor(TV, F32, 5, NULL, NULL))
ROW(tnd_dim2_0, BAD, "dimA[2] is 0", NONE,
    cudnnSetTensorNdDescriptor(TV, F32, 4, DIMS(1, 3, 0, 8), DIMS(192, 64, 8, 1)))
ROW(tnd_dim4_neg1, BAD, "dimA[4] is -1", NONE,
    cudnnSetTensorNdDescriptor(TV, F32, 5, DIMS(1, 3, 2, 2, -1), DIMS(12, 4, 2, 1, 1)))
ROW(tnd_stride0_on_dim_gt1, BAD, "strideA[1]", NONE,
    cudnnSetTensorNdDescriptor(TV, F32, 4, DIMS(1, 3, 8, 8), DIMS(192, 0, 8, 1)))
ROW(tnd_stride0_on_dim1_ok, OK, NULL, NONE,
    cudnnSetTensorNdDescriptor(TV, F32, 4, DIMS(1, 3, 1, 8), DIMS(24, 8, 0, 1)))
ROW(tnd_negative_stride_ok, OK, NULL, NONE,
    cudnnSetTensorNdDescriptor(TV, F32, 4, DIMS(1, 3, 8, 8), DIMS(192, -64, 8, 1)))
ROW(tnd_dtype_22, BAD, "dataType 22", NONE,
    cudnnSetTensorNdDescriptor(TV, (cudnnDataType_t)22, 4, DIMS(1, 3, 8, 8), DIMS(192, 64, 8, 1)))
ROW(tnd_8_dims_65536, NS, "2^31", NONE,
    cudnnSetTensorNdDescriptor(TV, F32, 8,
                               DIMS(65536, 65536, 65536, 65536, 65536, 65536, 65536, 65536),
                               DIMS(1, 1, 1, 1, 1, 1, 1, 1)))
ROW(tnd_8_dims_int_max, NS, "2^31", NONE,
    cudnnSetTensorNdDescriptor(TV, F32, 8,
                               DIMS(INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX,
                                    INT_MAX),
                               DIMS(1, 1, 1, 1, 1, 1, 1, 1)))
ROW(tnd_extent_2pow31, NS, "2^31", NONE,
    cudnnSetTensorNdDescriptor(TV, F32, 3, DIMS(2, 1, 1), DIMS(INT_MAX, 1, 1)))
ROW(tnd_int8x4_c3, BAD, "multiple of 4", NONE,
    cudnnSetTensorNdDescriptor(TV, I8x4, 4, DIMS(1, 3, 2, 2), DIMS(4, 4, 2, 1)))
/* NdEx */
ROW(tndex_ok_5d_nhwc, OK, NULL, NONE,
    cudnnSetTensorNdDescriptorEx(TV, NHWC, F32, 5, DIMS(2, 3, 4, 5, 6)))
ROW(tndex_ok_3d, OK, NULL, NONE, cudnnSetTensorNdDescriptorEx(TV, NCHW, F32, 3, DIMS(2, 3, 4)))
ROW(tndex_null_desc, BAD, "tensorDesc", NONE,
    cudnnSetTensorNdDescriptorEx(NULL, NCHW, F32, 4, DIMS(1, 3, 8, 8)))
ROW(tndex_format_5, BAD, "format 5", NONE,
    cudnnSetTensorNdDescriptorEx(TV, (cudnnTensorFormat_t)5, F32, 4, DIMS(1, 3, 8, 8)))
ROW(tndex_dtype_neg1, BAD, "dataType -1", NONE,
    cudnnSetTensorNdDescriptorEx(TV, NCHW, (cudnnDataType_t)-1, 4, DIMS(1, 3, 8, 8)))
ROW(tndex_nbdims_1, BAD, "nbDims is 1", NONE,
    cudnnSetTensorNdDescriptorEx(TV, NCHW, F32, 1, DIMS(8)))
ROW(tndex_nbdims_9, NS, "nbDims is 9", NONE,
    cudnnSetTensorNdDescriptorEx(TV, NCHW, F32, 9, DIMS(1, 1, 1, 1, 1, 1, 1, 1, 1)))
ROW(tndex_null_dima, BAD, "dimA", NONE, cudnnSetTensorNdDescriptorEx(TV, NCHW, F32, 4, NULL))
ROW(tndex_dim_0, BAD, "dimA[3] is 0", NONE,
    cudnnSetTensorNdDescriptorEx(TV, NCHW, F32, 4, DIMS(1, 3, 8, 0)))
ROW(tndex_vect_c_float, BAD, "CUDNN_DATA_FLOAT", NONE,
    cudnnSetTensorNdDescriptorEx(TV, VECT, F32, 4, DIMS(1, 4, 8, 8)))
ROW(tndex_2pow31, NS, "2^31", NONE,
    cudnnSetTensorNdDescriptorEx(TV, NHWC, F32, 4, DIMS(2, 1024, 1024, 1024)))
/* getters */
ROW(get_t4_null_desc, BAD, "tensorDesc", NONE,
    cudnnGetTensor4dDescriptor(NULL, &O.dt, &O.i[0], &O.i[1], &O.i[2], &O.i[3], &O.i[4], &O.i[5],
                               &O.i[6], &O.i[7]))
ROW(get_t4_garbage_desc, BAD, "not a live", NONE,
    cudnnGetTensor4dDescriptor(GARBAGE_TENSOR, &O.dt, &O.i[0], &O.i[1], &O.i[2], &O.i[3], &O.i[4],
                               &O.i[5], &O.i[6], &O.i[7]))
ROW(get_t4_unset_desc, BAD, "never set", NONE,
    cudnnGetTensor4dDescriptor(TU, &O.dt, &O.i[0], &O.i[1], &O.i[2], &O.i[3], &O.i[4], &O.i[5],
                               &O.i[6], &O.i[7]))
ROW(get_t4_null_datatype, BAD, "dataType is NULL|dataType (nil)", NONE,
    cudnnGetTensor4dDescriptor(TV, NULL, &O.i[0], &O.i[1], &O.i[2], &O.i[3], &O.i[4], &O.i[5],
                               &O.i[6], &O.i[7]))
ROW(get_t4_null_n, BAD, "n is NULL|n (nil)", NONE,
    cudnnGetTensor4dDescriptor(TV, &O.dt, NULL, &O.i[1], &O.i[2], &O.i[3], &O.i[4], &O.i[5],
                               &O.i[6], &O.i[7]))
ROW(get_t4_null_c, BAD, "c is NULL|c (nil)", NONE,
    cudnnGetTensor4dDescriptor(TV, &O.dt, &O.i[0], NULL, &O.i[2], &O.i[3], &O.i[4], &O.i[5],
                               &O.i[6], &O.i[7]))
ROW(get_t4_null_h, BAD, "h is NULL|h (nil)", NONE,
    cudnnGetTensor4dDescriptor(TV, &O.dt, &O.i[0], &O.i[1], NULL, &O.i[3], &O.i[4], &O.i[5],
                               &O.i[6], &O.i[7]))
ROW(get_t4_null_w, BAD, "w is NULL|w (nil)", NONE,
    cudnnGetTensor4dDescriptor(TV, &O.dt, &O.i[0], &O.i[1], &O.i[2], NULL, &O.i[4], &O.i[5],
                               &O.i[6], &O.i[7]))
ROW(get_t4_null_nstride, BAD, "nStride is NULL|nStride (nil)", NONE,
    cudnnGetTensor4dDescriptor(TV, &O.dt, &O.i[0], &O.i[1], &O.i[2], &O.i[3], NULL, &O.i[5],
                               &O.i[6], &O.i[7]))
ROW(get_t4_null_cstride, BAD, "cStride is NULL|cStride (nil)", NONE,
    cudnnGetTensor4dDescriptor(TV, &O.dt, &O.i[0], &O.i[1], &O.i[2], &O.i[3], &O.i[4], NULL,
                               &O.i[6], &O.i[7]))
ROW(get_t4_null_hstride, BAD, "hStride is NULL|hStride (nil)", NONE,
    cudnnGetTensor4dDescriptor(TV, &O.dt, &O.i[0], &O.i[1], &O.i[2], &O.i[3], &O.i[4], &O.i[5],
                               NULL, &O.i[7]))
ROW(get_t4_null_wstride, BAD, "wStride is NULL|wStride (nil)", NONE,
    cudnnGetTensor4dDescriptor(TV, &O.dt, &O.i[0], &O.i[1], &O.i[2], &O.i[3], &O.i[4], &O.i[5],
                               &O.i[6], NULL))
ROW(get_t4_on_5d, BAD, "5 dims",
    S(cudnnSetTensorNdDescriptorEx(TV, NCHW, F32, 5, DIMS(1, 2, 3, 4, 5))),
    cudnnGetTensor4dDescriptor(TV, &O.dt, &O.i[0], &O.i[1], &O.i[2], &O.i[3], &O.i[4], &O.i[5],
                               &O.i[6], &O.i[7]))
ROW(get_tnd_null_desc, BAD, "tensorDesc", NONE,
    cudnnGetTensorNdDescriptor(NULL, 4, &O.dt, &O.i[0], &O.i[1], &O.i[9]))
ROW(get_tnd_unset_desc, BAD, "never set", NONE,
    cudnnGetTensorNdDescriptor(TU, 4, &O.dt, &O.i[0], &O.i[1], &O.i[9]))
ROW(get_tnd_requested_neg1, BAD, "nbDimsRequested", NONE,
    cudnnGetTensorNdDescriptor(TV, -1, &O.dt, &O.i[0], &O.i[1], &O.i[9]))
ROW(get_tnd_requested_int_max_ok, OK, NULL, NONE,
    cudnnGetTensorNdDescriptor(TV, INT_MAX, &O.dt, &O.i[0], &O.i[1], &O.i[9]))
ROW(get_tnd_null_datatype, BAD, "dataType", NONE,
    cudnnGetTensorNdDescriptor(TV, 4, NULL, &O.i[0], &O.i[1], &O.i[9]))
ROW(get_tnd_null_nbdims, BAD, "nbDims", NONE,
    cudnnGetTensorNdDescriptor(TV, 4, &O.dt, NULL, &O.i[1], &O.i[9]))
ROW(get_tnd_null_dima, BAD, "dimA", NONE,
    cudnnGetTensorNdDescriptor(TV, 4, &O.dt, &O.i[0], NULL, &O.i[9]))
ROW(get_tnd_null_stridea, BAD, "strideA", NONE,
    cudnnGetTensorNdDescriptor(TV, 4, &O.dt, &O.i[0], &O.i[1], NULL))
ROW(get_tnd_requested_0_null_arrays_ok, OK, NULL, NONE,
    cudnnGetTensorNdDescriptor(TV, 0, &O.dt, &O.i[0], NULL, NULL))
ROW(tensor_size_null_desc, BAD, "tensorDesc", NONE, cudnnGetTensorSizeInBytes(NULL, &O.sz))
ROW(tensor_size_unset_desc, BAD, "never set", NONE, cudnnGetTensorSizeInBytes(TU, &O.sz))
ROW(tensor_size_null_out, BAD, "size", NONE, cudnnGetTensorSizeInBytes(TV, NULL))

/* ==== filter descriptors ================================================================= */
ROW(filter_create_null, BAD, "filterDesc", NONE, cudnnCreateFilterDescriptor(NULL))
ROW(filter_destroy_null_is_success, OK, NULL, NONE, cudnnDestroyFilterDescriptor(NULL))
ROW(filter_destroy_garbage, BAD, "not a live", NONE, cudnnDestroyFilterDescriptor(GARBAGE_FILTER))
ROW(f4_ok_nhwc, OK, NULL, NONE, cudnnSetFilter4dDescriptor(FV, F16, NHWC, 8, 3, 5, 5))
ROW(f4_null_desc, BAD, "filterDesc", NONE, cudnnSetFilter4dDescriptor(NULL, F32, NCHW, 4, 3, 3, 3))
ROW(f4_garbage_desc, BAD, "not a live", NONE,
    cudnnSetFilter4dDescriptor(GARBAGE_FILTER, F32, NCHW, 4, 3, 3, 3))
ROW(f4_dtype_22, BAD, "dataType 22", NONE,
    cudnnSetFilter4dDescriptor(FV, (cudnnDataType_t)22, NCHW, 4, 3, 3, 3))
ROW(f4_dtype_neg1, BAD, "dataType -1", NONE,
    cudnnSetFilter4dDescriptor(FV, (cudnnDataType_t)-1, NCHW, 4, 3, 3, 3))
ROW(f4_format_3, BAD, "format 3", NONE,
    cudnnSetFilter4dDescriptor(FV, F32, (cudnnTensorFormat_t)3, 4, 3, 3, 3))
ROW(f4_format_neg1, BAD, "format -1", NONE,
    cudnnSetFilter4dDescriptor(FV, F32, (cudnnTensorFormat_t)-1, 4, 3, 3, 3))
ROW(f4_k_0, BAD, "[0] is 0", NONE, cudnnSetFilter4dDescriptor(FV, F32, NCHW, 0, 3, 3, 3))
ROW(f4_c_0, BAD, "[1] is 0", NONE, cudnnSetFilter4dDescriptor(FV, F32, NCHW, 4, 0, 3, 3))
ROW(f4_r_neg1, BAD, "[2] is -1", NONE, cudnnSetFilter4dDescriptor(FV, F32, NCHW, 4, 3, -1, 3))
ROW(f4_s_neg1, BAD, "[3] is -1", NONE, cudnnSetFilter4dDescriptor(FV, F32, NCHW, 4, 3, 3, -1))
ROW(f4_k_int_max_alone_ok, OK, NULL, NONE,
    cudnnSetFilter4dDescriptor(FV, F32, NCHW, INT_MAX, 1, 1, 1))
ROW(f4_k_int_max, NS, "2^31", NONE, cudnnSetFilter4dDescriptor(FV, F32, NCHW, INT_MAX, 3, 3, 3))
ROW(f4_s_int_max, NS, "2^31", NONE, cudnnSetFilter4dDescriptor(FV, F32, NCHW, 4, 3, 3, INT_MAX))
ROW(f4_c_int_max, NS, "2^31", NONE, cudnnSetFilter4dDescriptor(FV, F32, NHWC, 4, INT_MAX, 3, 3))
ROW(f4_r_int_max, NS, "2^31", NONE, cudnnSetFilter4dDescriptor(FV, F32, NCHW, 4, 3, INT_MAX, 3))
ROW(f4_vect_c_float, BAD, "CUDNN_DATA_FLOAT", NONE,
    cudnnSetFilter4dDescriptor(FV, F32, VECT, 4, 4, 3, 3))
ROW(f4_vect_c_int8x4_c3, BAD, "multiple of 4", NONE,
    cudnnSetFilter4dDescriptor(FV, I8x4, VECT, 4, 3, 3, 3))
ROW(f4_vect_c_int8x32_c4, BAD, "multiple of 32", NONE,
    cudnnSetFilter4dDescriptor(FV, I8x32, VECT, 4, 4, 3, 3))
ROW(f4_vect_c_int8x4_ok, OK, NULL, NONE, cudnnSetFilter4dDescriptor(FV, I8x4, VECT, 4, 8, 3, 3))
ROW(fnd_ok_5d, OK, NULL, NONE, cudnnSetFilterNdDescriptor(FV, F32, NCHW, 5, DIMS(4, 3, 2, 3, 3)))
ROW(fnd_ok_3d, OK, NULL, NONE, cudnnSetFilterNdDescriptor(FV, F32, NCHW, 3, DIMS(4, 3, 3)))
ROW(fnd_nbdims_2, BAD, "nbDims is 2", NONE,
    cudnnSetFilterNdDescriptor(FV, F32, NCHW, 2, DIMS(4, 3)))
ROW(fnd_nbdims_0, BAD, "nbDims is 0", NONE, cudnnSetFilterNdDescriptor(FV, F32, NCHW, 0, DIMS(4)))
ROW(fnd_nbdims_neg1, BAD, "nbDims is -1", NONE,
    cudnnSetFilterNdDescriptor(FV, F32, NCHW, -1, DIMS(4)))
ROW(fnd_nbdims_9, NS, "nbDims is 9", NONE,
    cudnnSetFilterNdDescriptor(FV, F32, NCHW, 9, DIMS(1, 1, 1, 1, 1, 1, 1, 1, 1)))
ROW(fnd_nbdims_int_max, NS, "nbDims is 2147483647", NONE,
    cudnnSetFilterNdDescriptor(FV, F32, NCHW, INT_MAX, DIMS(1)))
ROW(fnd_null_dims, BAD, "filterDimA", NONE, cudnnSetFilterNdDescriptor(FV, F32, NCHW, 4, NULL))
ROW(fnd_null_desc, BAD, "filterDesc", NONE,
    cudnnSetFilterNdDescriptor(NULL, F32, NCHW, 4, DIMS(4, 3, 3, 3)))
ROW(fnd_dim4_0, BAD, "filterDimA[4] is 0", NONE,
    cudnnSetFilterNdDescriptor(FV, F32, NCHW, 5, DIMS(4, 3, 3, 3, 0)))
ROW(fnd_dtype_99, BAD, "dataType 99", NONE,
    cudnnSetFilterNdDescriptor(FV, (cudnnDataType_t)99, NCHW, 4, DIMS(4, 3, 3, 3)))
ROW(get_f4_null_desc, BAD, "filterDesc", NONE,
    cudnnGetFilter4dDescriptor(NULL, &O.dt, &O.fmt, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(get_f4_unset_desc, BAD, "never set", NONE,
    cudnnGetFilter4dDescriptor(FU, &O.dt, &O.fmt, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(get_f4_garbage_desc, BAD, "not a live", NONE,
    cudnnGetFilter4dDescriptor(GARBAGE_FILTER, &O.dt, &O.fmt, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(get_f4_null_datatype, BAD, "dataType is NULL|dataType (nil)", NONE,
    cudnnGetFilter4dDescriptor(FV, NULL, &O.fmt, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(get_f4_null_format, BAD, "format is NULL|format (nil)", NONE,
    cudnnGetFilter4dDescriptor(FV, &O.dt, NULL, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(get_f4_null_k, BAD, "k is NULL|k (nil)", NONE,
    cudnnGetFilter4dDescriptor(FV, &O.dt, &O.fmt, NULL, &O.i[1], &O.i[2], &O.i[3]))
ROW(get_f4_null_c, BAD, "c is NULL|c (nil)", NONE,
    cudnnGetFilter4dDescriptor(FV, &O.dt, &O.fmt, &O.i[0], NULL, &O.i[2], &O.i[3]))
ROW(get_f4_null_h, BAD, "h is NULL|h (nil)", NONE,
    cudnnGetFilter4dDescriptor(FV, &O.dt, &O.fmt, &O.i[0], &O.i[1], NULL, &O.i[3]))
ROW(get_f4_null_w, BAD, "w is NULL|w (nil)", NONE,
    cudnnGetFilter4dDescriptor(FV, &O.dt, &O.fmt, &O.i[0], &O.i[1], &O.i[2], NULL))
ROW(get_f4_on_5d, BAD, "5 dims",
    S(cudnnSetFilterNdDescriptor(FV, F32, NCHW, 5, DIMS(4, 3, 2, 3, 3))),
    cudnnGetFilter4dDescriptor(FV, &O.dt, &O.fmt, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(get_fnd_null_desc, BAD, "filterDesc", NONE,
    cudnnGetFilterNdDescriptor(NULL, 4, &O.dt, &O.fmt, &O.i[0], &O.i[1]))
ROW(get_fnd_unset_desc, BAD, "never set", NONE,
    cudnnGetFilterNdDescriptor(FU, 4, &O.dt, &O.fmt, &O.i[0], &O.i[1]))
ROW(get_fnd_requested_neg1, BAD, "nbDimsRequested", NONE,
    cudnnGetFilterNdDescriptor(FV, -1, &O.dt, &O.fmt, &O.i[0], &O.i[1]))
ROW(get_fnd_requested_int_max_ok, OK, NULL, NONE,
    cudnnGetFilterNdDescriptor(FV, INT_MAX, &O.dt, &O.fmt, &O.i[0], &O.i[1]))
ROW(get_fnd_null_datatype, BAD, "dataType", NONE,
    cudnnGetFilterNdDescriptor(FV, 4, NULL, &O.fmt, &O.i[0], &O.i[1]))
ROW(get_fnd_null_format, BAD, "format", NONE,
    cudnnGetFilterNdDescriptor(FV, 4, &O.dt, NULL, &O.i[0], &O.i[1]))
ROW(get_fnd_null_nbdims, BAD, "nbDims", NONE,
    cudnnGetFilterNdDescriptor(FV, 4, &O.dt, &O.fmt, NULL, &O.i[1]))
ROW(get_fnd_null_dims, BAD, "filterDimA", NONE,
    cudnnGetFilterNdDescriptor(FV, 4, &O.dt, &O.fmt, &O.i[0], NULL))
ROW(filter_size_null_desc, BAD, "filterDesc", NONE, cudnnGetFilterSizeInBytes(NULL, &O.sz))
ROW(filter_size_unset_desc, BAD, "never set", NONE, cudnnGetFilterSizeInBytes(FU, &O.sz))
ROW(filter_size_null_out, BAD, "size", NONE, cudnnGetFilterSizeInBytes(FV, NULL))

/* ==== convolution descriptors ============================================================ */
ROW(conv_create_null, BAD, "convDesc", NONE, cudnnCreateConvolutionDescriptor(NULL))
ROW(conv_destroy_null_is_success, OK, NULL, NONE, cudnnDestroyConvolutionDescriptor(NULL))
ROW(conv_destroy_garbage, BAD, "not a live", NONE, cudnnDestroyConvolutionDescriptor(GARBAGE_CONV))
ROW(c2d_ok, OK, NULL, NONE, cudnnSetConvolution2dDescriptor(CV, 0, 2, 3, 1, 2, 1, CONV, F64))
ROW(c2d_null_desc, BAD, "convDesc", NONE,
    cudnnSetConvolution2dDescriptor(NULL, 1, 1, 1, 1, 1, 1, XCORR, F32))
ROW(c2d_garbage_desc, BAD, "not a live", NONE,
    cudnnSetConvolution2dDescriptor(GARBAGE_CONV, 1, 1, 1, 1, 1, 1, XCORR, F32))
ROW(c2d_pad_h_neg1, BAD, "pad[0] is -1|pad_h is -1", NONE,
    cudnnSetConvolution2dDescriptor(CV, -1, 1, 1, 1, 1, 1, XCORR, F32))
ROW(c2d_pad_w_neg1, BAD, "pad[1] is -1|pad_w is -1", NONE,
    cudnnSetConvolution2dDescriptor(CV, 1, -1, 1, 1, 1, 1, XCORR, F32))
ROW(c2d_pad_int_min, BAD, "is -2147483648", NONE,
    cudnnSetConvolution2dDescriptor(CV, INT_MIN, 1, 1, 1, 1, 1, XCORR, F32))
ROW(c2d_pad_0_ok, OK, NULL, NONE, cudnnSetConvolution2dDescriptor(CV, 0, 0, 1, 1, 1, 1, XCORR, F32))
ROW(c2d_pad_2pow30_ok, OK, NULL, NONE,
    cudnnSetConvolution2dDescriptor(CV, 1 << 30, 1 << 30, 1, 1, 1, 1, XCORR, F32))
ROW(c2d_pad_int_max_ok, OK, NULL, NONE,
    cudnnSetConvolution2dDescriptor(CV, INT_MAX, 0, 1, 1, 1, 1, XCORR, F32))
ROW(c2d_u_0, BAD, "stride[0] is 0|u is 0", NONE,
    cudnnSetConvolution2dDescriptor(CV, 1, 1, 0, 1, 1, 1, XCORR, F32))
ROW(c2d_v_0, BAD, "stride[1] is 0|v is 0", NONE,
    cudnnSetConvolution2dDescriptor(CV, 1, 1, 1, 0, 1, 1, XCORR, F32))
ROW(c2d_u_neg1, BAD, "stride[0] is -1|u is -1", NONE,
    cudnnSetConvolution2dDescriptor(CV, 1, 1, -1, 1, 1, 1, XCORR, F32))
ROW(c2d_v_neg1, BAD, "stride[1] is -1|v is -1", NONE,
    cudnnSetConvolution2dDescriptor(CV, 1, 1, 1, -1, 1, 1, XCORR, F32))
ROW(c2d_v_int_min, BAD, "is -2147483648", NONE,
    cudnnSetConvolution2dDescriptor(CV, 1, 1, 1, INT_MIN, 1, 1, XCORR, F32))
ROW(c2d_dil_h_int_min, BAD, "is -2147483648", NONE,
    cudnnSetConvolution2dDescriptor(CV, 1, 1, 1, 1, INT_MIN, 1, XCORR, F32))
ROW(c2d_u_int_max_ok, OK, NULL, NONE,
    cudnnSetConvolution2dDescriptor(CV, 1, 1, INT_MAX, INT_MAX, 1, 1, XCORR, F32))
ROW(c2d_dil_h_0, BAD, "dilation[0] is 0|dilation_h is 0", NONE,
    cudnnSetConvolution2dDescriptor(CV, 1, 1, 1, 1, 0, 1, XCORR, F32))
ROW(c2d_dil_w_neg1, BAD, "dilation[1] is -1|dilation_w is -1", NONE,
    cudnnSetConvolution2dDescriptor(CV, 1, 1, 1, 1, 1, -1, XCORR, F32))
ROW(c2d_dil_int_max_ok, OK, NULL, NONE,
    cudnnSetConvolution2dDescriptor(CV, 1, 1, 1, 1, INT_MAX, INT_MAX, XCORR, F32))
ROW(c2d_mode_2, BAD, "mode 2", NONE,
    cudnnSetConvolution2dDescriptor(CV, 1, 1, 1, 1, 1, 1, (cudnnConvolutionMode_t)2, F32))
ROW(c2d_mode_neg1, BAD, "mode -1", NONE,
    cudnnSetConvolution2dDescriptor(CV, 1, 1, 1, 1, 1, 1, (cudnnConvolutionMode_t)-1, F32))
ROW(c2d_compute_22, BAD, "computeType", NONE,
    cudnnSetConvolution2dDescriptor(CV, 1, 1, 1, 1, 1, 1, XCORR, (cudnnDataType_t)22))
ROW(c2d_compute_neg1, BAD, "computeType", NONE,
    cudnnSetConvolution2dDescriptor(CV, 1, 1, 1, 1, 1, 1, XCORR, (cudnnDataType_t)-1))
ROW(cnd_ok_3d, OK, NULL, NONE,
    cudnnSetConvolutionNdDescriptor(CV, 3, DIMS(0, 1, 2), DIMS(1, 2, 3), DIMS(1, 1, 2), XCORR, F32))
ROW(cnd_array_length_0_ok, OK, NULL, NONE,
    cudnnSetConvolutionNdDescriptor(CV, 0, DIMS(0), DIMS(1), DIMS(1), XCORR, F32))
ROW(cnd_array_length_0_null_arrays_ok, OK, NULL, NONE,
    cudnnSetConvolutionNdDescriptor(CV, 0, NULL, NULL, NULL, XCORR, F32))
ROW(cnd_array_length_6_ok, OK, NULL, NONE,
    cudnnSetConvolutionNdDescriptor(CV, 6, DIMS(0, 0, 0, 0, 0, 0), DIMS(1, 1, 1, 1, 1, 1),
                                    DIMS(1, 1, 1, 1, 1, 1), XCORR, F32))
ROW(cnd_array_length_7, NS, "arrayLength is 7", NONE,
    cudnnSetConvolutionNdDescriptor(CV, 7, DIMS(0, 0, 0, 0, 0, 0, 0), DIMS(1, 1, 1, 1, 1, 1, 1),
                                    DIMS(1, 1, 1, 1, 1, 1, 1), XCORR, F32))
ROW(cnd_array_length_int_max, NS, "arrayLength is 2147483647", NONE,
    cudnnSetConvolutionNdDescriptor(CV, INT_MAX, DIMS(0), DIMS(1), DIMS(1), XCORR, F32))
ROW(cnd_array_length_neg1, BAD, "arrayLength is -1", NONE,
    cudnnSetConvolutionNdDescriptor(CV, -1, DIMS(0), DIMS(1), DIMS(1), XCORR, F32))
ROW(cnd_null_pad, BAD, "padA", NONE,
    cudnnSetConvolutionNdDescriptor(CV, 2, NULL, DIMS(1, 1), DIMS(1, 1), XCORR, F32))
ROW(cnd_null_stride, BAD, "filterStrideA", NONE,
    cudnnSetConvolutionNdDescriptor(CV, 2, DIMS(0, 0), NULL, DIMS(1, 1), XCORR, F32))
ROW(cnd_null_dilation, BAD, "dilationA", NONE,
    cudnnSetConvolutionNdDescriptor(CV, 2, DIMS(0, 0), DIMS(1, 1), NULL, XCORR, F32))
ROW(cnd_pad2_neg1, BAD, "pad[2] is -1|padA[2] is -1", NONE,
    cudnnSetConvolutionNdDescriptor(CV, 3, DIMS(0, 0, -1), DIMS(1, 1, 1), DIMS(1, 1, 1), XCORR,
                                    F32))
ROW(cnd_stride1_0, BAD, "stride[1] is 0|filterStrideA[1] is 0", NONE,
    cudnnSetConvolutionNdDescriptor(CV, 3, DIMS(0, 0, 0), DIMS(1, 0, 1), DIMS(1, 1, 1), XCORR, F32))
ROW(cnd_dil0_0, BAD, "dilation[0] is 0|dilationA[0] is 0", NONE,
    cudnnSetConvolutionNdDescriptor(CV, 1, DIMS(0), DIMS(1), DIMS(0), XCORR, F32))
ROW(cnd_mode_7, BAD, "mode 7", NONE,
    cudnnSetConvolutionNdDescriptor(CV, 2, DIMS(0, 0), DIMS(1, 1), DIMS(1, 1),
                                    (cudnnConvolutionMode_t)7, F32))
ROW(cnd_compute_int_max, BAD, "computeType", NONE,
    cudnnSetConvolutionNdDescriptor(CV, 2, DIMS(0, 0), DIMS(1, 1), DIMS(1, 1), XCORR,
                                    (cudnnDataType_t)INT_MAX))
ROW(get_c2d_null_desc, BAD, "convDesc", NONE,
    cudnnGetConvolution2dDescriptor(NULL, &O.i[0], &O.i[1], &O.i[2], &O.i[3], &O.i[4], &O.i[5],
                                    &O.mode, &O.dt))
ROW(get_c2d_unset_desc, BAD, "never set", NONE,
    cudnnGetConvolution2dDescriptor(CU, &O.i[0], &O.i[1], &O.i[2], &O.i[3], &O.i[4], &O.i[5],
                                    &O.mode, &O.dt))
ROW(get_c2d_garbage_desc, BAD, "not a live", NONE,
    cudnnGetConvolution2dDescriptor(GARBAGE_CONV, &O.i[0], &O.i[1], &O.i[2], &O.i[3], &O.i[4],
                                    &O.i[5], &O.mode, &O.dt))
ROW(get_c2d_null_pad_h, BAD, "pad_h is NULL|pad_h (nil)", NONE,
    cudnnGetConvolution2dDescriptor(CV, NULL, &O.i[1], &O.i[2], &O.i[3], &O.i[4], &O.i[5], &O.mode,
                                    &O.dt))
ROW(get_c2d_null_pad_w, BAD, "pad_w is NULL|pad_w (nil)", NONE,
    cudnnGetConvolution2dDescriptor(CV, &O.i[0], NULL, &O.i[2], &O.i[3], &O.i[4], &O.i[5], &O.mode,
                                    &O.dt))
ROW(get_c2d_null_u, BAD, "u is NULL|u (nil)", NONE,
    cudnnGetConvolution2dDescriptor(CV, &O.i[0], &O.i[1], NULL, &O.i[3], &O.i[4], &O.i[5], &O.mode,
                                    &O.dt))
ROW(get_c2d_null_v, BAD, "v is NULL|v (nil)", NONE,
    cudnnGetConvolution2dDescriptor(CV, &O.i[0], &O.i[1], &O.i[2], NULL, &O.i[4], &O.i[5], &O.mode,
                                    &O.dt))
ROW(get_c2d_null_dilation_h, BAD, "dilation_h is NULL|dilation_h (nil)", NONE,
    cudnnGetConvolution2dDescriptor(CV, &O.i[0], &O.i[1], &O.i[2], &O.i[3], NULL, &O.i[5], &O.mode,
                                    &O.dt))
ROW(get_c2d_null_dilation_w, BAD, "dilation_w is NULL|dilation_w (nil)", NONE,
    cudnnGetConvolution2dDescriptor(CV, &O.i[0], &O.i[1], &O.i[2], &O.i[3], &O.i[4], NULL, &O.mode,
                                    &O.dt))
ROW(get_c2d_null_mode, BAD, "mode is NULL|mode (nil)", NONE,
    cudnnGetConvolution2dDescriptor(CV, &O.i[0], &O.i[1], &O.i[2], &O.i[3], &O.i[4], &O.i[5], NULL,
                                    &O.dt))
ROW(get_c2d_null_compute, BAD, "computeType is NULL|computeType (nil)", NONE,
    cudnnGetConvolution2dDescriptor(CV, &O.i[0], &O.i[1], &O.i[2], &O.i[3], &O.i[4], &O.i[5],
                                    &O.mode, NULL))
ROW(get_c2d_on_3d, BAD, "3 spatial",
    S(cudnnSetConvolutionNdDescriptor(CV, 3, DIMS(0, 0, 0), DIMS(1, 1, 1), DIMS(1, 1, 1), XCORR,
                                      F32)),
    cudnnGetConvolution2dDescriptor(CV, &O.i[0], &O.i[1], &O.i[2], &O.i[3], &O.i[4], &O.i[5],
                                    &O.mode, &O.dt))
ROW(get_cnd_null_desc, BAD, "convDesc", NONE,
    cudnnGetConvolutionNdDescriptor(NULL, 2, &O.i[0], &O.i[1], &O.i[9], &O.i[17], &O.mode, &O.dt))
ROW(get_cnd_unset_desc, BAD, "never set", NONE,
    cudnnGetConvolutionNdDescriptor(CU, 2, &O.i[0], &O.i[1], &O.i[9], &O.i[17], &O.mode, &O.dt))
ROW(get_cnd_requested_neg1, BAD, "arrayLengthRequested", NONE,
    cudnnGetConvolutionNdDescriptor(CV, -1, &O.i[0], &O.i[1], &O.i[9], &O.i[17], &O.mode, &O.dt))
/* cuDNN documents NOT_SUPPORTED for arrayLengthRequested > CUDNN_DIM_MAX - 2 */
ROW(get_cnd_requested_7, NS, "arrayLengthRequested", NONE,
    cudnnGetConvolutionNdDescriptor(CV, 7, &O.i[0], &O.i[1], &O.i[9], &O.i[17], &O.mode, &O.dt))
ROW(get_cnd_requested_int_max, NS, "arrayLengthRequested", NONE,
    cudnnGetConvolutionNdDescriptor(CV, INT_MAX, &O.i[0], &O.i[1], &O.i[9], &O.i[17], &O.mode,
                                    &O.dt))
ROW(get_cnd_requested_int_min, BAD, "arrayLengthRequested", NONE,
    cudnnGetConvolutionNdDescriptor(CV, INT_MIN, &O.i[0], &O.i[1], &O.i[9], &O.i[17], &O.mode,
                                    &O.dt))
ROW(get_cnd_null_array_length, BAD, "arrayLength", NONE,
    cudnnGetConvolutionNdDescriptor(CV, 2, NULL, &O.i[1], &O.i[9], &O.i[17], &O.mode, &O.dt))
ROW(get_cnd_null_pad, BAD, "padA", NONE,
    cudnnGetConvolutionNdDescriptor(CV, 2, &O.i[0], NULL, &O.i[9], &O.i[17], &O.mode, &O.dt))
ROW(get_cnd_null_stride, BAD, "strideA", NONE,
    cudnnGetConvolutionNdDescriptor(CV, 2, &O.i[0], &O.i[1], NULL, &O.i[17], &O.mode, &O.dt))
ROW(get_cnd_null_dilation, BAD, "dilationA", NONE,
    cudnnGetConvolutionNdDescriptor(CV, 2, &O.i[0], &O.i[1], &O.i[9], NULL, &O.mode, &O.dt))
ROW(get_cnd_null_mode, BAD, "mode", NONE,
    cudnnGetConvolutionNdDescriptor(CV, 2, &O.i[0], &O.i[1], &O.i[9], &O.i[17], NULL, &O.dt))
ROW(get_cnd_null_compute, BAD, "computeType", NONE,
    cudnnGetConvolutionNdDescriptor(CV, 2, &O.i[0], &O.i[1], &O.i[9], &O.i[17], &O.mode, NULL))
ROW(group_count_ok, OK, NULL, NONE, cudnnSetConvolutionGroupCount(CV, 3))
ROW(group_count_int_max_ok, OK, NULL, NONE, cudnnSetConvolutionGroupCount(CV, INT_MAX))
ROW(group_count_0, BAD, "groupCount is 0", NONE, cudnnSetConvolutionGroupCount(CV, 0))
ROW(group_count_neg1, BAD, "groupCount is -1", NONE, cudnnSetConvolutionGroupCount(CV, -1))
ROW(group_count_int_min, BAD, "groupCount is -2147483648", NONE,
    cudnnSetConvolutionGroupCount(CV, INT_MIN))
ROW(group_count_null_desc, BAD, "convDesc", NONE, cudnnSetConvolutionGroupCount(NULL, 2))
ROW(group_count_garbage_desc, BAD, "not a live", NONE,
    cudnnSetConvolutionGroupCount(GARBAGE_CONV, 2))
ROW(get_group_count_null_desc, BAD, "convDesc", NONE, cudnnGetConvolutionGroupCount(NULL, &O.i[0]))
ROW(get_group_count_null_out, BAD, "groupCount", NONE, cudnnGetConvolutionGroupCount(CV, NULL))
ROW(math_type_ok, OK, NULL, NONE, cudnnSetConvolutionMathType(CV, CUDNN_FMA_MATH))
ROW(math_type_4, BAD, "mathType 4", NONE, cudnnSetConvolutionMathType(CV, (cudnnMathType_t)4))
ROW(math_type_neg1, BAD, "mathType -1", NONE, cudnnSetConvolutionMathType(CV, (cudnnMathType_t)-1))
ROW(math_type_null_desc, BAD, "convDesc", NONE,
    cudnnSetConvolutionMathType(NULL, CUDNN_DEFAULT_MATH))
ROW(get_math_type_null_desc, BAD, "convDesc", NONE, cudnnGetConvolutionMathType(NULL, &O.math))
ROW(get_math_type_null_out, BAD, "mathType", NONE, cudnnGetConvolutionMathType(CV, NULL))
ROW(reorder_type_ok, OK, NULL, NONE, cudnnSetConvolutionReorderType(CV, CUDNN_NO_REORDER))
ROW(reorder_type_2, BAD, "reorderType 2", NONE,
    cudnnSetConvolutionReorderType(CV, (cudnnReorderType_t)2))
ROW(reorder_type_neg1, BAD, "reorderType -1", NONE,
    cudnnSetConvolutionReorderType(CV, (cudnnReorderType_t)-1))
ROW(reorder_type_null_desc, BAD, "convDesc", NONE,
    cudnnSetConvolutionReorderType(NULL, CUDNN_NO_REORDER))
ROW(get_reorder_type_null_desc, BAD, "convDesc", NONE,
    cudnnGetConvolutionReorderType(NULL, &O.reorder))
ROW(get_reorder_type_null_out, BAD, "reorderType", NONE, cudnnGetConvolutionReorderType(CV, NULL))

/* ==== forward output dimensions ========================================================== */
ROW(outdim_ok, OK, NULL, NONE,
    cudnnGetConvolution2dForwardOutputDim(CD, XD, WD, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(outdim_null_n, BAD, "n is NULL|n (nil)", NONE,
    cudnnGetConvolution2dForwardOutputDim(CD, XD, WD, NULL, &O.i[1], &O.i[2], &O.i[3]))
ROW(outdim_null_c, BAD, "c is NULL|c (nil)", NONE,
    cudnnGetConvolution2dForwardOutputDim(CD, XD, WD, &O.i[0], NULL, &O.i[2], &O.i[3]))
ROW(outdim_null_h, BAD, "h is NULL|h (nil)", NONE,
    cudnnGetConvolution2dForwardOutputDim(CD, XD, WD, &O.i[0], &O.i[1], NULL, &O.i[3]))
ROW(outdim_null_w, BAD, "w is NULL|w (nil)", NONE,
    cudnnGetConvolution2dForwardOutputDim(CD, XD, WD, &O.i[0], &O.i[1], &O.i[2], NULL))
ROW(outdim_null_conv, BAD, "convDesc", NONE,
    cudnnGetConvolution2dForwardOutputDim(NULL, XD, WD, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(outdim_null_input, BAD, "inputTensorDesc", NONE,
    cudnnGetConvolution2dForwardOutputDim(CD, NULL, WD, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(outdim_null_filter, BAD, "filterDesc is NULL|wDesc is NULL", NONE,
    cudnnGetConvolution2dForwardOutputDim(CD, XD, NULL, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(outdim_unset_conv, BAD, "never set", NONE,
    cudnnGetConvolution2dForwardOutputDim(CU, XD, WD, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(outdim_unset_input, BAD, "never set", NONE,
    cudnnGetConvolution2dForwardOutputDim(CD, TU, WD, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(outdim_unset_filter, BAD, "never set", NONE,
    cudnnGetConvolution2dForwardOutputDim(CD, XD, FU, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(outdim_garbage_conv, BAD, "not a live", NONE,
    cudnnGetConvolution2dForwardOutputDim(GARBAGE_CONV, XD, WD, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(outdim_channel_mismatch, BAD, "C = 3", NONE,
    cudnnGetConvolution2dForwardOutputDim(CD, TV, WD, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(
    outdim_filter_11x11_on_8x8, BAD, "spans 11",
    {
        S(cudnnSetFilter4dDescriptor(FV, F32, NCHW, 4, 3, 11, 11));
        S(cudnnSetConvolution2dDescriptor(CV, 0, 0, 1, 1, 1, 1, XCORR, F32));
    },
    cudnnGetConvolution2dForwardOutputDim(CV, TV, FV, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(outdim_dilated_filter_too_large, BAD, "spans 9",
    S(cudnnSetConvolution2dDescriptor(CV, 0, 0, 1, 1, 4, 4, XCORR, F32)),
    cudnnGetConvolution2dForwardOutputDim(CV, TV, FV, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(outdim_dilation_int_max, BAD, "spans",
    S(cudnnSetConvolution2dDescriptor(CV, 1, 1, 1, 1, INT_MAX, 1, XCORR, F32)),
    cudnnGetConvolution2dForwardOutputDim(CV, TV, FV, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(outdim_pad_2pow30_overflow, BAD, "overflow",
    S(cudnnSetConvolution2dDescriptor(CV, 1 << 30, 1 << 30, 1, 1, 1, 1, XCORR, F32)),
    cudnnGetConvolution2dForwardOutputDim(CV, TV, FV, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(outdim_pad_int_max_overflow, BAD, "overflow",
    S(cudnnSetConvolution2dDescriptor(CV, INT_MAX, 0, 1, 1, 1, 1, XCORR, F32)),
    cudnnGetConvolution2dForwardOutputDim(CV, TV, FV, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(outdim_stride_int_max_ok, OK, NULL,
    S(cudnnSetConvolution2dDescriptor(CV, 1, 1, INT_MAX, INT_MAX, 1, 1, XCORR, F32)),
    cudnnGetConvolution2dForwardOutputDim(CV, TV, FV, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(
    outdim_groups_ok, OK, NULL,
    {
        S(cudnnSetConvolutionGroupCount(CD, 2));
        S(cudnnSetFilter4dDescriptor(WD, F32, NCHW, 8, 2, 3, 3));
    },
    cudnnGetConvolution2dForwardOutputDim(CD, XD, WD, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(
    outdim_k_not_multiple_of_groups, BAD, "group count",
    {
        S(cudnnSetConvolutionGroupCount(CD, 3));
        S(cudnnSetFilter4dDescriptor(WD, F32, NCHW, 8, 2, 3, 3));
        S(cudnnSetTensor4dDescriptor(XD, NCHW, F32, 2, 6, 9, 9));
    },
    cudnnGetConvolution2dForwardOutputDim(CD, XD, WD, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(outdim_groups_channel_mismatch, BAD, "groups", S(cudnnSetConvolutionGroupCount(CD, 2)),
    cudnnGetConvolution2dForwardOutputDim(CD, XD, WD, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(outdim_rank_x5_w4, BAD, "5 dims",
    S(cudnnSetTensorNdDescriptorEx(XD, NCHW, F32, 5, DIMS(2, 4, 3, 9, 9))),
    cudnnGetConvolution2dForwardOutputDim(CD, XD, WD, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(outdim_rank_conv3d_x4, BAD, "spatial",
    S(cudnnSetConvolutionNdDescriptor(CD, 3, DIMS(1, 1, 1), DIMS(1, 1, 1), DIMS(1, 1, 1), XCORR,
                                      F32)),
    cudnnGetConvolution2dForwardOutputDim(CD, XD, WD, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(
    outdim_2d_query_on_3d_problem, BAD, "5 dims",
    {
        S(cudnnSetConvolutionNdDescriptor(CD, 3, DIMS(1, 1, 1), DIMS(1, 1, 1), DIMS(1, 1, 1), XCORR,
                                          F32));
        S(cudnnSetTensorNdDescriptorEx(XD, NCHW, F32, 5, DIMS(2, 4, 3, 9, 9)));
        S(cudnnSetFilterNdDescriptor(WD, F32, NCHW, 5, DIMS(8, 4, 3, 3, 3)));
    },
    cudnnGetConvolution2dForwardOutputDim(CD, XD, WD, &O.i[0], &O.i[1], &O.i[2], &O.i[3]))
ROW(outdim_nd_ok, OK, NULL, NONE, cudnnGetConvolutionNdForwardOutputDim(CD, XD, WD, 4, &O.i[0]))
ROW(outdim_nd_null_out, BAD, "tensorOuputDimA", NONE,
    cudnnGetConvolutionNdForwardOutputDim(CD, XD, WD, 4, NULL))
ROW(outdim_nd_nbdims_2, BAD, "nbDims is 2", NONE,
    cudnnGetConvolutionNdForwardOutputDim(CD, XD, WD, 2, &O.i[0]))
ROW(outdim_nd_nbdims_9, BAD, "nbDims is 9", NONE,
    cudnnGetConvolutionNdForwardOutputDim(CD, XD, WD, 9, &O.i[0]))
ROW(outdim_nd_nbdims_neg1, BAD, "nbDims is -1", NONE,
    cudnnGetConvolutionNdForwardOutputDim(CD, XD, WD, -1, &O.i[0]))
ROW(outdim_nd_nbdims_int_max, BAD, "nbDims is 2147483647", NONE,
    cudnnGetConvolutionNdForwardOutputDim(CD, XD, WD, INT_MAX, &O.i[0]))
ROW(outdim_nd_nbdims_5_for_4d, BAD, "nbDims is 5", NONE,
    cudnnGetConvolutionNdForwardOutputDim(CD, XD, WD, 5, &O.i[0]))
ROW(outdim_nd_null_conv, BAD, "convDesc", NONE,
    cudnnGetConvolutionNdForwardOutputDim(NULL, XD, WD, 4, &O.i[0]))

/* ==== convolution forward ================================================================ */
ROW(fwd_algo0_implicit_gemm_ok, OK, NULL, NONE, FWD_RUN(0))
ROW(fwd_algo1_implicit_precomp_gemm_ok, OK, NULL, NONE, FWD_RUN(1))
ROW(fwd_algo2_gemm_ok, OK, NULL, NONE, FWD_RUN(2))
ROW(fwd_algo3_direct_ok, OK, NULL, NONE, FWD_RUN(3))
ROW(fwd_algo4_fft_ok, OK, NULL, NONE, FWD_RUN(4))
ROW(fwd_algo5_fft_tiling_ok, OK, NULL, NONE, FWD_RUN(5))
ROW(fwd_algo6_winograd_ok, OK, NULL, NONE, FWD_RUN(6))
ROW(fwd_algo7_winograd_nonfused_ok, OK, NULL, NONE, FWD_RUN(7))
ROW(fwd_algo_8, NS, "algo 8", NONE, FWD(8))
ROW(fwd_algo_neg1, NS, "algo -1", NONE, FWD(-1))
ROW(fwd_algo_int_max, NS, "algo 2147483647", NONE, FWD(INT_MAX))
ROW(fwd_null_workspace_every_algo_ok, OK, NULL, NONE, run_null_ws_all(f, DIR_FWD))
ROW(fwd_short_workspace, BAD, "workSpaceSizeInBytes", NONE, run_short_ws(f, DIR_FWD))
ROW(fwd_workspace_given_ok, OK, NULL, NONE,
    cudnnConvolutionForward(HD, AL, XD, X, WD, W, CD, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, WS, 1 << 20, BE,
                            YD, Y))
ROW(fwd_null_handle, BAD, "handle", NONE,
    cudnnConvolutionForward(NULL, AL, XD, X, WD, W, CD, 0, NULL, 0, BE, YD, Y))
ROW(fwd_garbage_handle, BAD, "not a live", NONE,
    cudnnConvolutionForward(GARBAGE_HANDLE, AL, XD, X, WD, W, CD, 0, NULL, 0, BE, YD, Y))
ROW(fwd_null_alpha, BAD, "alpha is NULL|alpha (nil)", NONE,
    cudnnConvolutionForward(HD, NULL, XD, X, WD, W, CD, 0, NULL, 0, BE, YD, Y))
ROW(fwd_null_beta, BAD, "beta is NULL|beta (nil)", NONE,
    cudnnConvolutionForward(HD, AL, XD, X, WD, W, CD, 0, NULL, 0, NULL, YD, Y))
ROW(fwd_null_x, BAD, "x is NULL|x (nil)", NONE,
    cudnnConvolutionForward(HD, AL, XD, NULL, WD, W, CD, 0, NULL, 0, BE, YD, Y))
ROW(fwd_null_w, BAD, "w is NULL|w (nil)", NONE,
    cudnnConvolutionForward(HD, AL, XD, X, WD, NULL, CD, 0, NULL, 0, BE, YD, Y))
ROW(fwd_null_y, BAD, "y is NULL|y (nil)", NONE,
    cudnnConvolutionForward(HD, AL, XD, X, WD, W, CD, 0, NULL, 0, BE, YD, NULL))
ROW(fwd_null_xdesc, BAD, "xDesc", NONE,
    cudnnConvolutionForward(HD, AL, NULL, X, WD, W, CD, 0, NULL, 0, BE, YD, Y))
ROW(fwd_null_wdesc, BAD, "wDesc", NONE,
    cudnnConvolutionForward(HD, AL, XD, X, NULL, W, CD, 0, NULL, 0, BE, YD, Y))
ROW(fwd_null_convdesc, BAD, "convDesc", NONE,
    cudnnConvolutionForward(HD, AL, XD, X, WD, W, NULL, 0, NULL, 0, BE, YD, Y))
ROW(fwd_null_ydesc, BAD, "yDesc", NONE,
    cudnnConvolutionForward(HD, AL, XD, X, WD, W, CD, 0, NULL, 0, BE, NULL, Y))
ROW(fwd_unset_xdesc, BAD, "never set", NONE,
    cudnnConvolutionForward(HD, AL, TU, X, WD, W, CD, 0, NULL, 0, BE, YD, Y))
ROW(fwd_unset_wdesc, BAD, "never set", NONE,
    cudnnConvolutionForward(HD, AL, XD, X, FU, W, CD, 0, NULL, 0, BE, YD, Y))
ROW(fwd_unset_convdesc, BAD, "never set", NONE,
    cudnnConvolutionForward(HD, AL, XD, X, WD, W, CU, 0, NULL, 0, BE, YD, Y))
ROW(fwd_unset_ydesc, BAD, "never set", NONE,
    cudnnConvolutionForward(HD, AL, XD, X, WD, W, CD, 0, NULL, 0, BE, TU, Y))
ROW(fwd_garbage_xdesc, BAD, "not a live", NONE,
    cudnnConvolutionForward(HD, AL, GARBAGE_TENSOR, X, WD, W, CD, 0, NULL, 0, BE, YD, Y))
ROW(fwd_y_w_off_by_one, BAD, "yDesc dim 3",
    S(cudnnSetTensor4dDescriptor(YD, NCHW, F32, 2, 8, 9, 10)), FWD(0))
ROW(fwd_y_h_off_by_one, BAD, "yDesc dim 2",
    S(cudnnSetTensor4dDescriptor(YD, NCHW, F32, 2, 8, 8, 9)), FWD(0))
ROW(fwd_y_wrong_n, BAD, "yDesc dim 0", S(cudnnSetTensor4dDescriptor(YD, NCHW, F32, 1, 8, 9, 9)),
    FWD(0))
ROW(fwd_y_wrong_k, BAD, "yDesc dim 1", S(cudnnSetTensor4dDescriptor(YD, NCHW, F32, 2, 7, 9, 9)),
    FWD(0))
ROW(fwd_x_channel_mismatch, BAD, "C = 3", S(cudnnSetTensor4dDescriptor(XD, NCHW, F32, 2, 3, 9, 9)),
    FWD(0))
ROW(
    fwd_filter_larger_than_input, BAD, "spans",
    {
        S(cudnnSetFilter4dDescriptor(WD, F32, NCHW, 8, 4, 12, 3));
        S(cudnnSetConvolution2dDescriptor(CD, 0, 0, 1, 1, 1, 1, XCORR, F32));
    },
    FWD(0))
ROW(fwd_mixed_x_double, NS, "mixed", S(cudnnSetTensor4dDescriptor(XD, NCHW, F64, 2, 4, 9, 9)),
    FWD(0))
ROW(fwd_mixed_y_half, NS, "mixed", S(cudnnSetTensor4dDescriptor(YD, NCHW, F16, 2, 8, 9, 9)), FWD(0))
ROW(fwd_mixed_w_bf16, NS, "mixed", S(cudnnSetFilter4dDescriptor(WD, BF16, NCHW, 8, 4, 3, 3)),
    FWD(0))
ROW(
    fwd_int8, NS, "INT8",
    {
        S(cudnnSetTensor4dDescriptor(XD, NCHW, I8, 2, 4, 9, 9));
        S(cudnnSetTensor4dDescriptor(YD, NCHW, I8, 2, 8, 9, 9));
        S(cudnnSetFilter4dDescriptor(WD, I8, NCHW, 8, 4, 3, 3));
        S(cudnnSetConvolution2dDescriptor(CD, 1, 1, 1, 1, 1, 1, XCORR, I32));
    },
    FWD(0))
ROW(fwd_float_with_double_compute, NS, "computeType",
    S(cudnnSetConvolution2dDescriptor(CD, 1, 1, 1, 1, 1, 1, XCORR, F64)), FWD(0))
ROW(fwd_in_place_x_is_y, NS, "overlap", NONE,
    cudnnConvolutionForward(HD, AL, XD, X, WD, W, CD, 0, NULL, 0, BE, YD, X))
ROW(fwd_partial_overlap, NS, "overlap", NONE,
    cudnnConvolutionForward(HD, AL, XD, X, WD, W, CD, 0, NULL, 0, BE, YD, (char *)X + 64))
ROW(fwd_x_negative_stride, NS, "negative",
    S(cudnnSetTensor4dDescriptorEx(XD, F32, 2, 4, 9, 9, 324, 81, 9, -1)),
    cudnnConvolutionForward(HD, AL, XD, (float *)X + 8, WD, W, CD, 0, NULL, 0, BE, YD, Y))
ROW(fwd_y_negative_stride, NS, "negative",
    S(cudnnSetTensor4dDescriptorEx(YD, F32, 2, 8, 9, 9, 648, 81, -9, 1)),
    cudnnConvolutionForward(HD, AL, XD, X, WD, W, CD, 0, NULL, 0, BE, YD, (float *)Y + 72))
ROW(fwd_y_overlapping_strides, BAD, "overlapping",
    S(cudnnSetTensor4dDescriptorEx(YD, F32, 2, 8, 9, 9, 1, 1, 1, 1)), FWD(0))
ROW(fwd_rank_x5_w4, BAD, "5 dims",
    S(cudnnSetTensorNdDescriptorEx(XD, NCHW, F32, 5, DIMS(2, 4, 1, 9, 9))), FWD(0))
ROW(fwd_rank_y5, BAD, "5 dims",
    S(cudnnSetTensorNdDescriptorEx(YD, NCHW, F32, 5, DIMS(2, 8, 1, 9, 9))), FWD(0))
ROW(fwd_rank_conv3d_on_4d, BAD, "spatial",
    S(cudnnSetConvolutionNdDescriptor(CD, 3, DIMS(1, 1, 1), DIMS(1, 1, 1), DIMS(1, 1, 1), XCORR,
                                      F32)),
    FWD(0))
ROW(
    fwd_x_2d, BAD, "at least 3",
    {
        S(cudnnSetConvolutionNdDescriptor(CD, 0, NULL, NULL, NULL, XCORR, F32));
        S(cudnnSetTensorNdDescriptorEx(XD, NCHW, F32, 2, DIMS(2, 4)));
        S(cudnnSetTensorNdDescriptorEx(YD, NCHW, F32, 2, DIMS(2, 8)));
    },
    FWD(0))
ROW(
    fwd_1d_ok, OK, NULL,
    {
        S(cudnnSetConvolutionNdDescriptor(CD, 1, DIMS(1), DIMS(1), DIMS(1), XCORR, F32));
        S(cudnnSetTensorNdDescriptorEx(XD, NCHW, F32, 3, DIMS(2, 4, 9)));
        S(cudnnSetTensorNdDescriptorEx(YD, NCHW, F32, 3, DIMS(2, 8, 9)));
        S(cudnnSetFilterNdDescriptor(WD, F32, NCHW, 3, DIMS(8, 4, 3)));
    },
    FWD_RUN(0))
ROW(
    fwd_4_spatial_dims, NS, "4 spatial",
    {
        S(cudnnSetConvolutionNdDescriptor(CD, 4, DIMS(0, 0, 0, 0), DIMS(1, 1, 1, 1),
                                          DIMS(1, 1, 1, 1), XCORR, F32));
        S(cudnnSetTensorNdDescriptorEx(XD, NCHW, F32, 6, DIMS(1, 1, 3, 3, 3, 3)));
        S(cudnnSetTensorNdDescriptorEx(YD, NCHW, F32, 6, DIMS(1, 1, 3, 3, 3, 3)));
        S(cudnnSetFilterNdDescriptor(WD, F32, NCHW, 6, DIMS(1, 1, 1, 1, 1, 1)));
    },
    FWD(0))
ROW(
    fwd_k_not_multiple_of_groups, BAD, "group count",
    {
        S(cudnnSetConvolutionGroupCount(CD, 3));
        S(cudnnSetFilter4dDescriptor(WD, F32, NCHW, 8, 2, 3, 3));
        S(cudnnSetTensor4dDescriptor(XD, NCHW, F32, 2, 6, 9, 9));
    },
    FWD(0))
ROW(
    fwd_grouped_ok, OK, NULL,
    {
        S(cudnnSetConvolutionGroupCount(CD, 2));
        S(cudnnSetFilter4dDescriptor(WD, F32, NCHW, 8, 2, 3, 3));
    },
    FWD_RUN(0))
ROW(fwd_vect_c_filter, NS, "INT8x4", S(cudnnSetFilter4dDescriptor(WD, I8x4, VECT, 8, 4, 3, 3)),
    FWD(0))

/* ==== convolution backward data ========================================================== */
ROW(bwd_data_algo0_ok, OK, NULL, NONE, BWD_DATA_RUN(0))
ROW(bwd_data_algo1_ok, OK, NULL, NONE, BWD_DATA_RUN(1))
ROW(bwd_data_algo2_fft_ok, OK, NULL, NONE, BWD_DATA_RUN(2))
ROW(bwd_data_algo3_fft_tiling_ok, OK, NULL, NONE, BWD_DATA_RUN(3))
ROW(bwd_data_algo4_winograd_ok, OK, NULL, NONE, BWD_DATA_RUN(4))
ROW(bwd_data_algo5_winograd_nonfused_ok, OK, NULL, NONE, BWD_DATA_RUN(5))
ROW(bwd_data_null_workspace_every_algo_ok, OK, NULL, NONE, run_null_ws_all(f, DIR_BWD_DATA))
ROW(bwd_data_short_workspace, BAD, "workSpaceSizeInBytes", NONE, run_short_ws(f, DIR_BWD_DATA))
ROW(bwd_data_algo_6, NS, "algo 6", NONE, BWD_DATA(6))
ROW(bwd_data_algo_neg1, NS, "algo -1", NONE, BWD_DATA(-1))
ROW(bwd_data_null_handle, BAD, "handle", NONE,
    cudnnConvolutionBackwardData(NULL, AL, WD, W, YD, DY, CD, 0, NULL, 0, BE, XD, DX))
ROW(bwd_data_null_alpha, BAD, "alpha is NULL|alpha (nil)", NONE,
    cudnnConvolutionBackwardData(HD, NULL, WD, W, YD, DY, CD, 0, NULL, 0, BE, XD, DX))
ROW(bwd_data_null_beta, BAD, "beta is NULL|beta (nil)", NONE,
    cudnnConvolutionBackwardData(HD, AL, WD, W, YD, DY, CD, 0, NULL, 0, NULL, XD, DX))
ROW(bwd_data_null_w, BAD, "w is NULL|w (nil)", NONE,
    cudnnConvolutionBackwardData(HD, AL, WD, NULL, YD, DY, CD, 0, NULL, 0, BE, XD, DX))
ROW(bwd_data_null_dy, BAD, "dy is NULL|dy (nil)", NONE,
    cudnnConvolutionBackwardData(HD, AL, WD, W, YD, NULL, CD, 0, NULL, 0, BE, XD, DX))
ROW(bwd_data_null_dx, BAD, "dx is NULL|dx (nil)", NONE,
    cudnnConvolutionBackwardData(HD, AL, WD, W, YD, DY, CD, 0, NULL, 0, BE, XD, NULL))
ROW(bwd_data_null_wdesc, BAD, "wDesc", NONE,
    cudnnConvolutionBackwardData(HD, AL, NULL, W, YD, DY, CD, 0, NULL, 0, BE, XD, DX))
ROW(bwd_data_null_dydesc, BAD, "dyDesc", NONE,
    cudnnConvolutionBackwardData(HD, AL, WD, W, NULL, DY, CD, 0, NULL, 0, BE, XD, DX))
ROW(bwd_data_null_convdesc, BAD, "convDesc", NONE,
    cudnnConvolutionBackwardData(HD, AL, WD, W, YD, DY, NULL, 0, NULL, 0, BE, XD, DX))
ROW(bwd_data_null_dxdesc, BAD, "dxDesc", NONE,
    cudnnConvolutionBackwardData(HD, AL, WD, W, YD, DY, CD, 0, NULL, 0, BE, NULL, DX))
ROW(bwd_data_unset_dxdesc, BAD, "never set", NONE,
    cudnnConvolutionBackwardData(HD, AL, WD, W, YD, DY, CD, 0, NULL, 0, BE, TU, DX))
ROW(bwd_data_dy_off_by_one, BAD, "dyDesc dim 3",
    S(cudnnSetTensor4dDescriptor(YD, NCHW, F32, 2, 8, 9, 8)), BWD_DATA(0))
ROW(bwd_data_mixed, NS, "mixed", S(cudnnSetTensor4dDescriptor(XD, NCHW, F16, 2, 4, 9, 9)),
    BWD_DATA(0))
ROW(bwd_data_in_place_dx_is_dy, NS, "overlap", NONE,
    cudnnConvolutionBackwardData(HD, AL, WD, W, YD, DY, CD, 0, NULL, 0, BE, XD, DY))
ROW(bwd_data_dx_negative_stride, NS, "negative",
    S(cudnnSetTensor4dDescriptorEx(XD, F32, 2, 4, 9, 9, 324, 81, 9, -1)),
    cudnnConvolutionBackwardData(HD, AL, WD, W, YD, DY, CD, 0, NULL, 0, BE, XD, (float *)DX + 8))
ROW(bwd_data_dx_overlapping, BAD, "overlapping",
    S(cudnnSetTensor4dDescriptorEx(XD, F32, 2, 4, 9, 9, 1, 1, 1, 1)), BWD_DATA(0))

/* ==== convolution backward filter ======================================================== */
ROW(bwd_filter_algo0_ok, OK, NULL, NONE, BWD_FILTER_RUN(0))
ROW(bwd_filter_algo1_ok, OK, NULL, NONE, BWD_FILTER_RUN(1))
ROW(bwd_filter_algo2_fft_ok, OK, NULL, NONE, BWD_FILTER_RUN(2))
ROW(bwd_filter_algo3_ok, OK, NULL, NONE, BWD_FILTER_RUN(3))
ROW(bwd_filter_algo4_winograd_ok, OK, NULL, NONE, BWD_FILTER_RUN(4))
ROW(bwd_filter_algo5_winograd_nonfused_ok, OK, NULL, NONE, BWD_FILTER_RUN(5))
ROW(bwd_filter_algo6_fft_tiling_ok, OK, NULL, NONE, BWD_FILTER_RUN(6))
ROW(bwd_filter_null_workspace_every_algo_ok, OK, NULL, NONE, run_null_ws_all(f, DIR_BWD_FILTER))
ROW(bwd_filter_short_workspace, BAD, "workSpaceSizeInBytes", NONE, run_short_ws(f, DIR_BWD_FILTER))
ROW(bwd_filter_algo_7, NS, "algo 7", NONE, BWD_FILTER(7))
ROW(bwd_filter_algo_int_min, NS, "algo -2147483648", NONE, BWD_FILTER(INT_MIN))
ROW(bwd_filter_null_handle, BAD, "handle", NONE,
    cudnnConvolutionBackwardFilter(NULL, AL, XD, X, YD, DY, CD, 0, NULL, 0, BE, WD, DW))
ROW(bwd_filter_null_alpha, BAD, "alpha is NULL|alpha (nil)", NONE,
    cudnnConvolutionBackwardFilter(HD, NULL, XD, X, YD, DY, CD, 0, NULL, 0, BE, WD, DW))
ROW(bwd_filter_null_beta, BAD, "beta is NULL|beta (nil)", NONE,
    cudnnConvolutionBackwardFilter(HD, AL, XD, X, YD, DY, CD, 0, NULL, 0, NULL, WD, DW))
ROW(bwd_filter_null_x, BAD, "x is NULL|x (nil)", NONE,
    cudnnConvolutionBackwardFilter(HD, AL, XD, NULL, YD, DY, CD, 0, NULL, 0, BE, WD, DW))
ROW(bwd_filter_null_dy, BAD, "dy is NULL|dy (nil)", NONE,
    cudnnConvolutionBackwardFilter(HD, AL, XD, X, YD, NULL, CD, 0, NULL, 0, BE, WD, DW))
ROW(bwd_filter_null_dw, BAD, "dw is NULL|dw (nil)", NONE,
    cudnnConvolutionBackwardFilter(HD, AL, XD, X, YD, DY, CD, 0, NULL, 0, BE, WD, NULL))
ROW(bwd_filter_null_xdesc, BAD, "xDesc", NONE,
    cudnnConvolutionBackwardFilter(HD, AL, NULL, X, YD, DY, CD, 0, NULL, 0, BE, WD, DW))
ROW(bwd_filter_null_dydesc, BAD, "dyDesc", NONE,
    cudnnConvolutionBackwardFilter(HD, AL, XD, X, NULL, DY, CD, 0, NULL, 0, BE, WD, DW))
ROW(bwd_filter_null_convdesc, BAD, "convDesc", NONE,
    cudnnConvolutionBackwardFilter(HD, AL, XD, X, YD, DY, NULL, 0, NULL, 0, BE, WD, DW))
ROW(bwd_filter_null_dwdesc, BAD, "wDesc", NONE,
    cudnnConvolutionBackwardFilter(HD, AL, XD, X, YD, DY, CD, 0, NULL, 0, BE, NULL, DW))
ROW(bwd_filter_unset_dwdesc, BAD, "never set", NONE,
    cudnnConvolutionBackwardFilter(HD, AL, XD, X, YD, DY, CD, 0, NULL, 0, BE, FU, DW))
ROW(bwd_filter_dw_wrong_k, BAD, "dim 1", S(cudnnSetFilter4dDescriptor(WD, F32, NCHW, 7, 4, 3, 3)),
    BWD_FILTER(0))
ROW(bwd_filter_mixed, NS, "mixed", S(cudnnSetFilter4dDescriptor(WD, F64, NCHW, 8, 4, 3, 3)),
    BWD_FILTER(0))
ROW(bwd_filter_x_negative_stride, NS, "negative",
    S(cudnnSetTensor4dDescriptorEx(XD, F32, 2, 4, 9, 9, 324, 81, 9, -1)),
    cudnnConvolutionBackwardFilter(HD, AL, XD, (float *)X + 8, YD, DY, CD, 0, NULL, 0, BE, WD, DW))

/* ==== convolution backward bias ========================================================== */
ROW(bwd_bias_ok, OK, NULL, NONE, BWD_BIAS())
ROW(bwd_bias_null_handle, BAD, "handle", NONE,
    cudnnConvolutionBackwardBias(NULL, AL, YD, DY, BE, BD, DB))
ROW(bwd_bias_null_alpha, BAD, "alpha is NULL|alpha (nil)", NONE,
    cudnnConvolutionBackwardBias(HD, NULL, YD, DY, BE, BD, DB))
ROW(bwd_bias_null_beta, BAD, "beta is NULL|beta (nil)", NONE,
    cudnnConvolutionBackwardBias(HD, AL, YD, DY, NULL, BD, DB))
ROW(bwd_bias_null_dy, BAD, "dy is NULL|dy (nil)", NONE,
    cudnnConvolutionBackwardBias(HD, AL, YD, NULL, BE, BD, DB))
ROW(bwd_bias_null_db, BAD, "db is NULL|db (nil)", NONE,
    cudnnConvolutionBackwardBias(HD, AL, YD, DY, BE, BD, NULL))
ROW(bwd_bias_null_dydesc, BAD, "dyDesc", NONE,
    cudnnConvolutionBackwardBias(HD, AL, NULL, DY, BE, BD, DB))
ROW(bwd_bias_null_dbdesc, BAD, "dbDesc", NONE,
    cudnnConvolutionBackwardBias(HD, AL, YD, DY, BE, NULL, DB))
ROW(bwd_bias_unset_dbdesc, BAD, "never set", NONE,
    cudnnConvolutionBackwardBias(HD, AL, YD, DY, BE, TU, DB))
ROW(bwd_bias_wrong_k, BAD, "dbDesc dim 1", S(cudnnSetTensor4dDescriptor(BD, NCHW, F32, 1, 7, 1, 1)),
    BWD_BIAS())
ROW(bwd_bias_not_1x1, BAD, "dbDesc dim 2", S(cudnnSetTensor4dDescriptor(BD, NCHW, F32, 1, 8, 2, 1)),
    BWD_BIAS())
ROW(bwd_bias_rank_mismatch, BAD, "dbDesc 5",
    S(cudnnSetTensorNdDescriptorEx(BD, NCHW, F32, 5, DIMS(1, 8, 1, 1, 1))), BWD_BIAS())
ROW(bwd_bias_mixed, NS, "CUDNN_DATA_DOUBLE",
    S(cudnnSetTensor4dDescriptor(BD, NCHW, F64, 1, 8, 1, 1)), BWD_BIAS())
ROW(
    bwd_bias_int8, NS, "INT8",
    {
        S(cudnnSetTensor4dDescriptor(BD, NCHW, I8, 1, 8, 1, 1));
        S(cudnnSetTensor4dDescriptor(YD, NCHW, I8, 2, 8, 9, 9));
    },
    BWD_BIAS())
ROW(bwd_bias_db_overlaps_dy, NS, "overlap", NONE,
    cudnnConvolutionBackwardBias(HD, AL, YD, DY, BE, BD, DY))

/* ==== workspace queries ================================================================== */
ROW(ws_fwd_ok, OK, NULL, NONE,
    cudnnGetConvolutionForwardWorkspaceSize(HD, XD, WD, CD, YD, CUDNN_CONVOLUTION_FWD_ALGO_FFT,
                                            &O.sz))
ROW(ws_fwd_null_size, BAD, "sizeInBytes", NONE,
    cudnnGetConvolutionForwardWorkspaceSize(HD, XD, WD, CD, YD, 0, NULL))
ROW(ws_fwd_null_handle, BAD, "handle", NONE,
    cudnnGetConvolutionForwardWorkspaceSize(NULL, XD, WD, CD, YD, 0, &O.sz))
ROW(ws_fwd_algo_8, NS, "algo 8", NONE,
    cudnnGetConvolutionForwardWorkspaceSize(HD, XD, WD, CD, YD, (cudnnConvolutionFwdAlgo_t)8,
                                            &O.sz))
ROW(ws_fwd_y_mismatch, BAD, "yDesc dim 3",
    S(cudnnSetTensor4dDescriptor(YD, NCHW, F32, 2, 8, 9, 10)),
    cudnnGetConvolutionForwardWorkspaceSize(HD, XD, WD, CD, YD, 0, &O.sz))
ROW(ws_bwd_data_ok, OK, NULL, NONE,
    cudnnGetConvolutionBackwardDataWorkspaceSize(HD, WD, YD, CD, XD, 5, &O.sz))
ROW(ws_bwd_data_null_size, BAD, "sizeInBytes", NONE,
    cudnnGetConvolutionBackwardDataWorkspaceSize(HD, WD, YD, CD, XD, 0, NULL))
ROW(ws_bwd_data_algo_neg1, NS, "algo -1", NONE,
    cudnnGetConvolutionBackwardDataWorkspaceSize(HD, WD, YD, CD, XD,
                                                 (cudnnConvolutionBwdDataAlgo_t)-1, &O.sz))
ROW(ws_bwd_filter_ok, OK, NULL, NONE,
    cudnnGetConvolutionBackwardFilterWorkspaceSize(HD, XD, YD, CD, WD, 6, &O.sz))
ROW(ws_bwd_filter_null_size, BAD, "sizeInBytes", NONE,
    cudnnGetConvolutionBackwardFilterWorkspaceSize(HD, XD, YD, CD, WD, 0, NULL))
ROW(ws_bwd_filter_algo_7, NS, "algo 7", NONE,
    cudnnGetConvolutionBackwardFilterWorkspaceSize(HD, XD, YD, CD, WD,
                                                   (cudnnConvolutionBwdFilterAlgo_t)7, &O.sz))
ROW(ws_bwd_filter_unset_conv, BAD, "never set", NONE,
    cudnnGetConvolutionBackwardFilterWorkspaceSize(HD, XD, YD, CU, WD, 0, &O.sz))

/* ==== algorithm choice ==================================================================== */
ROW(max_count_fwd_ok, OK, NULL, NONE, cudnnGetConvolutionForwardAlgorithmMaxCount(HD, &O.i[0]))
ROW(max_count_fwd_null_count, BAD, "count", NONE,
    cudnnGetConvolutionForwardAlgorithmMaxCount(HD, NULL))
ROW(max_count_fwd_null_handle, BAD, "handle", NONE,
    cudnnGetConvolutionForwardAlgorithmMaxCount(NULL, &O.i[0]))
ROW(max_count_bwd_data_null_count, BAD, "count", NONE,
    cudnnGetConvolutionBackwardDataAlgorithmMaxCount(HD, NULL))
ROW(max_count_bwd_filter_null_count, BAD, "count", NONE,
    cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(HD, NULL))
ROW(max_count_bwd_filter_garbage_handle, BAD, "not a live", NONE,
    cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(GARBAGE_HANDLE, &O.i[0]))
ROW(get_v7_fwd_ok, OK, NULL, NONE,
    cudnnGetConvolutionForwardAlgorithm_v7(HD, XD, WD, CD, YD, 8, &O.i[0], O.fwd_perf))
ROW(get_v7_fwd_requested_0, BAD, "requestedAlgoCount is 0", NONE,
    cudnnGetConvolutionForwardAlgorithm_v7(HD, XD, WD, CD, YD, 0, &O.i[0], O.fwd_perf))
ROW(get_v7_fwd_requested_neg1, BAD, "requestedAlgoCount is -1", NONE,
    cudnnGetConvolutionForwardAlgorithm_v7(HD, XD, WD, CD, YD, -1, &O.i[0], O.fwd_perf))
ROW(get_v7_fwd_requested_int_max_ok, OK, NULL, NONE,
    cudnnGetConvolutionForwardAlgorithm_v7(HD, XD, WD, CD, YD, INT_MAX, &O.i[0], O.fwd_perf))
ROW(get_v7_fwd_null_returned, BAD, "returnedAlgoCount", NONE,
    cudnnGetConvolutionForwardAlgorithm_v7(HD, XD, WD, CD, YD, 8, NULL, O.fwd_perf))
ROW(get_v7_fwd_null_perf, BAD, "perfResults", NONE,
    cudnnGetConvolutionForwardAlgorithm_v7(HD, XD, WD, CD, YD, 8, &O.i[0], NULL))
ROW(get_v7_fwd_null_handle, BAD, "handle", NONE,
    cudnnGetConvolutionForwardAlgorithm_v7(NULL, XD, WD, CD, YD, 8, &O.i[0], O.fwd_perf))
ROW(get_v7_fwd_y_mismatch, BAD, "yDesc dim 2",
    S(cudnnSetTensor4dDescriptor(YD, NCHW, F32, 2, 8, 8, 9)),
    cudnnGetConvolutionForwardAlgorithm_v7(HD, XD, WD, CD, YD, 8, &O.i[0], O.fwd_perf))
ROW(get_v7_bwd_data_ok, OK, NULL, NONE,
    cudnnGetConvolutionBackwardDataAlgorithm_v7(HD, WD, YD, CD, XD, 6, &O.i[0], O.bwd_data_perf))
ROW(get_v7_bwd_data_requested_0, BAD, "requestedAlgoCount is 0", NONE,
    cudnnGetConvolutionBackwardDataAlgorithm_v7(HD, WD, YD, CD, XD, 0, &O.i[0], O.bwd_data_perf))
ROW(get_v7_bwd_data_null_returned, BAD, "returnedAlgoCount", NONE,
    cudnnGetConvolutionBackwardDataAlgorithm_v7(HD, WD, YD, CD, XD, 6, NULL, O.bwd_data_perf))
ROW(get_v7_bwd_filter_ok, OK, NULL, NONE,
    cudnnGetConvolutionBackwardFilterAlgorithm_v7(HD, XD, YD, CD, WD, 7, &O.i[0],
                                                  O.bwd_filter_perf))
ROW(get_v7_bwd_filter_requested_int_min, BAD, "requestedAlgoCount is -2147483648", NONE,
    cudnnGetConvolutionBackwardFilterAlgorithm_v7(HD, XD, YD, CD, WD, INT_MIN, &O.i[0],
                                                  O.bwd_filter_perf))
ROW(get_v7_bwd_filter_null_perf, BAD, "perfResults", NONE,
    cudnnGetConvolutionBackwardFilterAlgorithm_v7(HD, XD, YD, CD, WD, 7, &O.i[0], NULL))
ROW(get_v6_fwd_ok, OK, NULL, NONE,
    cudnnGetConvolutionForwardAlgorithm(HD, XD, WD, CD, YD, CUDNN_CONVOLUTION_FWD_NO_WORKSPACE, 0,
                                        &O.fwd_algo))
ROW(get_v6_fwd_preference_3, BAD, "preference 3", NONE,
    cudnnGetConvolutionForwardAlgorithm(HD, XD, WD, CD, YD, (cudnnConvolutionFwdPreference_t)3, 0,
                                        &O.fwd_algo))
ROW(get_v6_fwd_preference_neg1, BAD, "preference -1", NONE,
    cudnnGetConvolutionForwardAlgorithm(HD, XD, WD, CD, YD, (cudnnConvolutionFwdPreference_t)-1, 0,
                                        &O.fwd_algo))
ROW(get_v6_fwd_null_algo, BAD, "algo", NONE,
    cudnnGetConvolutionForwardAlgorithm(HD, XD, WD, CD, YD, CUDNN_CONVOLUTION_FWD_PREFER_FASTEST, 0,
                                        NULL))
ROW(get_v6_bwd_data_ok, OK, NULL, NONE,
    cudnnGetConvolutionBackwardDataAlgorithm(HD, WD, YD, CD, XD,
                                             CUDNN_CONVOLUTION_BWD_DATA_PREFER_FASTEST, 0,
                                             &O.bwd_data_algo))
ROW(get_v6_bwd_data_preference_int_max, BAD, "preference 2147483647", NONE,
    cudnnGetConvolutionBackwardDataAlgorithm(HD, WD, YD, CD, XD,
                                             (cudnnConvolutionBwdDataPreference_t)INT_MAX, 0,
                                             &O.bwd_data_algo))
ROW(get_v6_bwd_data_null_algo, BAD, "algo", NONE,
    cudnnGetConvolutionBackwardDataAlgorithm(HD, WD, YD, CD, XD,
                                             CUDNN_CONVOLUTION_BWD_DATA_PREFER_FASTEST, 0, NULL))
ROW(get_v6_bwd_filter_ok, OK, NULL, NONE,
    cudnnGetConvolutionBackwardFilterAlgorithm(HD, XD, YD, CD, WD,
                                               CUDNN_CONVOLUTION_BWD_FILTER_SPECIFY_WORKSPACE_LIMIT,
                                               0, &O.bwd_filter_algo))
ROW(get_v6_bwd_filter_preference_3, BAD, "preference 3", NONE,
    cudnnGetConvolutionBackwardFilterAlgorithm(HD, XD, YD, CD, WD,
                                               (cudnnConvolutionBwdFilterPreference_t)3, 0,
                                               &O.bwd_filter_algo))
ROW(get_v6_bwd_filter_null_algo, BAD, "algo", NONE,
    cudnnGetConvolutionBackwardFilterAlgorithm(HD, XD, YD, CD, WD,
                                               CUDNN_CONVOLUTION_BWD_FILTER_PREFER_FASTEST, 0,
                                               NULL))
ROW(find_fwd_ok, OK, NULL, NONE,
    cudnnFindConvolutionForwardAlgorithm(HD, XD, WD, CD, YD, 8, &O.i[0], O.fwd_perf))
ROW(find_fwd_requested_0, BAD, "requestedAlgoCount is 0", NONE,
    cudnnFindConvolutionForwardAlgorithm(HD, XD, WD, CD, YD, 0, &O.i[0], O.fwd_perf))
ROW(find_fwd_requested_int_max_ok, OK, NULL, NONE,
    cudnnFindConvolutionForwardAlgorithm(HD, XD, WD, CD, YD, INT_MAX, &O.i[0], O.fwd_perf))
ROW(find_fwd_null_returned, BAD, "returnedAlgoCount", NONE,
    cudnnFindConvolutionForwardAlgorithm(HD, XD, WD, CD, YD, 8, NULL, O.fwd_perf))
ROW(find_fwd_null_perf, BAD, "perfResults", NONE,
    cudnnFindConvolutionForwardAlgorithm(HD, XD, WD, CD, YD, 8, &O.i[0], NULL))
ROW(find_fwd_null_handle, BAD, "handle", NONE,
    cudnnFindConvolutionForwardAlgorithm(NULL, XD, WD, CD, YD, 8, &O.i[0], O.fwd_perf))
ROW(find_bwd_data_ok, OK, NULL, NONE,
    cudnnFindConvolutionBackwardDataAlgorithm(HD, WD, YD, CD, XD, 6, &O.i[0], O.bwd_data_perf))
ROW(find_bwd_data_requested_neg1, BAD, "requestedAlgoCount is -1", NONE,
    cudnnFindConvolutionBackwardDataAlgorithm(HD, WD, YD, CD, XD, -1, &O.i[0], O.bwd_data_perf))
ROW(find_bwd_filter_ok, OK, NULL, NONE,
    cudnnFindConvolutionBackwardFilterAlgorithm(HD, XD, YD, CD, WD, 7, &O.i[0], O.bwd_filter_perf))
ROW(find_bwd_filter_null_perf, BAD, "perfResults", NONE,
    cudnnFindConvolutionBackwardFilterAlgorithm(HD, XD, YD, CD, WD, 7, &O.i[0], NULL))
ROW(find_ex_fwd_ok, OK, NULL, NONE,
    cudnnFindConvolutionForwardAlgorithmEx(HD, XD, X, WD, W, CD, YD, Y, 8, &O.i[0], O.fwd_perf,
                                           NULL, 0))
ROW(find_ex_fwd_null_x, BAD, "x", NONE,
    cudnnFindConvolutionForwardAlgorithmEx(HD, XD, NULL, WD, W, CD, YD, Y, 8, &O.i[0], O.fwd_perf,
                                           NULL, 0))
ROW(find_ex_fwd_null_y, BAD, "y", NONE,
    cudnnFindConvolutionForwardAlgorithmEx(HD, XD, X, WD, W, CD, YD, NULL, 8, &O.i[0], O.fwd_perf,
                                           NULL, 0))
ROW(find_ex_fwd_null_workspace_nonzero_size, BAD, "workSpace", NONE,
    cudnnFindConvolutionForwardAlgorithmEx(HD, XD, X, WD, W, CD, YD, Y, 8, &O.i[0], O.fwd_perf,
                                           NULL, 16))
ROW(find_ex_fwd_requested_0, BAD, "requestedAlgoCount is 0", NONE,
    cudnnFindConvolutionForwardAlgorithmEx(HD, XD, X, WD, W, CD, YD, Y, 0, &O.i[0], O.fwd_perf,
                                           NULL, 0))
ROW(find_ex_fwd_null_returned, BAD, "returnedAlgoCount", NONE,
    cudnnFindConvolutionForwardAlgorithmEx(HD, XD, X, WD, W, CD, YD, Y, 8, NULL, O.fwd_perf, NULL,
                                           0))
ROW(find_ex_fwd_y_mismatch, BAD, "yDesc dim 3",
    S(cudnnSetTensor4dDescriptor(YD, NCHW, F32, 2, 8, 9, 10)),
    cudnnFindConvolutionForwardAlgorithmEx(HD, XD, X, WD, W, CD, YD, Y, 8, &O.i[0], O.fwd_perf,
                                           NULL, 0))
ROW(find_ex_fwd_in_place, NS, "overlap", NONE,
    cudnnFindConvolutionForwardAlgorithmEx(HD, XD, X, WD, W, CD, YD, X, 8, &O.i[0], O.fwd_perf,
                                           NULL, 0))
ROW(find_ex_bwd_data_ok, OK, NULL, NONE,
    cudnnFindConvolutionBackwardDataAlgorithmEx(HD, WD, W, YD, DY, CD, XD, DX, 6, &O.i[0],
                                                O.bwd_data_perf, WS, 4096))
ROW(find_ex_bwd_data_null_dx, BAD, "dx", NONE,
    cudnnFindConvolutionBackwardDataAlgorithmEx(HD, WD, W, YD, DY, CD, XD, NULL, 6, &O.i[0],
                                                O.bwd_data_perf, NULL, 0))
ROW(find_ex_bwd_data_in_place, NS, "overlap", NONE,
    cudnnFindConvolutionBackwardDataAlgorithmEx(HD, WD, W, YD, DY, CD, XD, DY, 6, &O.i[0],
                                                O.bwd_data_perf, NULL, 0))
ROW(find_ex_bwd_data_requested_0, BAD, "requestedAlgoCount is 0", NONE,
    cudnnFindConvolutionBackwardDataAlgorithmEx(HD, WD, W, YD, DY, CD, XD, DX, 0, &O.i[0],
                                                O.bwd_data_perf, NULL, 0))
ROW(find_ex_bwd_filter_ok, OK, NULL, NONE,
    cudnnFindConvolutionBackwardFilterAlgorithmEx(HD, XD, X, YD, DY, CD, WD, DW, 7, &O.i[0],
                                                  O.bwd_filter_perf, NULL, 0))
ROW(find_ex_bwd_filter_null_dw, BAD, "dw", NONE,
    cudnnFindConvolutionBackwardFilterAlgorithmEx(HD, XD, X, YD, DY, CD, WD, NULL, 7, &O.i[0],
                                                  O.bwd_filter_perf, NULL, 0))
ROW(find_ex_bwd_filter_null_perf, BAD, "perfResults", NONE,
    cudnnFindConvolutionBackwardFilterAlgorithmEx(HD, XD, X, YD, DY, CD, WD, DW, 7, &O.i[0], NULL,
                                                  NULL, 0))
