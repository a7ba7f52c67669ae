"""The cheats played by ONE process of a real deployment (one process per party).

The cheaters are the adversary module's (:mod:`mpc_rr.adversary.active._cheats`,
:mod:`mpc_rr.adversary.active._mesh_cheats`); this module only wires them into a deployed
process.  :func:`~mpc_rr.adversary.active.cheat` plays a strategy with every role in one
process; a deployment (``mpc-rr party``, TCP + mutual TLS) has one process per party,
so the cheater is one process among honest ones.  For the full mesh,
:func:`hostile_mesh` puts the adversary module's relay where the hub relays (and
between the board and everyone, in board mode).  :func:`hostile_secagg` is the
SecAgg+ descriptor such a process registers under SecAgg+'s own name
(``register_protocol(spec, replace=True)``): every SecAgg+ role the process
then builds -- SecAgg+ alone, the pipeline's secure-sum dependence, each of
RRBA's secure tallies (both find their inner sum by name through
``SumProtocol.role``) -- is the cheater's:

* a *server* strategy (:data:`SERVER_STRATEGIES`): party 0's role is a
  :class:`~mpc_rr.adversary.active.CheatingServer` (the process must be the hub);
* a *client* strategy (:data:`CLIENT_STRATEGIES`): the data party's role is a
  :class:`~mpc_rr.adversary.active.CheatingClient` (a process that is not the hub);
* ``None``: the honest roles, the aggregator recording every signed key it
  received (:attr:`HostileLog.recorded`) -- the earlier run a ``replay`` replays.

What differs from the one-process harness, because a deployment is real:
``replay`` substitutes the signed keys the hub recorded in an earlier
*deployment* (it cannot know their private halves: it reads no share, and is
caught on the signatures either way); ``key-reuse`` sends the keys this party
signed for an earlier run of the same roster and seed -- every deployment's
run label carries the hub's fresh nonce (``base#nonce``), so the earlier run
is the label with another nonce, and the process signs it itself (it holds its
signing key) before the run; the same run label twice is impossible without the
hub's help.  The honest processes are untouched ``mpc-rr party`` processes.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Mapping
from typing import Any

import msgspec
import numpy as np

from mpc_rr.adversary.active import CheatingClient, CheatingServer, cheat_strategies
from mpc_rr.core import COORDINATOR, Role, Send, UsageError
from mpc_rr.secure_sum import SumProtocol, with_roles
from mpc_rr.secure_sum.secagg import SPEC, AdvertiseKeys, SecAggClient, SecAggServer

__all__ = ["HostileLog", "HostileMeshRelay", "hostile_mesh", "hostile_secagg", "load_recorded", "save_recorded"]


def _slot(run: str) -> str:
    """The inner sum's place in its outer run (``dependence``, ``block-2``; ``""`` alone):
    the part of the run label that is the same in every deployment of the roster."""
    return run.rpartition("/")[2] if "/" in run else ""


def _earlier_label(run: str) -> str:
    """``run`` with the deployment nonce replaced by another (``base#nonce[/inner]``)."""
    head, sep, rest = run.partition("#")
    if not sep:
        return f"{run}-earlier"
    _, slash, inner = rest.partition("/")
    return f"{head}#{secrets.token_hex(8)}{slash}{inner}"


@dataclasses.dataclass
class HostileLog:
    """What the cheating process's roles did: the roles it built, in order."""

    strategy: str | None
    roles: list[Role] = dataclasses.field(default_factory=list)

    @property
    def side(self) -> str:
        return "honest" if self.strategy is None else cheat_strategies()[self.strategy]

    def learned(self) -> int:
        """Honest inputs the cheating server recovered exactly (over its SecAgg+ runs)."""
        return sum(len(getattr(r, "learned", {})) for r in self.roles)

    def recorded(self) -> dict[str, dict[int, AdvertiseKeys]]:
        """The signed keys the (recording) aggregator received, by inner slot and sender."""
        return {_slot(r.run): dict(r.received) for r in self.roles if isinstance(r, _RecordingServer)}


class _Recording(SecAggClient):
    """An honest client that keeps the keys it advertised (the earlier run ``key-reuse`` reuses)."""

    def start(self) -> list[Send]:
        out = super().start()
        self.sent_keys = out[0].msg
        return out


class _RecordingServer(SecAggServer):
    """The honest aggregator, keeping every signed key advertisement it received."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.received: dict[int, AdvertiseKeys] = {}

    def _on_keys(self, src: int, msg: AdvertiseKeys) -> list[Send]:
        self.received[src] = msg
        return super()._on_keys(src, msg)


def hostile_secagg(
    strategy: str | None, *, replay: Mapping[str, Mapping[int, AdvertiseKeys]] | None = None
) -> tuple[SumProtocol, HostileLog]:
    """SecAgg+'s descriptor with this process's roles cheating (module docstring), and the
    log of the roles it builds.  ``replay``: an earlier deployment's signed keys by slot and
    sender (:meth:`HostileLog.recorded`), for ``strategy="replay"``."""
    strategies = cheat_strategies()
    if strategy is not None and strategy not in strategies:
        raise UsageError(f"hostile SecAgg+: unknown strategy {strategy!r}; the strategies are: {', '.join(strategies)}")
    if strategy == "replay" and not replay:
        raise UsageError("hostile SecAgg+: replay needs the signed keys of an earlier deployment (record them first)")
    log = HostileLog(strategy)
    side = log.side

    def role(party_id: int, pub: Any, x: np.ndarray | None, *, entropy: Any = None, identity: Any = None) -> Role:
        cfg, graph = pub.config, pub.graph
        r: Role
        if party_id == COORDINATOR:
            if strategy is not None and side == "server":
                ads = dict((replay or {}).get(_slot(cfg.run), {})) if strategy == "replay" else None
                r = CheatingServer(cfg, graph, identity=identity, strategy=strategy, fake_ads=ads)
            else:
                r = (_RecordingServer if strategy is None else SecAggServer)(cfg, graph, identity=identity)
        elif x is None:
            raise UsageError(f"SecAgg+ data party {party_id} needs an input vector")
        elif side == "client":
            earlier = None
            if strategy == "key-reuse":  # the keys it signed for this roster's run with another nonce
                earlier = _Recording(party_id, dataclasses.replace(cfg, run=_earlier_label(cfg.run)), graph, x,
                                     entropy=entropy, identity=identity)  # fmt: skip
                earlier.start()
            r = CheatingClient(party_id, cfg, graph, x, strategy=strategy, earlier=earlier,  # type: ignore[arg-type]
                               entropy=entropy, identity=identity)  # fmt: skip
        else:
            r = SecAggClient(party_id, cfg, graph, x, entropy=entropy, identity=identity)
        log.roles.append(r)
        return r

    return with_roles(SPEC, role), log


_RECORD = msgspec.msgpack.Decoder(dict[str, dict[int, AdvertiseKeys]])


def save_recorded(recorded: Mapping[str, Mapping[int, AdvertiseKeys]]) -> bytes:
    """The recorded signed keys as bytes (msgpack), for a later ``replay``."""
    return msgspec.msgpack.encode({k: dict(v) for k, v in recorded.items()})


def load_recorded(data: bytes, *, where: str = "the recording") -> dict[str, dict[int, AdvertiseKeys]]:
    """:func:`save_recorded`'s bytes back (a :class:`UsageError` naming ``where`` if malformed)."""
    try:
        return _RECORD.decode(data)
    except msgspec.DecodeError as exc:
        raise UsageError(f"{where}: not a recording of signed SecAgg+ keys ({exc})") from None


class HostileMeshRelay:
    """A hostile hub's relay in a full-mesh deployment: the adversary module's relay
    (:func:`~mpc_rr.adversary.active.mesh_relay`) on every frame the hub relays between two parties
    (:meth:`filter`, the TCP hub's ``relay_filter``) and, in board mode, on every message its own
    board sends or receives -- exactly where :func:`~mpc_rr.adversary.active.relay_run` puts it in one
    process.  Built on the first message, whose label is the run's (it carries the hub's nonce)."""

    def __init__(self, strategy: str, n: int, cells: int, seed: int = 0) -> None:
        from mpc_rr.core import Codec
        from mpc_rr.secure_sum.full_mesh import MESH_MESSAGES

        self.strategy, self.n, self.cells, self.seed = strategy, n, cells, seed
        self.codec = Codec(MESH_MESSAGES)
        self.relay: Any = None

    def forward(self, src: int, dst: int, msg: Any) -> Any:
        if self.relay is None:
            from mpc_rr.adversary.active import mesh_relay

            self.relay = mesh_relay(self.strategy, n=self.n, cells=self.cells, run=msg.run, seed=self.seed)
        return self.relay.forward(src, dst, msg)

    def filter(self, src: int, dst: int, payload: bytes) -> bytes | None:
        """A relayed frame, as the relay passes it on (``None``: dropped)."""
        try:
            msg = self.codec.decode(payload, sender=src)
        except Exception:  # not a message of the run: its receiver names the sender
            return payload
        out = self.forward(src, dst, msg)
        return None if out is None else self.codec.encode(out)

    def learned(self) -> int:
        """Inputs the relay computed (key substitution: from every share it opened)."""
        return 0 if self.relay is None else len(self.relay.recovered())


def hostile_mesh(strategy: str, board: bool, n: int, cells: int, seed: int = 0) -> tuple[SumProtocol, HostileMeshRelay]:
    """The full mesh's descriptor (``full-mesh-board`` or ``full-mesh``) whose board, if any, sends
    and receives through the hostile relay, and that relay (also the hub's ``relay_filter``)."""
    from mpc_rr.secure_sum.full_mesh import BulletinBoard

    hostile = HostileMeshRelay(strategy, n, cells, seed)

    class RelayedBoard(BulletinBoard):
        """The honest board with the hostile relay between it and everyone (module docstring)."""

        def _out(self, sends: list[Send]) -> list[Send]:
            out = ((s.dst, hostile.forward(COORDINATOR, s.dst, s.msg)) for s in sends)
            return [Send(dst, m) for dst, m in out if m is not None]

        def start(self) -> list[Send]:
            return self._out(super().start())

        def receive(self, src: int, msg: Any) -> list[Send]:
            m = hostile.forward(src, COORDINATOR, msg)
            return [] if m is None else self._out(super().receive(src, m))

        def on_timeout(self) -> list[Send]:
            return self._out(super().on_timeout())

    from mpc_rr.secure_sum.full_mesh import BOARD_SPEC, SPEC

    base = BOARD_SPEC if board else SPEC

    def role(party_id: int, pub: Any, x: np.ndarray | None, *, entropy: Any = None, identity: Any = None) -> Role:
        if party_id == COORDINATOR and board:
            return RelayedBoard(pub.n, pub.cells, run=pub.run)
        return base.role(party_id, pub, x, entropy=entropy, identity=identity)

    return with_roles(base, role), hostile
