"""Prio3 as a registered sum protocol: its options and its descriptor (import-light)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from mpc_rr.core import lazy
from mpc_rr.secure_sum._family import SumSpec

__all__ = ["SPEC", "Prio3Options", "for_one_hot_blocks"]

_HERE = "mpc_rr.secure_sum.prio3._roles"


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


SPEC = SumSpec(
    name="prio3",
    summary="Prio3 (draft-irtf-cfrg-vdaf-20): a leader and a helper aggregator check each "
    "client's validity proof on secret shares; invalid reports are rejected and named",
    steps=("report",),
    options=Prio3Options,
    public=lazy(f"{_HERE}:public"),
    role=lazy(f"{_HERE}:role"),
    messages=lazy(f"{_HERE}:messages"),
    step_messages=lazy(f"{_HERE}:step_messages"),
    message_count=lazy(f"{_HERE}:message_count"),
    memory_estimate=lazy(f"{_HERE}:memory_estimate"),
    run_label="prio3-{seed}",
    one_hot_blocks=for_one_hot_blocks,
    trust=lazy("mpc_rr.secure_sum.prio3._params:trust"),
    validity=lazy("mpc_rr.secure_sum.prio3._params:input_validity"),
    coordinator_messages=lazy(f"{_HERE}:coordinator_messages"),
    hooks={"deployment_keys": "mpc_rr.secure_sum.prio3:deployment_keys"},
)
