"""What the long commands (``mpc-rr run``, ``mpc-rr rrba``) share, in one place: the memory rule
that refuses a job before it starts, the warnings printed from a typed report, the transcript
written after a run, and the progress of their phases on standard error.

Nothing here imports the library at module level (``mpc-rr --help`` stays fast).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = [
    "MEMORY_SHARE",
    "BlockBar",
    "MarginalBar",
    "PipelineProgress",
    "fmt_epsilon",
    "memory_refusal",
    "refuse_pipeline_over_memory",
    "refuse_rrba_over_memory",
    "save_transcript",
    "warn_all",
]

MEMORY_SHARE = 0.8
"""A job whose estimated memory exceeds this share of the memory free now is refused before it starts."""


def memory_refusal(need: float) -> tuple[bool, int]:
    """``(refused, bytes free now)``: whether ``need`` bytes exceed :data:`MEMORY_SHARE` of the free memory."""
    from scenarios.cli import options

    have = options.available_memory()
    return need > MEMORY_SHARE * have, have


def refuse_pipeline_over_memory(opts: Any, sizes: tuple[int, ...], n: int) -> None:
    """Refuse (exit 2), before any party is built, a dependence sum that cannot fit in this
    machine's memory (its protocol's own estimate for ``n`` parties over the pair cells)."""
    from mpc_rr.core import UsageError
    from mpc_rr.secure_sum import memory_estimate
    from scenarios.cli.options import human_bytes

    if opts.dependence == "rr":
        return
    total = sum(sizes)
    cells = (total * total - sum(s * s for s in sizes)) // 2  # one-hot cells of every attribute pair
    need = memory_estimate(opts.sum, n, cells, opts.inner_sum_options())
    refused, have = memory_refusal(need)
    if refused:
        raise UsageError(
            f"--dependence {opts.dependence} --sum {opts.sum} with {n:,} parties x {cells:,} pair "
            f"cells needs about {human_bytes(need)}; {human_bytes(have)} are available. Use "
            "fewer --parties, another --sum (prio3), or --dependence rr"
        )


def refuse_rrba_over_memory(data: Any, k: int, block: int) -> None:
    """Refuse (exit 2) an RRBA collection whose padded tables cannot fit, with the figure and the rule."""
    import math

    from mpc_rr.core import UsageError
    from mpc_rr.rrba import WORKING_TABLES, collection_bytes, cover
    from scenarios.cli.options import human_bytes

    sizes, names = data.schema.sizes, data.schema.names
    subsets = cover(len(sizes), k).subsets
    need = collection_bytes(sizes, subsets, data.n, block)
    refused, have = memory_refusal(need)
    if not refused:
        return
    widest = max(subsets, key=lambda s: math.prod(sizes[a] for a in s))
    width = math.prod(sizes[a] for a in widest)
    blocks = math.ceil(data.n / max(block, 1))
    big = sorted(range(len(sizes)), key=lambda a: -sizes[a])[:3]
    raise UsageError(
        f"RRBA on {len(sizes)} attributes at --k {k} needs about {human_bytes(need)}, "
        f"{human_bytes(have)} are available (refused above 80 %): {len(subsets):,} tables padded to "
        f"the widest one's {width:,} cells ({' x '.join(f'{names[a]} {sizes[a]}' for a in widest)}), "
        f"8 bytes each, for {blocks:,} blocks of history + {WORKING_TABLES} working copies. Drop or "
        f"coarsen the attributes with the most categories "
        f"({', '.join(f'{names[a]}: {sizes[a]:,}' for a in big)}), or use a larger --block"
    )


def warn_all(command: str, warnings: Iterable[str]) -> None:
    """Every warning of a report on standard error (``mpc-rr CMD: warning: ...``), whatever the format."""
    from scenarios.cli.options import warn

    for w in warnings:
        warn(command, w)


def fmt_epsilon(v: float | None, infinite: str = "inf") -> str:
    """An epsilon to 3 decimals; ``None`` (no finite epsilon) as ``infinite``."""
    return infinite if v is None else f"{v:.3f}"


def save_transcript(transcript: Any, path: Path | None, **meta: Any) -> Path | None:
    """Write what every party sent (a run's transcript, ``--transcript``) to ``path``, with ``meta``."""
    if path is None or transcript is None:
        return None
    if meta:
        transcript.meta.update(meta)
    saved: Path = transcript.save(path)
    return saved


class PipelineProgress:
    """``progress(phase, done, total)`` of a pipeline run shown on a :class:`~scenarios.cli.progress.Phases`:
    the counted phases as bars (closed when complete), the work between them as timed lines;
    ``before_parties()`` runs once, when the parties first report (not before a refusal)."""

    def __init__(self, phases: Any, before_parties: Any = None) -> None:
        self.phases, self.before, self.begun = phases, before_parties, set[str]()

    def __call__(self, phase: str, done: int, total: int) -> None:
        if self.before is not None:
            self.before()
            self.before = None
        phases, begun = self.phases, self.begun
        if phase == "SECURE SUM":  # sum messages the coordinator received, of one per party and step
            phases.count(phase, done, total, desc="dependence phase (secure sum)", unit="msg")
        elif phase == "SECURE SUM SERVERS":  # then the aggregators' own steps (prio3: verification jobs)
            phases.count(phase, done, total, desc="dependence phase (the aggregators' steps)", unit="msg")
        elif phase == "DEPENDENCE":
            phases.count(phase, done, total, desc="dependence phase", unit="party")
            if total and done >= total and "clustering" not in begun:
                begun.add("clustering")
                phases.start(f"clustering (Algorithm 1) and signed broadcast to {total:,} parties, "
                             f"who verify it and randomize their clusters")  # fmt: skip
        elif phase == "RELEASE":
            phases.count(phase, done, total, desc="release phase", unit="party")
            if total and done >= total and "estimation" not in begun:
                begun.add("estimation")
                phases.start("estimating every cluster (Eq. 2 + repair) and RR-Adjustment, then "
                             "the count queries")  # fmt: skip


class BlockBar:
    """A progress bar over RRBA blocks on stderr (silent with --json or when not a terminal)."""

    def __init__(self, total: int, quiet: bool) -> None:
        from scenarios.cli.progress import progress_bar

        self.bar = progress_bar(total=total, desc="RRBA blocks", unit="block", file=sys.stderr,
                                disable=True if quiet else None, mininterval=0.5)  # fmt: skip

    def update(self, done: int, total: int) -> None:
        self.bar.n = done
        self.bar.refresh()

    def close(self) -> None:
        self.bar.close()


class MarginalBar:
    """A progress bar over the marginals of each order on stderr (as :class:`BlockBar`)."""

    def __init__(self, quiet: bool) -> None:
        from scenarios.cli.progress import progress_bar

        self.bar = progress_bar(total=1, desc="marginals", unit="table", file=sys.stderr,
                                disable=True if quiet else None, mininterval=0.5)  # fmt: skip

    def update(self, order: int, done: int, total: int) -> None:
        self.bar.set_description(f"{order}-way marginals", refresh=False)
        self.bar.total, self.bar.n = total, done
        self.bar.refresh()

    def close(self) -> None:
        self.bar.close()
