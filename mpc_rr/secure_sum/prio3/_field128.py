"""Field128 of the VDAF draft (draft-irtf-cfrg-vdaf-20, Sec. 6.1) in machine words.

``p = 2^66 * 4611686018427387897 + 1 = 2^128 - 28 * 2^64 + 1``, held exactly in
two uint64 words per element (:data:`DTYPE128`); how a product, a matrix
product and a gadget sum are computed is in :mod:`mpc_rr.secure_sum.prio3._field`'s
docstring (the field's base class, the NTT and Field64 live there).
"""

from __future__ import annotations

import operator
import sys
from typing import Any

import numpy as np

from mpc_rr.secure_sum.prio3._field import (
    _LO32,
    _MASK64,
    _S32,
    Field,
    Vec,
    _gemm,
)

__all__ = ["Field128"]

_P128 = 2**66 * 4611686018427387897 + 1
_P128_HI = np.uint64(_P128 >> 64)  # 2^64 - 28; the low word of p is 1


_ONE = np.uint64(1)
_TWENTY8 = np.uint64(28)
# the limb views below (uint16/uint32 of uint64 words) read the words' bytes in memory order
if sys.byteorder != "little":  # pragma: no cover - every platform numpy ships wheels for
    raise ImportError("Field128's limb views assume a little-endian machine")
#: two little-endian uint64 words per element: the draft's 16-byte encoding, byte for byte
DTYPE128 = np.dtype((np.void, 16))  # unstructured: numpy copies and joins it as plain bytes


def _lo_hi(a: Vec) -> tuple[Vec, Vec]:
    """The low and high words of Field128 elements (views of a contiguous array)."""
    a = np.asarray(a)
    shape = a.shape
    if not (a.ndim and a.flags.c_contiguous):
        a = np.ascontiguousarray(a).reshape(shape or (1,))
    w = a.view("<u8").reshape(*a.shape, 2)
    lo, hi = w[..., 0], w[..., 1]
    return (lo, hi) if a.shape == shape else (lo.reshape(shape), hi.reshape(shape))


def _fold_matrix(rows: int) -> Vec:
    """``E`` (``rows x 4``, float64): ``2^(32 k) = sum_m E[k, m] 2^(32 m) (mod p128)`` with small
    signed integers, from ``2^128 = 28 * 2^64 - 1`` (``p128 = 2^128 - 28 * 2^64 + 1``)."""
    out = np.zeros((rows, 4))
    for k in range(rows):
        coeffs = {k: 1}
        while max(coeffs) >= 4:  # replace the top column c >= 4 by 28 2^(32(c-2)) - 2^(32(c-4))
            c = max(coeffs)
            e = coeffs.pop(c)
            coeffs[c - 2] = coeffs.get(c - 2, 0) + 28 * e
            coeffs[c - 4] = coeffs.get(c - 4, 0) - e
        for m, e in coeffs.items():
            out[k, m] = e
    return out


_FOLD9 = _fold_matrix(9)
assert _FOLD9.tolist() == [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [-1, 0, 28, 0],
                           [0, -1, 0, 28], [-28, 0, 783, 0], [0, -28, 0, 783], [-783, 0, 21896, 0]]

