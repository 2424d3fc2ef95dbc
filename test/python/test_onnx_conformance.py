"""onnx's node test cases against kiln (cpu-llvm): a representative subset in the default suite, every case with
KILN_ONNX_CONFORMANCE=full; on webgpu a smaller subset (``WEBGPU_SUBSET``) that crosses what WGSL lacks: 8-bit and
64-bit integers, bf16, the float8/int4 bytes, sequences.

The subset is the first passing case of every op the conformance run covers, plus cases that pin down semantics
kiln's graph ops do not share (Resize coordinate modes, pooling with ceil_mode and padding, integer Div/Mod,
ConvTranspose padding, recurrent nets, scatters with reductions, pads of every mode, float8/float4/int4/int2
conversions, sequences and optionals). The full run with the per-op
table is ``python -m kiln.onnx.conformance --table docs/onnx-conformance.md`` (docs/onnx.md lists every exclusion).
"""

from __future__ import annotations

import os
from functools import lru_cache

import pytest

pytest.importorskip("onnx")
from onnx.backend.test.loader import load_model_tests  # noqa: E402

from kiln.onnx.conformance import run_case  # noqa: E402
from tensor_cases import require  # noqa: E402

FULL = os.environ.get("KILN_ONNX_CONFORMANCE") == "full"
SUBSET = [
    "test_abs",
    "test_add",
    "test_affine_grid_2d_expanded",
    "test_and2d",
    "test_argmax_no_keepdims_example",
    "test_argmin_no_keepdims_example",
    "test_attention_4d",
    "test_averagepool_2d_pads_count_include_pad",
    "test_averagepool_2d_precomputed_pads",
    "test_basic_conv_with_padding",
    "test_batchnorm_example",
    "test_bitshift_right_uint8",
    "test_bitwise_and_i32_2d",
    "test_bitwise_not_2d",
    "test_bitwise_or_i32_2d",
    "test_bitwise_xor_i32_2d",
    "test_cast_FLOAT4E2M1_to_FLOAT16",
    "test_cast_FLOAT8E4M3FNUZ_to_FLOAT",
    "test_cast_FLOAT_to_FLOAT16",
    "test_cast_FLOAT_to_FLOAT8E4M3FN",
    "test_cast_FLOAT_to_INT4",
    "test_cast_no_saturate_FLOAT_to_FLOAT8E5M2",
    "test_castlike_FLOAT_to_DOUBLE",
    "test_castlike_FLOAT_to_FLOAT16",
    "test_castlike_FLOAT_to_UINT2_expanded",
    "test_ceil_example",
    "test_celu",
    "test_center_crop_pad_crop",
    "test_clip_example",
    "test_concat_1d_axis_0",
    "test_constant",
    "test_constant_pad",
    "test_constantofshape_float_ones",
    "test_conv_with_strides_and_asymmetric_padding",
    "test_convinteger_without_padding",
    "test_convtranspose",
    "test_convtranspose_pads",
    "test_cos_example",
    "test_cumsum_1d",
    "test_depthtospace_example",
    "test_dequantizelinear",
    "test_dequantizelinear_int4",
    "test_div_example",
    "test_div_int8",
    "test_dropout_default",
    "test_dynamicquantizelinear_max_adjusted",
    "test_edge_pad",
    "test_einsum_transpose",
    "test_elu_example",
    "test_equal",
    "test_erf",
    "test_exp_example",
    "test_expand_dim_changed",
    "test_eyelike_without_dtype",
    "test_flatten_axis0",
    "test_floor_example",
    "test_gather_0",
    "test_gather_elements_0",
    "test_gathernd_example_int32",
    "test_gathernd_example_int32_batch_dim1",
    "test_gelu_tanh_1",
    "test_gemm_default_zero_bias",
    "test_globalaveragepool",
    "test_globalmaxpool",
    "test_greater",
    "test_greater_equal",
    "test_group_normalization_example",
    "test_gru_bidirectional",
    "test_gru_defaults",
    "test_hardmax_example",
    "test_hardsigmoid_example",
    "test_hardswish",
    "test_identity",
    "test_if",
    "test_if_seq",
    "test_instancenorm_example",
    "test_l2normalization_axis_0",
    "test_layer_normalization_4d_axis0",
    "test_leakyrelu_example",
    "test_less",
    "test_less_equal",
    "test_log_example",
    "test_logsoftmax_example_1",
    "test_loop13_seq",
    "test_lppool_1d_default",
    "test_lrn",
    "test_lstm_defaults",
    "test_lstm_with_peepholes",
    "test_matmul_2d",
    "test_matmulinteger",
    "test_max_example",
    "test_maxpool_2d_ceil",
    "test_maxpool_2d_uint8",
    "test_mean_example",
    "test_min_example",
    "test_mish",
    "test_mod_mixed_sign_float64",
    "test_mod_mixed_sign_int32",
    "test_mul_example",
    "test_neg_example",
    "test_nllloss_NC",
    "test_onehot_without_axis",
    "test_optional_get_element_sequence",
    "test_optional_has_element_empty_no_input_name_tensor_input",
    "test_optional_has_element_empty_optional_input",
    "test_or2d",
    "test_pow_example",
    "test_prelu_example",
    "test_qlinearconv",
    "test_qlinearmatmul_2D_uint8_float32",
    "test_quantizelinear",
    "test_quantizelinear_e4m3fn",
    "test_quantizelinear_float4e2m1",
    "test_range_int32_type_negative_delta_expanded",
    "test_reciprocal_example",
    "test_reduce_l1_do_not_keepdims_example",
    "test_reduce_l2_do_not_keepdims_example",
    "test_reduce_log_sum_desc_axes",
    "test_reduce_log_sum_exp_do_not_keepdims_example",
    "test_reduce_max_do_not_keepdims_example",
    "test_reduce_mean_do_not_keepdims_example",
    "test_reduce_min_do_not_keepdims_example",
    "test_reduce_prod_do_not_keepdims_example",
    "test_reduce_sum_do_not_keepdims_example",
    "test_reduce_sum_empty_set",
    "test_reduce_sum_square_do_not_keepdims_example",
    "test_reflect_pad",
    "test_relu",
    "test_reshape_reordered_all_dims",
    "test_resize_downsample_scales_linear_align_corners",
    "test_resize_tf_crop_and_resize",
    "test_resize_upsample_scales_cubic_align_corners",
    "test_resize_upsample_scales_nearest",
    "test_rms_normalization_4d_axis0",
    "test_scatter_elements_with_reduction_max",
    "test_scatter_elements_without_axis",
    "test_scatter_without_axis",
    "test_scatternd",
    "test_scatternd_multiply",
    "test_sce_none",
    "test_selu_example",
    "test_sequence_insert_at_front",
    "test_sequence_map_add_1_sequence_1_tensor",
    "test_shape_example",
    "test_shrink_hard",
    "test_sigmoid_example",
    "test_sign",
    "test_simple_rnn_defaults",
    "test_sin_example",
    "test_size_example",
    "test_slice",
    "test_slice_neg_steps",
    "test_softmax_axis_0",
    "test_softmax_example",
    "test_softplus_example",
    "test_softsign_example",
    "test_spacetodepth",
    "test_split_equal_parts_1d_opset13",
    "test_split_to_sequence_1",
    "test_sqrt_example",
    "test_squeeze",
    "test_sub_example",
    "test_sum_example",
    "test_swiglu_alpha",
    "test_swish",
    "test_tanh_example",
    "test_thresholdedrelu_example",
    "test_tile",
    "test_top_k",
    "test_top_k_same_values_2d",
    "test_transpose_default",
    "test_triu",
    "test_unsqueeze_axis_0",
    "test_upsample_nearest",
    "test_where_example",
    "test_wrap_pad",
    "test_xor2d",
]

