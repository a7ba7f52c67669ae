"""The secure-sum family: what every sum protocol tells the rest of the code (:class:`SumSpec`).

A sum protocol adds integer vectors: data parties ``1..n`` each hold one
vector of ``cells`` entries in ``[0, max_value]``, and the protocol delivers
their sum (over the parties it could include) as a
:class:`~mpc_rr.secure_sum.SumResult`.  Party ``0`` -- a server, a board or a
hub -- takes part when :attr:`SumSpec.coordinator` is true.

Everything that runs a sum -- ``mpc-rr secure-sum``, the pipeline's
secure-sum dependence, RRBA's secure tally, the scenario kind, the
classroom, the adversary's observed runs, one process per party -- builds its
roles through the spec, so a new sum protocol registered in
:mod:`mpc_rr.core` serves all of them.  This module imports no role (the
command line reads the specs at start-up): roles, messages and the public
parameters are named lazily (:func:`mpc_rr.core.lazy`).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from mpc_rr.core import ProtocolSpec, RoleFactory, UsageError, get_protocol, protocols
from mpc_rr.secure_sum._trust import DEFAULT_MAX_CORRUPT, NO_VALIDITY, SumTrust, colluders_in

if TYPE_CHECKING:
    from mpc_rr.core import DropPoint, Message, Role
    from mpc_rr.secure_sum._common import SumResult

__all__ = [
    "SumPublic",
    "SumSpec",
    "check_inner_sum",
    "given_options",
    "sum_options",
    "sum_protocol",
    "sum_protocol_names",
]


class SumPublic(Protocol):
    """The public parameters of one run (every party of the run builds the same)."""

    def as_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True, kw_only=True)
class SumSpec(ProtocolSpec):
    """A secure-sum protocol (module docstring).

    Attributes (besides :class:`~mpc_rr.core.ProtocolSpec`'s)
    ----------------------------------------------------------
    public:
        ``public(n, cells, *, run, max_value, options) -> SumPublic``: a run's
        public parameters, validated (a :class:`UsageError` naming the rule).
    role:
        ``role(party_id, public, x, *, entropy, identity) -> Role``: party
        ``party_id``'s role (``x``: its input vector; ``None`` for party 0);
        ``entropy`` is its cryptographic source (``None``: the OS CSPRNG);
        ``identity`` its signing key and roster (``None``:
        :func:`~mpc_rr.secure_sum.default_identity`; an outer protocol running
        the sum over a subset of its parties passes
        :func:`~mpc_rr.secure_sum.sub_identity`).
    messages, step_messages:
        ``messages()``: every message type of a run (a codec or an offline
        observer needs them); ``step_messages()``: the message a data party
        sends at each of :attr:`steps` (where a dropout strikes).
    coordinator:
        Party 0 takes part (a server or board); without it the parties
        publish among themselves.
    total_at_coordinator:
        Party 0's result is the sum, so an outer protocol's coordinator can
        run this sum as its sub-protocol (the pipeline, RRBA).
    message_count, memory_estimate:
        ``(n, options) -> messages`` of a run without dropouts, and
        ``(n, cells, options) -> bytes``: the rough peak memory of a simulated
        run in one process (commands refuse a run that cannot fit).
    fit_options:
        ``(options, n) -> options`` for a run among ``n`` parties (e.g. a graph
        degree lowered to ``n - 1`` for a small RRBA block); default: as given.
    run_label:
        The default run id of a deployment (``make_role``): ``{name}`` and
        ``{seed}`` are filled in.
    hides_inputs:
        Whether the protocol keeps each input from whoever relays or sums it
        (``False`` only for a reference without privacy).
    one_hot_blocks:
        ``(options, blocks, *, empty=False) -> options`` for a run whose every
        input is one-hot in each block of ``blocks`` cells (the pipeline's pair
        cells; ``empty``: or all zero there, RRBA's tables): a protocol that
        proves its inputs valid (prio3) proves exactly that; ``None``: the
        options as given.
    party_messages:
        ``(public, n) -> messages`` the ``n`` data parties send party 0 in a run
        without dropouts; ``None``: one per data party and step (SecAgg+: its
        consistency step is the committee's alone).
    coordinator_messages:
        ``(public) -> messages`` party 0 receives in a run without dropouts (the
        total of an outer protocol's progress bar); ``None``: the data parties'
        (:meth:`messages_from_parties`).
    input_step:
        The step at which a party's input leaves it (masked, shared or
        published); default: the last step.  A party that crashes there
        contributes nothing.
    precheck:
        ``(public) -> check(src, msg) -> bool``: party 0's stateless checks of
        one incoming message (signatures, hashes), which a trusted co-worker of
        party 0 may run before delivery (:meth:`~mpc_rr.core.RolePlan.prechecks`);
        ``None``: party 0 checks everything itself.
    trust:
        ``(options, n, max_corrupt) -> SumTrust``: the coalition a run among ``n``
        clients hides inputs against (:mod:`mpc_rr.secure_sum._trust`; ``max_corrupt``
        ``None``: the fraction the protocol assumes); ``None``: hides nothing
        (:meth:`trust_of`).
    validity:
        ``(public) -> str``: what the run proves of each input (a validity circuit);
        ``None``: nothing (:data:`~mpc_rr.secure_sum.NO_VALIDITY`).
    """

    family: str = "sum"
    make_role: RoleFactory = None  # type: ignore[assignment]  # default: the generic factory below
    public: Callable[..., SumPublic]
    role: Callable[..., Role]
    step_messages: Callable[[], Mapping[str, DropPoint]]
    coordinator: bool = True
    total_at_coordinator: bool = True
    message_count: Callable[[int, Any], int]
    memory_estimate: Callable[[int, int, Any], int]
    fit_options: Callable[[Any, int], Any] | None = None
    run_label: str = "{name}-{seed}"
    input_step: str = ""
    hides_inputs: bool = True
    one_hot_blocks: Callable[..., Any] | None = None
    party_messages: Callable[[Any, int], int] | None = None
    coordinator_messages: Callable[[Any], int] | None = None
    precheck: Callable[[Any], Callable[[int, Message], bool]] | None = None
    trust: Callable[[Any, int, float | None], SumTrust] | None = None
    validity: Callable[[Any], str] | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.messages is None:
            raise UsageError(f"sum protocol {self.name!r} must name its messages")
        if self.make_role is None:
            object.__setattr__(self, "make_role", functools.partial(_make_role, self.name))
        if not self.steps:
            raise UsageError(f"sum protocol {self.name!r} must name its steps (where a party can drop out)")
        if not self.input_step:
            object.__setattr__(self, "input_step", self.steps[-1])
        if self.input_step not in self.steps:
            raise UsageError(f"sum protocol {self.name!r}: input_step {self.input_step!r} is not a step")
        if self.total_at_coordinator and not self.coordinator:
            raise UsageError(f"sum protocol {self.name!r}: total_at_coordinator needs a coordinator")

    def options_for(
        self, options: Any, n: int, *, one_hot_blocks: tuple[int, ...] | None = None,
        empty_blocks: bool = False,
    ) -> Any:  # fmt: skip
        """``options`` parsed and fitted to a run among ``n`` data parties (whose inputs are
        one-hot in each of ``one_hot_blocks``, or with ``empty_blocks`` at most one 1 in each,
        when given: :attr:`one_hot_blocks`)."""
        parsed = self.parse_options(options)
        if one_hot_blocks is not None and self.one_hot_blocks is not None:
            blocks = tuple(one_hot_blocks)
            parsed = (self.one_hot_blocks(parsed, blocks, empty=True) if empty_blocks
                      else self.one_hot_blocks(parsed, blocks))  # fmt: skip
        return parsed if self.fit_options is None else self.fit_options(parsed, n)

    def one_hot_options(self, options: Any, blocks: tuple[int, ...], *, empty: bool = False) -> Any:
        """``options`` parsed for inputs one-hot in each of ``blocks`` (``empty``: or all zero
        there), without fitting them to a run (:meth:`options_for` does both)."""
        parsed = self.parse_options(options)
        if self.one_hot_blocks is None:
            return parsed
        blocks = tuple(int(b) for b in blocks)
        return self.one_hot_blocks(parsed, blocks, empty=True) if empty else self.one_hot_blocks(parsed, blocks)

    def messages_from_parties(self, public: Any, n: int) -> int:
        """What the ``n`` data parties of the run of ``public`` send party 0 without dropouts."""
        return len(self.steps) * n if self.party_messages is None else int(self.party_messages(public, n))

    def result_of(self, role: Role) -> SumResult:
        """The :class:`SumResult` ``role`` ended with (raises its :class:`ProtocolAbort` if it
        aborted): every sum protocol's roles finish with one."""
        result: SumResult = role.result
        return result

    def trust_of(self, options: Any, n: int, max_corrupt: float | None = None) -> SumTrust:
        """The coalition a run among ``n`` clients with ``options`` hides inputs against
        (``max_corrupt``: the colluding fraction to assume; ``None``: the protocol's own)."""
        parsed = self.parse_options(options)
        if self.trust is not None:
            return dataclasses.replace(self.trust(parsed, int(n), max_corrupt), protocol=self.name)
        f = DEFAULT_MAX_CORRUPT if max_corrupt is None else float(max_corrupt)
        return SumTrust(self.name, int(n), f, colluders_in(f, n), 0, "nothing is hidden",
                        f"none: party 0 of {self.name} sees every input")  # fmt: skip

    def validity_of(self, public: Any) -> str:
        """What the run of ``public`` proves of each input (:attr:`validity`)."""
        return NO_VALIDITY if self.validity is None else str(self.validity(public))

    def first_party(self) -> int:
        """0 when party 0 takes part, else 1."""
        return 0 if self.coordinator else 1


def _make_role(name: str, party_id: int, n_parties: int, seed: int, params: Mapping[str, Any]) -> Role:
    from mpc_rr.secure_sum._plan import make_sum_role

    return make_sum_role(sum_protocol(name), party_id, n_parties, seed, params)


def sum_protocol(name: str) -> SumSpec:
    """The registered sum protocol ``name`` (a :class:`UsageError` naming the sum protocols)."""
    try:
        spec = get_protocol(name)
    except UsageError:
        spec = None
    if not isinstance(spec, SumSpec):
        raise UsageError(
            f"unknown sum protocol {name!r}; the sum protocols are: {', '.join(sum_protocol_names())}"
        )
    return spec


def sum_protocol_names(*, at_coordinator: bool = False) -> tuple[str, ...]:
    """Names of the registered sum protocols (only those whose party 0 learns the sum,
    with ``at_coordinator``: what an outer protocol's coordinator can run)."""
    return tuple(
        s.name
        for s in protocols("sum")
        if isinstance(s, SumSpec) and (s.total_at_coordinator or not at_coordinator)
    )


def check_inner_sum(protocol: str, *, learner: str = "coordinator") -> None:
    """Refuse ``protocol`` as the inner sum of an outer protocol (the pipeline's dependence, RRBA's
    tallies) unless it is a registered sum whose ``learner`` (party 0) learns the total."""
    names = sum_protocol_names(at_coordinator=True)
    if protocol not in names:
        raise UsageError(
            f"sum_protocol must be a sum protocol whose {learner} learns the sum "
            f"({', '.join(names)}), got {protocol!r}"
        )


def given_options(given: Any) -> Any:
    """An options mapping without its unset (``None``) entries; a parsed options struct as is."""
    if isinstance(given, Mapping):
        return {k: v for k, v in given.items() if v is not None}
    return given


def sum_options(
    protocol: str,
    given: Mapping[str, Any],
    *,
    flag: Callable[[str], str] = str,
    where: str = "protocol",
) -> Any:
    """``given`` options (``None`` = default) parsed by ``protocol``'s spec, validated once.

    An option ``protocol`` does not have is refused naming the protocols that
    do: ``"--degree only apply to --protocol secagg"`` (``flag`` spells an
    option as its user typed it, ``where`` names the choice).
    """
    spec = sum_protocol(protocol)
    values = {k: v for k, v in given.items() if v is not None}
    bad = [k for k in values if k not in spec.option_names()]
    if bad:
        owners = [s.name for s in protocols("sum") if all(k in s.option_names() for k in bad)]
        names = ", ".join(flag(k) for k in bad)
        if owners:
            raise UsageError(f"{names} only apply to {where} {' or '.join(owners)}")
        own = ", ".join(flag(k) for k in spec.option_names()) or "none"
        raise UsageError(f"{names}: not an option of {spec.name} (its options: {own})")
    return spec.parse_options(values)

