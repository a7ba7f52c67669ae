"""Running a cheat: seeded trials against our roles and against the broken variant.

:func:`cheat` plays one strategy of :mod:`mpc_rr.adversary.active._cheats` over
``trials`` seeded runs and reports, as the curious-aggregator attacks do, what
the cheater learned (inputs recovered exactly, against the baseline of a guess)
or changed (a wrong total accepted, honest parties blamed, a run stopped), and
whether the honest parties detected it and named the cheater.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpc_rr.adversary.active._cheats import (
    CLIENT_STRATEGIES,
    SERVER_STRATEGIES,
    BlamingClient,
    CheatingClient,
    CheatingServer,
    TrustingClient,
    TrustingServer,
    UnboundClient,
)
from mpc_rr.core import COORDINATOR, HarnessRunner, Role, Runner, UsageError
from mpc_rr.core._errors import blame_json
from mpc_rr.secure_sum import SeededEntropy, simulated_pki
from mpc_rr.secure_sum.secagg import SPEC, SecAggClient, SecAggPublic, SecAggServer, secagg_public
from mpc_rr.secure_sum.secagg._messages import PROTOCOL as SIGNED_AS

__all__ = ["CHEAT_PROTOCOLS", "CheatReport", "cheat", "cheat_strategies"]

CHEAT_PROTOCOLS = (SPEC.name,)
"""Protocols :func:`cheat` plays (the pipeline's secure-sum dependence and RRBA's secure
tally run this same SecAgg+ and inherit its checks)."""

CHEATER = 3
"""The cheating client's id in client strategies."""


def cheat_strategies() -> dict[str, str]:
    """Every strategy and its side (``server`` or ``client``)."""
    return {**{s: "server" for s in SERVER_STRATEGIES}, **{s: "client" for s in CLIENT_STRATEGIES}}


@dataclass(frozen=True)
class CheatReport:
    """What one strategy did over ``trials`` seeded runs (module docstring).

    ``detected``: every trial had an honest party name the cheater (server
    strategies: party 0; client strategies: the cheating client) with
    evidence; ``culprits``: every id an honest party named; ``honest_blamed``:
    the honest ids among them; ``inputs_recovered``: honest inputs the cheater
    learned exactly, over all trials; ``baseline``: how many a guess recovers
    (each input vector guessed from its marginal: the expected exact hits);
    ``wrong_totals``: honest parties that accepted a total other than the true
    sum; ``completed``: trials whose honest parties all got the exact sum of
    the included inputs.

    ``culprits`` holds only what an honest party *proved* (a signature of the
    culprit's on what was wrong, or an accountable relay -- SecAgg+'s server, the
    full mesh's board -- that passed on what it should have refused);
    ``suspects``: the distinct groups honest parties reported where the evidence
    cannot tell which member cheated (each sorted; the unaccountable relay of the
    all-to-all full mesh is :data:`~mpc_rr.core.RELAY`, ``"relay"`` in JSON), and
    ``suspected``: whether the cheater is in one of them.  ``honest_blamed`` counts
    proven culprits only (a suspect group is not a verdict).
    """

    protocol: str
    strategy: str
    side: str
    variant: str
    trials: int
    n: int
    detected: bool
    detections: int
    culprits: tuple[int, ...]
    culprit_named: bool
    honest_blamed: tuple[int, ...]
    inputs_recovered: int
    inputs_total: int
    baseline: float
    wrong_totals: int
    completed: int
    notes: tuple[str, ...] = field(default=())
    suspects: tuple[tuple[int, ...], ...] = field(default=())
    suspected: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "protocol": self.protocol, "strategy": self.strategy, "side": self.side,
            "variant": self.variant, "trials": self.trials, "n": self.n, "detected": self.detected,
            "detections": self.detections, "culprits": list(self.culprits),
            "culprit_named": self.culprit_named, "honest_blamed": list(self.honest_blamed),
            "inputs_recovered": self.inputs_recovered, "inputs_total": self.inputs_total,
            "baseline": self.baseline, "wrong_totals": self.wrong_totals,
            "completed": self.completed, "notes": list(self.notes),
            "suspects": [blame_json(g) for g in self.suspects], "suspected": self.suspected,
        }  # fmt: skip

    def to_json(self) -> str:
        return json.dumps(self.as_json(), indent=2)


def _public(strategy: str, run: str) -> SecAggPublic:
    """Parameters under which the broken variant is exploitable (a threshold at most k/2,
    a dropout bound that covers the withheld senders; isolation needs a sparse graph)."""
    if strategy == "isolate":
        return secagg_public(40, 16, run=run, degree=8, threshold=3, max_dropout=0.25, max_corrupt=0.05)
    if strategy == "withhold-shares":
        return secagg_public(20, 16, run=run, threshold=5, max_dropout=0.25)
    return secagg_public(20, 16, run=run, threshold=5)


