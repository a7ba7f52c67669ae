"""Prio3 as a sum protocol: its options and its protocol class (import-light)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
from msgspec import Meta

from mpc_rr.secure_sum._protocol import SumProtocol, SumPublic

if TYPE_CHECKING:
    import numpy as np

    from mpc_rr.core import DropPoint, Message, Role
    from mpc_rr.secure_sum._entropy import Entropy
    from mpc_rr.secure_sum._identity import Identity
    from mpc_rr.secure_sum._trust import SumTrust

__all__ = ["SPEC", "Prio3Options", "Prio3Protocol", "for_one_hot_blocks"]


class Prio3Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Prio3's options: the validity circuit, the field, the proofs, and test clients that cheat."""

    circuit: Annotated[
        Literal["auto", "sumvec", "histogram", "multihot", "blocks", "blocks-or-empty"],
        Meta(description="validity circuit: sumvec (every cell in [0, max]), histogram (one-hot), "
             "multihot (0/1, weight <= --max-weight), blocks (one-hot in each of --blocks), "
             "blocks-or-empty (at most one 1 in each of --blocks); auto: the blocks circuit the "
             "caller knows its inputs satisfy (the pipeline's pair cells: blocks; RRBA's tables: "
             "blocks-or-empty; one-hot counts: histogram), else sumvec"),
    ] = "auto"  # fmt: skip
    blocks: (
        Annotated[
            tuple[Annotated[int, Meta(ge=1)], ...],
            Meta(min_length=1, description="blocks: the cells of each one-hot block, in order (e.g. 4,6,2)"),
        ]
        | Annotated[str, Meta(pattern="^[1-9][0-9]*(,[1-9][0-9]*)*$")]
        | None
    ) = None
    field: Annotated[
        Literal["field128", "field64"],
        Meta(
            description="field64 (3 proofs, draft Sec. 9.7: the faster, smaller default) or field128 (1 proof, the draft's registered variants)"
        ),
    ] = "field64"
    proofs: (
        Annotated[int, Meta(ge=1, lt=256, description="number of proofs (default 1, field64: 3)")]
        | None
    ) = None
    chunk_length: (
        Annotated[int, Meta(ge=1, description="ParallelSum chunk (default ~sqrt of the encoding)")]
        | None
    ) = None
    max_weight: (
        Annotated[int, Meta(ge=1, description="multihot: largest number of ones (default cells)")]
        | None
    ) = None
    helper_key: (
        Annotated[
            str,
            Meta(pattern="^[0-9a-fA-F]{64}$",
                 description="the helper's X25519 public key (hex), pinned by the deployment; "
                 "default: a simulation's key, pinned in this process's run parameters"),
        ]
        | None
    ) = None  # fmt: skip
    helper_secret: (
        Annotated[str, Meta(description="party 1 only: path of the helper's raw 32-byte X25519 private key")]
        | None
    ) = None
    invalid: Annotated[
        int,
        Meta(ge=0, description="the last K clients submit out-of-range reports (a poisoning test)"),
    ] = 0
    min_batch: (
        Annotated[
            int,
            Meta(ge=1, description="fewest accepted reports the helper releases an aggregate over "
                 "(DAP's min_batch_size; default max(2, ceil(n/2)), at most n): a leader that drops "
                 "all but a target's report learns nothing"),
        ]
        | None
    ) = None  # fmt: skip


def for_one_hot_blocks(
    options: Prio3Options, blocks: tuple[int, ...], *, empty: bool = False
) -> Prio3Options:
    """The options of a run whose inputs are one-hot in each block (``empty``: or all zero in
    it) -- ``auto`` proves exactly that (one block: Prio3Histogram, the draft's own)."""
    if options.circuit != "auto" or options.blocks is not None:
        return options
    if len(blocks) == 1 and not empty:
        return msgspec.structs.replace(options, circuit="histogram")
    circuit = "blocks-or-empty" if empty else "blocks"
    return msgspec.structs.replace(options, circuit=circuit, blocks=tuple(int(b) for b in blocks))


class Prio3Protocol(SumProtocol):
    """Prio3 (:mod:`~mpc_rr.secure_sum.prio3._roles`): it proves its inputs valid, needs a
    deployment key (the helper's) and its sum carries distributed noise."""

    name = "prio3"
    summary = ("Prio3 (draft-irtf-cfrg-vdaf-20): a leader and a helper aggregator check each "
               "client's validity proof on secret shares; invalid reports are rejected and named")  # fmt: skip
    steps = ("report",)
    options = Prio3Options
    ledger_channel = "prio3"  # two aggregators: its own channel in the ledger
    max_modulus = 2**64 - 2**32 + 1  # Field64's prime (Field128 goes further)
    run_label = "prio3-{seed}"

    def public(self, n: int, cells: int, *, run: str, max_value: int = 1, options: Any = None) -> SumPublic:
        from mpc_rr.secure_sum.prio3 import _roles

        return _roles.public(n, cells, run=run, max_value=max_value, options=options)

    def role(
        self, party_id: int, public: Any, x: np.ndarray | None, *, entropy: Entropy | None = None,
        identity: Identity | None = None,
    ) -> Role:  # fmt: skip
        from mpc_rr.secure_sum.prio3 import _roles

        return _roles.role(party_id, public, x, entropy=entropy, identity=identity)

    def message_types(self) -> tuple[type[Message], ...]:
        from mpc_rr.secure_sum.prio3 import _roles

        return _roles.messages()

    def step_messages(self) -> Mapping[str, DropPoint]:
        from mpc_rr.secure_sum.prio3 import _roles

        return _roles.step_messages()

    def message_count(self, n: int, options: Any) -> int:
        from mpc_rr.secure_sum.prio3 import _roles

        return _roles.message_count(n, options)

    def memory_estimate(self, n: int, cells: int, options: Any) -> int:
        from mpc_rr.secure_sum.prio3 import _roles

        return _roles.memory_estimate(n, cells, options)

    def coordinator_messages(self, public: Any, n: int) -> int:
        from mpc_rr.secure_sum.prio3 import _roles

        return _roles.coordinator_messages(public)

    def for_one_hot_blocks(self, options: Any, blocks: tuple[int, ...], *, empty: bool = False) -> Any:
        return for_one_hot_blocks(options, blocks, empty=empty)

    def deployment_keys(self, folder: Path) -> Mapping[str, Any]:
        from mpc_rr.secure_sum.prio3 import _params

        return _params.deployment_keys(folder)

    def noise_bounds(self, options: Any, n: int) -> tuple[int, int]:
        """Distributed noise: the leader aggregates as soon as ``min_batch`` reports are in, so
        up to ``n - min_batch`` clients may be missing; colluders as :meth:`trust` counts them."""
        from mpc_rr.secure_sum.prio3 import _params

        batch = min(int(n), options.min_batch) if options.min_batch is not None else _params.default_min_batch(int(n))
        return int(n) - batch, _params.trust(options, n).colluders

    def noisy_modulus(self, public: Any) -> int | None:
        """The field's prime (Field64's ``2^64 - 2^32 + 1`` or Field128's): the validity circuit
        range-checks each noisy input in ``[0, 2^b)``, ``b`` the bits of ``max_value``."""
        return int(public.vdaf.field.MODULUS)

    def trust(self, options: Any, n: int, max_corrupt: float | None) -> SumTrust:
        from mpc_rr.secure_sum.prio3 import _params

        return _params.trust(options, n, max_corrupt)

    def validity(self, public: Any) -> str:
        from mpc_rr.secure_sum.prio3 import _params

        return _params.input_validity(public)


SPEC = Prio3Protocol()
