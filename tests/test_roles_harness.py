"""The role interface and the synchronous harness, on a toy sum-through-a-hub role."""

from __future__ import annotations

import numpy as np
import pytest

from mpc_rr.errors import DecodeError, PeerError, UsageError
from mpc_rr.harness import run_roles
from mpc_rr.messages import Codec, Message, WireArray
from mpc_rr.roles import COORDINATOR, Role, Send


class Value(Message, frozen=True):
    x: WireArray


class Total(Message, frozen=True):
    total: WireArray


class Client(Role):
    message_types = (Total,)

    def __init__(self, pid: int, x: np.ndarray) -> None:
        super().__init__(pid)
        self.x = x

    def start(self) -> list[Send]:
        return [Send(COORDINATOR, Value(x=WireArray.from_numpy(self.x)))]

    def receive(self, src: int, msg: Message) -> list[Send]:
        if src != COORDINATOR or not isinstance(msg, Total):
            raise PeerError(
                f"party {self.party_id}: unexpected {type(msg).__name__} from {src}", src
            )
        self._result = msg.total.to_numpy(dtype=np.int64, sender=src)
        self._done = True
        return []


class Hub(Role):
    message_types = (Value,)

    def __init__(self, parties: list[int], cells: int) -> None:
        super().__init__(COORDINATOR)
        self.expected = set(parties)
        self.sum = np.zeros(cells, np.int64)
        self.cells = cells

    def start(self) -> list[Send]:
        return []

    def waiting_for(self) -> set[int]:
        return set(self.expected)

    def receive(self, src: int, msg: Message) -> list[Send]:
        if src not in self.expected or not isinstance(msg, Value):
            raise PeerError(f"hub: unexpected {type(msg).__name__} from party {src}", src)
        self.expected.discard(src)
        self.sum += msg.x.to_numpy(dtype=np.int64, shape=(self.cells,), sender=src)
        if self.expected:
            return []
        self._result = self.sum.copy()
        self._done = True
        out = WireArray.from_numpy(self.sum)
        return [Send(p, Total(total=out)) for p in range(1, self.n + 1)]

    n = 0


def make(n: int, cells: int, seed: int) -> tuple[dict[int, Role], np.ndarray]:
    rng = np.random.default_rng(seed)
    xs = rng.integers(0, 10, size=(n, cells))
    roles: dict[int, Role] = {i + 1: Client(i + 1, xs[i]) for i in range(n)}
    hub = Hub(list(range(1, n + 1)), cells)
    hub.n = n
    roles[COORDINATOR] = hub
    return roles, xs.sum(axis=0)


@pytest.mark.parametrize("shuffle", [False, True])
def test_sum_through_hub_any_order(shuffle: bool) -> None:
    roles, expected = make(7, 5, seed=3)
    codec = Codec([Value, Total])
    res = run_roles(roles, rng=np.random.default_rng(1), shuffle=shuffle, codec=codec)
    for r in res.results().values():
        np.testing.assert_array_equal(r, expected)
    assert res.messages == 14


def test_duplicates_are_reported_not_double_counted() -> None:
    roles, expected = make(5, 3, seed=4)
    res = run_roles(roles, rng=np.random.default_rng(2), duplicate=1.0)
    np.testing.assert_array_equal(roles[COORDINATOR].result, expected)
    assert res.peer_errors, "duplicated Value messages must be reported as peer errors"


def test_drop_leads_to_timeout_naming_the_silent_party() -> None:
    roles, _ = make(4, 2, seed=5)
    res = run_roles(roles, drop=lambda s, d, m: s == 3)
    err = res.roles[COORDINATOR].error
    assert err is not None and err.culprits == (3,)
    with pytest.raises(Exception, match=r"timed out waiting for parties \[3\]"):
        _ = res.roles[COORDINATOR].result


def test_codec_rejects_trailing_bytes_and_unknown_tags() -> None:
    codec = Codec([Value])
    good = codec.encode(Value(x=WireArray.from_numpy(np.arange(3))))
    with pytest.raises(DecodeError, match="party 9"):
        codec.decode(good + b"\x00", sender=9)
    with pytest.raises(DecodeError, match="Total"):
        codec.decode(Codec([Total]).encode(Total(total=WireArray.from_numpy(np.arange(2)))), 1)
    with pytest.raises(DecodeError, match="max_frame"):
        Codec([Value], max_frame=8).decode(good, sender=2)


def test_wire_array_validates_shape_and_length() -> None:
    w = WireArray.from_numpy(np.arange(6, dtype=np.uint16).reshape(2, 3))
    assert w.to_numpy(dtype=np.uint16, shape=(2, 3)).sum() == 15
    with pytest.raises(DecodeError, match=r"expected \(3, 2\)"):
        w.to_numpy(shape=(3, 2), sender=4)
    bad = WireArray(dtype="<u2", shape=(4,), data=b"\x00" * 6)
    with pytest.raises(DecodeError, match="do not match"):
        bad.to_numpy()
    with pytest.raises(UsageError, match="not allowed"):
        WireArray.from_numpy(np.array(["a"]))
