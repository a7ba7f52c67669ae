"""Running a full-mesh cheat: seeded trials against our roles and against the broken variant.

:func:`mesh_cheat` plays one strategy of :mod:`mpc_rr.adversary.active._mesh_cheats`
(a relay or a client cheats) over ``trials`` seeded runs, every message through
the relay (:func:`~mpc_rr.adversary.active.relay_run`), and reports in the shape of
:class:`~mpc_rr.adversary.active.CheatReport`: inputs the relay recovered exactly
(against the baseline of a guess), totals moved, whether the honest parties
detected it, whom they proved a culprit and whom they could only suspect.

Who the cheater is: the board (party 0) for a relay strategy in board mode --
the board is the run's hub and a protocol role that checks what it relays, so
it is named; the relay :data:`~mpc_rr.core.RELAY` in all-to-all mode -- the
transport hub, no protocol role, so it can only be *suspected* together with
the party whose message it may have changed (``{v, relay}``); party 3 for a
client strategy.

Strategies that have no analogue in the full mesh are refused with the reason
(:data:`MESH_REFUSED`).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from mpc_rr.adversary.active._cheat_runs import CheatReport
from mpc_rr.adversary.active._mesh_cheats import (
    CLIENT_CHEATS,
    AggregateSplittingRelay,
    CheatingMeshParty,
    KeySubstitutingRelay,
    LenientMeshParty,
    MeshRelay,
    RunlessBoard,
    RunlessMeshParty,
    ShareForgingRelay,
    ShareWithholdingRelay,
    TrustingBoard,
    TrustingMeshParty,
    relay_run,
)
from mpc_rr.core import COORDINATOR, Role, UsageError
from mpc_rr.core._errors import RELAY
from mpc_rr.secure_sum import SeededEntropy, simulated_pki
from mpc_rr.secure_sum import _crypto as crypto
from mpc_rr.secure_sum._identity import signed_payload
from mpc_rr.secure_sum.full_mesh import BOARD_SPEC as BOARD
from mpc_rr.secure_sum.full_mesh import SPEC as MESH
from mpc_rr.secure_sum.full_mesh import BulletinBoard, FullMeshParty
from mpc_rr.secure_sum.full_mesh._messages import PROTOCOL

__all__ = ["MESH_CHEATS", "MESH_PROTOCOLS", "mesh_cheat"]

MESH_PROTOCOLS = {MESH.name: MESH.publication, BOARD.name: BOARD.publication}
"""The cheat command's full-mesh protocols and their publication modes."""

SERVER_CHEATS = ("key-substitution", "replay", "forge-shares", "withhold-shares", "different-aggregates")

MESH_CHEATS = {**{s: "server" for s in SERVER_CHEATS}, **{s: "client" for s in CLIENT_CHEATS}}
"""Every strategy the full mesh plays, and its side."""

MESH_REFUSED = {
    "equivocate": "the full mesh has no survivor set: no dropout tolerance, every party must "
                  "finish or the run aborts, so there is no 'who survived' for a relay to equivocate on",
    "isolate": "the full mesh has no neighbour graph and no dropout recovery: every party shares with "
               "every other, and nothing is revealed on a party's reported dropout",
    "inconsistent-shares": "the full mesh commits to nothing: a party's shares are checked against no "
                           "commitment (a client can shift the total by choosing its shares or its input, "
                           "which only a validity proof such as Prio3's catches)",
}  # fmt: skip
"""SecAgg+ strategies with no analogue in the full mesh, and why."""

CHEATER = 3
"""The cheating client's id in client strategies."""

TARGET = 1
"""The party whose shares a forging or withholding relay attacks."""

_BROKEN = {
    "key-substitution": "TrustingMeshParty: no signature check",
    "replay": "RunlessMeshParty: keys signed and checked without the run id",
    "forge-shares": "LenientMeshParty: a share that fails authentication counts as zero",
    "withhold-shares": "none: our roles (the full mesh has no dropout recovery to exploit)",
    "different-aggregates": "TrustingMeshParty: publications unchecked, the board's total taken on its word",
    "forged-signature": "TrustingMeshParty / TrustingBoard: no signature check",
    "key-reuse": "RunlessMeshParty / RunlessBoard: keys signed and checked without the run id",
    "bad-shares": "LenientMeshParty: a share that fails authentication counts as zero",
    "claim-sender": "TrustingMeshParty / TrustingBoard: no signature check",
}


def _classes(strategy: str, broken: bool) -> tuple[type[FullMeshParty], type[BulletinBoard]]:
    if not broken:
        return FullMeshParty, BulletinBoard
    if strategy in ("key-substitution", "forged-signature", "claim-sender", "different-aggregates"):
        return TrustingMeshParty, TrustingBoard
    if strategy in ("replay", "key-reuse"):
        return RunlessMeshParty, RunlessBoard
    if strategy in ("forge-shares", "bad-shares"):
        return LenientMeshParty, BulletinBoard
    return FullMeshParty, BulletinBoard


def _earlier_keys(n: int, ids: dict[int, Any], seed: int, trial: int, run: str
                  ) -> dict[int, tuple[crypto.X25519PrivateKey, bytes, bytes]]:  # fmt: skip
    """Each party's key of an earlier run, signed by it for ``run`` (its private half leaked)."""
    ent = SeededEntropy(seed, f"mesh-earlier-{trial}")
    out = {}
    for j in range(1, n + 1):
        sk, pk = crypto.keypair(ent)
        out[j] = (sk, pk, ids[j].sign(signed_payload(PROTOCOL, run, "keys", j, pk)))
    return out


