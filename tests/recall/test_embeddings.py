"""The embeddings layer: ONNX all-MiniLM-L6-v2 against the sentence-transformers golden vectors, windowing of
long texts, weight verification and the graph cache. No database: these tests only touch model files."""

import json
import os
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings

from recall import embeddings, onnx_graph
from recall.embeddings import OnnxEmbedder

GOLDEN = json.loads((Path(__file__).parent / "fixtures" / "minilm_golden.json").read_text())

TRADING_TEXT = (
    "the desk bought crude oil futures after inventories fell while the dollar weakened and volatility stayed low "
    "so risk was trimmed before the central bank meeting because earnings guidance for semiconductors disappointed "
    "and momentum traders rotated into defensive utilities consumer staples treasuries gold yen swiss franc"
)
TRADING_WORDS = TRADING_TEXT.split()


def long_text(words: int = 1000) -> str:
    return " ".join(TRADING_WORDS[(i * 7) % len(TRADING_WORDS)] for i in range(words))


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("embeddings-cache")


@pytest.fixture(scope="session")
def embedder(cache_dir):
    """The default provider's full-precision embedder (EMBEDDINGS_PRECISION=fp32); builds the graph once for the
    whole session into a temporary cache."""
    # Other tests may have verified the weights in this process already: verify again, so this cache
    # directory gets its own verified.json record whatever the test order.
    embeddings._verified_in_process.clear()
    instance = OnnxEmbedder(embeddings.default_model_dir(), cache_dir, "fp32")
    instance.load()
    return instance


@pytest.fixture(scope="session")
def int8_embedder(embedder, cache_dir):
    """The default precision (EMBEDDINGS_PRECISION=int8), same cache."""
    instance = OnnxEmbedder(embeddings.default_model_dir(), cache_dir)
    assert instance.precision == "int8"
    instance.load()
    return instance


@pytest.fixture(scope="session")
def reference_embedder(embedder, cache_dir):
    """Graph version 1 (standard ONNX ops, padded batches), as recall embedded before the fused graphs."""
    instance = OnnxEmbedder(embeddings.default_model_dir(), cache_dir, "reference")
    instance.load()
    return instance


def real_texts() -> list[str]:
    """The trading_recall collection's documents as recall_quality indexes them, and a few joined into long
    (multi-window) texts: real text, unlike the golden sentences' eight."""
    corpus = Path(__file__).resolve().parents[2] / "bench" / "collections" / "trading_recall" / "corpus.jsonl"
    docs = [json.loads(line) for line in corpus.read_text().splitlines() if line.strip()]
    short = [f"# {doc['title']}\n\n{doc['text']}" for doc in docs]
    return short[::3] + ["\n\n".join(short[i : i + 9]) for i in range(0, 90, 9)]


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def test_golden_sentences_match_sentence_transformers(embedder):
    vectors = embedder.embed(GOLDEN["sentences"])
    assert vectors.dtype == np.float32
    assert vectors.shape == (len(GOLDEN["sentences"]), 384)
    similarity = cosines(vectors, np.array(GOLDEN["embeddings"]))
    assert similarity.min() >= 0.9999, dict(zip(GOLDEN["sentences"], similarity, strict=True))
    assert embedder.name == GOLDEN["model"] == embeddings.MODEL_NAME


def test_rows_are_unit_norm(embedder):
    vectors = embedder.embed([*GOLDEN["sentences"], "", "x", long_text(400)])
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("precision", ["fp32", "int8"])
def test_batched_equals_one_by_one(precision, embedder, int8_embedder):
    chosen = {"fp32": embedder, "int8": int8_embedder}[precision]
    texts = [*GOLDEN["sentences"], "short", long_text(120), long_text(600)]
    batched = chosen.embed(texts)
    single = np.vstack([chosen.embed([text]) for text in texts])
    assert cosines(batched, single).min() >= 0.99999


def test_fused_fp32_graph_matches_the_reference_graph_on_real_text(embedder, reference_embedder):
    texts = real_texts()
    assert cosines(embedder.embed(texts), reference_embedder.embed(texts)).min() >= 0.99999


def test_int8_graph_stays_close_to_the_reference_graph_on_real_text(int8_embedder, reference_embedder):
    """The default's price for its speed (bench/embedding_throughput.py): measured min 0.9983, median 0.9991."""
    texts = real_texts()
    similarity = cosines(int8_embedder.embed(texts), reference_embedder.embed(texts))
    assert similarity.min() >= 0.997
    assert np.median(similarity) >= 0.999
    golden = cosines(int8_embedder.embed(GOLDEN["sentences"]), np.array(GOLDEN["embeddings"]))
    assert golden.min() >= 0.997


