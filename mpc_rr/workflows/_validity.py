"""What each phase of a run proves of a client's input: ``validity`` in every ``results.json``.

A phase whose reports travel directly is range-checked by whoever receives them (a code
outside its domain is refused and its sender named); a client can still report any value of
the domain -- what randomized response bounds.  A phase summed by a sum protocol states the
protocol's own (:meth:`~mpc_rr.secure_sum.SumProtocol.validity_of`): ``"none: one client can set
any count"`` for SecAgg+, the full mesh and the plaintext sum, or what Prio3's circuit proves
(the pipeline's pair cells: one one-hot block per attribute pair).  docs/secure_aggregation.md
compares the two trust models.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from mpc_rr.pipeline import PipelineConfig

__all__ = ["DIRECT_VALIDITY", "pipeline_validity", "rrba_validity", "sum_validity", "validity_lines"]

DIRECT_VALIDITY = (
    "each report is one value of its domain, range-checked by the receiver (a value outside it is "
    "refused and its sender named); a client can still report any value of the domain"
)


def sum_validity(
    protocol: str, options: Mapping[str, Any] | Any, n: int, blocks: tuple[int, ...], *, empty: bool = False
) -> str:
    """What ``protocol`` proves of inputs one-hot in each of ``blocks`` (``empty``: or all zero
    there) among ``n`` clients -- the circuit the run itself would use."""
    from mpc_rr.secure_sum import sum_protocol

    spec = sum_protocol(protocol)
    if spec.validity is None:  # nothing proved, whatever the parameters (no public to build)
        return spec.validity_of(None)
    opts = spec.options_for(options, n, one_hot_blocks=blocks, empty_blocks=empty)
    pub = spec.public(n, int(sum(blocks)), run="validity", max_value=1, options=opts)
    return spec.validity_of(pub)


def _entry(phase: str, protocol: str | None, validity: str) -> dict[str, Any]:
    return {"phase": phase, "protocol": protocol, "validity": validity}


def pipeline_validity(cfg: PipelineConfig) -> list[dict[str, Any]]:
    """Per phase of a pipeline run: its name (as the ledger's), the sum protocol and the validity."""
    if cfg.dependence == "rr":
        dep = _entry("dependence (4.1 rr)", None, DIRECT_VALIDITY)
    else:
        from mpc_rr.pipeline._dependence import dependence_public, dependence_sum

        pub = dependence_public(cfg)
        text = dependence_sum(cfg).validity_of(pub)
        if text.startswith("one-hot"):  # a one-hot proof over the pair cells: one block per pair
            pairs = len(cfg.sizes) * (len(cfg.sizes) - 1) // 2
            text = f"one one-hot block per attribute pair ({pairs} pairs), proved" + text.split("proved", 1)[1]
        name = "dependence (4.2 sum)" if cfg.dependence == "secure-sum" else "dependence (4.3 pairs)"
        dep = _entry(name, cfg.sum_protocol, text)
    return [dep, _entry("release (clusters)", None, DIRECT_VALIDITY)]


def rrba_validity(
    run: Any, secure_tally: bool, sum_protocol: str, sum_options: Mapping[str, Any] | None,
    noisy: Any = None,
) -> list[dict[str, Any]]:  # fmt: skip
    """RRBA's one phase: direct answers are checked one by one; a secure tally proves what its sum
    protocol proves, and the aggregator checks each table's total in the block (not when the
    tally carries distributed noise -- ``noisy``, the public parameters of a noisy block tally:
    its totals are noisy, and a proving sum proves only each noisy input's range)."""
    if not secure_tally:
        return [_entry("rrba answers", None, DIRECT_VALIDITY)]
    from mpc_rr.secure_sum._family import given_options

    tables = tuple(int(c) for c in np.asarray(run.index.layout.cells))
    block = max(2, int(run.options.get("block", 2)))
    if noisy is not None:
        from mpc_rr.secure_sum import sum_protocol as protocol_named

        text = protocol_named(sum_protocol).validity_of(noisy)
        return [_entry("rrba answers", sum_protocol, text + "; the tally carries distributed noise, so "
                       "no table's total can be checked")]  # fmt: skip
    text = sum_validity(sum_protocol, given_options(dict(sum_options or {})), block, tables, empty=True)
    return [_entry("rrba answers", sum_protocol, text + "; the aggregator checks each table's total in "
                   "the block (a mismatch loses the block, its sender unnamed)")]  # fmt: skip


def validity_lines(entries: list[dict[str, Any]]) -> list[str]:
    """The printed summary's lines."""
    out = ["input validity (what each phase proves of a client's input):"]
    for e in entries:
        via = f" via {e['protocol']}" if e["protocol"] else ""
        out.append(f"  {e['phase']}{via}: {e['validity']}")
    return out
