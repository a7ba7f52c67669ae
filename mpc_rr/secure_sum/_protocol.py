"""What a secure-sum protocol is: the abstract :class:`SumProtocol` and its optional capabilities.

A sum protocol adds integer vectors: data parties ``1..n`` each hold one
vector of ``cells`` entries in ``[0, max_value]``, and the protocol delivers
their sum (over the parties it could include) as a
:class:`~mpc_rr.secure_sum.SumResult`.  Party ``0`` -- a server, a board, a
hub or a leader -- takes part when :attr:`SumProtocol.coordinator` is true.

A protocol is one subclass of :class:`SumProtocol`, instantiated once and
registered in :mod:`mpc_rr.core` (the library's own in ``BUILTIN``; any other
with :func:`~mpc_rr.core.register_protocol`).  Everything that runs a sum --
``mpc-rr secure-sum``, the pipeline's secure-sum dependence, RRBA's secure
tally, the scenario kinds, the classroom, the adversary's observed runs, one
process per party, the conformance kit (:mod:`mpc_rr.secure_sum.testing`) --
asks that instance, so a new sum protocol registered there serves all of
them.

What only some protocols can do is a small :class:`typing.Protocol` a caller
checks with ``isinstance``:

* :class:`StatelessPrechecks` -- party 0's checks of one message that need no
  state (signatures), which a co-worker of party 0 may run before delivery;
* :class:`ValidityProofs` -- the protocol proves each input valid and can be
  told the inputs are one-hot per block (Prio3's circuits);
* :class:`DeploymentKeys` -- the protocol needs deployment secrets
  (``mpc-rr keys init`` writes them);
* :class:`DistributedNoise` -- the sum can carry distributed noise: it states how many
  clients a run may lose and how many may collude (the noise is calibrated for the
  honest survivors those leave) and the modulus it sums in
  (:mod:`mpc_rr.secure_sum._noisy_sum` builds a noisy sum from them).

Subclasses keep their heavy parts (roles import numpy and cryptography) in
modules imported inside the methods: the command line reads the registered
instances at start-up.
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from mpc_rr.core import RegisteredProtocol, UsageError
from mpc_rr.secure_sum._trust import DEFAULT_MAX_CORRUPT, NO_VALIDITY, SumTrust, colluders_in

if TYPE_CHECKING:
    import numpy as np

    from mpc_rr.core import DropPoint, Message, Role
    from mpc_rr.secure_sum._common import SumResult
    from mpc_rr.secure_sum._entropy import Entropy
    from mpc_rr.secure_sum._identity import Identity

__all__ = [
    "DeploymentKeys",
    "DistributedNoise",
    "StatelessPrechecks",
    "SumProtocol",
    "SumPublic",
    "ValidityProofs",
    "with_roles",
]


class SumPublic(Protocol):
    """The public parameters of one run (every party of the run builds the same)."""

    def as_json(self) -> dict[str, Any]: ...


class SumProtocol(RegisteredProtocol):
    """A secure-sum protocol (module docstring): subclass it, set the class attributes, write
    the abstract methods, register one instance.

    Class attributes (besides :class:`~mpc_rr.core.RegisteredProtocol`'s ``name``,
    ``summary``, ``steps`` and ``options``)
    -----------------------------------------------------------------------------------
    coordinator:
        Party 0 takes part (a server, board, hub or leader); without it the parties
        publish among themselves.
    total_at_coordinator:
        Party 0's result is the sum, so an outer protocol's coordinator can run this sum as
        its sub-protocol (the pipeline, RRBA).
    input_step:
        The step at which a party's input leaves it (masked, shared or published); ``""``:
        the last step.  A party that crashes there contributes nothing.
    run_label:
        The default run id of a deployment (:meth:`make_role`): ``{name}`` and ``{seed}``
        are filled in.
    hides_inputs:
        Whether the protocol keeps each input from whoever relays or sums it (``False`` only
        for a reference without privacy).
    ledger_channel:
        The privacy ledger's channel for reports summed by the protocol when it hides inputs
        (``secure-sum``; Prio3's two aggregators: ``prio3``).
    public_draws:
        Whether a run makes public random draws its security argument needs (SecAgg+'s
        graph and committee): the conformance kit's ``public-draws`` check applies.
    max_modulus:
        The largest modulus the sum works in (``None``: not stated): distributed noise must
        keep the noisy total below it (:func:`~mpc_rr.secure_sum.noise_modulus`).
    """

    family = "sum"
    coordinator: bool = True
    total_at_coordinator: bool = True
    input_step: str = ""
    run_label: str = "{name}-{seed}"
    hides_inputs: bool = True
    ledger_channel: str = "secure-sum"
    public_draws: bool = False
    max_modulus: int | None = None

    def __init__(self) -> None:
        self.check_name()
        self.steps = tuple(self.steps)
        if not self.steps:
            raise UsageError(f"sum protocol {self.name!r} must name its steps (where a party can drop out)")
        if not self.input_step:
            self.input_step = self.steps[-1]
        if self.input_step not in self.steps:
            raise UsageError(f"sum protocol {self.name!r}: input_step {self.input_step!r} is not a step")
        if self.total_at_coordinator and not self.coordinator:
            raise UsageError(f"sum protocol {self.name!r}: total_at_coordinator needs a coordinator")

    # -- a run: its public parameters and its roles ------------------------------------------
    @abc.abstractmethod
    def public(self, n: int, cells: int, *, run: str, max_value: int = 1, options: Any = None) -> SumPublic:
        """The public parameters of a run among ``n`` data parties over ``cells`` cells whose
        inputs lie in ``[0, max_value]``, from the parsed ``options`` (``None``: the defaults).

        Raises :class:`UsageError` naming the rule a parameter breaks (e.g. too few parties).
        Every party of a run builds the same (a protocol may cache them).
        """

    @abc.abstractmethod
    def role(
        self, party_id: int, public: Any, x: np.ndarray | None, *, entropy: Entropy | None = None,
        identity: Identity | None = None,
    ) -> Role:  # fmt: skip
        """Party ``party_id``'s role in the run of ``public``: the one way to build a role.

        ``x`` is a data party's input vector (``None`` for party 0); ``entropy`` its
        cryptographic source (``None``: the OS CSPRNG); ``identity`` its signing key and
        roster (``None``: :func:`~mpc_rr.secure_sum.default_identity`; an outer protocol
        running the sum over a subset of its parties passes
        :func:`~mpc_rr.secure_sum.sub_identity`).  Every role finishes with a
        :class:`~mpc_rr.secure_sum.SumResult` or aborts naming whom it blames.
        Raises :class:`UsageError` for a party the run has no role for.
        """

    @abc.abstractmethod
    def step_messages(self) -> Mapping[str, DropPoint]:
        """The message a data party sends at each of :attr:`steps` (where a dropout strikes:
        ``DropAt`` crashes the party before it sends it)."""

    # -- the cost model -----------------------------------------------------------------------
    @abc.abstractmethod
    def message_count(self, n: int, options: Any) -> int:
        """Messages of a run among ``n`` data parties without dropouts (parsed ``options``)."""

    def message_bound(self, n: int, options: Any) -> int:
        """The most messages the honest parties of a run among ``n`` data parties send,
        whatever the faults: the fault-free :meth:`message_count` (default), times the attempts
        of a protocol that restarts without a culprit, plus its restart notices."""
        return int(self.message_count(n, options))

    @abc.abstractmethod
    def memory_estimate(self, n: int, cells: int, options: Any) -> int:
        """Rough peak bytes of a simulated run in one process (commands refuse a run that
        cannot fit)."""

    def messages_from_parties(self, public: Any, n: int) -> int:
        """What the ``n`` data parties of the run of ``public`` send party 0 without dropouts
        (default: one message per data party and step)."""
        return len(self.steps) * n

    def coordinator_messages(self, public: Any, n: int) -> int:
        """What party 0 receives in a run among ``n`` data parties without dropouts (the total
        of an outer protocol's progress bar; default: the data parties' messages,
        :meth:`messages_from_parties`)."""
        return self.messages_from_parties(public, n)

    # -- options ------------------------------------------------------------------------------
    def fit_options(self, options: Any, n: int) -> Any:
        """``options`` for a run among ``n`` parties (e.g. a graph degree lowered to ``n - 1``
        for a small RRBA block); default: as given."""
        return options

    def options_for(
        self, options: Any, n: int, *, one_hot_blocks: tuple[int, ...] | None = None,
        empty_blocks: bool = False,
    ) -> Any:  # fmt: skip
        """``options`` parsed and fitted to a run among ``n`` data parties whose inputs are
        one-hot in each of ``one_hot_blocks`` (with ``empty_blocks``: at most one 1 in each),
        when given and the protocol proves its inputs valid (:class:`ValidityProofs`)."""
        parsed = self.parse_options(options)
        if one_hot_blocks is not None:
            parsed = self.one_hot_options(parsed, tuple(one_hot_blocks), empty=empty_blocks)
        return self.fit_options(parsed, n)

    def one_hot_options(self, options: Any, blocks: tuple[int, ...], *, empty: bool = False) -> Any:
        """``options`` parsed for inputs one-hot in each of ``blocks`` (``empty``: or all zero
        there), without fitting them to a run (:meth:`options_for` does both): a protocol that
        proves its inputs valid (:class:`ValidityProofs`) proves exactly that."""
        parsed = self.parse_options(options)
        if not isinstance(self, ValidityProofs):
            return parsed
        return self.for_one_hot_blocks(parsed, tuple(int(b) for b in blocks), empty=empty)

    # -- what it hides and what it proves ----------------------------------------------------------
    def trust(self, options: Any, n: int, max_corrupt: float | None) -> SumTrust:
        """The coalition a run among ``n`` clients with parsed ``options`` hides inputs against
        (``max_corrupt``: the colluding fraction to assume; ``None``: the protocol's own);
        default: nothing is hidden (a reference without privacy overrides nothing else)."""
        f = DEFAULT_MAX_CORRUPT if max_corrupt is None else float(max_corrupt)
        return SumTrust(self.name, int(n), f, colluders_in(f, n), 0, "nothing is hidden",
                        f"none: party 0 of {self.name} sees every input")  # fmt: skip

    def trust_of(self, options: Any, n: int, max_corrupt: float | None = None) -> SumTrust:
        """:meth:`trust` of ``options`` parsed, labelled with this protocol's name."""
        return dataclasses.replace(self.trust(self.parse_options(options), int(n), max_corrupt),
                                   protocol=self.name)  # fmt: skip

    def validity(self, public: Any) -> str:
        """What the run of ``public`` proves of each input (a validity circuit); default:
        nothing (:data:`~mpc_rr.secure_sum.NO_VALIDITY`)."""
        return NO_VALIDITY

    def validity_of(self, public: Any) -> str:
        """:meth:`validity` as a string."""
        return str(self.validity(public))

    # -- what every sum protocol shares ----------------------------------------------------------
    def make_role(self, party_id: int, n_parties: int, seed: int, params: Mapping[str, Any]) -> Role:
        """One party's role in a deployment (:func:`~mpc_rr.secure_sum.make_sum_role`: a
        random one-hot input derived from ``seed``; secrets from the OS)."""
        from mpc_rr.secure_sum._plan import make_sum_role

        return make_sum_role(self, party_id, n_parties, seed, params)

    def deployment_input(self, party_id: int, seed: int, cells: int) -> np.ndarray:
        """The input :meth:`make_role` gives data party ``party_id`` of a deployment seeded with
        ``seed`` (default: a one-hot vector, :func:`~mpc_rr.secure_sum.party_input`), so any
        process can compute the total a deployment must reach."""
        from mpc_rr.secure_sum._plan import party_input

        return party_input(party_id, seed, cells)

    def result_of(self, role: Role) -> SumResult:
        """The :class:`~mpc_rr.secure_sum.SumResult` ``role`` ended with (raises its
        :class:`~mpc_rr.core.ProtocolAbort` if it aborted)."""
        result: SumResult = role.result
        return result

    def first_party(self) -> int:
        """0 when party 0 takes part, else 1."""
        return 0 if self.coordinator else 1


@runtime_checkable
class StatelessPrechecks(Protocol):
    """A protocol whose party 0 has checks of one incoming message that need no state."""

    def precheck(self, public: Any) -> Callable[[int, Message], bool]:
        """``check(src, msg) -> bool`` for the run of ``public`` (signatures, hashes), which a
        trusted co-worker of party 0 may run before delivery
        (:meth:`~mpc_rr.core.RolePlan.prechecks`)."""
        ...


@runtime_checkable
class ValidityProofs(Protocol):
    """A protocol that proves each input valid, and can prove exactly a one-hot layout."""

    def for_one_hot_blocks(self, options: Any, blocks: tuple[int, ...], *, empty: bool = False) -> Any:
        """``options`` for a run whose every input is one-hot in each block of ``blocks``
        cells (``empty``: or all zero there) -- the pipeline's pair cells, RRBA's tables."""
        ...


@runtime_checkable
class DeploymentKeys(Protocol):
    """A protocol that needs deployment secrets (``mpc-rr keys init``)."""

    def deployment_keys(self, folder: Path) -> Mapping[str, Any]:
        """Write the deployment's secrets into ``folder``; return the parameters every party
        is given and a note of where to copy which file."""
        ...


@runtime_checkable
class DistributedNoise(Protocol):
    """A protocol whose sum can carry distributed noise (:mod:`mpc_rr.secure_sum._noisy_sum`).

    Each client sends ``x + clip(z, -c, c) + c``: its own input plus its share of the noise,
    clipped and offset into ``[0, max_value + 2c]``, an ordinary input of the protocol.  The
    protocol sums such inputs exactly -- its modulus exceeds ``n (max_value + 2c)``, so the
    noisy sum never wraps -- and states the worst case the noise must be calibrated for: the
    most clients a completed run can leave out and the most that may collude with whoever
    learns the total (they know their own noise).
    """

    def noise_bounds(self, options: Any, n: int) -> tuple[int, int]:
        """``(dropouts, colluders)`` of a run among ``n`` data parties with parsed ``options``:
        the most data parties a run that delivers a total can leave out, and the most that may
        collude with party 0 (:meth:`SumProtocol.trust`'s colluders)."""
        ...

    def noisy_modulus(self, public: Any) -> int | None:
        """The modulus the run of ``public`` sums in (``None``: the integers); it exceeds ``n``
        times the run's ``max_value``."""
        ...


_CAPABILITIES = ("precheck", "for_one_hot_blocks", "deployment_keys", "noise_bounds", "noisy_modulus")


class _WithRoles(SumProtocol):
    """``base`` whose roles ``role`` builds (:func:`with_roles`)."""

    def __init__(self, base: SumProtocol, role: Callable[..., Role], name: str | None) -> None:
        self.base = base
        self._role = role
        self.name = base.name if name is None else name
        for attr in ("summary", "steps", "options", "coordinator", "total_at_coordinator",
                     "input_step", "run_label", "hides_inputs"):  # fmt: skip
            setattr(self, attr, getattr(base, attr))
        for cap in _CAPABILITIES:  # what the base can do, this can (isinstance checks see it)
            if hasattr(base, cap):
                setattr(self, cap, getattr(base, cap))
        super().__init__()

    def public(self, n: int, cells: int, *, run: str, max_value: int = 1, options: Any = None) -> SumPublic:
        return self.base.public(n, cells, run=run, max_value=max_value, options=options)

    def role(
        self, party_id: int, public: Any, x: np.ndarray | None, *, entropy: Entropy | None = None,
        identity: Identity | None = None,
    ) -> Role:  # fmt: skip
        return self._role(party_id, public, x, entropy=entropy, identity=identity)

    def message_types(self) -> tuple[type[Message], ...]:
        return self.base.message_types()

    def step_messages(self) -> Mapping[str, DropPoint]:
        return self.base.step_messages()

    def message_count(self, n: int, options: Any) -> int:
        return self.base.message_count(n, options)

    def message_bound(self, n: int, options: Any) -> int:
        return self.base.message_bound(n, options)

    def memory_estimate(self, n: int, cells: int, options: Any) -> int:
        return self.base.memory_estimate(n, cells, options)

    def messages_from_parties(self, public: Any, n: int) -> int:
        return self.base.messages_from_parties(public, n)

    def coordinator_messages(self, public: Any, n: int) -> int:
        return self.base.coordinator_messages(public, n)

    def fit_options(self, options: Any, n: int) -> Any:
        return self.base.fit_options(options, n)


def with_roles(base: SumProtocol, role: Callable[..., Role], *, name: str | None = None) -> SumProtocol:
    """``base`` with its roles built by ``role(party_id, public, x, *, entropy, identity)``
    instead (an adversary's or a test's hostile party; ``name``: register it under another
    name).  Everything else -- public parameters, messages, costs, capabilities -- is ``base``'s."""
    return _WithRoles(base, role, name)