def test_int8_graph_keeps_the_outlier_channels_in_float32(embedder, cache_dir):
    import onnx

    graph = onnx.load(str(cache_dir / embeddings.MODEL_SAFETENSORS_SHA256 / embeddings.GRAPH_FILES["int8"]))
    ops = [node.op_type for node in graph.graph.node]
    assert ops.count("DynamicQuantizeMatMul") == 4 * 6  # Q/K/V, attention output, both feed-forward layers
    assert ops.count("Gather") == 3 * 6  # outlier channels of the Q/K/V input and both feed-forward inputs
    # Channel 99 of the hidden state is all-MiniLM-L6-v2's best-known outlier: it must be among them.
    outliers = {i.name: onnx.numpy_helper.to_array(i) for i in graph.graph.initializer if "outlier_channels" in i.name}
    assert all(99 in channels for name, channels in outliers.items() if "gelu" not in name and "ffn" not in name)
    with pytest.raises(ValueError, match="calibration"):
        model_dir = embeddings.default_model_dir()
        onnx_graph.build_bert_graph(model_dir / "model.safetensors", model_dir / "config.json", variant="int8")


def test_empty_input_has_shape_zero_by_384(embedder):
    result = embedder.embed([])
    assert result.shape == (0, 384)
    assert result.dtype == np.float32


def test_long_text_is_the_normalised_mean_of_its_windows(embedder):
    text = long_text(1000)
    windows = embedder.windows(text)
    pieces = [piece for window in windows for piece in window]
    assert len(windows) >= 4
    assert all(0 < len(window) <= embedder.window_size == 254 for window in windows)
    assert max(map(len, windows)) - min(map(len, windows)) < 254 // 2  # near-equal, no stub window

    (vector,) = embedder.embed([text])
    assert abs(np.linalg.norm(vector) - 1) < 1e-5
    window_vectors = embedder.embed_windows(windows)
    by_hand = window_vectors.mean(axis=0)
    by_hand /= np.linalg.norm(by_hand)
    assert cosines([vector], [by_hand])[0] >= 0.99999

    truncated = embedder.embed_windows([pieces[: embedder.window_size]])  # what sentence-transformers would embed
    assert cosines([vector], truncated)[0] < 0.999


def test_short_text_is_one_window(embedder):
    text = GOLDEN["sentences"][0]
    (window,) = embedder.windows(text)
    np.testing.assert_allclose(embedder.embed_windows([window]), embedder.embed([text]), atol=1e-6)


def test_mismatched_weights_are_refused(tmp_path):
    model_dir = embeddings.default_model_dir()
    tampered = tmp_path / "model"
    tampered.mkdir()
    for item in model_dir.iterdir():
        if item.name != "model.safetensors":
            (tampered / item.name).symlink_to(item)
    data = bytearray((model_dir / "model.safetensors").read_bytes())
    data[-1] ^= 0x01  # one bit in the last weight
    (tampered / "model.safetensors").write_bytes(bytes(data))

    with pytest.raises(ImproperlyConfigured, match="SHA-256"):
        OnnxEmbedder(tampered, tmp_path / "cache").embed(["anything"])
    assert not list((tmp_path / "cache").glob("**/*.onnx"))


def test_folder_with_a_graph_is_used_without_safetensors(embedder, cache_dir, tmp_path):
    model_dir = embeddings.default_model_dir()
    folder = tmp_path / "with-graph"
    folder.mkdir()
    for name in ("tokenizer.json", "config.json", "sentence_bert_config.json", "special_tokens_map.json"):
        (folder / name).symlink_to(model_dir / name)
    (folder / "model.onnx").symlink_to(cache_dir / embeddings.MODEL_SAFETENSORS_SHA256 / "model.onnx")

    supplied = OnnxEmbedder(folder, tmp_path / "unused-cache")
    vectors = supplied.embed(GOLDEN["sentences"][:3])
    assert cosines(vectors, np.array(GOLDEN["embeddings"][:3])).min() >= 0.9999
    assert supplied.name == "onnx:with-graph"
    assert not (tmp_path / "unused-cache").exists()  # nothing verified, nothing built


def test_graph_with_only_last_hidden_state_is_pooled_here(tmp_path, monkeypatch):
    """Optimum-style exports (onnx/model.onnx) output token embeddings; the embedder pools and normalises them."""
    model_dir = embeddings.default_model_dir()
    folder = tmp_path / "optimum-style"
    (folder / "onnx").mkdir(parents=True)
    (folder / "tokenizer.json").symlink_to(model_dir / "tokenizer.json")
    graph = onnx_graph.build_bert_graph(
        model_dir / "model.safetensors", model_dir / "config.json", include_pooling=False
    )
    (folder / "onnx" / "model.onnx").write_bytes(graph)

    vectors = OnnxEmbedder(folder, tmp_path / "unused-cache").embed(GOLDEN["sentences"])
    assert cosines(vectors, np.array(GOLDEN["embeddings"])).min() >= 0.9999


