"""bench/_collections.py's Debian download (RegistrySource): the pinned archive's sha256, and the fall-back to the
candidate version once the pinned one has left the archive. The archive is a .deb built here and `apt-get` a
script on PATH that serves it as the Debian archive would (the pinned version present or gone): no network."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from bench import _collections
from bench._collections import CollectionUnavailable, RegistrySource

PINNED, LATER = "1.0-1+deb12u8", "1.0-1+deb12u9"


def build_deb(tmp_path: Path, version: str) -> Path:
    package = tmp_path / f"pkg-{version}"
    (package / "DEBIAN").mkdir(parents=True)
    (package / "DEBIAN" / "control").write_text(
        f"Package: tiny-doc\nVersion: {version}\nArchitecture: all\nMaintainer: T <t@example.com>\nDescription: t\n"
    )
    (package / "usr" / "share" / "tiny").mkdir(parents=True)
    (package / "usr" / "share" / "tiny" / "page.txt").write_text(f"version {version}\n")
    deb = tmp_path / f"tiny-doc_{version}_all.deb"
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", "--build", str(package), str(deb)], check=True, capture_output=True
    )
    return deb


@pytest.fixture
def archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """{version: .deb} the fake apt-get serves; `tiny-doc` (no version) is the newest one."""
    served: dict[str, Path] = {}
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "apt-get"

    def publish(*versions: str) -> dict[str, Path]:
        served.clear()
        for version in versions:
            served[version] = build_deb(tmp_path, version)
        cases = "\n".join(f'  "tiny-doc={v}") cp "{deb}" . ;;' for v, deb in served.items())
        newest = served[versions[-1]]
        script.write_text(
            "#!/bin/sh\n"
            '[ "$1" = download ] || exit 2\n'
            'case "$3" in\n'
            f"{cases}\n"
            f'  "tiny-doc") cp "{newest}" . ;;\n'
            "  *) echo \"E: Version '${3#*=}' for 'tiny-doc' was not found\" >&2; exit 100 ;;\n"
            "esac\n"
        )
        script.chmod(0o755)
        return served

    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return publish


def source(sha256: str = "", accept: str = "") -> RegistrySource:
    return RegistrySource("debian", "tiny-doc", PINNED, license="test", sha256=sha256, accept=accept)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.slow  # runs dpkg-deb
def test_the_pinned_version_is_fetched_and_its_sha256_checked(tmp_path: Path, archive):
    debs = archive(PINNED, LATER)
    dest = tmp_path / "dl"
    dest.mkdir()
    fetched, version = _collections._download(source(sha256=sha(debs[PINNED]), accept="1.0-1+deb12u*"), dest)
    assert (fetched.name, version) == (debs[PINNED].name, PINNED)

    wrong = "0" * 64
    with pytest.raises(CollectionUnavailable, match=f"not the pinned {wrong}"):
        _collections._download(source(sha256=wrong), dest)


@pytest.mark.slow
def test_a_later_accepted_version_is_taken_once_the_pinned_one_has_left_the_archive(tmp_path: Path, archive):
    debs = archive(LATER)
    dest = tmp_path / "dl"
    dest.mkdir()
    fetched, version = _collections._download(source(sha256="0" * 64, accept="1.0-1+deb12u*"), dest)
    assert (fetched.name, version) == (debs[LATER].name, LATER)  # the pin's sha256 is not the later archive's

    with pytest.raises(CollectionUnavailable, match=r"fetch failed.*Version '1\.0-1\+deb12u8'.*was not found"):
        _collections._download(source(), dest)  # no accept: the pin or nothing
    with pytest.raises(CollectionUnavailable, match=r"the candidate 1\.0-1\+deb12u9 is not one of the accepted"):
        _collections._download(source(accept="1.0-1+deb12u8*"), dest)


@pytest.mark.slow
def test_the_collection_label_names_the_version_actually_fetched(tmp_path: Path, archive):
    archive(LATER)
    spec = RegistrySource("debian", "tiny-doc", PINNED, license="test", root="usr/share/tiny", accept="1.0-1+deb12u*")
    root, label = _collections._fetched(spec, tmp_path / "cache")
    assert (root / "page.txt").read_text() == f"version {LATER}\n"
    assert label == f"debian:tiny-doc={LATER} (the pinned {PINNED} could not be fetched)"
    assert _collections._fetched(spec, tmp_path / "cache") == (root, label)  # from the cache, same label
