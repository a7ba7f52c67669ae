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
    "SEED_SIZE",
    "Count",
    "Field",
    "Field64",
    "Field128",
    "Flp",
    "Gadget",
    "Histogram",
    "InvalidReport",
    "Mul",
    "MultihotCountVec",
    "ParallelSum",
    "PolyEval",
    "Prio3",
    "Sum",
    "SumVec",
    "Valid",
    "VerifyState",
    "XofTurboShake128",
    "decode_range_checked",
    "encode_range_checked_int",
    "format_dst",
    "gadget_poly_len",
    "lagrange_eval",
    "next_power_of_2",
    "prio3_variant",
    "wire_poly_len",
]

_HOME = {
    "Count": "mpc_rr.secure_sum.prio3._circuits",
    "Field": "mpc_rr.secure_sum.prio3._field",
    "Field128": "mpc_rr.secure_sum.prio3._field",
    "Field64": "mpc_rr.secure_sum.prio3._field",
    "Flp": "mpc_rr.secure_sum.prio3._flp",
    "Gadget": "mpc_rr.secure_sum.prio3._flp",
    "Histogram": "mpc_rr.secure_sum.prio3._circuits",
    "InvalidReport": "mpc_rr.secure_sum.prio3._vdaf",
    "Mul": "mpc_rr.secure_sum.prio3._flp",
    "MultihotCountVec": "mpc_rr.secure_sum.prio3._circuits",
    "ParallelSum": "mpc_rr.secure_sum.prio3._flp",
    "PolyEval": "mpc_rr.secure_sum.prio3._flp",
    "Prio3": "mpc_rr.secure_sum.prio3._vdaf",
    "SEED_SIZE": "mpc_rr.secure_sum.prio3._xof",
    "Sum": "mpc_rr.secure_sum.prio3._circuits",
    "SumVec": "mpc_rr.secure_sum.prio3._circuits",
    "Valid": "mpc_rr.secure_sum.prio3._flp",
    "VerifyState": "mpc_rr.secure_sum.prio3._vdaf",
    "XofTurboShake128": "mpc_rr.secure_sum.prio3._xof",
    "decode_range_checked": "mpc_rr.secure_sum.prio3._circuits",
    "encode_range_checked_int": "mpc_rr.secure_sum.prio3._circuits",
    "format_dst": "mpc_rr.secure_sum.prio3._xof",
    "gadget_poly_len": "mpc_rr.secure_sum.prio3._flp",
    "lagrange_eval": "mpc_rr.secure_sum.prio3._flp",
    "next_power_of_2": "mpc_rr.secure_sum.prio3._field",
    "prio3_variant": "mpc_rr.secure_sum.prio3._vdaf",
    "wire_poly_len": "mpc_rr.secure_sum.prio3._flp",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.secure_sum.prio3._circuits import (
        Count,
        Histogram,
        MultihotCountVec,
        Sum,
        SumVec,
        decode_range_checked,
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
        wire_poly_len,
    )
    from mpc_rr.secure_sum.prio3._vdaf import (
        InvalidReport,
        Prio3,
        VerifyState,
        prio3_variant,
    )
    from mpc_rr.secure_sum.prio3._xof import (
        SEED_SIZE,
        XofTurboShake128,
        format_dst,
    )
