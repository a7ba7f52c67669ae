"""Every SecAgg+ cheat played through an outer workflow: the pipeline's dependence sum, RRBA's tally.

The pipeline's coordinator runs its dependence sum through ``SumProtocol.role``
(:func:`mpc_rr.pipeline.dependence_role`), and every RRBA block's secure tally
too (:meth:`mpc_rr.rrba.RRBAConfig.tally_public`).  :func:`pipeline_cheat` and
:func:`rrba_cheat` register, for the duration of the run only, a sum protocol
``secagg-cheat`` (:class:`_Inner`) whose roles are those of
:func:`~mpc_rr.adversary.active.cheat` for the strategy -- a
:class:`~mpc_rr.adversary.active.CheatingServer` as party 0 (every block's, in RRBA),
or a :class:`~mpc_rr.adversary.active.CheatingClient` as data party
:data:`~mpc_rr.adversary.active._cheat_runs.CHEATER` (in the block that holds it),
against our roles or the broken variant (one protection off) -- and run the
whole outer workflow with it as the inner sum.  ``replay`` and ``key-reuse``
first run an honest *earlier outer run* (another run id; key reuse: the same
one) whose inner parties keep what they sent.

The report is a :class:`~mpc_rr.adversary.active.CheatReport`, as :func:`cheat`'s:
what the server learned (each party's inner input -- the pipeline: its one-hot
pair cells; RRBA: its block's one-hot answer -- recovered exactly), the totals
it moved, whether an honest party named the cheater (in the outer role's abort
or the inner role's record: an RRBA client whose tally fails goes on without
it), the honest parties blamed, and the trials whose outer run completed with
every inner sum exact over the parties it included.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from mpc_rr.adversary.active._cheat_runs import (
    CHEATER,
    CheatReport,
    _named,
    _Recording,
    _RecordingUnbound,
    cheat_strategies,
)
from mpc_rr.adversary.active._cheats import (
    BlamingClient,
    CheatingClient,
    CheatingServer,
    TrustingClient,
    TrustingServer,
    UnboundClient,
)
from mpc_rr.core import (
    COORDINATOR,
    HarnessRunner,
    Role,
    UsageError,
    register_protocol,
    unregister_protocol,
)
from mpc_rr.secure_sum import SeededEntropy, with_roles
from mpc_rr.secure_sum.secagg import SPEC, SecAggClient, SecAggServer
from mpc_rr.secure_sum.secagg._messages import PROTOCOL as SIGNED_AS

__all__ = ["PIPELINE_CHEATS", "pipeline_cheat", "rrba_cheat"]

_OUTERS = ("pipeline", "rrba")
"""Outer workflows whose inner SecAgg+ :func:`pipeline_cheat` / :func:`rrba_cheat` play."""

PIPELINE_CHEATS = tuple(cheat_strategies())
"""Strategies played through the pipeline and RRBA: every server and client strategy."""

_NAME = "secagg-cheat"
_EARLIER = ("replay", "key-reuse")  # strategies that need an earlier run


def _options(strategy: str) -> dict[str, Any]:
    """Inner SecAgg+ options under which the broken variant is exploitable, as
    :func:`~mpc_rr.adversary.active.cheat` chooses them: a threshold at most k/2; withheld
    senders within the dropout bound; isolation needs a sparse graph (k = 8 of 39)."""
    if strategy == "isolate":
        return {"degree": 8, "threshold": 3, "max_dropout": 0.25, "max_corrupt": 0.05}
    if strategy == "withhold-shares":
        return {"threshold": 5, "max_dropout": 0.25}
    return {"threshold": 5}


def pipeline_cheat(
    strategy: str, *, broken: bool, n: int | None = None, trials: int = 3, seed: int = 0
) -> CheatReport:
    """Play ``strategy`` through the pipeline's secure-sum dependence (module docstring);
    ``n`` parties (default 20; isolate 40, for a sparse graph)."""
    return _through("pipeline", strategy, broken=broken, n=n, trials=trials, seed=seed)


def rrba_cheat(
    strategy: str, *, broken: bool, n: int | None = None, trials: int = 3, seed: int = 0
) -> CheatReport:
    """Play ``strategy`` through RRBA's secure tally (module docstring): blocks of ``n // 2``
    clients (default n = 40; isolate: one block of 40, for a sparse graph)."""
    return _through("rrba", strategy, broken=broken, n=n, trials=trials, seed=seed)


@dataclasses.dataclass
class _Inner:
    """The registered sum's role factory for one trial: which class each inner party is.

    ``recording``: the honest earlier run (its clients keep what they sent);
    ``earlier``: that run's roles by (slot, inner id), the slot being the inner run
    id after the outer one (``dependence``, ``block-<b>``); ``made``: every inner
    role of the current run by (inner run id, inner id).
    """

    strategy: str
    broken: bool
    cheater: tuple[str, int]  # (slot, inner id) of the cheating client
    recording: bool = False
    earlier: dict[tuple[str, int], Role] = dataclasses.field(default_factory=dict)
    made: dict[tuple[str, int], Role] = dataclasses.field(default_factory=dict)

    @property
    def side(self) -> str:
        return cheat_strategies()[self.strategy]

    def role(self, party_id: int, pub: Any, x: np.ndarray | None, *, entropy: Any = None,
             identity: Any = None) -> Role:  # fmt: skip
        cfg, graph = pub.config, pub.graph
        slot = cfg.run.rpartition("/")[2]
        kw: dict[str, Any] = {"identity": identity}
        r: Role
        if party_id == COORDINATOR:
            r = self._server(slot, pub, kw)
        else:
            if x is None:
                raise UsageError(f"data party {party_id} needs an input vector")
            kw["entropy"] = entropy
            cls = self._client_class(slot, party_id)
            if cls is CheatingClient:
                prior = self.earlier.get((slot, party_id))
                r = CheatingClient(party_id, cfg, graph, x, strategy=self.strategy, earlier=prior, **kw)  # type: ignore[arg-type]
            else:
                r = cls(party_id, cfg, graph, x, **kw)
        self.made[(cfg.run, party_id)] = r
        return r

    def _server(self, slot: str, pub: Any, kw: dict[str, Any]) -> Role:
        cfg, graph = pub.config, pub.graph
        if self.recording or self.side == "client":
            broken_server = (not self.recording and self.broken
                             and self.strategy in ("forged-signature", "claim-sender", "inconsistent-shares"))  # fmt: skip
            return (TrustingServer if broken_server else SecAggServer)(cfg, graph, **kw)
        if self.strategy == "replay":  # the earlier run's signed keys, whose private halves leaked
            old = {i: r for (s, i), r in self.earlier.items() if s == slot and i != COORDINATOR}
            kw["fake_keys"] = {i: r._c_sk for i, r in old.items()}  # type: ignore[attr-defined]
            kw["fake_ads"] = {i: r.sent_keys for i, r in old.items()}  # type: ignore[attr-defined]
        srv = CheatingServer(cfg, graph, strategy=self.strategy, **kw)
        srv.sign_receipts = not self.broken
        return srv

    def _client_class(self, slot: str, party_id: int) -> type[SecAggClient]:
        if self.recording:
            return _RecordingUnbound if (self.broken and self.strategy == "replay") else _Recording
        if self.side == "client" and (slot, party_id) == self.cheater:
            return CheatingClient
        if self.broken and self.side == "server":
            return UnboundClient if self.strategy == "replay" else TrustingClient
        if self.broken and self.strategy in ("key-reuse", "bad-shares"):
            return BlamingClient
        return SecAggClient


def _build(outer: str, strategy: str, n: int, rng: np.random.Generator, run: str, seed: int,
           label: str = "cheat") -> dict[int, Role]:  # fmt: skip
    """The outer run's roles, its sum being ``secagg-cheat`` with inner entropy seeded by
    ``seed`` and ``label`` (an earlier run draws other keys)."""
    from mpc_rr.data import Attribute, Schema
    from mpc_rr.pipeline import PipelineConfig, pipeline_roles
    from mpc_rr.pipeline import _signing as signing
    from mpc_rr.rrba import RRBAConfig, rrba_roles

    records = np.stack([rng.integers(0, 3, n), rng.integers(0, 2, n), rng.integers(0, 2, n)], axis=1)
    ent = SeededEntropy(seed, label)
    opts = _options(strategy)
    if outer == "rrba":
        block = n if strategy == "isolate" else n // 2
        rcfg = RRBAConfig(sizes=(3, 2, 2), n_clients=n, block=block, p=0.5, run=run, secure_tally=True,
                          sum_protocol=_NAME, sum_options=opts)  # fmt: skip
        return rrba_roles(rcfg, records, seed, entropy=ent.spawn)
    schema = Schema((Attribute("a", ("0", "1", "2")), Attribute("b", ("0", "1")), Attribute("c", ("0", "1"))))
    key = signing.new_signing_key(bytes(range(32)))
    cfg = PipelineConfig(
        schema=schema, n=n, p=0.8, dependence="secure-sum", sum_protocol=_NAME,
        sum_options=opts, coordinator_key=signing.public_bytes(key), run=run,
    )  # fmt: skip
    return pipeline_roles(cfg, records, seed, key, sum_entropy=ent.spawn)


def _through(outer: str, strategy: str, *, broken: bool, n: int | None, trials: int, seed: int) -> CheatReport:
    if outer not in _OUTERS:
        raise UsageError(f"cheat through: outer protocol {outer!r}; choose from {', '.join(_OUTERS)}")
    if strategy not in PIPELINE_CHEATS:
        raise UsageError(f"{outer}: unknown strategy {strategy!r}; the strategies are: {', '.join(PIPELINE_CHEATS)}")
    if trials < 1:
        raise UsageError(f"{outer}: trials must be >= 1, got {trials}")
    side = cheat_strategies()[strategy]
    if n is None:
        n = 40 if strategy == "isolate" or outer == "rrba" else 20
    if strategy == "isolate" and n < 40:
        raise UsageError(f"{outer}: isolate needs n >= 40 (a sparse graph of degree 8), got {n}")
    slot = "dependence" if outer == "pipeline" else "block-1"  # the cheating client's inner run
    inner = _Inner(strategy, broken, (slot, CHEATER))
    tally = _Tally(side)
    register_protocol(with_roles(SPEC, inner.role, name=_NAME))
    try:
        for trial in range(trials):
            run = f"cheat-{seed}-{trial}"
            inner.earlier.clear()
            if strategy in _EARLIER:  # an honest earlier run: key reuse repeats the run id
                inner.recording = True
                earlier_run = run if strategy == "key-reuse" else f"{run}-earlier"
                HarnessRunner()(_build(outer, strategy, n, np.random.default_rng([seed, trial, 1]), earlier_run,
                                       seed + trial, "earlier"))  # fmt: skip
                inner.earlier = {(r.rpartition("/")[2], i): role for (r, i), role in inner.made.items()}
                inner.recording = False
            inner.made.clear()
            roles = _build(outer, strategy, n, np.random.default_rng([seed, trial]), run, seed + trial)
            HarnessRunner()(roles)
            tally.add(outer, roles, inner.made, (f"{run}/{slot}", CHEATER))
    finally:
        unregister_protocol(_NAME)
    return tally.report(outer, strategy, broken, trials, n)


@dataclasses.dataclass
class _Tally:
    """The trials' counts, as :func:`~mpc_rr.adversary.active.cheat` keeps them."""

    side: str
    detections: int = 0
    recovered: int = 0
    total: int = 0
    wrong: int = 0
    completed: int = 0
    baseline: float = 0.0
    named: set[int] = dataclasses.field(default_factory=set)
    namers: list[int] = dataclasses.field(default_factory=list)  # per trial: honest parties naming the cheater
    namer_ids: set[int] = dataclasses.field(default_factory=set)
    by_receipts: int = 0  # trials caught by two signed receipts that disagree

    def add(self, outer: str, roles: dict[int, Role], made: dict[tuple[str, int], Role],
            cheater: tuple[str, int]) -> None:  # fmt: skip
        culprit = COORDINATOR if self.side == "server" else cheater[1]
        runs: dict[str, dict[int, Role]] = {}
        for (r, i), role in made.items():
            runs.setdefault(r, {})[i] = role
        blamed: set[int] = set()
        namers: set[int] = set()
        for i, role in roles.items():  # the outer roles' aborts name outer ids
            if i != culprit and role.error is not None:
                blamed |= set(role.error.culprits)
                namers |= {i} if culprit in role.error.culprits else set()
        exact = True
        wrong_receipts = False
        for r, inner in runs.items():
            to_outer = _outer_ids(outer, roles, r)
            bad = cheater[1] if (self.side == "client" and r == cheater[0]) else None
            honest = [i for i in inner if i != (COORDINATOR if self.side == "server" else bad)]
            for i in honest:
                said = {to_outer(c) for c in _named(inner[i])}
                blamed |= said
                namers |= {to_outer(i)} if culprit in said else set()
            if self.side == "server" and self.strategy_moves(inner):
                wrong_receipts |= _receipts_disagree(inner)
            x = np.stack([np.asarray(inner[i].x, np.int64) for i in sorted(inner) if i != COORDINATOR])  # type: ignore[attr-defined]
            w, c = _totals(inner, honest, x, bad)
            self.wrong += w
            exact &= c
            if self.side == "server":
                srv = inner[COORDINATOR]
                learned = getattr(srv, "learned", {})
                self.recovered += sum(1 for u, v in learned.items() if np.array_equal(v, x[u - 1]))
                self.total += len(inner) - 1
                rows = [v.tobytes() for v in x]
                # a guess that knows the inputs' distribution: everyone holds the most common vector
                self.baseline += max(rows.count(v) for v in set(rows))
        if wrong_receipts:  # two signed receipts for different totals: transferable proof
            blamed.add(COORDINATOR)
            self.by_receipts += 1
        self.namers.append(len(namers))
        self.namer_ids |= namers
        self.named |= blamed
        self.detections += culprit in blamed
        rest = [r for i, r in roles.items() if self.side == "server" or i != culprit]
        self.completed += int(exact and all(r.done and r.error is None for r in rest))

    @staticmethod
    def strategy_moves(inner: dict[int, Role]) -> bool:
        return getattr(inner[COORDINATOR], "strategy", "") == "different-aggregates"

    def report(self, outer: str, strategy: str, broken: bool, trials: int, n: int) -> CheatReport:
        culprit = COORDINATOR if self.side == "server" else CHEATER
        notes = [
            "completed: every outer role but the cheating client's finished and every inner sum was exact "
            "over the parties it included" + ("; RRBA goes on without a block whose tally failed" if outer == "rrba" else ""),
        ]  # fmt: skip
        if self.side == "server":
            notes.append("inputs: each party's input to the inner SecAgg+ (pipeline: its one-hot pair cells; RRBA: "
                         "its block's one-hot answer), recovered exactly; baseline: everyone guessed the most "
                         f"common vector, right for {self.baseline / max(self.total, 1):.0%} of the parties (the "
                         "inputs have little entropy); each recovered input is certain, not a guess")  # fmt: skip
        if max(self.namers, default=0) or self.by_receipts:
            ids = f" (ids {sorted(self.namer_ids)})" if len(self.namer_ids) <= 5 else ""
            receipts = (f"; {self.by_receipts} trials caught by two signed receipts that disagree (anyone "
                        "holding both checks them against the roster)") if self.by_receipts else ""  # fmt: skip
            notes.append(f"named by {min(self.namers)} to {max(self.namers)} honest parties per trial{ids}, "
                         f"in the outer roles' aborts or their inner roles' records{receipts}")  # fmt: skip
        return CheatReport(
            protocol=outer, strategy=strategy, side=self.side, variant="broken" if broken else "ours",
            trials=trials, n=n, detected=self.detections == trials, detections=self.detections,
            culprits=tuple(sorted(self.named)), culprit_named=culprit in self.named,
            honest_blamed=tuple(sorted(i for i in self.named if i != culprit)),
            inputs_recovered=self.recovered, inputs_total=self.total, baseline=round(self.baseline, 6),
            wrong_totals=self.wrong, completed=self.completed, notes=tuple(notes),
        )  # fmt: skip