def _roles(strategy: str, broken: bool, pub: SecAggPublic, x: np.ndarray, seed: int,
           ids: dict[int, Any], earlier: dict[int, Role] | None) -> dict[int, Role]:  # fmt: skip
    cfg, graph = pub.config, pub.graph
    side = cheat_strategies()[strategy]
    ent = SeededEntropy(seed, "cheat")
    roles: dict[int, Role] = {}
    client: type[SecAggClient] = SecAggClient
    if side == "server" and broken:
        client = UnboundClient if strategy == "replay" else TrustingClient
    if side == "client" and broken and strategy in ("key-reuse", "bad-shares"):
        client = BlamingClient
    for i in range(1, cfg.n + 1):
        kw: dict[str, Any] = {"entropy": ent.spawn(i), "identity": ids[i]}
        if side == "client" and i == CHEATER:
            prior = earlier.get(i) if earlier else None
            roles[i] = CheatingClient(i, cfg, graph, x[i - 1], strategy=strategy, earlier=prior, **kw)  # type: ignore[arg-type]
        else:
            roles[i] = client(i, cfg, graph, x[i - 1], **kw)
    if side == "server":
        extra: dict[str, Any] = {}
        if strategy == "replay" and earlier:
            extra = {"fake_keys": {i: r._c_sk for i, r in earlier.items() if i},  # type: ignore[attr-defined]
                     "fake_ads": {i: r.sent_keys for i, r in earlier.items() if i}}  # type: ignore[attr-defined]
        srv = CheatingServer(cfg, graph, identity=ids[COORDINATOR], strategy=strategy, **extra)
        srv.sign_receipts = not broken
        roles[COORDINATOR] = srv
    else:
        broken_server = broken and strategy in ("forged-signature", "claim-sender", "inconsistent-shares")
        server = TrustingServer if broken_server else SecAggServer
        roles[COORDINATOR] = server(cfg, graph, identity=ids[COORDINATOR])
    return roles


class _Recording(SecAggClient):
    """An honest client that keeps what it sent (an earlier run a cheat replays)."""

    def start(self) -> list[Any]:
        out = super().start()
        self.sent_keys = out[0].msg
        return out

    def _on_neighbor_keys(self, src: int, msg: Any) -> list[Any]:
        out = super()._on_neighbor_keys(src, msg)
        self.sent_shares = out[0].msg
        return out


class _RecordingUnbound(UnboundClient, _Recording):
    pass


def _earlier_run(strategy: str, broken: bool, run: str, x: np.ndarray, seed: int, ids: dict[int, Any]) -> dict[int, Role]:
    """An honest earlier run (whose messages a replay reuses)."""
    pub = _public(strategy, run)
    cls = _RecordingUnbound if (broken and strategy == "replay") else _Recording
    ent = SeededEntropy(seed, "earlier")
    roles: dict[int, Role] = {COORDINATOR: SecAggServer(pub.config, pub.graph, identity=ids[COORDINATOR])}
    for i in range(1, pub.config.n + 1):
        roles[i] = cls(i, pub.config, pub.graph, x[i - 1], entropy=ent.spawn(i), identity=ids[i])
    HarnessRunner()(roles)
    return roles


def in_process(runner: Runner | None, who: str) -> None:
    """Refuse a runner that builds the roles in worker processes: a cheat reads the roles'
    states (what the cheater learned, whom each party named) after the run."""
    if runner is not None and getattr(runner, "builds_in_workers", False):
        raise UsageError(f"{who}: the runner must run the roles in this process (harness, memory, tcp), "
                         f"not {getattr(runner, 'name', type(runner).__name__)!r}: the report reads their states")  # fmt: skip


def _named(role: Role) -> tuple[int, ...]:
    err = role.error
    if err is not None:
        return tuple(err.culprits)
    return tuple(getattr(role, "culprits", ()))