def _offset_columns() -> Vec:
    """A multiple of p128 written in four 32-bit-weighted columns, each in ``[2^47, 2^62)``
    (borrowing ``2^48`` from each higher column):
    added to signed columns of magnitude below ``2^46``, it makes every column non-negative."""
    n = -(-(2**144) // _P128) * _P128
    d = [(n >> (32 * m)) & 0xFFFFFFFF for m in range(3)] + [n >> 96]
    q = [d[0] + 2**48, d[1] + 2**48 - 2**16, d[2] + 2**48 - 2**16, d[3] - 2**16]
    assert sum(x << (32 * m) for m, x in enumerate(q)) == n and all(2**47 <= x < 2**62 for x in q)
    return np.array(q, dtype=np.int64)


_OFFSET = _offset_columns()


def _finish128(cols: Vec) -> Vec:
    """Four signed 32-bit-weighted int64 columns (``|c| < 2^46``, *first* axis) -> elements in
    ``[0, p)`` of the remaining shape.

    Adds a multiple of p (:func:`_offset_columns`), propagates the carries
    (digits below ``2^32``, a top carry ``T < 2^31`` of weight ``2^128``),
    folds ``T 2^128 = T (28 2^64 - 1)``, folds the possible carry out of that
    addition the same way and subtracts p once if needed (the value is below
    ``2^128 < 2 p`` by then).
    """
    c = (cols + _OFFSET.reshape(4, *([1] * (cols.ndim - 1)))).view(np.uint64)
    with np.errstate(over="ignore"):
        c[1] += c[0] >> _S32
        c[2] += c[1] >> _S32
        c[3] += c[2] >> _S32
        t = c[3] >> _S32
        lo = c[1] << _S32
        lo |= c[0] & _LO32
        hi = c[3] << _S32
        hi |= c[2] & _LO32
        # + T C with C = 28 2^64 - 1 = (28 T - 1) 2^64 + (2^64 - T) for T >= 1 (0 for T = 0)
        nz = (t != 0).astype(np.uint64)
        lo_add = np.uint64(0) - t
        hi_add = t * _TWENTY8 - nz
        lo2 = lo + lo_add
        hi_t = hi + hi_add
        out1 = hi_t < hi
        carry = (lo2 < lo).astype(np.uint64)
        hi2 = hi_t + carry
        out = (out1 | (hi2 < carry)).astype(np.uint64)  # a carry of weight 2^128: + C again
        borrow = (lo2 < out).astype(np.uint64)
        lo2 -= out
        hi2 += out * _TWENTY8 - borrow  # the value is below 2^100 here: no overflow
        return _pack128(*_sub_p_once(lo2, hi2))


def _sub_p_once(lo: Vec, hi: Vec) -> tuple[Vec, Vec]:
    """``(lo, hi) - p`` where ``(lo, hi) >= p`` (values below ``2^128 < 2 p``)."""
    ge = (hi > _P128_HI) | ((hi == _P128_HI) & (lo != 0))
    g = ge.astype(np.uint64)
    with np.errstate(over="ignore"):
        borrow = (lo < g).astype(np.uint64)
        return lo - g, hi - g * _P128_HI - borrow


def _pack128(lo: Vec, hi: Vec) -> Vec:
    shape = np.shape(lo)
    out = np.empty((*shape, 2), "<u8")
    out[..., 0] = lo
    out[..., 1] = hi
    return out.view(DTYPE128).reshape(shape)


def _split_carries(cols: Vec) -> Vec:
    """Non-negative uint64 columns of 32-bit weight (first axis, up to 8, each ``< 2^62``) -> nine
    columns of the same value, each below ``2^33`` (one carry step: every column's low 32 bits
    stay, its high bits move one column up)."""
    k = cols.shape[0]
    d = np.zeros((9, *cols.shape[1:]), np.uint64)
    d[:k] = cols & _LO32
    d[1 : k + 1] += cols >> _S32
    return d


def _fold(d: Vec) -> Vec:
    """Nine columns ``d`` (first axis, 32-bit weight) folded to four signed int64 columns of the
    same value mod p128 (:data:`_FOLD9`).  The columns of a product (below ``2^35``, the ninth
    0) or of :func:`_split_carries` (below ``2^33``, the ninth below ``2^30``) fold to
    ``|.| < 813 2^35 < 2^46``, resp. ``813 2^33 + 22708 2^30 < 2^46``: what :func:`_finish128` takes."""
    di = d.view(np.int64)
    out = np.empty((4, *d.shape[1:]), np.int64)
    out[0:2] = di[0:2] - di[4:6]
    out[0:2] -= np.int64(28) * di[6:8]
    out[2:4] = di[2:4] + np.int64(28) * di[4:6]
    out[2:4] += np.int64(783) * di[6:8]
    out[0] -= np.int64(783) * di[8]
    out[2] += np.int64(21896) * di[8]
    return out


def _reduce_wide(cols: Vec) -> Vec:
    """Non-negative columns (first axis, up to 8, 32-bit weight, each ``< 2^62``, the eighth
    ``< 2^61``) reduced mod p128: :func:`_split_carries`, :func:`_fold`, :func:`_finish128`."""
    return _finish128(_fold(_split_carries(cols)))


#: arrays of at most this many elements take Python integers instead: below it a numpy call's
#: fixed cost (the limb path makes some 40 per product) exceeds the arithmetic it does
SMALL = 64


def _ints(a: Vec) -> list[int]:
    """Field128 elements as a flat list of Python integers."""
    lo, hi = (w.ravel().tolist() for w in _lo_hi(a))
    return [x | (y << 64) for x, y in zip(lo, hi, strict=True)]


def _from_ints(v: list[int], shape: tuple[int, ...]) -> Vec:
    """Python integers in ``[0, p)`` as Field128 elements of ``shape``."""
    lo = np.array([x & _MASK64 for x in v], np.uint64)
    hi = np.array([x >> 64 for x in v], np.uint64)
    return _pack128(lo, hi).reshape(shape)


def _blocked(kernel: Any, a: Vec, b: Vec, block: int) -> Vec:
    """``kernel`` on consecutive blocks of the flattened operands (contiguous, one shape).

    Blocks bound the temporaries (about 0.5 MB for a product): beyond that the
    C allocator hands out fresh pages, whose faults cost more than the
    arithmetic on a virtual machine (a product of 51,584 elements: 3.1 ms of
    CPU in blocks of 4,096 against 12.6 ms in one piece, measured here).
    """
    fa, fb = a.reshape(-1), b.reshape(-1)
    if fa.size <= block:
        return kernel(fa, fb).reshape(a.shape)
    out = np.empty(fa.size, DTYPE128)
    for s0 in range(0, fa.size, block):
        out[s0 : s0 + block] = kernel(fa[s0 : s0 + block], fb[s0 : s0 + block])
    return out.reshape(a.shape)


def _add_words(a: Vec, b: Vec) -> Vec:
    (a0, a1), (b0, b1) = _lo_hi(a), _lo_hi(b)
    with np.errstate(over="ignore"):
        lo = a0 + b0
        c0 = (lo < a0).astype(np.uint64)
        hi_t = a1 + b1
        over = hi_t < a1
        hi = hi_t + c0
        over |= hi < c0
        # a carry out of 2^128: the sum minus p is (lo, hi) + C, C = 28 2^64 - 1, below 2^128
        o = over.astype(np.uint64)
        borrow = (lo < o).astype(np.uint64)
        lo -= o
        hi += o * _TWENTY8 - borrow
        return _pack128(*_sub_p_once(lo, hi))


def _sub_words(a: Vec, b: Vec) -> Vec:
    (a0, a1), (b0, b1) = _lo_hi(a), _lo_hi(b)
    with np.errstate(over="ignore"):
        lo = a0 - b0
        bw = a0 < b0
        hi = a1 - b1 - bw.astype(np.uint64)
        neg = ((a1 < b1) | ((a1 == b1) & bw)).astype(np.uint64)
        # + p where negative: p = p_hi 2^64 + 1
        lo2 = lo + neg
        carry = (lo2 < neg).astype(np.uint64)
        return _pack128(lo2, hi + neg * _P128_HI + carry)


def _mul_words(a: Vec, b: Vec) -> Vec:
    """Products of flat Field128 arrays: the 16 products of 32-bit limbs (a row of four at a
    time), their low and high 32 bits summed per column (``< 8 2^32``), folded, finished."""
    la, lb = _limbs32(a), _limbs32(b)  # (4, n) each
    cols = np.zeros((9, la.shape[1]), np.uint64)
    for i in range(4):
        prod = la[i] * lb  # a_i b_j, j = 0..3: < 2^64, exact
        cols[i : i + 4] += prod & _LO32
        cols[i + 1 : i + 5] += prod >> _S32
    return _finish128(_fold(cols))


class Field128(Field):
    """GF(2^66 * 4611686018427387897 + 1) in two uint64 words per element (module docstring)."""

    MODULUS = _P128
    ENCODED_SIZE = 16
    GEN_ORDER = 2**66
    GENERATOR = pow(7, 4611686018427387897, _P128)
    DTYPE = DTYPE128
    NAME = "Field128"
    FAST_MATMUL = True

    @classmethod
    def _coerce(cls, a: Vec) -> Vec:
        a = np.asarray(a)
        return a if a.dtype == DTYPE128 else cls.array(a)

    @classmethod
    def array(cls, values: Any) -> Vec:
        v = np.asarray(values)
        if v.dtype == DTYPE128:
            return v
        if v.dtype.kind in "iu" and v.dtype.itemsize <= 8:
            return cls.from_small(v)
        ints = np.asarray(values, dtype=object) % cls.MODULUS
        return _pack128((ints & _MASK64).astype(np.uint64), (ints >> 64).astype(np.uint64))

    @classmethod
    def from_small(cls, small: Vec) -> Vec:
        """Machine integers (int64 of any sign, or uint64) as elements, without Python ints."""
        v = np.asarray(small)
        if v.dtype.kind == "u":
            return _pack128(v.astype(np.uint64), np.zeros(v.shape, np.uint64))
        v = v.astype(np.int64)
        neg = v < 0
        with np.errstate(over="ignore"):
            # p + v = (p_hi - [v < -1]) 2^64 + ((1 + v) mod 2^64) for -2^63 <= v < 0
            lo = np.where(neg, (v + 1).astype(np.uint64), v.astype(np.uint64))
            hi = np.where(neg, _P128_HI - (v < -1).astype(np.uint64), np.uint64(0))
        return _pack128(lo, hi)

    @classmethod
    def zeros(cls, shape: int | tuple[int, ...]) -> Vec:
        return np.zeros(shape, DTYPE128)

    @classmethod
    def to_ints(cls, a: Vec) -> list[Any]:
        a = cls._coerce(a)
        lo, hi = _lo_hi(a)
        ints = lo.astype(object) + (hi.astype(object) << 64)
        out: list[Any] = np.asarray(ints).tolist()
        return out

    @classmethod
    def eq_small(cls, a: Vec, value: int) -> Vec:
        a = cls._coerce(a)
        lo, hi = _lo_hi(a)
        return (hi == 0) & (lo == np.uint64(value))

    @classmethod
    def encode_vec(cls, a: Vec) -> bytes:
        return np.ascontiguousarray(cls._coerce(a)).reshape(-1).tobytes()

    @classmethod
    def parse(cls, data: bytes) -> Vec:
        return np.frombuffer(data, dtype=DTYPE128).copy()

    @classmethod
    def below_modulus(cls, raw: Vec) -> Vec:
        lo, hi = _lo_hi(raw)
        return (hi < _P128_HI) | ((hi == _P128_HI) & (lo == 0))

    # -- arithmetic on the two words ------------------------------------------
    @classmethod
    def _pair(cls, a: Vec, b: Vec) -> tuple[Vec, Vec]:
        """Both operands as contiguous Field128 arrays of one (broadcast) shape."""
        a, b = cls._coerce(a), cls._coerce(b)
        if a.shape != b.shape:
            a, b = np.broadcast_arrays(a, b)
        return np.ascontiguousarray(a), np.ascontiguousarray(b)

    @classmethod
    def add(cls, a: Vec, b: Vec) -> Vec:
        a, b = cls._pair(a, b)
        return _blocked(_add_words, a, b, 1 << 14)

    @classmethod
    def sub(cls, a: Vec, b: Vec) -> Vec:
        a, b = cls._pair(a, b)
        return _blocked(_sub_words, a, b, 1 << 14)

    @classmethod
    def mul(cls, a: Vec, b: Vec) -> Vec:
        """Element-wise product (module docstring): 32-bit limb products, their halves summed per
        column, the columns of weight ``2^128`` and above folded, in blocks of 4,096 elements."""
        a, b = cls._pair(a, b)
        if a.size <= SMALL:
            return _from_ints([x * y % _P128 for x, y in zip(_ints(a), _ints(b), strict=True)], a.shape)
        return _blocked(_mul_words, a, b, 1 << 12)

    @classmethod
    def sum(cls, a: Vec, axis: int) -> Vec:
        a = np.ascontiguousarray(np.moveaxis(cls._coerce(a), axis, -1))
        if a.size <= SMALL and a.shape[-1]:
            n = a.shape[-1]
            v = _ints(a)
            return _from_ints([sum(v[i : i + n]) % _P128 for i in range(0, len(v), n)], a.shape[:-1])
        limbs = a.view(np.uint32).reshape(*a.shape, 4)
        cols: Vec = np.sum(limbs, axis=-2, dtype=np.uint64)  # < 2^32 n each: exact
        return _reduce_wide(np.moveaxis(cols, -1, 0))

    @classmethod
    def reduceat_sum(cls, a: Vec, starts: Vec) -> Vec:
        a = np.ascontiguousarray(cls._coerce(a))
        limbs = a.view(np.uint32).reshape(*a.shape, 4).astype(np.uint64)
        return _reduce_wide(np.moveaxis(np.add.reduceat(limbs, starts, axis=-2), -1, 0))

    @classmethod
    def mul_sum(cls, a: Vec, b: Vec, axis: int) -> Vec:
        """``sum(a * b, axis)`` exactly, on float64 BLAS: for each position of the other axes the
        64 sums ``sum_j a_i[j] b_k[j]`` of 16-bit limbs (each ``< C 2^32 < 2^53``) in one batched
        product, then the diagonals ``i + k`` on 32-bit columns and one reduction."""
        a, b = cls._pair(a, b)
        a, b = np.moveaxis(a, axis, -1), np.moveaxis(b, axis, -1)  # (..., C)
        c = a.shape[-1]
        if a.size <= SMALL or c > _MATMUL_K128:
            return super().mul_sum(a, b, -1)
        lead = a.shape[:-1]
        la = _limbs_128(a.reshape(-1, 1, c), np.uint16)  # (P, 8, 1, C)
        lb = _limbs_128(b.reshape(-1, 1, c), np.uint16)
        g = np.matmul(la[:, :, 0, :], lb[:, :, 0, :].swapaxes(-1, -2))  # (P, 8, 8)
        g = np.moveaxis(g, 0, -1)  # (8, 8, P): limb i of a, k of b
        diag = np.zeros((15, g.shape[-1]))
        for i in range(8):
            diag[i : i + 8] += g[i]  # diagonal i + k: < 8 C 2^32 < 2^45, exact
        d = diag.astype(np.uint64)
        cols = np.zeros((8, d.shape[1]), np.uint64)
        cols[:] = d[0::2]
        cols[:7] += d[1::2] << np.uint64(16)  # < 2^45 + 2^61
        return _reduce_wide(cols).reshape(lead)

    @classmethod
    def matmul(cls, a: Vec, b: Vec) -> Vec:
        """``a @ b`` (mod p) exactly, on float64 BLAS.

        ``a`` is split into eight 16-bit limbs and ``b`` into four 32-bit limbs,
        so each limb-matrix product over a slice of at most 32 of the ``K``
        terms sums below ``32 2^48 = 2^53`` (exact); the 32 limb products of a
        slice run in one batched BLAS call, their diagonals (same weight) are
        summed exactly in uint64 and laid on 32-bit columns, the slices'
        columns are added up (below ``2^62`` for ``K <= 1024``) and reduced once.
        """
        a, b = cls._coerce(a), cls._coerce(b)
        k = a.shape[-1]
        if k > _MATMUL_K128:
            parts = [cls.matmul(a[..., i : i + _MATMUL_K128], b[..., i : i + _MATMUL_K128, :])
                     for i in range(0, k, _MATMUL_K128)]  # fmt: skip
            out = parts[0]
            for q in parts[1:]:
                out = cls.add(out, q)
            return out
        if b.ndim == 2 and a.ndim > 2:
            lead = a.shape[:-1]
            return cls.matmul(a.reshape(-1, k), b).reshape(*lead, b.shape[-1])
        if a.ndim == 2 and b.ndim == 2 and a.shape[0] * k * b.shape[1] <= 8 * SMALL:
            return _small_matmul(a, b)
        la = _limbs_128(a, np.uint16)  # (..., 8, M, K)
        lb = _constant_limbs_128(b, np.uint32)  # (..., 4, K, N)
        cols: Vec = None
        for s0 in range(0, k, _SLICE):
            sa, sb = la[..., s0 : s0 + _SLICE], lb[..., s0 : s0 + _SLICE, :]
            if a.ndim == 2 and b.ndim == 2:  # the 32 limb products as one 2-D GEMM
                m, n, t = a.shape[0], b.shape[1], sa.shape[-1]
                g = _gemm(sa.reshape(8 * m, t), sb.transpose(1, 0, 2).reshape(t, 4 * n))  # (8M, 4N)
                g = g.reshape(8, m, 4, n).transpose(0, 2, 1, 3)  # (8, 4, M, N)
            else:
                g = np.moveaxis(np.matmul(sa[..., :, None, :, :], sb[..., None, :, :, :]), (-4, -3), (0, 1))
            c = _limb_columns(g)
            cols = c if cols is None else cols + c
        return _reduce_wide(cols)

    @classmethod
    def inv(cls, a: Vec) -> Vec:
        a = cls._coerce(a)
        ints = cls.to_ints(a.reshape(-1))
        if any(x == 0 for x in ints):
            raise ZeroDivisionError("Field128: inverse of 0")
        return cls.array([pow(x, -1, _P128) for x in ints]).reshape(a.shape)


def _limbs32(a: Vec) -> Vec:
    """The four 32-bit limbs of Field128 elements as uint64 ``(4, n)`` (low limb first)."""
    return np.ascontiguousarray(np.ascontiguousarray(a).view(np.uint32).reshape(-1, 4).T, dtype=np.uint64)


_MATMUL_K128 = 1 << 10  # terms per reduction: 32 slices of columns below 2^56 stay below 2^61
_SLICE = 32  # terms per exact limb product: 32 (2^16 - 1)(2^32 - 1) < 2^53


def _limb_columns(g: Vec) -> Vec:
    """The 32-bit columns (first axis, 8, each ``< 2^56``) of a product over at most
    :data:`_SLICE` terms from its limb products ``g`` (``(8, 4, ...)``, float64 below
    ``2^53``: limb ``i`` of ``a`` (16-bit), ``j`` of ``b`` (32-bit), weight ``2^(16 (i + 2 j))``)."""
    g = g.astype(np.uint64)
    diag = np.zeros((14, *g.shape[2:]), np.uint64)
    for j in range(4):
        diag[2 * j : 2 * j + 8] += g[:, j]  # up to four products: < 2^55
    cols = np.zeros((8, *diag.shape[1:]), np.uint64)
    cols[:7] = diag[0::2]
    odd = diag[1::2]  # weight 2^(32 m + 16): low 16 bits into column m, the rest into m + 1
    cols[:7] += (odd & np.uint64(0xFFFF)) << np.uint64(16)
    cols[1:8] += odd >> np.uint64(16)  # each column < 2^55 + 2^32 + 2^39 < 2^56
    return cols


_COLUMNS128: dict[int, tuple[Vec, list[list[int]]]] = {}


def _small_matmul(a: Vec, b: Vec) -> Vec:
    """``a @ b`` (mod p) of small 2-D operands on Python integers (``b``'s columns memoized
    for a read-only ``b``, like its limbs)."""
    cols = None
    if not b.flags.writeable and b.base is None:
        hit = _COLUMNS128.get(id(b))
        cols = hit[1] if hit is not None and hit[0] is b else None
    if cols is None:
        flat, n = _ints(b), b.shape[1]
        cols = [flat[j::n] for j in range(n)]
        if not b.flags.writeable and b.base is None:
            if len(_COLUMNS128) >= 64:
                _COLUMNS128.clear()
            _COLUMNS128[id(b)] = (b, cols)
    flat_a, k = _ints(a), a.shape[1]
    rows = [flat_a[i : i + k] for i in range(0, len(flat_a), k)]
    out = [sum(map(operator.mul, r, c)) % _P128 for r in rows for c in cols]
    return _from_ints(out, (a.shape[0], b.shape[1]))


def _limbs_128(a: Vec, limb: Any) -> Vec:
    """The 16-bit (``limb`` uint16: eight) or 32-bit (uint32: four) limbs of Field128 elements
    ``(..., M, K)`` as float64 ``(..., limbs, M, K)``, low limb first."""
    count = 16 // np.dtype(limb).itemsize
    limbs = np.ascontiguousarray(a).view(limb).reshape(*a.shape, count)
    return np.ascontiguousarray(np.moveaxis(limbs, -1, -3), dtype=np.float64)  # BLAS-ready


_LIMBS128: dict[tuple[int, int], tuple[Vec, Vec]] = {}


def _constant_limbs_128(b: Vec, limb: Any) -> Vec:
    """:func:`_limbs_128`, memoized for a read-only array owning its data (the FLP's matrices)."""
    if b.flags.writeable or b.base is not None:
        return _limbs_128(b, limb)
    key = (id(b), np.dtype(limb).itemsize)
    hit = _LIMBS128.get(key)
    if hit is None or hit[0] is not b:
        if len(_LIMBS128) >= 64:
            _LIMBS128.clear()
        hit = _LIMBS128[key] = (b, _limbs_128(b, limb))
    return hit[1]
