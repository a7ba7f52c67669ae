"""Build the roles of any registered sum protocol: all parties at once, or one party (its own process).

* :class:`SecureSumPlan` -- every role of one run over the rows of an input
  matrix, as a :class:`~mpc_rr.core.RolePlan` (simulations, tests, the
  ``secure-sum`` command; a sharded runner builds each subset where it runs);
* :func:`make_sum_role` -- the generic ``make_role(party_id, n_parties, seed,
  params)`` of a sum protocol for ``mpc-rr party``: one party's role from
  public parameters only (``n_parties`` counts party 0).  Each data party's
  input is a random one-hot vector derived from ``SeedSequence(seed,
  spawn_key=(party_id,))`` (:func:`party_input`), so any process can compute
  the expected total (:func:`expected_total`).  Secrets (keys, seeds, shares)
  come from the OS CSPRNG, never from the seed.

Which protocol, its options and its public parameters always come from its
:class:`~mpc_rr.secure_sum.SumProtocol` (:func:`~mpc_rr.secure_sum.sum_protocol`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from mpc_rr.core import COORDINATOR, DropPoint, Message, Role, UsageError
from mpc_rr.core._runs import Progress, RolePlan
from mpc_rr.secure_sum._entropy import Entropy
from mpc_rr.secure_sum._family import sum_options, sum_protocol, sum_protocols
from mpc_rr.secure_sum._protocol import StatelessPrechecks, SumProtocol

__all__ = [
    "SecureSumPlan",
    "expected_total",
    "make_sum_role",
    "memory_estimate",
    "message_count",
    "party_input",
    "secure_sum_roles",
    "step_messages",
]


def step_messages(protocol: str) -> dict[str, DropPoint]:
    """The message a data party sends at each named step (where a dropout can strike)."""
    return dict(sum_protocol(protocol).step_messages())


def secure_sum_roles(
    protocol: str,
    inputs: np.ndarray,
    *,
    run: str = "",
    entropy: Callable[[int], Entropy] | None = None,
    options: Mapping[str, Any] | None = None,
    **more: Any,
) -> tuple[dict[int, Role], dict[str, Any]]:
    """Roles and public parameters (JSON-able) of one run over the rows of ``inputs``.

    ``options`` (and any keyword ``more``, e.g. ``max_dropout=0.2``) are the
    protocol's options, ``None`` meaning its default (:func:`sum_options`:
    one a protocol does not have is refused).  :class:`SecureSumPlan` builds the
    same roles where they run.
    """
    plan = SecureSumPlan(protocol, inputs, run=run, entropy=entropy, options=options, **more)
    return plan.build(), plan.public_params()


class SecureSumPlan(RolePlan):
    """The roles of one run of sum protocol ``protocol`` as a :class:`~mpc_rr.core.RolePlan`.

    Party ``i`` holds ``inputs[i - 1]``; a subset carries only its parties'
    rows (and ``n``, ``cells``, ``max_value`` of the whole run).  ``entropy``
    (``party -> Entropy``; ``None`` = the OS CSPRNG) must be picklable for a
    sharded run, e.g. ``SeededEntropy(seed).spawn`` in tests.  ``options``
    (and keywords ``more``) are the protocol's options, validated here once.
    """

    def __init__(
        self,
        protocol: str | SumProtocol,
        inputs: np.ndarray,
        *,
        run: str = "",
        entropy: Callable[[int], Entropy] | None = None,
        options: Mapping[str, Any] | Any | None = None,
        ids: Sequence[int] | None = None,
        shape: tuple[int, int, int] | None = None,
        **more: Any,
    ) -> None:
        spec = sum_protocol(protocol) if isinstance(protocol, str) else protocol
        x = np.asarray(inputs)
        if shape is None:  # the whole run
            if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 1:
                raise UsageError(f"inputs must be a (parties >= 2, cells >= 1) matrix, got {x.shape}")
            shape = (x.shape[0], x.shape[1], max(1, int(x.max(initial=0))))
        self.protocol = spec.name
        self._spec = spec
        self.n, self.cells, self.max_value = shape
        self.run = run
        self.entropy = entropy
        if isinstance(options, Mapping) or options is None:
            self.options = sum_options(spec, {**dict(options or {}), **more})
        else:
            if more:
                raise UsageError("give the options either as a struct or as keywords, not both")
            self.options = spec.parse_options(options)
        first = spec.first_party()
        self._ids = tuple(range(first, self.n + 1)) if ids is None else tuple(sorted(ids))
        n_data = sum(1 for i in self._ids if i != COORDINATOR)
        if x.shape != (n_data, self.cells):
            raise UsageError(f"inputs must have shape ({n_data}, {self.cells}), got {x.shape}")
        self.inputs = x

    @property
    def spec(self) -> SumProtocol:
        return self._spec

    @property
    def parties(self) -> tuple[int, ...]:
        return self._ids

    def subset(self, ids: Sequence[int]) -> SecureSumPlan:
        ids_t = self._check_subset(ids)
        row = {p: k for k, p in enumerate(i for i in self._ids if i != COORDINATOR)}
        rows = [row[i] for i in ids_t if i != COORDINATOR]
        return SecureSumPlan(
            self._spec, self.inputs[rows], run=self.run, entropy=self.entropy,
            options=self.options, ids=ids_t, shape=(self.n, self.cells, self.max_value),
        )  # fmt: skip

    def public(self) -> Any:
        """The run's public parameters (built once per process: the specs cache them)."""
        return self.spec.public(
            self.n, self.cells, run=self.run, max_value=self.max_value, options=self.options
        )

    def prechecks(self) -> Mapping[int, Callable[[int, Message], bool]]:
        """Party 0's stateless checks, where the protocol has them (:class:`StatelessPrechecks`)."""
        spec = self.spec
        if not isinstance(spec, StatelessPrechecks) or not spec.coordinator:
            return {}
        return {COORDINATOR: spec.precheck(self.public())}

    def public_params(self) -> dict[str, Any]:
        """The run's public parameters (JSON-able)."""
        return dict(self.public().as_json())

    def build(self, progress: Progress | None = None) -> dict[int, Role]:
        spec, pub, ent = self.spec, self.public(), self.entropy
        roles: dict[int, Role] = {}
        rows = iter(self.inputs)
        for i in self._ids:
            if i == COORDINATOR:
                roles[i] = spec.role(i, pub, None, entropy=None)
            else:
                roles[i] = spec.role(i, pub, next(rows), entropy=ent(i) if ent is not None else None)
        return roles


