"""Run a secure sum end to end and account its costs.

Used by tests, the ``secure-sum`` command and the benchmarks: it builds the
roles of a protocol, makes chosen parties crash at a chosen step
(:class:`DropAt`), and runs them with

* the default :class:`HarnessRunner`: :func:`mpc_rr.harness.run_roles`
  (synchronous, no transport); messages and encoded bytes per role come from
  the delivery trace (each message encoded once with the protocol's strict
  codec, exactly the bytes a transport carries);
* any other :class:`Runner` passed in -- the memory and TCP + TLS runners over
  the Party actors live in :mod:`scenarios.secure_sum_runners` (``mpc_rr``
  never imports the runtime: layers only depend downwards).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal
from typing import Protocol as _Protocol

import numpy as np

from mpc_rr.errors import ProtocolAbort, UsageError
from mpc_rr.harness import run_roles
from mpc_rr.messages import Codec, Message
from mpc_rr.roles import COORDINATOR, Role, Send
from mpc_rr.secure_sum import full_mesh, secagg
from mpc_rr.secure_sum.entropy import Entropy, SeededEntropy
from mpc_rr.secure_sum.graph import Graph

__all__ = [
    "DropAt",
    "HarnessRunner",
    "Protocol",
    "RunCosts",
    "Runner",
    "SumReport",
    "build_roles",
    "costs",
    "run_secure_sum",
]

Protocol = Literal["full-mesh", "full-mesh-board", "secagg"]
DropStep = Literal["keys", "shares", "masked", "unmask"]
_DROP_MESSAGE = {
    "keys": secagg.AdvertiseKeys,
    "shares": secagg.EncryptedShares,
    "masked": secagg.MaskedInput,
    "unmask": secagg.UnmaskShares,
}


@dataclass(frozen=True)
class RunCosts:
    """What a runner reports: delivered messages and bytes sent / received per party id."""

    messages: int
    sent: np.ndarray
    recv: np.ndarray


class Runner(_Protocol):
    """Drives a dict of roles to completion and reports costs (``name`` goes in the report)."""

    name: str

    def __call__(
        self, roles: dict[int, Role], *, codec: Codec, n: int, step_timeout: float
    ) -> RunCosts: ...


class HarnessRunner:
    """The synchronous harness (no transport); ``count_bytes=False`` skips encoding."""

    name = "harness"

    def __init__(self, count_bytes: bool = True) -> None:
        self.count_bytes = count_bytes

    def __call__(
        self, roles: dict[int, Role], *, codec: Codec, n: int, step_timeout: float
    ) -> RunCosts:
        res = run_roles(roles, timeouts=6)
        if self.count_bytes:
            c = costs(res.trace, codec, n)
            return RunCosts(res.messages, c["sent"], c["recv"])
        return RunCosts(res.messages, np.full(n + 1, -1), np.full(n + 1, -1))


class DropAt(Role):
    """Test double: behaves like ``inner`` until it would send a ``at`` message, then crashes.

    The crashed party sends nothing more and ignores everything (``done`` with
    no result), which is what a dropout looks like to everyone else.
    """

    def __init__(self, inner: Role, at: type[Message]) -> None:
        super().__init__(inner.party_id)
        self.inner = inner
        self.at = at
        self.message_types = inner.message_types
        self.crashed = False

    def _filter(self, sends: list[Send]) -> list[Send]:
        if any(isinstance(s.msg, self.at) for s in sends):
            self.crashed = True
            self._done = True
            return []
        if self.inner.done:
            self._done = True
            self._error = self.inner.error
            self._result = None if self.inner.error else self.inner.result
        return sends

    def start(self) -> list[Send]:
        return self._filter(self.inner.start())

    def receive(self, src: int, msg: Message) -> list[Send]:
        return [] if self._done else self._filter(self.inner.receive(src, msg))

    def on_timeout(self) -> list[Send]:
        return [] if self._done else self._filter(self.inner.on_timeout())

    def waiting_for(self) -> set[int]:
        return set() if self._done else self.inner.waiting_for()


@dataclass
class SumReport:
    """Outcome and costs of one run (JSON-friendly via :meth:`as_dict`)."""

    protocol: str
    parties: int
    cells: int
    exact: bool
    aborted: str | None
    survivors: int
    messages: int
    bytes: int
    bytes_per_party_sent: float
    bytes_per_party_received: float
    aggregator_bytes_sent: int
    aggregator_bytes_received: int
    wall_s: float
    total: np.ndarray | None = field(default=None, repr=False)
    params: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        d = {k: v for k, v in self.__dict__.items() if k != "total"}
        return d


def build_roles(
    protocol: Protocol,
    inputs: np.ndarray,
    *,
    entropy: Callable[[int], Entropy] | None = None,
    rng: np.random.Generator | None = None,
    max_dropout: float = 0.0,
    degree: int | None = None,
    threshold: int | None = None,
    failure: float = 1e-6,
    run: str = "",
) -> tuple[dict[int, Role], Codec, dict]:
    """Roles, codec and public parameters for one run over the rows of ``inputs``."""
    x = np.asarray(inputs)
    n, cells = x.shape
    if protocol in ("full-mesh", "full-mesh-board"):
        pub = "board" if protocol == "full-mesh-board" else "all-to-all"
        roles = full_mesh.full_mesh_roles(x, publication=pub, entropy=entropy, run=run)
        return roles, Codec(full_mesh.MESH_MESSAGES), {"publication": pub, "modulus": n + 1}
    if protocol == "secagg":
        cfg = secagg.SecAggConfig.create(
            n,
            cells,
            max_value=max(1, int(x.max(initial=0))),
            degree=degree,
            threshold=threshold,
            max_dropout=max_dropout,
            failure=failure,
            run=run,
        )
        graph = Graph.random_regular(n, cfg.degree, rng or np.random.default_rng(0))
        roles = secagg.secagg_roles(x, cfg, graph, entropy=entropy)
        params = {
            "modulus": cfg.modulus,
            "degree": cfg.degree,
            "threshold": cfg.threshold,
            "max_dropout": cfg.max_dropout,
        }
        return roles, Codec(secagg.SECAGG_MESSAGES), params
    raise UsageError(
        f"protocol must be 'full-mesh', 'full-mesh-board' or 'secagg', got {protocol!r}"
    )


def costs(trace, codec: Codec, n: int) -> dict:
    """Messages and encoded bytes per role from a harness trace."""
    sent = np.zeros(n + 1, np.int64)
    recv = np.zeros(n + 1, np.int64)
    msgs = 0
    for t in trace:
        if not t.delivered:
            continue
        size = len(codec.encode(t.msg))
        sent[t.src] += size
        recv[t.dst] += size
        msgs += 1
    return {"messages": msgs, "sent": sent, "recv": recv}


def run_secure_sum(
    protocol: Protocol,
    inputs: np.ndarray,
    *,
    seed: int = 0,
    dropout: float = 0.0,
    drop_step: DropStep = "masked",
    max_dropout: float | None = None,
    degree: int | None = None,
    threshold: int | None = None,
    failure: float = 1e-6,
    deterministic: bool = False,
    runner: Runner | None = None,
    step_timeout: float = 30.0,
) -> SumReport:
    """Run one secure sum with the harness and check it against the plaintext sum.

    Parameters
    ----------
    dropout:
        Fraction of data parties (chosen with ``seed``) that vanish at ``drop_step``
        (SecAgg only; the full mesh has no dropout tolerance and aborts).
    max_dropout:
        SecAgg's tolerated fraction (default: ``dropout``).
    deterministic:
        Use :class:`SeededEntropy` (reproducible; tests only) instead of the OS CSPRNG.
    runner:
        How to run the roles (default :class:`HarnessRunner`); see
        :mod:`scenarios.secure_sum_runners` for the memory and TCP transports.
    step_timeout:
        Seconds without progress before a role's ``on_timeout`` (for runners with time).
    """
    runner = runner if runner is not None else HarnessRunner()
    x = np.asarray(inputs)
    n, cells = x.shape
    rng = np.random.default_rng(seed)
    ent = SeededEntropy(seed).spawn if deterministic else None
    roles, codec, params = build_roles(
        protocol,
        x,
        entropy=ent,
        rng=rng,
        max_dropout=dropout if max_dropout is None else max_dropout,
        degree=degree,
        threshold=threshold,
        failure=failure,
    )
    victims = set(rng.choice(np.arange(1, n + 1), size=round(dropout * n), replace=False).tolist())
    drop_type: type[Message] = (
        _DROP_MESSAGE[drop_step] if protocol == "secagg" else full_mesh.MeshPublish
    )
    for v in victims:
        roles[v] = DropAt(roles[v], drop_type)
    inner = {pid: (r.inner if isinstance(r, DropAt) else r) for pid, r in roles.items()}

    t0 = time.perf_counter()
    rc = runner(roles, codec=codec, n=n, step_timeout=step_timeout)
    wall = time.perf_counter() - t0
    roles = inner
    watcher = (
        roles[COORDINATOR]
        if COORDINATOR in roles
        else roles[min(set(roles) - victims - {COORDINATOR})]
    )
    params["transport"] = runner.name
    aborted = None
    total = None
    included: tuple[int, ...] = ()
    try:
        r = watcher.result
        total, included = r.total, r.included
    except ProtocolAbort as exc:
        aborted = str(exc)
    except RuntimeError as exc:
        aborted = f"did not finish: {exc}"
    exact = total is not None and np.array_equal(
        total, x[np.asarray(included, int) - 1].sum(axis=0)
    )
    return SumReport(
        protocol=protocol,
        parties=n,
        cells=cells,
        exact=bool(exact),
        aborted=aborted,
        survivors=len(included),
        messages=rc.messages,
        bytes=int(rc.sent.sum()),
        bytes_per_party_sent=float(rc.sent[1:].mean()),
        bytes_per_party_received=float(rc.recv[1:].mean()),
        aggregator_bytes_sent=int(rc.sent[0]),
        aggregator_bytes_received=int(rc.recv[0]),
        wall_s=wall,
        total=total,
        params=params,
    )
