"""The fuzz targets' registry and the one rule they share: only typed errors escape.

A target is a name, a ``setup()`` that does the expensive work once (a run of the protocol
whose messages seed the corpus, a store, a schema) and returns a :class:`Fuzzed`: ``one(data)``
checks one input and ``seeds()`` are the inputs the committed corpus starts from.  ``one``
raises only for a finding: an exception outside the target's ``typed`` errors, or a broken
promise (an accepted message that does not round-trip, a role changed by a refused message)
as an ``AssertionError``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"
"""``corpus/<target>/<sha1 of the input>``: the committed seeds, and every input that reproduced
a finding (kept as its regression test: the default tier replays them all)."""


@dataclass
class Fuzzed:
    """One set-up target: ``one(data)`` checks an input; ``seeds()`` start its corpus."""

    one: Callable[[bytes], None]
    seeds: Callable[[], Iterable[bytes]] = field(default=lambda: ())


@dataclass(frozen=True)
class Target:
    name: str
    family: str  # the module that defines it (decoders, files, roles)
    setup: Callable[[], Fuzzed]


_TARGETS: dict[str, Target] = {}


def register(name: str, family: str, setup: Callable[[], Fuzzed]) -> None:
    if name in _TARGETS:
        raise ValueError(f"fuzz target {name!r} registered twice")
    _TARGETS[name] = Target(name, family, setup)


def _load() -> None:
    from tests.fuzz import decoders, files, roles  # each registers its targets on import

    del decoders, files, roles


def targets() -> dict[str, Target]:
    """Every target, by name (in registration order)."""
    if not _TARGETS:
        _load()
    return dict(_TARGETS)


def corpus_files(name: str) -> list[Path]:
    folder = CORPUS / name
    return sorted(p for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []


def write_seeds(name: str, fuzzed: Fuzzed) -> int:
    """Write ``fuzzed.seeds()`` into the target's corpus folder (named by content); returns how many
    were new."""
    folder = CORPUS / name
    folder.mkdir(parents=True, exist_ok=True)
    new = 0
    for data in fuzzed.seeds():
        path = folder / hashlib.sha1(data).hexdigest()
        if not path.exists():
            path.write_bytes(data)
            new += 1
    return new
