"""SecAgg+ as a sum protocol: its options and its protocol class (import-light)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
from msgspec import Meta

from mpc_rr.secure_sum._protocol import SumProtocol, SumPublic

if TYPE_CHECKING:
    import numpy as np

    from mpc_rr.core import DropPoint, Message, Role
    from mpc_rr.secure_sum._entropy import Entropy
    from mpc_rr.secure_sum._identity import Identity
    from mpc_rr.secure_sum._trust import SumTrust

__all__ = ["SPEC", "SecAggOptions", "SecAggProtocol"]


class SecAggOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """SecAgg+'s options (``None``: the documented default, sized from the other bounds).

    The one list of SecAgg+'s parameters: the secure-sum command's flags, the
    scenario fields and the pipeline's and RRBA's sum options all read it.
    """

    max_dropout: Annotated[
        float, Meta(ge=0, lt=1, description="tolerated fraction of parties that drop out (default 0.1)")
    ] | None = None
    max_corrupt: Annotated[
        float,
        Meta(
            ge=0, lt=1,
            description="tolerated fraction of parties colluding with the aggregator (default 0.1): "
            "the threshold exceeds what such a coalition holds of any neighbourhood, and the default "
            "degree grows until both bounds hold",
        ),
    ] | None = None  # fmt: skip
    degree: Annotated[int, Meta(ge=1, description="graph degree k (at most n-1)")] | None = None
    threshold: Annotated[int, Meta(ge=1, description="Shamir threshold t")] | None = None
    failure: Annotated[
        float, Meta(gt=0, lt=1, description="failure target of the threshold and of the consistency committee (default 1e-6)")
    ] | None = None


class SecAggProtocol(SumProtocol):
    """SecAgg+ (:mod:`~mpc_rr.secure_sum.secagg._roles`): its aggregator's signature checks are
    stateless prechecks, and its sum carries distributed noise."""

    name = "secagg"
    summary = ("SecAgg+ (Bell et al. 2020): pairwise masks over a sparse graph, Shamir-shared "
               "seeds, dropouts tolerated in every step")  # fmt: skip
    steps = ("keys", "shares", "masked", "consistency", "unmask")
    options = SecAggOptions
    public_draws = True  # the neighbour graph and the consistency committee, drawn jointly
    max_modulus = 2**32
    run_label = "secagg-{seed}"
    input_step = "masked"

    def public(self, n: int, cells: int, *, run: str, max_value: int = 1, options: Any = None) -> SumPublic:
        from mpc_rr.secure_sum.secagg import _roles

        return _roles.public(n, cells, run=run, max_value=max_value, options=options)

    def role(
        self, party_id: int, public: Any, x: np.ndarray | None, *, entropy: Entropy | None = None,
        identity: Identity | None = None,
    ) -> Role:  # fmt: skip
        from mpc_rr.secure_sum.secagg import _roles

        return _roles.role(party_id, public, x, entropy=entropy, identity=identity)

    def message_types(self) -> tuple[type[Message], ...]:
        from mpc_rr.secure_sum.secagg import _roles

        return _roles.messages()

    def step_messages(self) -> Mapping[str, DropPoint]:
        from mpc_rr.secure_sum.secagg import _roles

        return _roles.step_messages()

    def message_count(self, n: int, options: Any) -> int:
        from mpc_rr.secure_sum.secagg import _roles

        return _roles.message_count(n, options)

    def message_bound(self, n: int, options: Any) -> int:
        """Up to ``MAX_RETRIES`` restarts without a proven culprit: each attempt at most the
        fault-free count plus one restart notice and one verifiable-share batch per party."""
        from mpc_rr.secure_sum.secagg._messages import MAX_RETRIES

        return (MAX_RETRIES + 1) * (self.message_count(n, options) + 2 * (n + 1))

    def memory_estimate(self, n: int, cells: int, options: Any) -> int:
        from mpc_rr.secure_sum.secagg import _roles

        return _roles.memory_estimate(n, cells, options)

    def messages_from_parties(self, public: Any, n: int) -> int:
        from mpc_rr.secure_sum.secagg import _roles

        return _roles.party_messages(public, n)

    def fit_options(self, options: Any, n: int) -> Any:
        from mpc_rr.secure_sum.secagg import _roles

        return _roles.fit_options(options, n)

    def precheck(self, public: Any) -> Callable[[int, Message], bool]:
        """The aggregator's stateless checks (signatures) of the run of ``public``."""
        from mpc_rr.secure_sum.secagg import _roles

        return _roles.precheck(public)

    def noise_bounds(self, options: Any, n: int) -> tuple[int, int]:
        """Distributed noise: the run completes without up to ``floor(max_dropout n)`` clients
        and hides inputs against ``floor(max_corrupt n)`` colluders (the bounds its threshold
        is sized for, defaults filled in as :meth:`public` fills them)."""
        from mpc_rr.secure_sum.secagg import _params, _roles

        config = _roles.public(n, 1, run="noise-bounds", options=options).config
        return _params.parties_in(config.max_dropout, n), _params.parties_in(config.max_corrupt, n)

    def noisy_modulus(self, public: Any) -> int | None:
        """The run's modulus ``R`` (the power of two above ``n max_value``, at most ``2^32``)."""
        return int(public.config.modulus)

    def trust(self, options: Any, n: int, max_corrupt: float | None) -> SumTrust:
        """The coalition SecAgg+ hides inputs against: the server with at most
        ``max_corrupt`` (its own option by default) of the clients."""
        from mpc_rr.secure_sum.secagg import _params

        return _params.trust(options, n, max_corrupt)


SPEC = SecAggProtocol()
