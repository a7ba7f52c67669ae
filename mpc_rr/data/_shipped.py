"""The data sets shipped inside the package, and the ``MPC_RR_DATA`` override.

The files live gzip-compressed in ``mpc_rr/data/files/`` (read with
:mod:`importlib.resources`, so they work from a wheel, a zip or a source
tree); ``files/manifest.json`` holds each one's provenance, licence,
citation, size and the SHA-256 of its uncompressed bytes.

Readers take paths, so a shipped file is decompressed once into a cache
folder (``$XDG_CACHE_HOME/mpc-rr`` or ``~/.cache/mpc-rr``; the system's
temporary folder if that is not writable), written under a temporary name
and renamed into place, so concurrent processes never see a partial file.
Its SHA-256 is checked against the manifest once per process (about 2 ms
for Adult's 4 MB); a cached copy that does not match is written again.

``MPC_RR_DATA``, when set, is a folder holding the same file names
(``adult.data``, ``bnlearn/survey.bif``, ``survey_10000.csv``, ...): its
files are used as they are, unchecked, in place of the shipped ones.
"""

from __future__ import annotations

import dataclasses
import functools
import gzip
import hashlib
import importlib.resources
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from mpc_rr.core import UsageError

__all__ = ["ShippedFile", "data_dir", "data_file", "shipped", "shipped_bytes", "shipped_file"]

_ENV = "MPC_RR_DATA"


@dataclasses.dataclass(frozen=True)
class ShippedFile:
    """One shipped data set, as ``files/manifest.json`` describes it.

    ``records`` is ``None`` for a network (records are drawn from it);
    ``attributes`` counts its columns (a network: its nodes).  ``size`` (bytes)
    and ``sha256`` are those of the uncompressed file.
    """

    name: str
    file: str
    shipped: str
    kind: str
    title: str
    records: int | None
    attributes: int
    size: int
    sha256: str
    licence: str
    licence_url: str
    licence_note: str
    citation: str
    source: str
    format: str

    def to_json(self) -> dict[str, Any]:
        """The manifest entry as a JSON object."""
        return dataclasses.asdict(self)


@functools.cache
def _manifest() -> tuple[tuple[ShippedFile, ...], str]:
    raw = _files().joinpath("manifest.json").read_bytes()
    doc = json.loads(raw)
    return tuple(ShippedFile(**e) for e in doc["files"]), hashlib.sha256(raw).hexdigest()


def _files() -> Any:
    return importlib.resources.files("mpc_rr.data") / "files"


def shipped() -> tuple[ShippedFile, ...]:
    """Every shipped data set, in the manifest's order."""
    return _manifest()[0]


def shipped_file(name: str) -> ShippedFile:
    """The shipped data set called ``name`` (its name, e.g. ``adult``, or its file name,
    e.g. ``adult.data``); a :class:`UsageError` naming the choices otherwise."""
    for f in shipped():
        if name in (f.name, f.file, Path(f.file).name):
            return f
    raise UsageError(
        f"no shipped data set {name!r}; the choices: {', '.join(f.name for f in shipped())}"
    )


def shipped_bytes(name: str) -> bytes:
    """The uncompressed bytes of a shipped data set, checked against the manifest's SHA-256
    (a mismatch is a damaged installation: :class:`RuntimeError`)."""
    f = shipped_file(name)
    data = gzip.decompress(_files().joinpath(f.shipped).read_bytes())
    if hashlib.sha256(data).hexdigest() != f.sha256:
        raise RuntimeError(
            f"the shipped {f.file} does not match its SHA-256 in the manifest: the installation "
            "is damaged; reinstall mpc-rr"
        )
    return data


def _cache_dir() -> Path:
    """This version's cache folder (named after the manifest's digest)."""
    tag = f"data-{_manifest()[1][:16]}"
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:  # no home folder to be found (no HOME, no password entry)
            base = tempfile.gettempdir()
    for root in (Path(base) / "mpc-rr", Path(tempfile.gettempdir()) / "mpc-rr"):
        folder = root / tag
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK):
            return folder
    raise UsageError(
        f"no writable folder for the shipped data sets (tried {base}/mpc-rr and "
        f"{tempfile.gettempdir()}/mpc-rr); set {_ENV} to a folder holding the uncompressed files"
    )


_CHECKED: dict[str, Path] = {}
"""Files whose cached copy this process has checked against the manifest."""


def _cached(f: ShippedFile) -> Path:
    if f.file in _CHECKED:
        return _CHECKED[f.file]
    path = _cache_dir() / f.file
    try:
        ok = hashlib.sha256(path.read_bytes()).hexdigest() == f.sha256
    except OSError:
        ok = False
    if not ok:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(shipped_bytes(f.name))
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    _CHECKED[f.file] = path
    return path


def data_file(file: str) -> Path:
    """The path of a data set file (``adult.data``, ``bnlearn/alarm.bif``, ``survey_10000.csv``;
    or a data set's name): in ``$MPC_RR_DATA`` if set, else the shipped copy (decompressed
    into the cache and checked)."""
    f = shipped_file(file)
    env = os.environ.get(_ENV)
    if env:
        path = Path(env) / f.file
        if not path.is_file():
            raise UsageError(
                f"{_ENV}={env} has no {f.file}: put the file there, or unset {_ENV} to use "
                "the copy shipped with mpc-rr (`mpc-rr data list` names the shipped files)"
            )
        return path
    return _cached(f)


def data_dir() -> Path:
    """A folder holding every data set file under its usual name: ``$MPC_RR_DATA`` if set,
    else the cache folder with every shipped file decompressed and checked."""
    env = os.environ.get(_ENV)
    if env:
        return Path(env)
    for f in shipped():
        _cached(f)
    return _cache_dir()
