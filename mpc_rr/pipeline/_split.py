"""The pipeline's coordinator split over the shards of a run (:mod:`mpc_rr.core._parts`).

Each shard's :class:`CoordinatorShard` does party 0's per-party work for the
shard's own data parties: it decodes each record (Sec. 4.1) and release
payload they send party 0, checks its run label and codes, refuses a second
one from the same party, and once per superstep hands party 0 one
:class:`CoordinatorTally`: who was accepted, and the sparse histogram of
their records (:class:`~mpc_rr.estimation.PatternCounts`) with each party's
pattern index.  Party 0 (:class:`~mpc_rr.pipeline.Coordinator`) then checks
the ids against whom it expects (vectorized), merges the histograms, and,
unless told not to keep rows, writes the rows back from the patterns.  Its
estimates (dependences, Eq. 2 per cluster, RR-Adjustment) are computed from
the merged histogram, which is the one it would compute from all the rows
itself, so a split run gives the very numbers an unsplit one gives.

The part is party 0's code in another process of the same deployment (the
data controller's), not a new party: no data party sees anything new, and
what leaves a part goes to party 0 only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mpc_rr.core import Codec, DecodeError, Message, PeerError, UsageError, WireArray
from mpc_rr.core._parts import PartTally
from mpc_rr.estimation._patterns import PatternCounts
from mpc_rr.pipeline._config import PipelineConfig
from mpc_rr.pipeline._messages import PIPELINE_MESSAGES, RandomizedRecord, Release, read_codes

__all__ = ["CoordinatorShard", "CoordinatorTally", "TallyParts", "read_tally"]

PHASES = {RandomizedRecord: "DEPENDENCE", Release: "RELEASE"}


class CoordinatorTally(PartTally, frozen=True):
    """One superstep of a coordinator part: ``ids`` (uint32, increasing) were accepted in
    ``phase``; party ``ids[i]`` sent ``patterns[which[i]]``; ``counts`` is the histogram."""

    phase: str = ""
    ids: WireArray | None = None
    which: WireArray | None = None
    patterns: WireArray | None = None
    counts: WireArray | None = None


class TallyParts:
    """A tally's arrays, read and checked (:func:`read_tally`)."""

    def __init__(self, ids: np.ndarray, which: np.ndarray, hist: PatternCounts) -> None:
        self.ids = ids
        self.which = which
        self.hist = hist


def read_tally(msg: CoordinatorTally, cfg: PipelineConfig) -> TallyParts:
    """The arrays of a tally, refused (:class:`~mpc_rr.core.DecodeError`, naming party 0's part)
    unless ids are increasing within ``1..n``, each ``which`` points at a pattern, the
    patterns are a valid sorted histogram over the run's attributes and the counts match."""
    where = f"CoordinatorTally ({msg.phase})"
    m = len(cfg.sizes)
    if msg.phase not in PHASES.values():
        raise DecodeError(f"{where}: unknown phase {msg.phase!r}", 0)
    arrays = (msg.ids, msg.which, msg.patterns, msg.counts)
    if all(a is None for a in arrays):  # nothing accepted (only refusals)
        empty = PatternCounts.of(np.zeros((0, m), np.int64), cfg.sizes)
        return TallyParts(np.zeros(0, np.intp), np.zeros(0, np.intp), empty)
    if msg.ids is None or msg.which is None or msg.patterns is None or msg.counts is None:
        raise DecodeError(f"{where}: missing arrays", 0)
    ids = msg.ids.to_numpy(dtype=np.uint32, sender=0)
    k = ids.shape[0] if ids.ndim == 1 else -1
    which = msg.which.to_numpy(dtype=np.uint32, shape=(k,), sender=0)
    counts = msg.counts.to_numpy(dtype=np.int64, sender=0)
    pats = msg.patterns.to_numpy(sender=0)
    if counts.ndim != 1 or pats.shape != (counts.shape[0], m):
        raise DecodeError(f"{where}: patterns {pats.shape} and counts {counts.shape} do not match", 0)
    hist = PatternCounts(tuple(cfg.sizes), pats, counts)
    try:
        hist.check(where)
    except UsageError as exc:
        raise DecodeError(str(exc), 0) from None
    if k and not (ids[0] >= 1 and ids[-1] <= cfg.n and (np.diff(ids.astype(np.int64)) > 0).all()):
        raise DecodeError(f"{where}: ids not increasing within 1..{cfg.n}", 0)
    if k and int(which.max()) >= len(hist):
        raise DecodeError(f"{where}: a pattern index outside the {len(hist)} patterns", 0)
    if not np.array_equal(np.bincount(which, minlength=len(hist)), counts):
        raise DecodeError(f"{where}: the counts do not count the parties' patterns", 0)
    return TallyParts(ids.astype(np.intp), which.astype(np.intp), hist)


