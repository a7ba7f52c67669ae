"""A minimal echo protocol for runtime benchmarks: each client pings the hub once."""

from __future__ import annotations

import enum

from mpc_rr.core import COORDINATOR, AllIn, Message, Role, Send, Transition, table


class Ping(Message, frozen=True):
    data: bytes


class Pong(Message, frozen=True):
    data: bytes


class _S(enum.Enum):
    WAITING = "waiting"
    DONE = "done"
    ABORTED = "aborted"


class EchoClient(Role):
    message_types = (Pong,)

    def __init__(self, party_id: int, size: int, payload: bytes | None = None) -> None:
        super().__init__(party_id, _S.WAITING)
        self.payload = bytes(size) if payload is None else payload

    def start(self) -> list[Send]:
        return [Send(COORDINATOR, Ping(data=self.payload))]

    def _on_pong(self, src: int, msg: Pong) -> list[Send]:
        self.finish(len(msg.data))
        return []

    TRANSITIONS = table({(_S.WAITING, Pong): Transition(_on_pong, _S.DONE)})


class EchoHub(Role):
    message_types = (Ping,)

    def __init__(self, n_clients: int, reply: int | None = None) -> None:
        super().__init__(COORDINATOR, _S.WAITING)
        self.left = n_clients
        self.reply = reply  # echo at most this many bytes (None: everything)

    def start(self) -> list[Send]:
        return []

    def waiting_for(self) -> set[int]:
        return set() if self.done else {-1} if self.left else set()

    def _on_ping(self, src: int, msg: Ping) -> list[Send]:
        self.left -= 1
        data = msg.data if self.reply is None else msg.data[: self.reply]
        return [Send(src, Pong(data=data, step=1))]

    def _done_all(self) -> list[Send]:
        self.finish(True)
        return []

    TRANSITIONS = table({
        (_S.WAITING, Ping): Transition(_on_ping, _S.WAITING),
        (_S.WAITING, AllIn): Transition(_done_all, _S.DONE),
    })


def echo_roles(n: int, size: int, reply: int | None = None) -> dict[int, Role]:
    """Hub 0 and clients 1..n; the clients share one payload object (bytes are immutable)."""
    payload = bytes(size)
    roles: dict[int, Role] = {i: EchoClient(i, size, payload) for i in range(1, n + 1)}
    roles[COORDINATOR] = EchoHub(n, reply)
    return roles