def _outer_ids(outer: str, roles: dict[int, Role], run: str) -> Any:
    """Inner id -> outer id in inner run ``run`` (RRBA block b: its members in id order)."""
    if outer == "pipeline":
        return lambda i: i
    block = int(run.rpartition("block-")[2])
    start = roles[COORDINATOR].cfg.members(block).start  # type: ignore[attr-defined]
    return lambda i: i if i == COORDINATOR else start + i - 1


def _receipts_disagree(inner: dict[int, Role]) -> bool:
    """Two honest parties hold receipts *signed by the aggregator* for different totals."""
    valid = set()
    for i, role in inner.items():
        r = getattr(role, "receipt", None)
        if i == COORDINATOR or r is None:
            continue
        roster = role.roster  # type: ignore[attr-defined]
        if roster.verify_signed(SIGNED_AS, role.run, "aggregate", COORDINATOR, r.signature, r.total.data,
                                str(r.n_included).encode()):  # fmt: skip
            valid.add(r.total.data)
    return len(valid) > 1


def _totals(inner: dict[int, Role], honest: list[int], x: np.ndarray, bad: int | None) -> tuple[int, bool]:
    """(honest parties that accepted a total no honest run gives, whether every honest party
    got the exact sum of the included inputs).  A cheating client's own input is its business
    only within what an input may be (0 or 1 per cell, both outer workflows send one-hot
    cells): a total beyond that was moved."""
    srv = inner[COORDINATOR]
    included = srv.result.included if srv.done and srv.error is None else None
    members = [int(u) for u in (included if included is not None else range(1, len(x) + 1))]
    rest = [u - 1 for u in members if u != bad]
    honest_sum = x[rest].sum(axis=0)
    wrong, exact = 0, included is not None
    for i in honest:
        r = inner[i]
        if i == COORDINATOR:
            continue
        if r.error is not None or not r.done:
            exact = False
            continue
        diff = (np.asarray(r.result.total, np.int64) - honest_sum) % r.result.modulus
        if not (bool(np.all(diff <= 1)) if bad in members else not diff.any()):
            wrong += 1
            exact = False
    return wrong, exact
