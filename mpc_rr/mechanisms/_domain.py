"""The joint domain of a mechanism: validation at the public boundary, in one place.

A mechanism over ``k`` attributes with category counts ``sizes = (n_1, ...,
n_k)`` acts on a joint domain of ``N = prod(sizes)`` cells (C order).  This
module holds the one size validator, the record and count-tensor checks of
the multi-attribute families, and the limit on forming dense ``N x N``
matrices.

The size rule
-------------
``sizes`` is one integer or a non-empty sequence of integers, each at least
1.  **A 1-category attribute is allowed**: it is a constant column (a
:class:`mpc_rr.data.Attribute` may have one category), every mechanism on
it is the ``1 x 1`` identity with epsilon 0, and it reveals nothing; refusing
it would make a constant column in the data fail a release that is
well-defined.  Families whose *definitions* divide by ``n - 1`` or
``log n`` raise the floor to 2 through the same validator and say why
(``min_categories=2, why=...``): λ-randomization (Ruiz's strength
``H(P)/log2 n``) and the difference-pattern mechanisms of Yamamoto & Shibuya
(Eqs. 2-3 divide by ``a_i - 1``).  Integral floats (``3.0``) are accepted as
integers; ``2.5``, booleans, strings and ``nan`` are refused.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import cast

import numpy as np

from mpc_rr.core import UsageError

__all__ = [
    "DENSE_LIMIT",
    "check_codes",
    "check_dense_cells",
    "check_observed",
    "check_record",
    "check_sizes",
]

#: Largest joint domain for which a dense ``N x N`` matrix may be formed.
DENSE_LIMIT = 4096


def _as_int(value: object) -> int | None:
    """``value`` as an int if it is an integer (or an integral float), else ``None``."""
    if isinstance(value, bool | np.bool_):
        return None
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        pass
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return int(value)
    return None


def check_sizes(
    sizes: Sequence[int] | int,
    *,
    name: str = "sizes",
    min_categories: int = 1,
    why: str = "",
) -> tuple[int, ...]:
    """Validate category counts and return them as a tuple of ints.

    Parameters
    ----------
    sizes:
        One integer (a single attribute) or a non-empty sequence of integers.
    name:
        Parameter name used in error messages.
    min_categories:
        Fewest categories per attribute: 1 (the rule, see the module
        docstring) or 2 for a family that needs it.
    why:
        Reason shown in the message when ``min_categories > 1``.

    Raises
    ------
    UsageError
        Naming the parameter (and the entry), the rule and the value received.
    """
    if isinstance(sizes, str | bytes | bool | np.bool_):
        raise UsageError(f"{name} must be an integer or a sequence of integers, got {sizes!r}")
    single = _as_int(sizes) if not isinstance(sizes, Sequence | np.ndarray) else None
    if single is not None:
        items: tuple[object, ...] = (single,)
    else:
        try:
            items = tuple(sizes)  # type: ignore[arg-type]
        except TypeError:
            raise UsageError(
                f"{name} must be an integer or a sequence of integers, got {sizes!r}"
            ) from None
    if not items:
        raise UsageError(f"{name} must name at least one attribute, got {sizes!r}")
    if all(type(v) is int for v in items):  # the common case, at C speed
        plain = cast(tuple[int, ...], items)
        if min(plain) >= min_categories:
            return plain
    out = []
    for i, value in enumerate(items):
        where = name if single is not None else f"{name}[{i}]"
        n = _as_int(value)
        if n is None:
            raise UsageError(f"{where} must be an integer number of categories, got {value!r}")
        if n < min_categories:
            unit = "category" if min_categories == 1 else "categories"
            reason = f" ({why})" if why and min_categories > 1 else ""
            raise UsageError(f"{where} must be at least {min_categories} {unit}{reason}, got {n}")
        out.append(n)
    return tuple(out)


def check_dense_cells(sizes: tuple[int, ...]) -> int:
    """Return ``N = prod(sizes)`` if a dense ``N x N`` matrix may be formed, else refuse."""
    n_cells = math.prod(sizes)
    if n_cells > DENSE_LIMIT:
        raise UsageError(
            f"a dense matrix is only formed for joint domains of at most {DENSE_LIMIT} cells; "
            f"sizes {sizes} give {n_cells}"
        )
    return n_cells


def check_codes(codes: np.ndarray, sizes: tuple[int, ...]) -> np.ndarray:
    """Validate a record array for ``perturb``; return it as a 2-D ``(n, k)`` view.

    Accepts ``(n, k)``, or ``(n,)`` when ``k == 1``.
    """
    arr = np.asarray(codes)
    k = len(sizes)
    if not np.issubdtype(arr.dtype, np.integer):
        raise UsageError(f"codes must be an integer array, got dtype {arr.dtype}")
    if arr.ndim == 1 and k == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[1] != k:
        raise UsageError(f"codes must have shape (n, {k}) for sizes {sizes}, got {arr.shape}")
    if arr.size:
        lo = arr.min(axis=0)
        hi = arr.max(axis=0)
        for j in range(k):
            if lo[j] < 0 or hi[j] >= sizes[j]:
                raise UsageError(
                    f"codes[:, {j}] must lie in [0, {sizes[j]}), got values in [{lo[j]}, {hi[j]}]"
                )
    return arr


def check_record(record: np.ndarray, sizes: tuple[int, ...], who: str) -> np.ndarray:
    """One party's record: ``len(sizes)`` integer codes, each in ``[0, size)``; as int64.

    ``who`` names the party in the error (e.g. ``"party 3"``).
    """
    rec = np.asarray(record)
    if (
        rec.shape != (len(sizes),)
        or not np.issubdtype(rec.dtype, np.integer)
        or (rec < 0).any()
        or (rec >= np.asarray(sizes)).any()
    ):
        raise UsageError(f"{who}: record {rec.tolist()} does not fit the attribute sizes {sizes}")
    return rec.astype(np.int64)


def check_observed(observed: np.ndarray, sizes: tuple[int, ...]) -> np.ndarray:
    """Validate an observed count/proportion tensor of shape ``sizes``; return float64."""
    arr = np.asarray(observed, dtype=float)
    if arr.shape != sizes:
        raise UsageError(f"observed must have shape {sizes} (the joint domain), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise UsageError("observed must be finite")
    return arr