def mesh_cheat(protocol: str, strategy: str = "key-substitution", *, broken: bool, n: int = 8,
               cells: int = 4, seed: int = 0, trials: int = 5) -> CheatReport:  # fmt: skip
    """``strategy`` against the full mesh over ``trials`` seeded runs (module docstring)."""
    if protocol not in MESH_PROTOCOLS:
        raise UsageError(f"protocol must be one of {sorted(MESH_PROTOCOLS)}, got {protocol!r}")
    if strategy in MESH_REFUSED:
        raise UsageError(f"--protocol {protocol} does not play {strategy!r}: {MESH_REFUSED[strategy]}")
    if strategy not in MESH_CHEATS:
        raise UsageError(f"unknown strategy {strategy!r} for {protocol}; one of {sorted(MESH_CHEATS)}")
    if strategy == "different-aggregates" and n < 3:
        raise UsageError("different-aggregates needs n >= 3 (two groups shown different totals)")
    publication: Literal["all-to-all", "board"] = "board" if MESH_PROTOCOLS[protocol] == "board" else "all-to-all"
    side = MESH_CHEATS[strategy]
    party_cls, board_cls = _classes(strategy, broken)
    rng = np.random.default_rng(seed)
    detections = recovered = total = wrong = completed = 0
    culprits: set[int] = set()
    suspects: set[tuple[int, ...]] = set()
    for trial in range(trials):
        run = f"mesh-cheat-{seed}-{trial}"
        ids = simulated_pki(range(n + 1), SeededEntropy(seed, f"mesh-pki-{trial}"))
        x = rng.integers(0, 2, (n, cells))
        # an earlier run's keys: signed for their own run (ours), or with no run at all (broken)
        earlier_run = "" if broken else f"{run}-earlier"
        roles: dict[int, Role] = {}
        for j in range(1, n + 1):
            kw: dict[str, Any] = {"publication": publication, "run": run, "identity": ids[j],
                                  "entropy": SeededEntropy(seed, f"mesh-{trial}-{j}")}  # fmt: skip
            if side == "client" and j == CHEATER:
                prior = _earlier_keys(n, ids, seed, trial, earlier_run)[j] if strategy == "key-reuse" else None
                roles[j] = CheatingMeshParty(j, n, x[j - 1], strategy=strategy, earlier=prior, **kw)
            else:
                roles[j] = party_cls(j, n, x[j - 1], **kw)
        if publication == "board":
            roles[COORDINATOR] = board_cls(n, cells, run=run, roster=ids[0].roster)
        modulus = roles[1].modulus  # type: ignore[attr-defined]
        relay: MeshRelay = MeshRelay()
        if strategy == "key-substitution":
            relay = KeySubstitutingRelay(n, cells, modulus, run, seed * 1000 + trial)
        elif strategy == "replay":
            relay = KeySubstitutingRelay(n, cells, modulus, run, 0, fakes=_earlier_keys(n, ids, seed, trial, earlier_run))
        elif strategy == "forge-shares":
            relay = ShareForgingRelay(TARGET, np.random.default_rng([seed, trial]))
        elif strategy == "withhold-shares":
            relay = ShareWithholdingRelay(TARGET)
        elif strategy == "different-aggregates":
            relay = AggregateSplittingRelay(n, modulus, set(range(1, n // 2 + 1)))
        relay_run(roles, relay)
        cheater = CHEATER if side == "client" else COORDINATOR if publication == "board" else RELAY
        honest = {j: r for j, r in roles.items() if j != cheater}
        named = {c for r in honest.values() if r.error is not None for c in r.error.culprits}
        culprits |= named
        suspects |= {g for r in honest.values() if r.error is not None for g in r.error.suspects}
        detections += any(r.error is not None for r in honest.values())
        got = relay.recovered()
        recovered += sum(int(np.array_equal(v, x[j - 1])) for j, v in got.items())
        total += n
        truth = x.sum(axis=0)
        data = [r for j, r in honest.items() if j != COORDINATOR]
        bad = sum(1 for r in data if r.done and r.error is None and not np.array_equal(r.result.total, truth))
        wrong += bad
        completed += all(r.done and r.error is None and np.array_equal(r.result.total, truth) for r in data)
    baseline = total * 0.5**cells  # each 0/1 vector guessed from its marginal: the expected exact hits
    honest_ids = (set(range(1, n + 1)) | ({COORDINATOR} if publication == "board" else set())) - {cheater}
    notes = []
    if publication == "all-to-all" and not broken and any(RELAY in g for g in suspects):
        notes.append("all-to-all: the relay is the transport hub, not a protocol role; a bad or missing signed "
                     "message 'from' v was forged or withheld by v or changed or dropped by the hub, and no "
                     "receiver can tell which, so it reports the suspects {v, relay}, not a culprit")  # fmt: skip
    if broken:
        notes.append(f"broken variant: {_BROKEN[strategy]}")
    return CheatReport(
        protocol=protocol, strategy=strategy, side=side, variant="broken" if broken else "ours",
        trials=trials, n=n, detected=detections == trials, detections=detections,
        culprits=tuple(sorted(culprits)), culprit_named=cheater in culprits,
        honest_blamed=tuple(sorted(culprits & honest_ids)), inputs_recovered=recovered, inputs_total=total,
        baseline=round(baseline, 3), wrong_totals=wrong, completed=completed, notes=tuple(notes),
        suspects=tuple(sorted(suspects)), suspected=any(cheater in g for g in suspects),
    )  # fmt: skip
