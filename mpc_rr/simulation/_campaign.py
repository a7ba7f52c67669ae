"""Many schedules: seeds ``seed .. seed + schedules - 1`` of one protocol, each violation shrunk.

:func:`simulate` is what ``mpc-rr simulate`` runs (over the cores: the command splits the
seeds into chunks, one :func:`simulate` per chunk, and :func:`merge` joins them in seed
order, so the report is the same however many processes ran it).  :func:`render` is its
text: no timing in it, so replaying one seed prints the same bytes every time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mpc_rr.core import UsageError
from mpc_rr.secure_sum import sum_protocol
from mpc_rr.simulation._schedule import Schedule, draw_schedule
from mpc_rr.simulation._shrink import shrink
from mpc_rr.simulation._target import target_for
from mpc_rr.simulation._world import Outcome, run_schedule

__all__ = ["Campaign", "Found", "merge", "render", "replay_command", "simulate"]


@dataclass(frozen=True)
class Found:
    """One violating seed: its outcome and the outcome of its shrunk schedule."""

    seed: int
    outcome: Outcome
    shrunk: Outcome

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "violations": [v.to_json() for v in self.outcome.violations],
                "schedule": self.outcome.schedule.to_json(), "shrunk": self.shrunk.to_json()}  # fmt: skip


@dataclass(frozen=True)
class Campaign:
    """What :func:`simulate` ran and found."""

    protocol: str
    parties: int
    byzantine: int
    broken: str | None
    first_seed: int
    schedules: int
    found: tuple[Found, ...]
    steps: int
    single: Outcome | None = None

    @property
    def ok(self) -> bool:
        return not self.found

    def to_json(self) -> dict[str, Any]:
        return {
            "protocol": self.protocol, "parties": self.parties, "byzantine": self.byzantine,
            "broken": self.broken, "seed": self.first_seed, "schedules": self.schedules,
            "violating_seeds": [f.seed for f in self.found], "steps": self.steps,
            "violations": [f.to_json() for f in self.found],
        }  # fmt: skip


def simulate(
    protocol: str,
    schedules: int,
    *,
    seed: int = 0,
    parties: int = 5,
    byzantine: int = 1,
    broken: str | None = None,
    shrink_found: bool = True,
) -> Campaign:
    """Run the schedules of seeds ``seed .. seed + schedules - 1`` (module docstring).

    Raises :class:`UsageError` for an unknown protocol or broken variant, fewer than one
    schedule, a negative seed, or more Byzantine parties than parties.
    """
    spec = sum_protocol(protocol)
    if schedules < 1:
        raise UsageError(f"schedules must be >= 1, got {schedules}")
    if seed < 0:
        raise UsageError(f"seed must be >= 0, got {seed}")
    target = target_for(spec, parties, broken)
    assert target.traffic is not None
    found, steps, out = [], 0, None
    for s in range(seed, seed + schedules):
        sched = draw_schedule(s, spec.name, target.traffic, parties=parties, byzantine=byzantine,
                              broken=broken, cheats=target.cheats)  # fmt: skip
        out = run_schedule(sched, target)
        steps += out.steps
        if out.violations:
            small = shrink(sched, target) if shrink_found else out
            found.append(Found(s, out, small))
    return Campaign(spec.name, parties, byzantine, broken, seed, schedules, tuple(found), steps,
                    out if schedules == 1 else None)  # fmt: skip


def merge(parts: Sequence[Campaign]) -> Campaign:
    """Chunks of one campaign (consecutive seeds) as one."""
    if not parts:
        raise UsageError("merge: no campaign to merge")
    parts = sorted(parts, key=lambda c: c.first_seed)
    head = parts[0]
    return Campaign(head.protocol, head.parties, head.byzantine, head.broken, head.first_seed,
                    sum(c.schedules for c in parts), tuple(f for c in parts for f in c.found),
                    sum(c.steps for c in parts))  # fmt: skip


def replay_command(c: Campaign, seed: int) -> str:
    """The command that replays ``seed`` of ``c``."""
    extra = f" --broken {c.broken}" if c.broken else ""
    return (f"mpc-rr simulate --protocol {c.protocol} --seed {seed} --schedules 1 "
            f"--parties {c.parties} --byzantine {c.byzantine}{extra}")  # fmt: skip


def _schedule_lines(s: Schedule) -> list[str]:
    return ["    " + line for line in s.describe().splitlines()]


def render(c: Campaign) -> str:
    """The campaign as text (module docstring)."""
    last = c.first_seed + c.schedules - 1
    seeds = f"seed {c.first_seed}" if c.schedules == 1 else f"seeds {c.first_seed}-{last}"
    variant = f", broken variant {c.broken}" if c.broken else ""
    n_viol = sum(len(f.outcome.violations) for f in c.found)
    lines = [f"{c.protocol}{variant}: {c.schedules} schedules ({seeds}), {c.parties} data parties, "
             f"{c.byzantine} byzantine: {len(c.found)} violating, {n_viol} violations"]  # fmt: skip
    for f in c.found:
        lines.append(f"seed {f.seed}:")
        lines += [f"  {v}" for v in f.outcome.violations]
        k = len(f.shrunk.schedule.faults)
        lines.append(f"  shrunk to {k} fault{'s' if k != 1 else ''} (still: "
                     f"{', '.join(sorted({v.kind for v in f.shrunk.violations}))}):")  # fmt: skip
        lines += _schedule_lines(f.shrunk.schedule)
        lines.append("  how each party ended:")
        lines += [f"    {e}" for e in f.shrunk.summary()]
        lines.append(f"  replay: {replay_command(c, f.seed)}")
    if c.single is not None and not c.found:  # a replay: the schedule and how it ended
        lines += _schedule_lines(c.single.schedule)
        lines.append("  how each party ended:")
        lines += [f"    {e}" for e in c.single.summary()]
    return "\n".join(lines)
