"""Prio3 (draft-irtf-cfrg-vdaf-20): two-aggregator secure sum with validity proofs.

* :mod:`mpc_rr.secure_sum.prio3._field` -- Field64 (exact uint64) and Field128.
* :mod:`mpc_rr.secure_sum.prio3._xof` -- XofTurboShake128.
* :mod:`mpc_rr.secure_sum.prio3._flp` -- the FLP of BBCGGI19 and its gadgets.
* :mod:`mpc_rr.secure_sum.prio3._circuits` -- Count, Sum, SumVec, Histogram, MultihotCountVec.
* :mod:`mpc_rr.secure_sum.prio3._vdaf` -- Prio3 itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core._lazy import lazy_exports

__all__ = [
    "PRIO3_MESSAGES",
    "SPEC",
    "Count",
    "Field64",
    "Field128",
    "Histogram",
    "InvalidReport",
    "MultihotCountVec",
    "Prio3",
    "Prio3Abort",
    "Prio3Client",
    "Prio3Leader",
    "Prio3Options",
    "Prio3Protocol",
    "Prio3Public",
    "Prio3Result",
    "Prio3Total",
    "Report",
    "Sum",
    "SumVec",
    "build_vdaf",
    "default_chunk",
    "default_min_batch",
]

_HOME = {
    "Count": "mpc_rr.secure_sum.prio3._circuits",
    "Histogram": "mpc_rr.secure_sum.prio3._circuits",
    "MultihotCountVec": "mpc_rr.secure_sum.prio3._circuits",
    "Sum": "mpc_rr.secure_sum.prio3._circuits",
    "SumVec": "mpc_rr.secure_sum.prio3._circuits",
    "Field64": "mpc_rr.secure_sum.prio3._field",
    "Field128": "mpc_rr.secure_sum.prio3._field128",
    "Prio3Leader": "mpc_rr.secure_sum.prio3._leader",
    "PRIO3_MESSAGES": "mpc_rr.secure_sum.prio3._messages",
    "Prio3Abort": "mpc_rr.secure_sum.prio3._messages",
    "Prio3Total": "mpc_rr.secure_sum.prio3._messages",
    "Report": "mpc_rr.secure_sum.prio3._messages",
    "Prio3Public": "mpc_rr.secure_sum.prio3._params",
    "Prio3Result": "mpc_rr.secure_sum.prio3._params",
    "build_vdaf": "mpc_rr.secure_sum.prio3._params",
    "default_chunk": "mpc_rr.secure_sum.prio3._params",
    "default_min_batch": "mpc_rr.secure_sum.prio3._params",
    "Prio3Client": "mpc_rr.secure_sum.prio3._roles",
    "Prio3Options": "mpc_rr.secure_sum.prio3._spec",
    "Prio3Protocol": "mpc_rr.secure_sum.prio3._spec",
    "SPEC": "mpc_rr.secure_sum.prio3._spec",
    "InvalidReport": "mpc_rr.secure_sum.prio3._vdaf",
    "Prio3": "mpc_rr.secure_sum.prio3._vdaf",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.secure_sum.prio3._circuits import (
        Count,
        Histogram,
        MultihotCountVec,
        Sum,
        SumVec,
    )
    from mpc_rr.secure_sum.prio3._field import (
        Field64,
    )
    from mpc_rr.secure_sum.prio3._field128 import (
        Field128,
    )
    from mpc_rr.secure_sum.prio3._leader import (
        Prio3Leader,
    )
    from mpc_rr.secure_sum.prio3._messages import (
        PRIO3_MESSAGES,
        Prio3Abort,
        Prio3Total,
        Report,
    )
    from mpc_rr.secure_sum.prio3._params import (
        Prio3Public,
        Prio3Result,
        build_vdaf,
        default_chunk,
        default_min_batch,
    )
    from mpc_rr.secure_sum.prio3._roles import (
        Prio3Client,
    )
    from mpc_rr.secure_sum.prio3._spec import (
        SPEC,
        Prio3Options,
        Prio3Protocol,
    )
    from mpc_rr.secure_sum.prio3._vdaf import (
        InvalidReport,
        Prio3,
    )