WEBGPU_SUBSET = [
    "test_add",
    "test_argmax_no_keepdims_example",
    "test_basic_conv_with_padding",
    "test_bitshift_right_uint8",
    "test_cast_FLOAT_to_BFLOAT16",
    "test_cast_FLOAT_to_FLOAT8E4M3FN",
    "test_cast_FLOAT_to_INT4",
    "test_cumsum_1d_int32_exclusive",
    "test_dequantizelinear",
    "test_div_int8",
    "test_gather_0",
    "test_matmul_2d",
    "test_maxpool_2d_uint8",
    "test_mod_mixed_sign_int8",
    "test_quantizelinear",
    "test_reduce_sum_do_not_keepdims_example",
    "test_relu",
    "test_softmax_example",
    "test_split_to_sequence_1",
]
"""Cases run on webgpu by default: ops that compute in widened (8-bit, bf16) or narrowed (64-bit) dtypes, the
float8/int4 conversions, a sequence, and a few float kernels (the full webgpu run is the CLI, docs/onnx.md)."""


@lru_cache(maxsize=1)
def cases() -> dict:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # onnx's case generators warn about their own float casts
        return {c.name: c for c in load_model_tests(kind="node")}


def names() -> list[str]:
    return sorted(cases()) if FULL else SUBSET


@pytest.mark.parametrize("name", names())
def test_node_case(name):
    status, detail = run_case(cases()[name], "cpu-llvm")
    if FULL and status == "unsupported":
        pytest.skip(detail)
    assert status == "pass", detail


@pytest.mark.parametrize("name", WEBGPU_SUBSET)
def test_node_case_webgpu(name):
    require("webgpu")
    status, detail = run_case(cases()[name], "webgpu")
    assert status == "pass", detail
