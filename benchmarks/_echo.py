"""A minimal echo protocol for runtime benchmarks: each client pings the hub once."""

from __future__ import annotations

from mpc_rr.errors import PeerError
from mpc_rr.messages import Message
from mpc_rr.roles import COORDINATOR, Role, Send


class Ping(Message, frozen=True):
    data: bytes


class Pong(Message, frozen=True):
    data: bytes


class EchoClient(Role):
    message_types = (Pong,)

    def __init__(self, party_id: int, size: int, payload: bytes | None = None) -> None:
        super().__init__(party_id)
        self.payload = bytes(size) if payload is None else payload

    def start(self) -> list[Send]:
        return [Send(COORDINATOR, Ping(data=self.payload))]

    def receive(self, src: int, msg: Message) -> list[Send]:
        if not isinstance(msg, Pong):
            raise PeerError(f"client {self.party_id}: unexpected {type(msg).__name__}", src)
        self._result = len(msg.data)
        self._done = True
        return []


class EchoHub(Role):
    message_types = (Ping,)

    def __init__(self, n_clients: int, reply: int | None = None) -> None:
        super().__init__(COORDINATOR)
        self.left = n_clients
        self.reply = reply  # echo at most this many bytes (None: everything)

    def start(self) -> list[Send]:
        return []

    def receive(self, src: int, msg: Message) -> list[Send]:
        if not isinstance(msg, Ping):
            raise PeerError(f"hub: unexpected {type(msg).__name__}", src)
        self.left -= 1
        if self.left == 0:
            self._done = True
            self._result = True
        data = msg.data if self.reply is None else msg.data[: self.reply]
        return [Send(src, Pong(data=data, step=1))]


def echo_roles(n: int, size: int, reply: int | None = None) -> dict[int, Role]:
    """Hub 0 and clients 1..n; the clients share one payload object (bytes are immutable)."""
    payload = bytes(size)
    roles: dict[int, Role] = {i: EchoClient(i, size, payload) for i in range(1, n + 1)}
    roles[COORDINATOR] = EchoHub(n, reply)
    return roles
