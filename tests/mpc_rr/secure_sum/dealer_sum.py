"""A toy sum protocol with a trusted dealer, written the way a new contributor adds one.

How it works: party 0 deals each client ``i`` a uniform mask ``m_i`` mod
``M = 2^32`` (:class:`DealtMask`); the client sends ``y_i = x_i + m_i mod M``
(:class:`MaskedValue`, the step ``masked``); the dealer, who knows every mask,
sums the ``y_i`` of the clients that answered and removes their masks, then
sends every survivor the total (:class:`DealerTotal`).  An eavesdropper sees
only masked values; the dealer sees everything (a toy, not a private sum).  A
client that drops out before it answers is left out at the dealer's deadline.

This file is the whole protocol: messages, roles and the :class:`DealerSum`
class.  Registering ``DEALER_SUM`` is all the conformance kit and the commands
need.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

import numpy as np

from mpc_rr.core import (
    COORDINATOR,
    AllIn,
    Deadline,
    Message,
    PeerError,
    Role,
    Send,
    Transition,
    UsageError,
    WireArray,
    table,
)
from mpc_rr.core._roles import NOBODY, ONLY_COORDINATOR, broadcast
from mpc_rr.secure_sum import Entropy, SumProtocol, SumResult, SystemEntropy

M = 1 << 32


class DealtMask(Message, frozen=True):
    """The dealer's mask for one client."""

    mask: WireArray


class MaskedValue(Message, frozen=True):
    """A client's masked vector."""

    y: WireArray


class DealerTotal(Message, frozen=True):
    """The total, to every survivor."""

    total: WireArray


@dataclass(frozen=True)
class DealerPublic:
    n: int
    cells: int
    run: str

    def as_json(self) -> dict[str, Any]:
        return {"modulus": M, "max_dropout": 1.0}


class ClientState(enum.Enum):
    MASK = "waiting for its mask"
    TOTAL = "waiting for the total"
    DONE = "done"
    ABORTED = "aborted"


CLIENT_TABLE = table({
    (ClientState.MASK, DealtMask): Transition("_on_mask", ClientState.TOTAL),
    (ClientState.TOTAL, DealerTotal): Transition("_on_total", ClientState.DONE),
})


class DealerClient(Role):
    TRANSITIONS = CLIENT_TABLE
    message_types = (DealtMask, DealerTotal)
    patience = 3

    def __init__(self, party_id: int, pub: DealerPublic, x: np.ndarray) -> None:
        super().__init__(party_id, ClientState.MASK)
        self.pub, self.x, self.run = pub, np.asarray(x, np.int64), pub.run

    def start(self) -> list[Send]:
        return []

    def waiting_for(self) -> AbstractSet[int]:
        return NOBODY if self.done else ONLY_COORDINATOR

    def _on_mask(self, src: int, msg: DealtMask) -> list[Send]:
        m = msg.mask.to_numpy(dtype=np.int64, shape=(self.pub.cells,), sender=src)
        y = WireArray.from_numpy((self.x + m) % M)
        return [Send(COORDINATOR, MaskedValue(y=y, run=self.pub.run, step=1))]

    def _on_total(self, src: int, msg: DealerTotal) -> list[Send]:
        self.finish(SumResult(msg.total.to_numpy(dtype=np.int64, shape=(self.pub.cells,), sender=src), (), -1, 0))
        return []


class DealerState(enum.Enum):
    COLLECTING = "collecting masked values"
    DONE = "done"
    ABORTED = "aborted"


DEALER_TABLE = table({
    (DealerState.COLLECTING, MaskedValue): Transition("_on_value", DealerState.COLLECTING),
    (DealerState.COLLECTING, AllIn): Transition("_finish", DealerState.DONE),
    (DealerState.COLLECTING, Deadline): Transition("_finish", DealerState.DONE),
})


class Dealer(Role):
    TRANSITIONS = DEALER_TABLE
    message_types = (MaskedValue,)

    def __init__(self, pub: DealerPublic, entropy: Entropy | None) -> None:
        super().__init__(COORDINATOR, DealerState.COLLECTING)
        self.pub, self.run = pub, pub.run
        self.masks = (entropy or SystemEntropy()).uniform(M, (pub.n, pub.cells)).astype(np.int64)
        self.sum = np.zeros(pub.cells, np.int64)
        self.missing = set(range(1, pub.n + 1))

    def start(self) -> list[Send]:
        return [Send(i, DealtMask(mask=WireArray.from_numpy(self.masks[i - 1]), run=self.pub.run))
                for i in range(1, self.pub.n + 1)]  # fmt: skip

    def waiting_for(self) -> AbstractSet[int]:
        return NOBODY if self.done else self.missing

    def _on_value(self, src: int, msg: MaskedValue) -> list[Send]:
        if src not in self.missing:
            raise PeerError(f"{self.name}: unexpected MaskedValue from party {src}", src)
        y = msg.y.to_numpy(dtype=np.int64, shape=(self.pub.cells,), sender=src)
        self.sum = (self.sum + y - self.masks[src - 1]) % M
        self.missing.discard(src)
        return []

    def _finish(self) -> list[Send]:
        included = tuple(i for i in range(1, self.pub.n + 1) if i not in self.missing)
        self.finish(SumResult(self.sum.copy(), included, len(included), 0))
        return broadcast(included, DealerTotal(total=WireArray.from_numpy(self.sum), run=self.pub.run, step=2))


class DealerSum(SumProtocol):
    """A sum through a trusted dealer (module docstring)."""

    name = "dealer-sum"
    summary = "a toy: a trusted dealer masks every input (registered by the test suite)"
    steps = ("masked",)

    def public(self, n: int, cells: int, *, run: str, max_value: int = 1, options: Any = None) -> DealerPublic:
        if n < 1 or cells < 1:
            raise UsageError(f"dealer-sum: need n >= 1 and cells >= 1, got n={n}, cells={cells}")
        return DealerPublic(n, cells, run)

    def role(self, party_id: int, public: Any, x: np.ndarray | None, *, entropy: Entropy | None = None,
             identity: Any = None) -> Role:  # fmt: skip
        if party_id == COORDINATOR:
            return Dealer(public, entropy)
        if x is None:
            raise UsageError(f"dealer-sum client {party_id} needs an input vector")
        return DealerClient(party_id, public, x)

    def message_types(self) -> tuple[type[Message], ...]:
        return (DealtMask, MaskedValue, DealerTotal)

    def step_messages(self) -> Mapping[str, type[Message]]:
        return {"masked": MaskedValue}

    def message_count(self, n: int, options: Any) -> int:
        return 3 * n

    def memory_estimate(self, n: int, cells: int, options: Any) -> int:
        return 4 * n * cells * 8


DEALER_SUM = DealerSum()
