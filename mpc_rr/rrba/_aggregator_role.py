"""The RRBA Aggregator role (:mod:`mpc_rr.rrba._protocol` has the whole protocol).

Party 0.  It owns a :class:`~mpc_rr.rrba.Collection` (the same
bookkeeping as the centralized engine) and runs it one block at a time --
the loop of its transition tables, right below: open a block (plan it, send
each of its clients an :class:`~mpc_rr.rrba.AskBlock`), collect, close it
at "all in" or at its deadline (the silent clients are left out and
counted), feed the counts, open the next one.  It never waits for ever:
every block ends at its deadline at the latest.  A plain tally and a secure
tally have a table each; the aggregator runs the one its configuration
asks for.

What a client can do wrong, and what happens (a :class:`PeerError` naming
it, recorded by the driver; the run goes on):

* never answer: left out at the block's deadline (``silent``);
* answer twice: an identical copy is reported and ignored; a different
  second answer is reported and the client is left out (``rejected``);
* answer another view, another block, the wrong number of subsets, a cell
  outside its table: reported and left out (``rejected``);
* answer after its block closed: counted in ``late``, ignored;
* answer when it was never asked: reported, ignored.

With a secure tally the aggregator sees no individual answer: the block's
clients and the aggregator run the configured sum protocol (SecAgg+ by
default; its party 0 role as a sub-protocol among the block's clients) and it
receives only the sum of their one-hot answers, i.e. the block's counts.  It checks what the sum
reveals -- every table's counts must add up to the number of included
clients that were asked it -- and leaves out the whole block (``lost``)
when they do not (some input was not a one-hot answer), or when the secure
sum aborted (too many dropouts).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from collections.abc import Set as AbstractSet

import numpy as np

from mpc_rr.core import (
    COORDINATOR,
    AllIn,
    Deadline,
    DecodeError,
    Message,
    PeerError,
    Send,
    Transition,
    table,
)
from mpc_rr.core._compose import SubProtocolHost, sub_protocol_steps
from mpc_rr.core._roles import NOBODY, broadcast
from mpc_rr.rrba._aggregator import tally
from mpc_rr.rrba._collection import BlockPlan, BlockRecord, Collection
from mpc_rr.rrba._config import RRBAConfig
from mpc_rr.rrba._messages import RRBA_MESSAGES, Answer, AskBlock, Dismiss, read_cells
from mpc_rr.rrba._noisy_tally import consistent_counts
from mpc_rr.secure_sum._identity import default_identity, sub_identity

__all__ = ["AggState", "BlockProgress", "RRBAAggregator"]

BlockProgress = Callable[[int, int], None]
"""``progress(blocks closed, blocks if the run goes to the last client)``."""


class AggState(enum.Enum):
    BETWEEN_BLOCKS = "no block open: open the next one, or end the collection"
    COLLECTING = "a block is open: collecting its clients' answers"
    TALLYING = "a block is open: its clients' one-hot answers are summed securely"
    DONE = "collection finished"
    ABORTED = "aborted"


# The block loop.  BETWEEN_BLOCKS (where the aggregator starts, and returns after each
# block): it plans the next block and sends each of its clients an AskBlock -- or, when the
# clients ran out or every subset stopped, it dismisses the clients never asked (Dismiss)
# and is done.  The open block closes at "all in" or at its deadline (the silent clients
# are left out and counted): its counts go to the collection (update, stopping rule), and
# the loop goes round again.
#   plain tally   COLLECTING: each client's Answer, checked; a bad one is reported and its
#                 client left out.  The block's counts are the tally of the answers.
#   secure tally  TALLYING: the run's sum protocol runs among the block's clients (party 0's
#                 role as a sub-protocol, which decides its own deadlines); its sum is the
#                 block's counts -- or the block is lost, when the sum failed or is not a
#                 sum of one-hot answers.
PLAIN_TALLY_TABLE = table({
    (AggState.BETWEEN_BLOCKS, AllIn): Transition(
        "_open_block", AggState.COLLECTING, also=(AggState.DONE,)  # no block left: done
    ),
    (AggState.COLLECTING, Answer): Transition("_on_answer", AggState.COLLECTING),
    (AggState.COLLECTING, AllIn): Transition("_close_plain", AggState.BETWEEN_BLOCKS),
    (AggState.COLLECTING, Deadline): Transition("_close_plain", AggState.BETWEEN_BLOCKS),
})

SECURE_TALLY_TABLE = table({
    (AggState.BETWEEN_BLOCKS, AllIn): Transition(
        "_open_block", AggState.TALLYING, also=(AggState.DONE,)  # no block left: done
    ),
    **sub_protocol_steps(AggState.TALLYING, "_close_secure", AggState.BETWEEN_BLOCKS),
})


class RRBAAggregator(SubProtocolHost):
    """The aggregator of an RRBA run (see the module docstring).

    It runs :data:`SECURE_TALLY_TABLE` if ``config.secure_tally``, else
    :data:`PLAIN_TALLY_TABLE`.  ``rng`` draws the view assignment only
    (seeded from the scenario seed: the assignment is not secret).
    ``result`` is an :class:`~mpc_rr.rrba.RRBAOutcome` (``late`` counts
    messages that arrived after their block closed).
    """

    TABLES = (PLAIN_TALLY_TABLE, SECURE_TALLY_TABLE)
    TRANSITIONS = PLAIN_TALLY_TABLE  # the secure tally's instead, see __init__

    def __init__(
        self, config: RRBAConfig, rng: np.random.Generator, *, progress: BlockProgress | None = None
    ) -> None:
        super().__init__(COORDINATOR, AggState.BETWEEN_BLOCKS)
        if config.secure_tally:
            self.TRANSITIONS = SECURE_TALLY_TABLE
        self.cfg = config
        self.run = config.run
        self.progress = progress
        self.collection = Collection(
            config.index, config.cover, config.n_clients, config.block, config.p, rng=rng,
            estimator=config.estimator, repair=config.repair, alpha=config.alpha,
            t_floor=config.t_floor, stop=config.stop, min_blocks=config.min_blocks,
        )  # fmt: skip
        self.message_types = RRBA_MESSAGES + (
            config.sum_spec.message_types() if config.secure_tally else ()
        )
        self.late = 0
        self._plan: BlockPlan | None = None
        self._first = 1  # party id of the open block's first client
        self._answers: dict[int, np.ndarray] = {}  # block-local index -> reported cells
        self._rejected: dict[int, str] = {}  # party id -> why it was left out
        self._pending: set[int] = set()  # party ids of the open block still expected

    def start(self) -> list[Send]:
        """Block 1 opens: the table's way out of BETWEEN_BLOCKS ("all in": no block is open)."""
        return self._check_all_in()

    def waiting_for(self) -> AbstractSet[int]:
        if self.done or self._plan is None:
            return NOBODY
        if self.sub is not None:
            return self.sub_waiting()
        return self._pending

    # -- the block loop -------------------------------------------------------------------
    def _open_block(self) -> list[Send]:
        plan = self.collection.next_block()
        if plan is None:
            return self._end()
        self._plan = plan
        self._first = int(plan.clients[0]) + 1
        self._answers = {}
        self._rejected = {}
        self._pending = set(range(self._first, self._first + plan.size))
        lay, subsets = self.cfg.layout, self.cfg.cover.subsets
        asks: dict[int, AskBlock] = {}  # one message object per view: encoded once
        for v in np.unique(plan.views).tolist():
            j = int(np.flatnonzero(plan.views == v)[0])
            tabs = plan.asked_tables(j)
            asks[v] = AskBlock(
                run=self.run,
                step=plan.block,
                view=v,
                subsets=[list(subsets[t]) for t in tabs.tolist()],
                tables=plan.tables[tabs][lay.mask[tabs]].tolist(),
            )
        order = np.argsort(plan.views, kind="stable")
        sends = [Send(self._first + j, asks[int(plan.views[j])]) for j in order.tolist()]
        if self.cfg.secure_tally:
            members = self.cfg.members(plan.block)
            server = self.cfg.sum_spec.role(
                COORDINATOR, self.cfg.tally_public(plan.block), None,
                identity=sub_identity(default_identity(COORDINATOR, self.cfg.n_clients), COORDINATOR, members),
            )  # fmt: skip
            self.attach_sub(server, members)
            sends += self.start_sub()
        return sends

    @property
    def culprits(self) -> tuple[int, ...]:
        """The clients its blocks rejected or their secure tallies left out for misbehaving (a
        deployed report names them)."""
        return tuple(sorted({c for r in self.collection.records for c in r.rejected}))

    def _close(self, plan: BlockPlan, counts: np.ndarray, n: np.ndarray, record: BlockRecord) -> list[Send]:
        self.collection.close_block(plan, counts, n, record)
        self._plan, self.sub = None, None
        if self.progress is not None:
            self.progress(plan.block, self.cfg.n_blocks)
        return []  # the table's next edge, out of BETWEEN_BLOCKS, opens the next block

    def _end(self) -> list[Send]:
        outcome = dataclasses.replace(self.collection.outcome(), late=self.late)
        self.finish(outcome)
        never = range(self.collection.clients_asked + 1, self.cfg.n_clients + 1)
        if not never:
            return []
        msg = Dismiss(run=self.run, step=outcome.blocks + 1, blocks=outcome.blocks)
        return broadcast(never, msg)

    # -- plain tally ----------------------------------------------------------------------
    def _reject(self, src: int, why: str) -> PeerError:
        assert self._plan is not None
        self._rejected[src] = why
        self._answers.pop(src - self._first, None)
        self._pending.discard(src)
        return PeerError(f"{self.name}: {why}; party {src} left out of block {self._plan.block}", src)

    def _on_answer(self, src: int, msg: Answer) -> list[Send]:
        plan = self._plan
        assert plan is not None
        j = src - self._first
        if not 0 <= j < plan.size:
            if 1 <= src < self._first:  # an earlier block's client, after its block closed
                self.late += 1
                return []
            raise PeerError(f"{self.name}: Answer from party {src}, which is not in block {plan.block}", src)
        if src in self._rejected:
            raise PeerError(f"{self.name}: Answer from party {src}, already left out of block "
                            f"{plan.block} ({self._rejected[src]}); ignored", src)  # fmt: skip
        try:
            cells = read_cells(msg.cells, src)
        except DecodeError as exc:
            raise self._reject(src, str(exc)) from None
        if j in self._answers:
            if msg.view == plan.views[j] and np.array_equal(self._answers[j], cells):
                raise PeerError(f"{self.name}: duplicate Answer from party {src} ignored", src)
            raise self._reject(src, "two different Answers")
        if msg.step != plan.block:
            raise self._reject(src, f"Answer labelled block {msg.step}, block {plan.block} is open")
        if msg.view != plan.views[j]:
            raise self._reject(src, f"answered view {msg.view}, was asked view {int(plan.views[j])}")
        tabs = plan.asked_tables(j)
        if cells.size != tabs.size:
            raise self._reject(src, f"{cells.size} cells for the {tabs.size} subsets it was asked")
        size = np.asarray(self.cfg.layout.cells)[tabs]
        bad = np.flatnonzero(cells >= size)
        if bad.size:
            i = int(bad[0])
            raise self._reject(src, f"cell {int(cells[i])} of subset "
                                    f"{self.cfg.cover.subsets[tabs[i]]}, which has {int(size[i])}")  # fmt: skip
        self._answers[j] = cells
        self._pending.discard(src)
        return []

    def _close_plain(self) -> list[Send]:
        """All in, or the deadline: the silent clients are left out and counted."""
        plan = self._plan
        assert plan is not None
        js = sorted(self._answers)
        empty = np.zeros(0, np.int64)
        t_ids = np.concatenate([plan.asked_tables(j) for j in js] or [empty])
        cells = np.concatenate([self._answers[j] for j in js] or [empty])
        counts, n = tally(t_ids, cells, self.cfg.layout)
        silent = tuple(sorted(self._pending))
        record = BlockRecord(plan.block, plan.size, len(js), silent, tuple(sorted(self._rejected)))
        return self._close(plan, counts, n, record)

    # -- secure tally ---------------------------------------------------------------------
    def _admit_sub(self, src: int, msg: Message) -> bool:
        sub, plan = self.sub, self._plan
        assert sub is not None and plan is not None
        if sub.is_member(src):
            return True
        if 1 <= src < self._first:  # an earlier block's secure sum, after it closed
            self.late += 1
            return False
        raise PeerError(
            f"{self.name}: {type(msg).__name__} from party {src}, which is not in block {plan.block}", src
        )

    def _close_secure(self) -> list[Send]:
        """The block's secure sum ended: its sum is the block's counts (or the block is lost)."""
        sub, plan = self.sub, self._plan
        assert sub is not None and plan is not None
        server = sub.role
        lay = self.cfg.layout
        # what a sum protocol's party 0 may tell of the parties it left out: those it
        # excluded for misbehaving (``culprits``), and the silent (``dropped``)
        culprits = set(getattr(server, "culprits", ()))
        rejected = tuple(sorted(sub.outer_id(u) for u in culprits))
        silent = tuple(sorted(sub.outer_id(u) for u in getattr(server, "dropped", ()) if u not in culprits))
        counts = np.zeros((lay.n_tables, lay.width), np.int64)
        n = np.zeros(lay.n_tables, np.int64)
        if server.error is not None:
            record = BlockRecord(plan.block, plan.size, 0, silent, rejected,
                                 f"secure sum failed: {server.error}")  # fmt: skip
            return self._close(plan, counts, n, record)
        res = self.cfg.sum_spec.result_of(server)
        included = np.asarray(res.included, dtype=np.int64) - 1  # block-local indices
        total = np.asarray(res.total, dtype=np.int64)
        want = np.zeros(lay.n_tables, np.int64)
        for j in included.tolist():
            want[plan.asked_tables(j)] += 1
        noise = self.cfg.tally_noise(plan.block)
        if noise is not None:  # noisy counts: made consistent (no one-hot check is possible)
            counts[lay.mask] = noise.decode(total, included.size)
            counts = consistent_counts(counts, want, lay.mask)
            record = BlockRecord(plan.block, plan.size, int(included.size), silent, rejected)
            return self._close(plan, counts, want, record)
        counts[lay.mask] = total  # tables one after the other, as the clients' one-hot vectors
        got = counts.sum(axis=1)
        bad = np.flatnonzero(got != want)
        if bad.size:
            t = int(bad[0])
            why = (f"secure tally inconsistent: subset {self.cfg.cover.subsets[t]} counts sum to "
                   f"{int(got[t])}, but {int(want[t])} included clients were asked it (an input "
                   "was not a one-hot answer)")  # fmt: skip
            record = BlockRecord(plan.block, plan.size, 0, silent, rejected, why)
            return self._close(plan, counts * 0, n, record)
        record = BlockRecord(plan.block, plan.size, int(included.size), silent, rejected)
        return self._close(plan, counts, want, record)