def party_input(party_id: int, seed: int, cells: int) -> np.ndarray:
    """The one-hot input of data party ``party_id`` (uint8, length ``cells``)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(party_id,)))
    x = np.zeros(cells, np.uint8)
    x[int(rng.integers(cells))] = 1
    return x


def expected_total(n_data: int, seed: int, cells: int) -> np.ndarray:
    """Plain sum of the inputs of parties ``1..n_data``."""
    total = np.zeros(cells, np.int64)
    for i in range(1, n_data + 1):
        total += party_input(i, seed, cells)
    return total


def make_sum_role(spec: SumProtocol, party_id: int, n_parties: int, seed: int, params: Mapping[str, Any]) -> Role:
    """Party ``party_id``'s role among ``n_parties`` (party 0 counted) from public parameters.

    ``params``: ``cells`` (default 1582: Adult's pair cells), ``run`` (default
    the spec's ``run_label``) and the protocol's options (e.g. ``degree``).
    """
    cells = params.get("cells", 1582)
    if not isinstance(cells, int) or isinstance(cells, bool) or cells < 1:
        raise UsageError(f"params.cells must be an integer >= 1, got {cells!r}")
    if not spec.coordinator and party_id == COORDINATOR:
        raise UsageError(
            f"{spec.name} has no party 0: in a deployment the hub only relays its frames "
            f"(`mpc-rr party --id 0` does that); party 0 has a role in {', '.join(s for s in _deployable())}"
        )
    if not 0 <= party_id < n_parties:
        raise UsageError(f"{spec.name}: party_id must be in [0, {n_parties}), got {party_id}")
    run = str(params.get("run", spec.run_label.format(name=spec.name, seed=seed)))
    options = sum_options(spec, {k: v for k, v in params.items() if k not in ("cells", "run")},
                          where="params of protocol")  # fmt: skip
    options = spec.one_hot_options(options, (cells,))  # party_input: one-hot (prio3 proves it)
    pub = spec.public(n_parties - 1, cells, run=run, max_value=1, options=options)
    x = None if party_id == COORDINATOR else spec.deployment_input(party_id, seed, cells)
    return spec.role(party_id, pub, x, entropy=None)


def _deployable() -> list[str]:
    return [s.name for s in sum_protocols() if s.coordinator]


def message_count(protocol: str, n: int, options: Mapping[str, Any] | None = None) -> int:
    """Messages of one run without dropouts (full mesh: keys, Sec. 4.2's n(n-1) shares, publication)."""
    spec = sum_protocol(protocol)
    return int(spec.message_count(n, sum_options(protocol, dict(options or {}))))


def memory_estimate(protocol: str, n: int, cells: int, options: Mapping[str, Any] | None = None) -> int:
    """Rough peak bytes of one simulated run in one process (all parties' state and traffic)."""
    spec = sum_protocol(protocol)
    return int(spec.memory_estimate(n, cells, sum_options(protocol, dict(options or {}))))