class CoordinatorShard:
    """Party 0's per-party work for one shard's data parties (a
    :class:`~mpc_rr.core.CoordinatorPart`; see the module docstring)."""

    def __init__(self, cfg: PipelineConfig, ids: Sequence[int]) -> None:
        self.cfg = cfg
        self.codec = Codec(PIPELINE_MESSAGES)
        self._seen: dict[str, set[int]] = {phase: set() for phase in PHASES.values()}
        self._rows: dict[str, tuple[list[int], list[list[int]]]] = {}
        self._messages = self._bytes = 0
        self._labels: set[tuple[str, int]] = set()
        self._rejected: list[tuple[int, str]] = []
        self._pending = 0

    def takes(self, msg: Message) -> bool:
        return type(msg) in PHASES

    @property
    def pending(self) -> int:
        return self._pending

    def accept(self, src: int, data: bytes) -> None:
        """Decode and check one payload of party ``src`` as party 0 would (its refusals named)."""
        self._pending += 1
        self._messages += 1
        self._bytes += len(data)
        try:
            msg = self.codec.decode(data, sender=src)
            phase = PHASES.get(type(msg))
            if phase is None:  # takes() let only these through: a payload re-encoded differently
                raise PeerError(f"Coordinator 0: {type(msg).__name__} from party {src}", src)
            if msg.run != self.cfg.run:
                raise PeerError(
                    f"Coordinator 0: {type(msg).__name__} from party {src} is labelled run "
                    f"{msg.run[:64]!r}, this run is {self.cfg.run!r}",
                    src,
                )
            codes = read_codes(msg.codes, self.cfg, src, type(msg).__name__)  # type: ignore[attr-defined]
            seen = self._seen[phase]
            if src in seen:
                raise PeerError(f"Coordinator 0: party {src} submitted twice in {phase}; kept the first", src)
            seen.add(src)
            self._labels.add((msg.run, msg.step))
        except PeerError as exc:  # DecodeError included
            self._rejected.append((src, str(exc)))
            return
        ids, rows = self._rows.setdefault(phase, ([], []))
        ids.append(src)
        rows.append(codes)

    def flush(self) -> list[CoordinatorTally]:
        """One tally per phase with payloads since the last flush (usually one, or none)."""
        if not self._pending:
            return []
        out: list[CoordinatorTally] = []
        stats = {"messages": self._messages, "bytes": self._bytes, "labels": sorted(self._labels),
                 "rejected": self._rejected}  # fmt: skip
        for phase, (ids, rows) in sorted(self._rows.items()):
            order = np.argsort(np.asarray(ids, np.int64), kind="stable")
            block = np.asarray(rows, np.int64).reshape(len(ids), len(self.cfg.sizes))[order]
            hist = PatternCounts.of(block, self.cfg.sizes)
            out.append(CoordinatorTally(
                run=self.cfg.run, phase=phase,
                ids=WireArray.from_numpy(np.asarray(ids, np.uint32)[order]),
                which=WireArray.from_numpy(hist.index_of(block).astype(np.uint32)),
                patterns=WireArray.from_numpy(hist.patterns), counts=WireArray.from_numpy(hist.counts),
                **(stats if not out else {}),  # type: ignore[arg-type]
            ))  # fmt: skip
        if not out:  # only refusals: party 0 still counts the payloads and names the senders
            out.append(CoordinatorTally(run=self.cfg.run, phase="RELEASE", **stats))  # type: ignore[arg-type]
        self._rows.clear()
        self._messages = self._bytes = self._pending = 0
        self._labels = set()
        self._rejected = []
        return out
