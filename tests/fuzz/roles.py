"""Fuzz targets of every role's ``receive``, after a valid prefix of a real run.

``role-<protocol>-<Role class>``: one target per kind of role of every registered protocol.
The role is taken as it was after the first ``k`` messages it received in a recorded run
(:mod:`tests.fuzz._runs`; copies made during that run), then given one fuzzed message.  An
input is three parts: its first byte picks ``k``, its second the sender, the rest is the
frame, decoded by the role's own codec (a frame the codec refuses stops there: the ``codec-*``
targets cover it).  :func:`~tests.fuzz._checks.check_receive` says what must hold.  Seeds: at each ``k``, the
message that came next, the same from a sender that is not its own, and a message of the run
sent to someone else.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

from mpc_rr.core import Codec, DecodeError, HarnessRunner, Message, Role, Send
from tests.fuzz._checks import check_receive
from tests.fuzz._runs import Run, deliveries, runs
from tests.fuzz._targets import Fuzzed, register


class Prefixes:
    """Party ``pid`` of ``run`` after each prefix of the messages it received: copies taken
    during the recorded run itself, before each message reached it (so no replay needs the
    run to be reproducible: a role may draw fresh secrets)."""

    def __init__(self, run: Run, pid: int) -> None:
        self.run, self.pid = run, pid
        roles = run.build()
        role = roles[pid]
        self.parties = len(roles)
        self.codec = Codec(role.message_types)
        self.incoming: list[tuple[int, bytes]] = []
        self._after: list[Role] = []
        real = role.receive

        def recording(src: int, msg: Message) -> list[Send]:
            self._snapshot(role)
            self.incoming.append((src, self.codec.encode(msg)))
            return real(src, msg)

        role.receive = recording  # type: ignore[method-assign]
        HarnessRunner()(roles)
        self._snapshot(role)
        assert role.error is None, f"{run.name}: party {pid} aborted in the recorded run: {role.error}"
        self.others = [(d.src, d.data) for d in deliveries(run.build()) if d.dst != pid]

    def _snapshot(self, role: Role) -> None:
        copy_ = copy.deepcopy(role)
        vars(copy_).pop("receive", None)  # the recording hook stays on the original
        self._after.append(copy_)

    def after(self, k: int) -> Role:
        """A fresh copy of the role as it was after the first ``k`` messages."""
        return copy.deepcopy(self._after[k])


def _role_target(run: Run, pid: int) -> Fuzzed:
    prefixes = Prefixes(run, pid)
    steps = len(prefixes.incoming) + 1

    def one(data: bytes) -> None:
        if len(data) < 2:
            return
        k, src = data[0] % steps, data[1] % (prefixes.parties + 1)  # the last id is nobody's
        try:
            msg = prefixes.codec.decode(data[2:], sender=src)
        except DecodeError:
            return
        check_receive(prefixes.after(k), src, msg)

    def seeds() -> Iterable[bytes]:
        out = []
        known = set(prefixes.codec.types)
        others = [(s, d) for s, d in prefixes.others
                  if type(Codec(run.message_types).decode(d)) in known]  # fmt: skip
        for k, (src, data) in enumerate(prefixes.incoming):
            out.append(bytes([k, src]) + data)
            out.append(bytes([k, (src + 1) % prefixes.parties]) + data)
            if others:
                s, d = others[k % len(others)]
                out.append(bytes([k, s]) + d)
        return out

    return Fuzzed(one, seeds)


def _register() -> None:
    for name, run in runs().items():
        kinds: dict[str, int] = {}
        for pid, role in sorted(run.build().items()):
            kinds.setdefault(type(role).__name__, pid)
        for kind, pid in kinds.items():
            register(f"role-{name}-{kind}", "roles", lambda run=run, pid=pid: _role_target(run, pid))


_register()
