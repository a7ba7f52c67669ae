"""The RRBA Client role (:mod:`mpc_rr.rrba._protocol` has the whole protocol).

A client holds one record and one generator (seeded child ``i - 1`` of the
clients' seed in a simulation, a CSPRNG in a deployment) and answers once,
when the aggregator's :class:`~mpc_rr.rrba.AskBlock` for its block arrives
-- its transition table, right below, is the whole story.  With a secure
tally it is party ``i - (first id of the block) + 1`` of the block's secure
sum (the run's sum protocol, SecAgg+ by default).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from mpc_rr.core import COORDINATOR, Message, PeerError, Send, Transition, UsageError, table
from mpc_rr.core._compose import SubProtocolHost, sub_protocol_steps
from mpc_rr.core._roles import NOBODY, ONLY_COORDINATOR
from mpc_rr.mechanisms._domain import check_record
from mpc_rr.rrba._client import answer_packed, cdf_table
from mpc_rr.rrba._config import RRBAConfig
from mpc_rr.rrba._messages import RRBA_MESSAGES, Answer, AskBlock, Dismiss, wire_cells
from mpc_rr.rrba._privacy import table_epsilon
from mpc_rr.rrba._tables import SubsetIndex
from mpc_rr.secure_sum import Entropy
from mpc_rr.secure_sum._identity import default_identity, sub_identity

__all__ = ["CheckedAsk", "ClientOutcome", "ClientState", "RRBAClient", "check_ask"]

_SUM_TOL = 1e-6  # a table must sum to 1 within this (as Layout.check_distributions)


class ClientState(enum.Enum):
    WAITING = "waiting for its block's tables"
    TALLYING = "its one-hot answer is in the block's secure sum"
    DONE = "answered, or dismissed"
    ABORTED = "aborted"


# A client hears from the aggregator only when its block opens.  AskBlock: it checks what it
# is asked (its block, a view of the public cover, only that view's subsets, tables that are
# distributions with no cell below the public floor -- anything else and it refuses, naming
# the aggregator) and answers each subset (Algorithm 1, Eq. 3).  Plain tally: it sends the
# cells (Answer) and is done.  Secure tally: it enters its one-hot answer into the block's
# secure sum (TALLYING, a sub-protocol) and is done when the sum ends, whatever its outcome.
# Dismiss: the collection ended before its block; done, never asked.
CLIENT_TABLE = table({
    (ClientState.WAITING, AskBlock): Transition(
        "_on_ask", ClientState.TALLYING, also=(ClientState.DONE,)  # plain tally: answered, done
    ),
    (ClientState.WAITING, Dismiss): Transition("_dismissed", ClientState.DONE),
    **sub_protocol_steps(ClientState.TALLYING, "_after_tally", ClientState.DONE),
})


@dataclass(frozen=True)
class ClientOutcome:
    """What a client did: its block, whether it was asked, the view and subsets it
    answered, the true epsilon of its answer (the subsets composed), how it
    answered (``"plain"``, ``"secure"``, or why the block's secure sum failed)
    and where its noise came from."""

    block: int
    asked: bool
    view: int | None = None
    subsets: tuple[tuple[int, ...], ...] = ()
    epsilon: float = 0.0
    tally: str = "not asked"
    noise: str = ""


@dataclass(frozen=True)
class CheckedAsk:
    """What a valid :class:`AskBlock` asks: the subsets (``index``), their table ids in
    the cover, the CDFs to sample fake answers from (Eq. 3) and the true epsilon of
    answering them all (composed)."""

    index: SubsetIndex
    tables: np.ndarray
    cdf: np.ndarray
    epsilon: float


@lru_cache(maxsize=1024)
def check_ask(
    cfg: RRBAConfig,
    view: int,
    subsets: tuple[tuple[int, ...], ...],
    tables: tuple[float, ...],
) -> CheckedAsk | str:
    """Validate an ask against the public parameters; a :class:`CheckedAsk`, or why not.

    A pure function of public values, memoized: in a simulation the clients of a
    block that share a view receive the same ask and check it once.
    """
    views = cfg.cover.views
    if not view < len(views):
        return f"view {view} is not one of the cover's {len(views)} views"
    wanted = set(subsets)
    if len(wanted) != len(subsets) or list(subsets) != [s for s in views[view] if s in wanted]:
        return f"subsets {list(subsets)[:8]} are not subsets of view {view} {list(views[view])[:8]} in its order"
    index = cfg.view_index(subsets)
    lay = index.layout
    if len(tables) != sum(lay.cells):
        return f"{len(tables)} table cells for subsets with {sum(lay.cells)}"
    flat = np.asarray(tables, dtype=float)
    if not np.isfinite(flat).all() or (flat < 0).any():
        return "a table has a negative or non-finite cell"
    packed = np.zeros((lay.n_tables, lay.width))
    packed[lay.mask] = flat
    sums = packed.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > _SUM_TOL)
    if bad.size:
        return f"the table of subset {subsets[bad[0]]} sums to {float(sums[bad[0]]):.6g}, not 1"
    low = np.flatnonzero((packed < cfg.t_floor * (1 - 1e-9)) & lay.mask)
    if cfg.t_floor > 0 and low.size:
        t, c = divmod(int(low[0]), lay.width)
        return (f"cell {c} of the table of subset {subsets[t]} is {float(packed[t, c]):.3g}, "
                f"below the public floor {cfg.t_floor:g}")  # fmt: skip
    ids = np.array([cfg.table_ids[s] for s in subsets], dtype=np.int64)
    eps = float(table_epsilon(packed, lay, cfg.p).sum())
    cdf = cdf_table(packed, lay)
    ids.setflags(write=False)  # shared by every client that received this ask
    cdf.setflags(write=False)
    return CheckedAsk(index, ids, cdf, eps)


class RRBAClient(SubProtocolHost):
    """Client ``party_id`` (1..n) of an RRBA run with public parameters ``config``.

    ``patience`` (deadlines without hearing from the aggregator before the
    client gives up) is :meth:`RRBAConfig.client_patience` unless given: the
    aggregator contacts a client only when its block starts.  A driver that
    gives each client a step timeout of ``client_patience`` deadlines
    (:func:`~mpc_rr.rrba.client_step_timeouts`) passes ``patience=1``:
    the same wait, one wake-up instead of one per earlier block.  ``entropy`` is the
    secure sum's source of keys and masks (default: the OS CSPRNG);
    ``noise`` says where ``rng`` comes from (copied into the outcome).
    """

    TRANSITIONS = CLIENT_TABLE
    culprits: tuple[int, ...] = ()
    """Whom its block's failed secure tally named (outer ids); the run goes on without it."""

    def __init__(
        self,
        party_id: int,
        config: RRBAConfig,
        record: np.ndarray,
        rng: np.random.Generator,
        *,
        entropy: Entropy | None = None,
        noise: str = "",
        patience: int | None = None,
    ) -> None:
        super().__init__(party_id, ClientState.WAITING)
        self.block = config.block_of(party_id)  # raises a UsageError naming the range
        self.record = check_record(record, config.sizes, f"RRBA client {party_id}")
        self.cfg = config
        self.run = config.run
        self.rng = rng
        self.entropy = entropy
        self.noise = noise
        if patience is not None and (isinstance(patience, bool) or not isinstance(patience, int) or patience < 1):
            raise UsageError(f"patience must be an int >= 1, got {patience!r}")
        self.patience = config.client_patience(party_id) if patience is None else patience
        self.outcome: ClientOutcome | None = None
        self.message_types = RRBA_MESSAGES + (
            config.sum_spec.message_types() if config.secure_tally else ()
        )

    def start(self) -> list[Send]:
        return []  # the aggregator speaks first, when this client's block starts

    def waiting_for(self) -> AbstractSet[int]:
        if self.done:
            return NOBODY
        if self.sub is not None:
            return self.sub_waiting()
        return ONLY_COORDINATOR

    # -- the ask ------------------------------------------------------------------------
    def _refuse(self, why: str) -> list[Send]:
        self.abort(f"{self.name}: {why}; refusing to answer", [COORDINATOR])
        return []

    def _on_ask(self, src: int, msg: AskBlock) -> list[Send]:
        if src != COORDINATOR:
            raise PeerError(f"{self.name}: AskBlock from party {src}, not the aggregator", src)
        if msg.step != self.block:
            return self._refuse(f"AskBlock for block {msg.step}, but this client is in block {self.block}")
        checked = check_ask(self.cfg, msg.view, tuple(tuple(s) for s in msg.subsets), tuple(msg.tables))
        if isinstance(checked, str):
            return self._refuse(checked)
        index, ids, eps = checked.index, checked.tables, checked.epsilon
        cells = answer_packed(self.record, index, checked.cdf, self.cfg.p, self.rng)
        subsets = tuple(index.subsets)
        if not self.cfg.secure_tally:
            self.finish(ClientOutcome(self.block, True, msg.view, subsets, eps, "plain", self.noise))
            return [Send(COORDINATOR, Answer(run=self.run, step=self.block, view=msg.view,
                                              cells=wire_cells(cells)))]  # fmt: skip
        self.outcome = ClientOutcome(self.block, True, msg.view, subsets, eps, "secure", self.noise)
        x = self._tally_input(ids, cells)
        members = self.cfg.members(self.block)
        inner_id = self.party_id - members.start + 1
        inner = self.cfg.sum_spec.role(
            inner_id, self.cfg.tally_public(self.block), x, entropy=self.entropy,
            # its own key, the block's parties by their inner ids (deployed: the certificates)
            identity=sub_identity(default_identity(self.party_id, self.cfg.n_clients), inner_id, members),
        )  # fmt: skip
        self.attach_sub(inner, members)
        return self.start_sub()

    def _tally_input(self, tables: np.ndarray, cells: np.ndarray) -> np.ndarray:
        """The one-hot answer: a 1 in reported cell ``cells[l]`` of each table ``tables[l]``,
        over every cell of every table (:attr:`RRBAConfig.offsets`); with ``dp_epsilon``, plus
        its share of the block's noise, clipped and offset (:meth:`RRBAConfig.tally_noise`)."""
        x = np.zeros(self.cfg.cells, np.uint8)
        x[self.cfg.offsets[tables] + cells] = 1
        noise = self.cfg.tally_noise(self.block)
        if noise is not None:  # its share of the block's noise, drawn after its answers
            return noise.noisy_input(x, self.rng)
        return x

    def _dismissed(self, src: int, msg: Dismiss) -> list[Send]:
        if src != COORDINATOR:
            raise PeerError(f"{self.name}: Dismiss from party {src}, not the aggregator", src)
        self.finish(ClientOutcome(self.block, False, noise=self.noise))
        return []

    # -- secure tally -------------------------------------------------------------------
    def _admit_sub(self, src: int, msg: Message) -> bool:
        if src != COORDINATOR:
            raise PeerError(f"{self.name}: {type(msg).__name__} from party {src}, not the aggregator", src)
        return True

    def _after_tally(self) -> list[Send]:
        """The block's secure sum ended; a failed one leaves the block out, the run goes on."""
        assert self.sub is not None and self.outcome is not None
        err = self.sub_error()
        out = self.outcome
        if err is not None:
            out = dataclasses.replace(out, tally=f"secure sum failed: {err}")
            # whom the failed tally named (outer ids): a deployed client's report says so
            self.culprits = tuple(self.sub.outer_id(int(c)) for c in err.culprits)
        self.finish(out)
        return []