def test_graph_cache_is_written_once_and_reused(embedder, cache_dir, monkeypatch):
    graph = cache_dir / embeddings.MODEL_SAFETENSORS_SHA256 / "model.onnx"
    verified = json.loads((graph.parent / "verified.json").read_text())
    assert verified["sha256"] == embeddings.MODEL_SAFETENSORS_SHA256
    mtime = graph.stat().st_mtime_ns
    builds = embeddings.graph_builds

    def no_build(*args, **kwargs):
        raise AssertionError("the cached graph should have been reused")

    def no_hash(*args, **kwargs):
        raise AssertionError("the verified weights should not be hashed again")

    monkeypatch.setattr(onnx_graph, "build_bert_graph", no_build)
    monkeypatch.setattr(embeddings, "_verified_in_process", set())  # as in a new process: only verified.json
    monkeypatch.setattr(embeddings.hashlib, "file_digest", no_hash)
    second = OnnxEmbedder(embeddings.default_model_dir(), cache_dir, "fp32")
    np.testing.assert_allclose(
        second.embed(GOLDEN["sentences"][:2]), embedder.embed(GOLDEN["sentences"][:2]), atol=1e-6
    )
    assert graph.stat().st_mtime_ns == mtime
    assert embeddings.graph_builds == builds
    assert not [p for p in graph.parent.iterdir() if p.name.endswith(".tmp")]


def test_concurrent_first_use_loads_once(embedder, cache_dir, monkeypatch):
    loads = []
    original = OnnxEmbedder._load

    def counting_load(self):
        loads.append(self)
        original(self)

    monkeypatch.setattr(OnnxEmbedder, "_load", counting_load)
    fresh = OnnxEmbedder(embeddings.default_model_dir(), cache_dir, "fp32")
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda text: fresh.embed([text]), GOLDEN["sentences"][:4]))
    assert len(loads) == 1
    np.testing.assert_allclose(np.vstack(results), embedder.embed(GOLDEN["sentences"][:4]), atol=1e-6)


def test_stale_graph_version_is_rebuilt(embedder, cache_dir, tmp_path, monkeypatch):
    """A cached graph of another GRAPH_VERSION is built again (``embedder`` puts today's in ``cache_dir``: this test
    alone, or first of its worker under xdist, would find none to copy)."""
    cache = tmp_path / "cache"
    (cache / embeddings.MODEL_SAFETENSORS_SHA256).mkdir(parents=True)
    shutil.copy(
        cache_dir / embeddings.MODEL_SAFETENSORS_SHA256 / "model.onnx", cache / embeddings.MODEL_SAFETENSORS_SHA256
    )
    monkeypatch.setattr(embeddings, "GRAPH_VERSION", "3-newer-than-the-cached-graph")
    builds = embeddings.graph_builds
    OnnxEmbedder(embeddings.default_model_dir(), cache, "fp32").load()
    assert embeddings.graph_builds == builds + 1


def test_a_cache_from_before_the_fused_graphs_is_rebuilt_not_reused(reference_embedder, cache_dir, tmp_path):
    """A .data/models made by graph version 1 holds the reference graph as model.onnx, fp32's file name now."""
    import onnx

    cache = tmp_path / "cache" / embeddings.MODEL_SAFETENSORS_SHA256
    cache.mkdir(parents=True)
    old = onnx.load(str(cache_dir / embeddings.MODEL_SAFETENSORS_SHA256 / embeddings.GRAPH_FILES["reference"]))
    del old.metadata_props[:]  # version 1 stored only these two
    onnx.helper.set_model_props(old, {"recall_graph_version": "1", "pooling": "mean+l2"})
    (cache / "model.onnx").write_bytes(old.SerializeToString())

    builds = embeddings.graph_builds
    fp32 = OnnxEmbedder(embeddings.default_model_dir(), tmp_path / "cache", "fp32")
    fp32.load()
    assert embeddings.graph_builds == builds + 1
    metadata = fp32._session.get_modelmeta().custom_metadata_map
    assert (metadata["recall_graph_version"], metadata["variant"]) == (embeddings.GRAPH_VERSION, "fp32")
    assert "Attention" in {node.op_type for node in onnx.load(str(cache / "model.onnx")).graph.node}


