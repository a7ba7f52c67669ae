"""The plaintext sum as a sum protocol (import-light): the no-privacy reference."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
from msgspec import Meta

from mpc_rr.secure_sum._protocol import SumProtocol, SumPublic

if TYPE_CHECKING:
    import numpy as np

    from mpc_rr.core import DropPoint, Message, Role
    from mpc_rr.secure_sum._entropy import Entropy
    from mpc_rr.secure_sum._identity import Identity

__all__ = ["SPEC", "PlainSumOptions", "PlainSumProtocol"]


class PlainSumOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """The plaintext sum's one option."""

    proceed_on_timeout: Annotated[
        bool, Meta(description="at its deadline the hub sums the clients that answered (else it aborts)")
    ] = False


class PlainSumProtocol(SumProtocol):
    """The plaintext sum through a hub (:mod:`~mpc_rr.secure_sum.plainsum._roles`)."""

    name = "plainsum"
    summary = "plaintext sum through a hub: no privacy at all (the reference every other sum is measured against)"
    steps = ("value",)
    options = PlainSumOptions
    run_label = ""
    hides_inputs = False

    def public(self, n: int, cells: int, *, run: str, max_value: int = 1, options: Any = None) -> SumPublic:
        from mpc_rr.secure_sum.plainsum import _roles

        return _roles.public(n, cells, run=run, max_value=max_value, options=options)

    def role(
        self, party_id: int, public: Any, x: np.ndarray | None, *, entropy: Entropy | None = None,
        identity: Identity | None = None,
    ) -> Role:  # fmt: skip
        from mpc_rr.secure_sum.plainsum import _roles

        return _roles.role(party_id, public, x, entropy=entropy, identity=identity)

    def make_role(self, party_id: int, n_parties: int, seed: int, params: Mapping[str, Any]) -> Role:
        """Its own input recipe (random integers in ``[0, 100)``, ``mpc-rr ping``)."""
        from mpc_rr.secure_sum.plainsum import _roles

        return _roles.make_role(party_id, n_parties, seed, params)

    def deployment_input(self, party_id: int, seed: int, cells: int) -> np.ndarray:
        """Random integers in ``[0, 100)`` (:func:`~mpc_rr.secure_sum.plainsum.client_input`)."""
        from mpc_rr.secure_sum.plainsum import _roles

        return _roles.client_input(party_id, seed, cells)

    def noise_bounds(self, options: Any, n: int) -> tuple[int, int]:
        """Distributed noise (for reference: the hub sees every input, so a party's central
        guarantee is its own noise): no client may be missing unless ``proceed_on_timeout``
        (then all but one); colluders as :meth:`trust` counts them."""
        missing = int(n) - 1 if getattr(options, "proceed_on_timeout", False) else 0
        return missing, self.trust_of(options, n).colluders

    def noisy_modulus(self, public: Any) -> int | None:
        """None: the hub adds int64 vectors."""
        return None

    def message_types(self) -> tuple[type[Message], ...]:
        from mpc_rr.secure_sum.plainsum import _roles

        return _roles.messages()

    def step_messages(self) -> Mapping[str, DropPoint]:
        from mpc_rr.secure_sum.plainsum import _roles

        return _roles.step_messages()

    def message_count(self, n: int, options: Any) -> int:
        return 2 * n  # a value from each client, the total back to each

    def memory_estimate(self, n: int, cells: int, options: Any) -> int:
        return 3 * n * cells * 8  # every input and every copy of the total, int64


SPEC = PlainSumProtocol()