def cheat(
    strategy: str,
    *,
    protocol: str = SPEC.name,
    trials: int = 5,
    seed: int = 0,
    broken: bool = False,
    progress: Callable[[int], None] | None = None,
    runner: Runner | None = None,
) -> CheatReport:
    """Play ``strategy`` in ``trials`` seeded runs (against the broken variant with ``broken``),
    each run by ``runner`` (default the synchronous harness; any runner that runs the roles in
    this process: the memory transport's parties, TCP + TLS on loopback)."""
    strategies = cheat_strategies()
    if protocol not in CHEAT_PROTOCOLS:
        from mpc_rr.adversary._extensions import attacks_for

        where = (f"; mpc_rr.adversary.attacks_for({protocol!r}).cheats plays it" if attacks_for(protocol).cheats
                 else f"; choose from {', '.join(CHEAT_PROTOCOLS)}")  # fmt: skip
        raise UsageError(f"cheat: plays SecAgg+ alone, not protocol {protocol!r}{where}")
    if strategy not in strategies:
        raise UsageError(f"cheat: unknown strategy {strategy!r}; the strategies are: {', '.join(strategies)}")
    if trials < 1:
        raise UsageError(f"cheat: trials must be >= 1, got {trials}")
    in_process(runner, "cheat")
    side = strategies[strategy]
    cheater = COORDINATOR if side == "server" else CHEATER
    detections = recovered = total_inputs = wrong = completed = 0
    named: set[int] = set()
    baseline = 0.0
    n = 0
    for trial in range(trials):
        rng = np.random.default_rng([seed, trial])
        run = f"cheat-{seed}-{trial}"
        pub = _public(strategy, run)
        cfg = pub.config
        n = cfg.n
        x = rng.integers(0, 2, (cfg.n, cfg.cells))
        ids = simulated_pki(range(cfg.n + 1), SeededEntropy(seed, f"pki-{trial}"))
        earlier = None
        if strategy in ("replay", "key-reuse"):
            same_run = run if strategy == "key-reuse" else f"{run}-earlier"  # key reuse: a repeated run id
            earlier = _earlier_run(strategy, broken, same_run, x, seed + 1, ids)
        roles = _roles(strategy, broken, pub, x, seed + trial, ids, earlier)
        res = (runner if runner is not None else HarnessRunner())(roles)
        honest = [i for i in roles if i != cheater]
        blamed: set[int] = set()
        for i in honest:
            blamed |= set(_named(roles[i]))
        hit = cheater in blamed
        if strategy == "different-aggregates":
            hit = _receipts_disagree(roles, honest, run, ids)
            blamed |= {COORDINATOR} if hit else set()
        named |= blamed
        detections += hit
        server = roles[COORDINATOR]
        if side == "server":
            learned = getattr(server, "learned", {})
            recovered += sum(1 for u, v in learned.items() if u != cheater and np.array_equal(v, x[u - 1]))
            total_inputs += cfg.n
            p1 = x.mean()
            baseline += cfg.n * float(np.prod(np.maximum(p1, 1 - p1) ** cfg.cells)) if cfg.cells else 0.0
        w, c = _outcome(roles, honest, x, cheater)
        wrong += w
        completed += c
        if progress is not None:
            progress(trial + 1)
        del res
    honest_blamed = tuple(sorted(i for i in named if i != cheater))
    return CheatReport(
        protocol=protocol, strategy=strategy, side=side, variant="broken" if broken else "ours",
        trials=trials, n=n, detected=detections == trials, detections=detections,
        culprits=tuple(sorted(named)), culprit_named=cheater in named, honest_blamed=honest_blamed,
        inputs_recovered=recovered, inputs_total=total_inputs, baseline=round(baseline, 6),
        wrong_totals=wrong, completed=completed,
    )  # fmt: skip


def _receipts_disagree(roles: dict[int, Role], honest: list[int], run: str, ids: dict[int, Any]) -> bool:
    """Two honest parties hold receipts *signed by the aggregator* for different totals:
    transferable proof (anyone checks both against the roster) that it equivocated."""
    roster = ids[COORDINATOR].roster
    valid = set()
    for i in honest:
        r = getattr(roles[i], "receipt", None)
        if r is not None and roster.verify_signed(
            SIGNED_AS, run, "aggregate", COORDINATOR, r.signature, r.total.data, str(r.n_included).encode()
        ):
            valid.add(r.total.data)
    return len(valid) > 1


def _outcome(roles: dict[int, Role], honest: list[int], x: np.ndarray, cheater: int) -> tuple[int, int]:
    """(honest parties that accepted a wrong total, 1 if every honest party got the exact sum)."""
    server = roles[COORDINATOR]
    included = getattr(server.result, "included", None) if server.done and server.error is None else None
    wrong, exact = 0, True
    for i in honest:
        if i == COORDINATOR:
            continue
        r = roles[i]
        if r.error is not None or not r.done:
            exact = False
            continue
        got = np.asarray(r.result.total)
        want = x.sum(axis=0) if included is None else x[np.asarray(included) - 1].sum(axis=0)
        if included is not None and cheater in included:
            want = got  # a cheating client's own input is its business
        if not np.array_equal(got % r.result.modulus, want % r.result.modulus):
            wrong += 1
            exact = False
    return wrong, int(exact and included is not None)



