"""The public parameters of one distributed RRBA run (every party builds the same).

:class:`RRBAConfig` is all a party needs besides its own record and
generator: the attributes' category counts, the cover's ``k``, the number of
clients and the block size, ``p`` and the aggregator's options, the run id
and whether the block tallies are secure sums.  It is validated once, here,
with errors naming the parameter (:class:`~mpc_rr.core.UsageError`).

Blocks are fixed by the client ids: block ``b`` (1-based) holds parties
``(b - 1) B + 1 .. min(b B, n)`` (the records in data order, as in
:func:`~mpc_rr.rrba.run_rrba`), so every client knows its block from
public parameters alone.

Secure tally: block ``b`` sums its clients' one-hot answers with the run's
``sum_protocol`` (SecAgg+ by default; any registered sum protocol whose party 0
learns the sum), run id ``<run>/block-<b>``, public parameters from its spec
with the run's ``sum_options`` fitted to the block (SecAgg+: a degree above
``m - 1`` for a block of ``m`` clients is lowered to ``m - 1``).  Every block
then needs at least 2 clients.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import msgspec
import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.rrba._aggregator import ESTIMATORS, STOPS
from mpc_rr.rrba._client import check_p
from mpc_rr.rrba._noisy_tally import tally_noise
from mpc_rr.rrba._stopping import check_alpha
from mpc_rr.rrba._tables import Layout, SubsetIndex
from mpc_rr.rrba._update import REPAIRS, check_floor
from mpc_rr.rrba._views import Cover, cover
from mpc_rr.secure_sum import DEFAULT_SUM, SumProtocol, check_inner_sum, sum_protocol
from mpc_rr.secure_sum._family import given_options
from mpc_rr.secure_sum._noisy_sum import NoisySum

__all__ = ["RRBAConfig"]

def _int(name: str, v: object, low: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < low:
        raise UsageError(f"{name} must be an int >= {low}, got {v!r}")
    return int(v)


@dataclass(frozen=True)
class RRBAConfig:
    """Public parameters of a distributed RRBA run (see the module docstring).

    ``sizes`` are the category counts of the ``d`` attributes; ``n_clients``
    the data parties ``1..n``; ``block`` the clients per block ``B``.  The
    remaining options are :class:`~mpc_rr.rrba.BlockAggregator`'s, and, with
    ``secure_tally``, the sum protocol and its options (a mapping or its
    options struct; ``None`` values: the protocol's defaults); ``dp_epsilon``, ``dp_delta``:
    with ``secure_tally``, distributed Skellam noise in each block's tally for that central
    ``(epsilon, delta)`` per record (:mod:`mpc_rr.rrba._noisy_tally`).
    """

    sizes: tuple[int, ...]
    n_clients: int
    block: int
    p: float
    k: int = 2
    estimator: str = "pooled"
    repair: str = "clip"
    alpha: float = 0.05
    t_floor: float = 0.0
    stop: str = "never"
    min_blocks: int = 2
    run: str = "rrba"
    secure_tally: bool = False
    sum_protocol: str = DEFAULT_SUM
    sum_options: Any = None
    dp_epsilon: float | None = None
    dp_delta: float = 1e-6

    def __post_init__(self) -> None:
        sizes = tuple(_int("sizes[]", s, 1) for s in self.sizes)
        if not sizes:
            raise UsageError("sizes must list at least one attribute")
        object.__setattr__(self, "sizes", sizes)
        object.__setattr__(self, "n_clients", _int("n_clients", self.n_clients, 1))
        object.__setattr__(self, "block", _int("block (clients per block)", self.block, 1))
        object.__setattr__(self, "p", check_p(self.p))
        object.__setattr__(self, "k", _int("k (attributes per subset)", self.k, 1))
        for name, allowed in (("estimator", ESTIMATORS), ("repair", REPAIRS), ("stop", STOPS)):
            if getattr(self, name) not in allowed:
                raise UsageError(f"{name} must be one of {allowed}, got {getattr(self, name)!r}")
        object.__setattr__(self, "alpha", check_alpha(self.alpha))
        object.__setattr__(self, "min_blocks", _int("min_blocks", self.min_blocks, 1))
        if not isinstance(self.run, str) or not 0 < len(self.run) <= 200:
            raise UsageError(f"run must be a non-empty string of at most 200 characters, got {self.run!r}")
        object.__setattr__(self, "t_floor", check_floor(self.t_floor, self.layout))  # builds the cover
        if not isinstance(self.secure_tally, bool):
            raise UsageError(f"secure_tally must be a bool, got {self.secure_tally!r}")
        check_inner_sum(self.sum_protocol, learner="aggregator")
        given = given_options(self.sum_options)
        if given and not self.secure_tally:
            names = ", ".join(given) if isinstance(given, Mapping) else "sum_options"
            raise UsageError(f"{names} only apply with secure_tally (secure block tallies)")
        object.__setattr__(self, "sum_options", self.sum_spec.parse_options(given or None))
        if self.dp_epsilon is not None:
            if not self.secure_tally:
                raise UsageError("dp_epsilon applies to the secure tally (noise inside each block's sum)")
            if isinstance(self.dp_epsilon, bool) or not isinstance(self.dp_epsilon, int | float) or not (
                math.isfinite(self.dp_epsilon) and self.dp_epsilon > 0
            ):
                raise UsageError(f"dp_epsilon must be finite and > 0, got {self.dp_epsilon!r}")
            if isinstance(self.dp_delta, bool) or not isinstance(self.dp_delta, int | float) or not (
                0 < self.dp_delta < 1
            ):
                raise UsageError(f"dp_delta must be in (0, 1), got {self.dp_delta!r}")
            object.__setattr__(self, "dp_epsilon", float(self.dp_epsilon))
            object.__setattr__(self, "dp_delta", float(self.dp_delta))
        if self.secure_tally:
            short = [b for b in range(1, self.n_blocks + 1) if len(self.members(b)) < 2]
            if short:
                raise UsageError(
                    f"secure_tally: block {short[0]} would hold {len(self.members(short[0]))} "
                    f"client (n_clients={self.n_clients}, block={self.block}); a secure sum needs "
                    "at least 2 -- change --clients or --block"
                )
            for m in sorted({len(self.members(b)) for b in range(1, self.n_blocks + 1)}):
                self._tally_public(m, "validate")  # raises a UsageError naming the rule

    # -- the cover ---------------------------------------------------------------------
    @cached_property
    def cover(self) -> Cover:
        return cover(len(self.sizes), self.k)

    @cached_property
    def index(self) -> SubsetIndex:
        return SubsetIndex(self.sizes, self.cover.subsets)

    @property
    def layout(self) -> Layout:
        return self.index.layout

    @cached_property
    def table_ids(self) -> dict[tuple[int, ...], int]:
        """Table index (position in ``cover.subsets``) of every subset."""
        return {s: t for t, s in enumerate(self.cover.subsets)}

    @cached_property
    def _view_indexes(self) -> dict[tuple[tuple[int, ...], ...], SubsetIndex]:
        return {}

    def view_index(self, subsets: tuple[tuple[int, ...], ...]) -> SubsetIndex:
        """The :class:`SubsetIndex` of some subsets of one view (memoized: in a simulation
        thousands of clients share this config and ask for the same few)."""
        index = self._view_indexes.get(subsets)
        if index is None:
            index = self._view_indexes[subsets] = SubsetIndex(self.sizes, subsets)
        return index

    @cached_property
    def offsets(self) -> np.ndarray:
        """Start of each table's cells in the flat one-hot vector (length ``S + 1``)."""
        return np.concatenate([[0], np.cumsum(self.layout.cells)]).astype(np.int64)

    @property
    def cells(self) -> int:
        """Cells of all tables: the length of a secure tally's one-hot vector."""
        return int(self.offsets[-1])

    # -- blocks ------------------------------------------------------------------------
    @property
    def n_blocks(self) -> int:
        """Blocks if the collection runs to the last client."""
        return math.ceil(self.n_clients / self.block)

    def block_of(self, party: int) -> int:
        """Block (1-based) of client ``party`` (1..n)."""
        if not 1 <= party <= self.n_clients:
            raise UsageError(f"party must be a client id in 1..{self.n_clients}, got {party}")
        return (int(party) - 1) // self.block + 1

    def members(self, block: int) -> range:
        """Party ids of block ``block``'s clients."""
        lo = (int(block) - 1) * self.block + 1
        return range(lo, min(lo + self.block, self.n_clients + 1))

    @property
    def deadlines_per_block(self) -> int:
        """Deadlines the aggregator may spend on one block (1; a secure tally: one per step
        of its sum protocol)."""
        return len(self.sum_spec.steps) if self.secure_tally else 1

    def client_patience(self, party: int) -> int:
        """Deadlines client ``party`` waits without hearing from the aggregator.

        The aggregator contacts a client only when its block starts, so the
        wait covers the deadlines every block before it (and its own) may
        spend, plus two of slack: it grows with the client's block, not with
        the whole run, and a client of block 1 gives up after a few deadlines
        if the aggregator is gone.
        """
        return self.deadlines_per_block * self.block_of(party) + 2

    @property
    def sum_spec(self) -> SumProtocol:
        """The spec of the secure tally's sum protocol."""
        return sum_protocol(self.sum_protocol)

    @property
    def view_tables(self) -> int:
        """The most tables a client answers (the longest view)."""
        return max(len(v) for v in self.cover.views)

    def tally_noise(self, block: int) -> NoisySum | None:
        """Block ``block``'s tally noise (``None`` without ``dp_epsilon``):
        :mod:`mpc_rr.rrba._noisy_tally`."""
        return self._noise_for(len(self.members(block)))

    def _noise_for(self, m: int) -> NoisySum | None:
        if self.dp_epsilon is None:
            return None
        return tally_noise(self.sum_protocol, self.sum_options, m, self.cells, self.view_tables,
                           float(self.dp_epsilon), float(self.dp_delta))  # fmt: skip

    def _tally_public(self, m: int, run: str) -> Any:
        noise = self._noise_for(m)
        if noise is not None:  # noisy inputs in [0, 1 + 2c], sized by the protocol: not one-hot
            return noise.public(run=run)
        spec = self.sum_spec
        # a client's tally: a 1 in its cell of each table it was asked, nothing elsewhere -- at
        # most one 1 per table (prio3 proves exactly that)
        tables = tuple(int(c) for c in np.diff(self.offsets))
        options = spec.options_for(self.sum_options, m, one_hot_blocks=tables, empty_blocks=True)
        return spec.public(m, self.cells, run=run, max_value=1, options=options)

    def tally_public(self, block: int) -> Any:
        """Public parameters of block ``block``'s secure tally (its clients are the sum's
        parties ``1..m`` in id order)."""
        return self._tally_public(len(self.members(block)), f"{self.run}/block-{block}")

    def as_json(self) -> dict[str, object]:
        return {
            "sizes": list(self.sizes), "n_clients": self.n_clients, "block": self.block,
            "p": self.p, "k": self.k, "estimator": self.estimator, "repair": self.repair,
            "alpha": self.alpha, "t_floor": self.t_floor, "stop": self.stop,
            "min_blocks": self.min_blocks, "run": self.run, "secure_tally": self.secure_tally,
            "sum_protocol": self.sum_protocol,
            "sum_options": msgspec.structs.asdict(self.sum_options),
            "dp_epsilon": self.dp_epsilon, "dp_delta": self.dp_delta,
        }  # fmt: skip