@pytest.mark.parametrize(("precision", "min_size"), [("fp32", 80_000_000), ("int8", 50_000_000)])
def test_damaged_cached_graph_is_rebuilt(precision, min_size, tmp_path):
    cache = tmp_path / "cache"
    graph = cache / embeddings.MODEL_SAFETENSORS_SHA256 / embeddings.GRAPH_FILES[precision]
    graph.parent.mkdir(parents=True)
    graph.write_bytes(b"not a protobuf")
    builds = embeddings.graph_builds
    vectors = OnnxEmbedder(embeddings.default_model_dir(), cache, precision).embed(GOLDEN["sentences"][:1])
    assert cosines(vectors, np.array(GOLDEN["embeddings"][:1]))[0] >= (0.9999 if precision == "fp32" else 0.997)
    assert embeddings.graph_builds == builds + 1
    assert graph.stat().st_size > min_size


def test_get_embedder_follows_settings(cache_dir):
    embeddings.clear_embedder_cache()
    try:
        with override_settings(EMBEDDINGS_PROVIDER="none"):
            assert embeddings.get_embedder() is None
            assert not embeddings.embedder_available()
        with override_settings(
            EMBEDDINGS_PROVIDER="onnx", EMBEDDINGS_MODEL_DIR=None, EMBEDDINGS_CACHE_DIR=str(cache_dir)
        ):
            first = embeddings.get_embedder()
            assert isinstance(first, OnnxEmbedder)
            assert first.precision == "int8"
            assert isinstance(first, embeddings.Embedder)
            assert first is embeddings.get_embedder()  # one instance per process and settings
            assert first.dimensions == 384
            assert first.cache_dir == cache_dir
            assert embeddings.embedder_available()
        with override_settings(EMBEDDINGS_PROVIDER="onnx", EMBEDDINGS_PRECISION="fp32"):
            assert embeddings.get_embedder().precision == "fp32"
        with (
            override_settings(EMBEDDINGS_PROVIDER="onnx", EMBEDDINGS_PRECISION="fp16"),
            pytest.raises(ImproperlyConfigured, match="EMBEDDINGS_PRECISION"),
        ):
            embeddings.get_embedder()
        with override_settings(EMBEDDINGS_PROVIDER="sentence-transformers"):
            assert isinstance(embeddings.get_embedder(), embeddings.SentenceTransformersEmbedder)
    finally:
        embeddings.clear_embedder_cache()


def test_sentence_transformers_provider_without_the_package_is_a_clear_error():
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("sentence-transformers is installed")
    with pytest.raises(ImproperlyConfigured, match="pip install sentence-transformers"):
        embeddings.SentenceTransformersEmbedder().embed(["hello"])


def test_sentence_transformers_provider_matches_golden():
    pytest.importorskip("sentence_transformers")
    model = str(embeddings.default_model_dir())
    vectors = embeddings.SentenceTransformersEmbedder(model).embed(GOLDEN["sentences"])
    assert cosines(vectors, np.array(GOLDEN["embeddings"])).min() >= 0.9999


def test_background_embedder_runs_at_lowered_priority_and_embeds_the_same(embedder):
    background = embeddings.BackgroundEmbedder(embedder)
    np.testing.assert_allclose(background.embed(GOLDEN["sentences"][:3]), embedder.embed(GOLDEN["sentences"][:3]))
    niceness = embeddings._background_executor().submit(
        lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    )
    assert niceness.result() >= embeddings.BACKGROUND_NICE
    assert (
        os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) < embeddings.BACKGROUND_NICE
    )  # the caller is untouched


def test_background_embedder_runs_every_window_at_lowered_priority(embedder, monkeypatch):
    """A long text's windows run on threads of their own, one per core: made by the lowered-priority caller,
    they inherit its nice value."""
    seen = []
    original = OnnxEmbedder._forward

    def recording_forward(self, input_ids, attention_mask):
        seen.append((threading.get_native_id(), os.getpriority(os.PRIO_PROCESS, threading.get_native_id())))
        return original(self, input_ids, attention_mask)

    monkeypatch.setattr(OnnxEmbedder, "_forward", recording_forward)
    monkeypatch.setattr(embedder, "_workers", 2)  # as on 2 cores, whatever this machine has
    text = long_text(1000)
    vector = embeddings.BackgroundEmbedder(embedder).embed([text])
    assert len(seen) == len(embedder.windows(text)) >= 4
    assert len({thread for thread, _ in seen}) == 2
    assert all(niceness >= embeddings.BACKGROUND_NICE for _, niceness in seen)
    np.testing.assert_allclose(vector, embedder.embed([text]), atol=1e-6)
