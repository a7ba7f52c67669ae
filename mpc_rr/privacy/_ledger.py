"""The privacy ledger of a run: per phase and in total, local epsilon, channel, central (eps, delta).

Three figures, side by side (docs/privacy.md):

* **local** epsilon: what one party's reports reveal to whoever sees them
  linked to the party -- the true figure (max column ratio of the matrix
  actually used) and the paper's where it differs;
* the **channel** the reports travel on, and the **central** (epsilon, delta)
  that channel licenses about one party's record from everything the
  analyst sees: ``direct`` -> no amplification (central = local, delta 0);
  ``anonymous`` / ``secure-sum`` / ``prio3`` -> the analyst sees only the
  multiset (histogram) of each release, so FMT's shuffle amplification applies
  per release, composed over the releases with the PLD accountant; a phase
  that publishes exact counts -> "none", with the reason;
* the **empirical** lower bound, where an audit ran.

Every shuffled figure holds under an :class:`Assumption`, named in the JSON: who must be
honest and how many clients may collude with whoever sees the releases.  Colluders know their
own reports, so those leave the blanket: a release of ``n`` reports with ``c`` colluders hides
the target among its ``n - c - 1`` honest others, and the figure is FMT21's at ``n - c``
(at least 1: no amplification).  A coalition above what the channel hides senders against
(``bound``), or an assumption the run broke (``violated``), gives no central figure and says
why.  ``parties`` is what the run actually completed (the reports in the release), not the
planned n.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from mpc_rr.core import UsageError
from mpc_rr.privacy._compose import Mechanism, compose, epsilon_for_delta
from mpc_rr.privacy._shuffle import numerical_epsilon

__all__ = [
    "CHANNELS", "DIRECT_ASSUMPTION", "SHUFFLING", "Assumption", "Ledger", "LedgerEntry", "PhaseSpec", "Release", "build_ledger",
    "with_audits",
]  # fmt: skip

CHANNELS = ("direct", "anonymous", "secure-sum", "prio3")
SHUFFLING = frozenset({"anonymous", "secure-sum", "prio3"})
DIRECT_BOUND = "none: direct channel, reports linked to their sender (local DP, sequential composition)"
PLD_BOUND = "FMT21 clone reduction per release, composed with the PLD accountant (dp-accounting)"


@dataclass(frozen=True)
class Assumption:
    """The threat model a phase's central figure holds under (module docstring).

    ``colluders``: clients colluding with whoever sees the releases (their reports leave the
    blanket); ``fraction``: the colluding fraction they came from; ``bound``: the most
    colluders the channel hides senders against (``None``: no bound on clients); ``honest``:
    who must be honest; ``channel``: what the channel must hide, and when; ``violated``: why
    the run broke the assumption or cannot check it (then no central figure).
    """

    colluders: int = 0
    fraction: float = 0.0
    bound: int | None = None
    honest: str = "the analyst sees nothing but the releases"
    channel: str = ""
    violated: str | None = None

    def __post_init__(self) -> None:
        if self.colluders < 0:
            raise UsageError(f"an assumption's colluders must be >= 0, got {self.colluders}")
        if self.bound is not None and self.bound < 0:
            raise UsageError(f"an assumption's bound must be >= 0 or None, got {self.bound}")

    def broken(self) -> str | None:
        """Why no central figure holds under this assumption (``None``: it holds)."""
        if self.violated is not None:
            return f"no central guarantee: {self.violated}"
        if self.bound is not None and self.colluders > self.bound:
            return (f"no central guarantee: the coalition of {self.colluders} colluding clients exceeds "
                    f"the bound of {self.bound} the channel hides senders against")  # fmt: skip
        return None

    def hiding(self, n: int) -> int:
        """Reports a release of ``n`` hides the target among: itself and the honest others."""
        return max(1, int(n) - self.colluders)

    def to_json(self) -> dict[str, object]:
        return {"colluders": self.colluders, "colluder_fraction": self.fraction, "bound": self.bound,
                "honest": self.honest, "channel": self.channel, "holds": self.broken() is None,
                "violated": self.violated}  # fmt: skip


DIRECT_ASSUMPTION = Assumption(
    honest="nobody: each report reaches the analyst linked to its sender (local DP holds against any coalition)",
    channel="direct: nothing hidden",
)


@dataclass(frozen=True)
class Release:
    """One report per party: an eps0-LDP randomizer (k-RR over k values when ``k`` is given).

    ``parties``: how many reports this release is shuffled among, when it differs from its
    phase's (an RRBA table is tallied over the block's clients asked that table only).
    """

    epsilon0: float
    k: int | None = None
    parties: int | None = None


@dataclass(frozen=True)
class PhaseSpec:
    """What one phase of a run releases about each party's record.

    ``parties``: how many reports each shuffled release mixes (those that completed);
    ``not_dp``: the reason the phase is not differentially private (e.g. exact
    counts), which makes its central figure "none"; ``assumption``: the threat model of
    a shuffled phase (its colluders leave every release's blanket).  ``central``: a central
    ``(epsilon, delta, bound)`` computed elsewhere (noise added inside a secure sum,
    :mod:`mpc_rr.privacy._discrete`); the total then composes the phases sequentially.
    """

    name: str
    channel: str
    parties: int
    releases: tuple[Release, ...]
    paper_epsilon: float | None = None
    not_dp: str | None = None
    audit_lower: float | None = None
    note: str | None = None
    assumption: Assumption = Assumption()
    central: tuple[float, float, str] | None = None

    def __post_init__(self) -> None:
        if self.channel not in CHANNELS:
            raise UsageError(f"channel must be one of {CHANNELS}, got {self.channel!r}")
        if self.parties < 1:
            raise UsageError(f"phase {self.name!r}: parties must be >= 1, got {self.parties}")

    @property
    def local_epsilon(self) -> float:
        return math.fsum(r.epsilon0 for r in self.releases) if self.not_dp is None else math.inf

    @property
    def shuffled(self) -> bool:
        return self.channel in SHUFFLING

    @property
    def effective_assumption(self) -> Assumption:
        """The assumption the phase's figure rests on (a direct channel needs none)."""
        return self.assumption if self.shuffled else DIRECT_ASSUMPTION

    def hiding(self, release: Release) -> int:
        """Reports ``release`` hides the target among (its honest part, under the assumption)."""
        n = release.parties or self.parties
        return self.assumption.hiding(n) if self.shuffled else n

    def mechanisms(self) -> list[Mechanism]:
        return [Mechanism(r.epsilon0, self.hiding(r), self.shuffled, r.k) for r in self.releases]


def _num(x: float | None) -> float | None:
    return None if x is None or math.isinf(x) else float(x)


@dataclass(frozen=True)
class LedgerEntry:
    """One row: a phase (or the total) with its three figures."""

    phase: str
    channel: str
    parties: int
    releases: int
    local_epsilon: float
    paper_epsilon: float | None
    central_epsilon: float | None  # None: no central guarantee (see ``reason``)
    delta: float | None
    bound: str
    reason: str | None = None
    audit_lower: float | None = None
    note: str | None = None
    assumption: Assumption | None = None
    honest_parties: int | None = None  # reports the smallest release hides the target among

    def to_json(self) -> dict[str, object]:
        return {
            "phase": self.phase, "channel": self.channel, "parties": self.parties,
            "honest_parties": self.honest_parties,
            "releases": self.releases, "local_epsilon": _num(self.local_epsilon),
            "paper_epsilon": _num(self.paper_epsilon),
            "central_epsilon": _num(self.central_epsilon), "delta": self.delta,
            "bound": self.bound, "reason": self.reason, "audit_lower": self.audit_lower,
            "note": self.note,
            "assumption": None if self.assumption is None else self.assumption.to_json(),
        }  # fmt: skip

    def line(self) -> str:
        """One printed line of the ledger."""
        loc = f"local eps {self.local_epsilon:.4g}"
        if self.paper_epsilon is not None and not math.isclose(
            self.paper_epsilon, self.local_epsilon, rel_tol=1e-9
        ):
            loc += f" (paper {self.paper_epsilon:.4g})"
        if self.central_epsilon is None:
            why = self.reason or ""
            cen = why if why.startswith("no central guarantee") else f"central none ({why})"
        else:
            cen = f"central ({self.central_epsilon:.4g}, {self.delta:.2g})"
        aud = "" if self.audit_lower is None else f"; audit >= {self.audit_lower:.4g}"
        return f"{self.phase:<22} {self.channel:<10} {loc}; {cen}{aud}"


@dataclass(frozen=True)
class Ledger:
    """Every phase's entry and the total over the phases (sequential composition)."""

    entries: tuple[LedgerEntry, ...]
    total: LedgerEntry
    delta: float
    extra: dict[str, object] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {
            "delta": self.delta,
            "phases": [e.to_json() for e in self.entries],
            "total": self.total.to_json(),
            **self.extra,
        }

    def lines(self) -> list[str]:
        out = ["privacy ledger (per party's record; docs/privacy.md):"]
        for e in (*self.entries, self.total):
            out.append("  " + e.line())
            if e is not self.total and e.channel in SHUFFLING and e.assumption is not None:
                out.append(f"  {'':<22} assumes: {e.assumption.channel}; {e.assumption.colluders} "
                           f"colluding clients' reports known, {e.honest_parties} hide the target")  # fmt: skip
        return out


def _central(spec: PhaseSpec, delta: float) -> tuple[float | None, float | None, str, str | None]:
    if spec.not_dp is not None:
        return None, None, "none", spec.not_dp
    if spec.central is not None:
        return spec.central[0], spec.central[1], spec.central[2], None
    if not spec.releases:
        return 0.0, 0.0, "nothing released", None
    if math.isinf(spec.local_epsilon):
        return None, None, "none", "a report's local epsilon is infinite"
    if spec.channel not in SHUFFLING:
        return spec.local_epsilon, 0.0, DIRECT_BOUND, None
    broken = spec.assumption.broken()
    if broken is not None:
        return None, None, "none", broken
    if len(spec.releases) == 1:
        r = spec.releases[0]
        amp = numerical_epsilon(r.epsilon0, spec.hiding(r), delta, k=r.k)
        return amp.central_epsilon, delta, amp.bound, None
    eps = epsilon_for_delta(compose(spec.mechanisms()), delta)
    return min(eps, spec.local_epsilon), delta, PLD_BOUND, None


def build_ledger(phases: Sequence[PhaseSpec], delta: float = 1e-6) -> Ledger:
    """Every phase's central figure at ``delta`` and their composition (also at ``delta``)."""
    if not 0 < delta < 1:
        raise UsageError(f"delta must be in (0, 1), got {delta}")
    if not phases:
        raise UsageError("a ledger needs at least one phase")
    entries = []
    for s in phases:
        eps, dlt, bound, reason = _central(s, delta)
        honest = min((s.hiding(r) for r in s.releases), default=s.parties)
        entries.append(LedgerEntry(s.name, s.channel, s.parties, len(s.releases), s.local_epsilon,
                                   s.paper_epsilon, eps, dlt, bound, reason, s.audit_lower, s.note,
                                   s.effective_assumption, honest))  # fmt: skip
    local = math.fsum(e.local_epsilon for e in entries)
    papers = [e.paper_epsilon if e.paper_epsilon is not None else e.local_epsilon for e in entries]
    paper = math.fsum(papers) if any(e.paper_epsilon is not None for e in entries) else None
    channels = "+".join(dict.fromkeys(e.channel for e in entries))
    parties = min(e.parties for e in entries)
    n_rel = sum(e.releases for e in entries)
    joint = _joint([s.effective_assumption for s in phases])
    honest = min(e.honest_parties or e.parties for e in entries)
    missing = [e for e in entries if e.central_epsilon is None]
    if missing:
        why = f"phase {missing[0].phase!r} has none: {missing[0].reason}"
        total = LedgerEntry("total", channels, parties, n_rel, local, paper, None, None, "none", why,
                            assumption=joint, honest_parties=honest)  # fmt: skip
    elif (all(s.channel not in SHUFFLING or s.not_dp for s in phases) or len(phases) == 1
          or any(s.central is not None for s in phases)):  # fmt: skip
        eps = math.fsum(e.central_epsilon or 0.0 for e in entries)
        dlt = math.fsum(e.delta or 0.0 for e in entries)
        bound = entries[0].bound if len(entries) == 1 else "sequential composition of the phases"
        total = LedgerEntry("total", channels, parties, n_rel, local, paper, eps, dlt, bound,
                            assumption=joint, honest_parties=honest)  # fmt: skip
    else:
        mechs = [m for s in phases for m in s.mechanisms()]
        eps = min(epsilon_for_delta(compose(mechs), delta), local)
        total = LedgerEntry("total", channels, parties, n_rel, local, paper, eps, delta, PLD_BOUND,
                            assumption=joint, honest_parties=honest)  # fmt: skip
    return Ledger(tuple(entries), total, delta)


def _joint(assumptions: Sequence[Assumption]) -> Assumption:
    """What the total assumes: every phase's assumption at once."""
    if len(set(assumptions)) == 1:
        return assumptions[0]
    bounds = [a.bound for a in assumptions if a.bound is not None]
    broken = [a.violated for a in assumptions if a.violated is not None]
    return Assumption(
        max(a.colluders for a in assumptions), max(a.fraction for a in assumptions),
        min(bounds) if bounds else None, "; ".join(dict.fromkeys(a.honest for a in assumptions)),
        "; ".join(dict.fromkeys(a.channel for a in assumptions if a.channel)), broken[0] if broken else None,
    )  # fmt: skip


def with_audits(ledger: Ledger, lowers: Sequence[float | None]) -> Ledger:
    """The ledger with each phase's empirical lower bound (``None``: no audit of that phase).

    The total's is the largest of the phases': the run's output contains each phase's, so a
    test that tells one phase's neighbouring worlds apart tells the run's apart too (a lower
    bound on the composition, not the composition of lower bounds).
    """
    if len(lowers) != len(ledger.entries):
        raise UsageError(f"with_audits: {len(lowers)} audits for {len(ledger.entries)} phases")
    entries = tuple(replace(e, audit_lower=x) for e, x in zip(ledger.entries, lowers, strict=True))
    known = [x for x in lowers if x is not None]
    total = replace(ledger.total, audit_lower=max(known) if known else None)
    return Ledger(entries, total, ledger.delta, dict(ledger.extra))
