"""Prio3 (draft-irtf-cfrg-vdaf-20): two-aggregator secure sum with validity proofs.

* :mod:`mpc_rr.secure_sum.prio3._field` -- Field64 (exact uint64) and Field128.
* :mod:`mpc_rr.secure_sum.prio3._xof` -- XofTurboShake128.
* :mod:`mpc_rr.secure_sum.prio3._flp` -- the FLP of BBCGGI19 and its gadgets.
* :mod:`mpc_rr.secure_sum.prio3._circuits` -- Count, Sum, SumVec, Histogram, MultihotCountVec.
* :mod:`mpc_rr.secure_sum.prio3._vdaf` -- Prio3 itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core import lazy_exports

__all__ = [
    "BATCH",
    "HELPER",
    "PRIO3_MESSAGES",
    "SEED_SIZE",
    "SPEC",
    "AggregationJob",
    "Count",
    "Field",
    "Field64",
    "Field128",
    "Flp",
    "Gadget",
    "HelperKey",
    "Histogram",
    "InvalidReport",
    "JobResponse",
    "Mul",
    "MultihotCountVec",
    "OneHotBlocks",
    "ParallelSum",
    "PolyEval",
    "Prio3",
    "Prio3Client",
    "Prio3Leader",
    "Prio3Options",
    "Prio3Public",
    "Prio3Result",
    "Prio3Total",
    "Report",
    "Sum",
    "SumVec",
    "Valid",
    "VerifyState",
    "XofTurboShake128",
    "block_sums",
    "build_vdaf",
    "decode_range_checked",
    "default_chunk",
    "encode_range_checked",
    "encode_range_checked_int",
    "finish_report",
    "for_one_hot_blocks",
    "format_dst",
    "gadget_poly_len",
    "lagrange_eval",
    "next_power_of_2",
    "poison_vector",
    "powers",
    "prio3_variant",
    "public",
    "role",
    "seal_key",
    "verify_batches",
    "wire_poly_len",
]

_HOME = {
    "AggregationJob": "mpc_rr.secure_sum.prio3._messages",
    "BATCH": "mpc_rr.secure_sum.prio3._vdaf",
    "Count": "mpc_rr.secure_sum.prio3._circuits",
    "Field": "mpc_rr.secure_sum.prio3._field",
    "Field128": "mpc_rr.secure_sum.prio3._field",
    "Field64": "mpc_rr.secure_sum.prio3._field",
    "Flp": "mpc_rr.secure_sum.prio3._flp",
    "Gadget": "mpc_rr.secure_sum.prio3._flp",
    "HELPER": "mpc_rr.secure_sum.prio3._roles",
    "HelperKey": "mpc_rr.secure_sum.prio3._messages",
    "Histogram": "mpc_rr.secure_sum.prio3._circuits",
    "InvalidReport": "mpc_rr.secure_sum.prio3._vdaf",
    "JobResponse": "mpc_rr.secure_sum.prio3._messages",
    "Mul": "mpc_rr.secure_sum.prio3._flp",
    "MultihotCountVec": "mpc_rr.secure_sum.prio3._circuits",
    "OneHotBlocks": "mpc_rr.secure_sum.prio3._circuits",
    "PRIO3_MESSAGES": "mpc_rr.secure_sum.prio3._messages",
    "ParallelSum": "mpc_rr.secure_sum.prio3._flp",
    "PolyEval": "mpc_rr.secure_sum.prio3._flp",
    "Prio3": "mpc_rr.secure_sum.prio3._vdaf",
    "Prio3Client": "mpc_rr.secure_sum.prio3._roles",
    "Prio3Leader": "mpc_rr.secure_sum.prio3._roles",
    "Prio3Options": "mpc_rr.secure_sum.prio3._spec",
    "Prio3Public": "mpc_rr.secure_sum.prio3._roles",
    "Prio3Result": "mpc_rr.secure_sum.prio3._roles",
    "Prio3Total": "mpc_rr.secure_sum.prio3._messages",
    "Report": "mpc_rr.secure_sum.prio3._messages",
    "SEED_SIZE": "mpc_rr.secure_sum.prio3._xof",
    "SPEC": "mpc_rr.secure_sum.prio3._spec",
    "Sum": "mpc_rr.secure_sum.prio3._circuits",
    "SumVec": "mpc_rr.secure_sum.prio3._circuits",
    "Valid": "mpc_rr.secure_sum.prio3._flp",
    "VerifyState": "mpc_rr.secure_sum.prio3._vdaf",
    "XofTurboShake128": "mpc_rr.secure_sum.prio3._xof",
    "block_sums": "mpc_rr.secure_sum.prio3._circuits",
    "build_vdaf": "mpc_rr.secure_sum.prio3._roles",
    "decode_range_checked": "mpc_rr.secure_sum.prio3._circuits",
    "default_chunk": "mpc_rr.secure_sum.prio3._roles",
    "encode_range_checked": "mpc_rr.secure_sum.prio3._circuits",
    "encode_range_checked_int": "mpc_rr.secure_sum.prio3._circuits",
    "finish_report": "mpc_rr.secure_sum.prio3._vdaf",
    "for_one_hot_blocks": "mpc_rr.secure_sum.prio3._spec",
    "format_dst": "mpc_rr.secure_sum.prio3._xof",
    "gadget_poly_len": "mpc_rr.secure_sum.prio3._flp",
    "lagrange_eval": "mpc_rr.secure_sum.prio3._flp",
    "next_power_of_2": "mpc_rr.secure_sum.prio3._field",
    "poison_vector": "mpc_rr.secure_sum.prio3._roles",
    "powers": "mpc_rr.secure_sum.prio3._flp",
    "prio3_variant": "mpc_rr.secure_sum.prio3._vdaf",
    "public": "mpc_rr.secure_sum.prio3._roles",
    "role": "mpc_rr.secure_sum.prio3._roles",
    "seal_key": "mpc_rr.secure_sum.prio3._roles",
    "verify_batches": "mpc_rr.secure_sum.prio3._vdaf",
    "wire_poly_len": "mpc_rr.secure_sum.prio3._flp",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.secure_sum.prio3._circuits import (
        Count,
        Histogram,
        MultihotCountVec,
        OneHotBlocks,
        Sum,
        SumVec,
        block_sums,
        decode_range_checked,
        encode_range_checked,
        encode_range_checked_int,
    )
    from mpc_rr.secure_sum.prio3._field import (
        Field,
        Field64,
        Field128,
        next_power_of_2,
    )
    from mpc_rr.secure_sum.prio3._flp import (
        Flp,
        Gadget,
        Mul,
        ParallelSum,
        PolyEval,
        Valid,
        gadget_poly_len,
        lagrange_eval,
        powers,
        wire_poly_len,
    )
    from mpc_rr.secure_sum.prio3._messages import (
        PRIO3_MESSAGES,
        AggregationJob,
        HelperKey,
        JobResponse,
        Prio3Total,
        Report,
    )
    from mpc_rr.secure_sum.prio3._roles import (
        HELPER,
        Prio3Client,
        Prio3Leader,
        Prio3Public,
        Prio3Result,
        build_vdaf,
        default_chunk,
        poison_vector,
        public,
        role,
        seal_key,
    )
    from mpc_rr.secure_sum.prio3._spec import (
        SPEC,
        Prio3Options,
        for_one_hot_blocks,
    )
    from mpc_rr.secure_sum.prio3._vdaf import (
        BATCH,
        InvalidReport,
        Prio3,
        VerifyState,
        finish_report,
        prio3_variant,
        verify_batches,
    )
    from mpc_rr.secure_sum.prio3._xof import (
        SEED_SIZE,
        XofTurboShake128,
        format_dst,
    )
