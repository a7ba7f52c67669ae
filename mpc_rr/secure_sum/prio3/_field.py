"""The VDAF draft's NTT-friendly prime fields Field64 and Field128 (draft-irtf-cfrg-vdaf-20, Sec. 6.1).

A vector of field elements is a numpy array whose *last* axis is the vector;
leading axes batch independent vectors (reports, wires), so every operation
below works on a whole batch at once.

* **Field64** (``p = 2^32 * (2^32 - 1) + 1``, the "Goldilocks" prime) is held
  exactly in ``uint64``: a product is formed from four 32x32-bit partial
  products into a 128-bit (hi, lo) pair and reduced with
  ``2^64 = 2^32 - 1`` and ``2^96 = -1 (mod p)``; numpy's wrap-around uint64
  arithmetic does the carries, so no Python integer is touched.
  :meth:`Field64.matmul` -- the FLP's linear maps (interpolation, coset
  evaluation, the verifier's evaluation at the query point) -- splits both
  operands into four 16-bit limbs held exactly in float64, multiplies the
  limb matrices with BLAS (each partial sum is an integer below
  ``4 K 2^32 < 2^53``, exact whatever the summation order) and recombines the
  seven limb-product sums modulo p: one product over a whole batch instead of
  ``log n`` NTT stages of element-wise uint64 products.
* **Field128** (``p = 2^66 * 4611686018427387897 + 1 = 2^128 - 28 * 2^64 + 1``)
  is held exactly in two uint64 words per element (:data:`DTYPE128`, 16
  bytes: the low word then the high one, little-endian, so an array's bytes
  are the draft's encoding).  A product multiplies the four 32-bit limbs of
  each operand (16 exact uint64 products), sums their 32-bit halves per
  column (eight columns, each below ``2^35``), folds the columns of weight
  ``2^128`` and above with ``2^128 = 28 * 2^64 - 1 (mod p)`` into four signed
  columns (:data:`_FOLD9`, every value below ``2^46``), adds a multiple of p
  so that all are non-negative, propagates the carries and subtracts p at
  most once (:func:`_finish128`).  :meth:`Field128.matmul` -- the FLP's
  linear maps -- splits one operand into eight 16-bit limbs and the other into
  four 32-bit limbs in float64, so every limb-matrix product over 32 terms is
  an integer below ``2^53`` (exact whatever the summation order), runs the 32
  limb products as one BLAS product per 32-term slice and lays their
  diagonals on 32-bit columns, reduced the same way;
  :meth:`Field128.mul_sum` sums the ParallelSum of Mul gadgets per evaluation
  point with 16-bit limbs on both sides, the same way.
  Element-wise work runs in blocks (bounded temporaries), and arrays of at
  most :data:`SMALL` elements take Python integers, which cost less there
  than the some 40 numpy calls of a product.

``ntt``/``inv_ntt`` are the draft's ``Field.ntt``/``Field.inv_ntt``
(evaluation at the powers of the principal ``n``-th root of unity
``W_n = gen^(GEN_ORDER / n)``), computed with an iterative radix-2
Cooley-Tukey transform over the last axis.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

__all__ = ["Field", "Field64", "next_power_of_2"]  # Field128: mpc_rr.secure_sum.prio3._field128

Vec = Any  # a numpy array (uint64 or object); Any keeps numpy's scalar/array unions out of the signatures


def next_power_of_2(x: int) -> int:
    """Smallest power of two ``>= x`` (the draft's ``next_power_of_2``; 1 for ``x <= 1``)."""
    return 1 if x <= 1 else 1 << (x - 1).bit_length()


def _log2_exact(n: int) -> int:
    if n < 1 or n & (n - 1):
        raise ValueError(f"{n} is not a power of two")
    return n.bit_length() - 1


class Field:
    """A prime field of the draft (class-level API; vectors are numpy arrays)."""

    MODULUS: ClassVar[int]
    ENCODED_SIZE: ClassVar[int]
    GEN_ORDER: ClassVar[int]
    GENERATOR: ClassVar[int]
    DTYPE: ClassVar[Any]
    NAME: ClassVar[str]
    #: whether :meth:`matmul` beats the NTT (exact BLAS products: Field64)
    FAST_MATMUL: ClassVar[bool] = False

    # -- construction / conversion (uint64 here: Field64; Field128 overrides) ---
    @classmethod
    def array(cls, values: Any) -> Vec:
        """Integers (any sign, ``|v| < MODULUS``) as field elements."""
        v = np.asarray(values)
        if v.dtype == np.uint64:
            return np.where(v >= np.uint64(cls.MODULUS), v - np.uint64(cls.MODULUS), v)
        return (np.asarray(values, dtype=object) % cls.MODULUS).astype(cls.DTYPE)

    @classmethod
    def from_small(cls, small: Vec) -> Vec:
        """Non-negative machine integers below ``MODULUS`` (int64/uint64) as elements, vectorized."""
        return np.asarray(small).astype(np.uint64)

    @classmethod
    def zeros(cls, shape: int | tuple[int, ...]) -> Vec:
        return np.zeros(shape, dtype=cls.DTYPE)

    @classmethod
    def to_ints(cls, a: Vec) -> list[Any]:
        """Nested Python lists of the integer representatives in ``[0, p)``."""
        out: list[Any] = np.asarray(a).astype(object).tolist()
        return out

    @classmethod
    def eq_small(cls, a: Vec, value: int) -> Vec:
        """Element-wise ``a == value`` for a small non-negative integer (a bool array)."""
        return np.asarray(a, np.uint64) == np.uint64(value)

    @classmethod
    def encode_vec(cls, a: Vec) -> bytes:
        """The draft's ``encode_vec``: little-endian, ``ENCODED_SIZE`` bytes each."""
        return np.asarray(a).reshape(-1).astype("<u8").tobytes()

    @classmethod
    def decode_vec(cls, data: bytes) -> Vec:
        """The draft's ``decode_vec`` (a ``ValueError`` on a bad length or an element ``>= p``)."""
        size = cls.ENCODED_SIZE
        if len(data) % size:
            raise ValueError(f"{cls.NAME}: {len(data)} bytes is not a multiple of {size}")
        ints = cls.parse(data)
        bad = ~cls.below_modulus(ints)
        if bad.any():
            raise ValueError(f"{cls.NAME}: modulus overflow at element {int(np.argmax(bad))}")
        return ints

    @classmethod
    def parse(cls, data: bytes) -> Vec:
        """Raw little-endian words, not reduced (``ENCODED_SIZE`` bytes an element)."""
        return np.frombuffer(data, dtype="<u8").astype(np.uint64)

    @classmethod
    def below_modulus(cls, raw: Vec) -> Vec:
        """Which raw (:meth:`parse`) words are below the modulus (a bool array)."""
        return np.asarray(raw) < np.uint64(cls.MODULUS)

    # -- arithmetic (each field implements it) -----------------------------------
    @classmethod
    def add(cls, a: Vec, b: Vec) -> Vec:
        raise NotImplementedError

    @classmethod
    def sub(cls, a: Vec, b: Vec) -> Vec:
        raise NotImplementedError

    @classmethod
    def neg(cls, a: Vec) -> Vec:
        return cls.sub(cls.zeros(np.shape(a)), a)

    @classmethod
    def mul(cls, a: Vec, b: Vec) -> Vec:
        raise NotImplementedError

    @classmethod
    def sum(cls, a: Vec, axis: int) -> Vec:
        """Sum along ``axis`` (mod p)."""
        raise NotImplementedError

    @classmethod
    def reduceat_sum(cls, a: Vec, starts: Vec) -> Vec:
        """Sums (mod p) of the consecutive runs beginning at ``starts`` along the last axis."""
        raise NotImplementedError

    @classmethod
    def mul_sum(cls, a: Vec, b: Vec, axis: int) -> Vec:
        """``sum(a * b, axis)`` (mod p): the ParallelSum of Mul gadgets on their evaluations."""
        return cls.sum(cls.mul(a, b), axis=axis)

    @classmethod
    def matmul(cls, a: Vec, b: Vec) -> Vec:
        """``a @ b`` (mod p), numpy's matmul broadcasting: the linear maps of the FLP
        (Lagrange interpolation, coset evaluation) as one product over the last axes."""
        raise NotImplementedError

    @classmethod
    def inv(cls, a: Vec) -> Vec:
        """Element-wise inverse (a ``ZeroDivisionError`` on 0)."""
        raise NotImplementedError

    @classmethod
    def pow_int(cls, x: int, e: int) -> int:
        return pow(x, e, cls.MODULUS)

    @classmethod
    def scalar(cls, x: int) -> Any:
        """One element in this field's dtype (a 0-d-compatible scalar)."""
        return cls.array([x])[0]

    # -- roots of unity and NTT --------------------------------------------
    @classmethod
    def nth_root(cls, n: int) -> int:
        """The principal ``n``-th root of unity ``gen^(GEN_ORDER / n)``."""
        _log2_exact(n)
        return pow(cls.GENERATOR, cls.GEN_ORDER // n, cls.MODULUS)

    @classmethod
    def nth_root_powers(cls, n: int) -> Vec:
        return _root_powers(cls, n)

    @classmethod
    def ntt(cls, coeffs: Vec, n: int, set_s: bool = False) -> Vec:
        """Evaluations ``p(W_n^i)`` (``p(s W_n^i)``, ``s = W_2n`` with ``set_s``) of the
        polynomials whose coefficients run along the last axis (zero-padded to ``n``)."""
        coeffs = np.asarray(coeffs)
        m = coeffs.shape[-1]
        if m > n:
            raise ValueError(f"{m} coefficients do not fit an NTT of size {n}")
        a = (
            np.concatenate([coeffs, cls.zeros((*coeffs.shape[:-1], n - m))], axis=-1)
            if m < n
            else coeffs
        )
        if set_s:
            a = cls.mul(a, _root_powers(cls, 2 * n)[:n])
        return _transform(cls, a, cls.nth_root(n))

    @classmethod
    def inv_ntt(cls, values: Vec, n: int) -> Vec:
        """Coefficients of the polynomials whose evaluations at ``W_n^i`` are ``values``."""
        values = np.asarray(values)
        if values.shape[-1] != n:
            raise ValueError(f"inv_ntt of size {n} given {values.shape[-1]} values")
        root_inv = pow(cls.nth_root(n), -1, cls.MODULUS)
        a = _transform(cls, values, root_inv)
        return cls.mul(a, cls.array([pow(n, -1, cls.MODULUS)]))


_ROOTS: dict[tuple[str, int], tuple[int, ...]] = {}
_ROOT_ARRAYS: dict[tuple[str, int], Vec] = {}


def _root_powers_cached(field: type[Field], n: int) -> tuple[int, ...]:
    key = (field.NAME, n)
    if key in _ROOTS:
        return _ROOTS[key]
    w = field.nth_root(n)
    out, x = [], 1
    for _ in range(n):
        out.append(x)
        x = x * w % field.MODULUS
    _ROOTS[key] = tuple(out)
    return _ROOTS[key]


def _root_powers(field: type[Field], n: int) -> Vec:
    key = (field.NAME, n)
    if key not in _ROOT_ARRAYS:
        _ROOT_ARRAYS[key] = field.array(list(_root_powers_cached(field, n)))
    return _ROOT_ARRAYS[key]


@functools.cache
def _bitrev(n: int) -> npt.NDArray[np.intp]:
    bits = _log2_exact(n)
    idx = np.arange(n)
    rev = np.zeros(n, dtype=np.intp)
    for b in range(bits):
        rev |= ((idx >> b) & 1) << (bits - 1 - b)
    return rev


def _transform(field: type[Field], a: Vec, root: int) -> Vec:
    """Radix-2 decimation-in-time DFT over the last axis with ``root`` of order ``n``."""
    n = a.shape[-1]
    a = a[..., _bitrev(n)]
    length = 2
    while length <= n:
        w_len = pow(root, n // length, field.MODULUS)
        tw, x = [], 1
        for _ in range(length // 2):
            tw.append(x)
            x = x * w_len % field.MODULUS
        twiddles = field.array(tw)
        blocks = a.reshape(*a.shape[:-1], n // length, length)
        lo, hi = blocks[..., : length // 2], blocks[..., length // 2 :]
        t = field.mul(hi, twiddles)
        a = np.concatenate([field.add(lo, t), field.sub(lo, t)], axis=-1).reshape(a.shape)
        length *= 2
    return a


_P64 = 2**32 * 4294967295 + 1
_MASK64 = 2**64 - 1
_EPS = np.uint64(2**32 - 1)  # 2^64 mod p64
_LO32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


class Field64(Field):
    """GF(2^32 * 4294967295 + 1), exact in uint64 (module docstring)."""

    MODULUS = _P64
    ENCODED_SIZE = 8
    GEN_ORDER = 2**32
    GENERATOR = pow(7, 4294967295, _P64)
    DTYPE = np.uint64
    NAME = "Field64"
    FAST_MATMUL = True

    @classmethod
    def add(cls, a: Vec, b: Vec) -> Vec:
        a, b = np.asarray(a, np.uint64), np.asarray(b, np.uint64)
        with np.errstate(over="ignore"):
            s = a + b
            over = s < a
            s = np.where(over, s + _EPS, s)
            return np.where(~over & (s >= np.uint64(_P64)), s - np.uint64(_P64), s)

    @classmethod
    def sub(cls, a: Vec, b: Vec) -> Vec:
        a, b = np.asarray(a, np.uint64), np.asarray(b, np.uint64)
        with np.errstate(over="ignore"):
            d = a - b
            return np.where(a < b, d + np.uint64(_P64), d)

    @classmethod
    def mul(cls, a: Vec, b: Vec) -> Vec:
        a, b = np.asarray(a, np.uint64), np.asarray(b, np.uint64)
        with np.errstate(over="ignore"):
            a0, a1 = a & _LO32, a >> _S32
            b0, b1 = b & _LO32, b >> _S32
            ll, lh, hl, hh = a0 * b0, a0 * b1, a1 * b0, a1 * b1
            # the middle column in 32-bit pieces, so no sum can overflow (< 3 2^32): no carries
            t = ll >> _S32
            t += lh & _LO32
            t += hl & _LO32
            lo = ll & _LO32
            lo |= t << _S32
            hh += lh >> _S32
            hh += hl >> _S32
            hh += t >> _S32
            # hh 2^64 + lo (mod p), in place: 2^64 = 2^32 - 1 and 2^96 = -1
            h1, h0 = hh >> _S32, hh & _LO32
            t1 = (h0 << _S32) - h0  # h0 (2^32 - 1) < 2^64
            borrow = lo < h1
            lo -= h1
            lo -= borrow * _EPS  # a wrapped subtraction added 2^64 = 2^32 - 1: take it back
            lo += t1
            lo += (lo < t1) * _EPS  # a wrapped addition lost 2^64 = 2^32 - 1: add it
            lo -= (lo >= np.uint64(_P64)) * np.uint64(_P64)
            return lo

    @classmethod
    def sum(cls, a: Vec, axis: int) -> Vec:
        a = np.moveaxis(np.asarray(a, np.uint64), axis, -1)
        # Split each element into 32-bit halves: sums of up to 2^32 halves are exact in uint64.
        lo = np.sum(a & _LO32, axis=-1, dtype=np.uint64)
        hi = np.sum(a >> _S32, axis=-1, dtype=np.uint64)
        # total = hi * 2^32 + lo; hi * 2^32 as a 128-bit pair (hi >> 32, hi << 32).
        with np.errstate(over="ignore"):
            low = hi << _S32
            total_lo = low + lo
            carry = (total_lo < low).astype(np.uint64)
            return _reduce128((hi >> _S32) + carry, total_lo)

    @classmethod
    def reduceat_sum(cls, a: Vec, starts: Vec) -> Vec:
        a = np.asarray(a, np.uint64)
        lo = np.add.reduceat(a & _LO32, starts, axis=-1)  # exact: < 2^32 terms each
        hi = np.add.reduceat(a >> _S32, starts, axis=-1)
        # hi 2^32 + lo = hi_hi 2^64 + (hi_lo 2^32 + lo), and 2^64 = 2^32 - 1 (mod p)
        return cls.add(
            cls.add(cls.mul(hi & _LO32, np.uint64(1 << 32)), lo % np.uint64(_P64)),
            cls.mul(hi >> _S32, _EPS),
        )

    @classmethod
    def matmul(cls, a: Vec, b: Vec) -> Vec:
        """``a @ b`` (mod p) exactly, on float64 BLAS (module docstring: 16-bit limbs)."""
        a, b = np.asarray(a, np.uint64), np.asarray(b, np.uint64)
        k = a.shape[-1]
        if k > _MATMUL_K:  # keep every limb product sum below 2^53 (and U1 below 2^64)
            parts = [cls.matmul(a[..., i : i + _MATMUL_K], b[..., i : i + _MATMUL_K, :])
                     for i in range(0, k, _MATMUL_K)]  # fmt: skip
            out = parts[0]
            for q in parts[1:]:
                out = cls.add(out, q)
            return out
        if b.ndim == 2 and a.ndim > 2:  # one GEMM over the batch, not one per leading index
            lead = a.shape[:-1]
            return cls.matmul(a.reshape(-1, k), b).reshape(*lead, b.shape[-1])
        la, lb = _limbs16(a), _constant_limbs16(b)
        t = []
        for d in range(7):  # T_d = sum_{i+j=d} A_i @ B_j, each entry < 4 K 2^32 < 2^53: exact
            acc = None
            for i in range(max(0, d - 3), min(3, d) + 1):
                prod = _gemm(la[i], lb[d - i])
                acc = prod if acc is None else acc + prod
            t.append(np.asarray(acc).astype(np.uint64))
        s16 = np.uint64(16)
        u0, u1 = t[0] + (t[1] << s16), t[2] + (t[3] << s16)  # < 2^57 each
        u2, u3 = t[4] + (t[5] << s16), t[6]
        # value = u0 + u1 2^32 + u2 2^64 + u3 2^96 = u0 + (u1 + u2) 2^32 - u2 - u3  (mod p)
        v = u1 + u2
        r = cls.add((v & _LO32) << _S32, (v >> _S32) * _EPS)  # v 2^32 with 2^64 = 2^32 - 1
        return cls.sub(cls.add(r, u0), u2 + u3)

    @classmethod
    def inv(cls, a: Vec) -> Vec:
        a = np.asarray(a, np.uint64)
        if (a == 0).any():
            raise ZeroDivisionError("Field64: inverse of 0")
        return cls.power(a, _P64 - 2)

    @classmethod
    def power(cls, a: Vec, e: int) -> Vec:
        """``a^e`` element-wise by square-and-multiply on whole arrays."""
        result = np.ones(np.shape(a), dtype=np.uint64)
        base = np.asarray(a, np.uint64)
        while e:
            if e & 1:
                result = cls.mul(result, base)
            base = cls.mul(base, base)
            e >>= 1
        return result


_MATMUL_K = 1 << 12
_M16 = np.uint64(0xFFFF)


_GEMM_SINGLE = 1 << 17  # m * n * k below OpenBLAS's threading threshold (65536 * 4)


def _gemm(x: Vec, y: Vec) -> Vec:
    """``x @ y`` on float64, a 2-D product in row (or column) blocks small enough for one BLAS thread.

    OpenBLAS splits a GEMM above ``m n k = 2^18`` over threads; on a loaded
    machine (a simulation already runs a process per core) that made these
    small products 100x slower than one thread, so a big one is cut into
    single-threaded blocks instead.
    """
    if y.ndim != 2 or x.ndim != 2:
        return np.matmul(x, y)
    (m, k), n = x.shape, y.shape[1]
    if m * n * k <= _GEMM_SINGLE:
        return x @ y
    if m >= n:
        rows = max(1, _GEMM_SINGLE // max(1, k * n))
        return np.concatenate([x[i : i + rows] @ y for i in range(0, m, rows)], axis=0)
    cols = max(1, _GEMM_SINGLE // max(1, k * m))
    return np.concatenate([x @ y[:, j : j + cols] for j in range(0, n, cols)], axis=1)


def _limbs16(a: Vec) -> list[Vec]:
    """The four 16-bit limbs of uint64 elements, as float64 (exact) for BLAS."""
    return [((a >> np.uint64(16 * i)) & _M16).astype(np.float64) for i in range(4)]


_LIMBS: dict[int, tuple[Vec, list[Vec]]] = {}  # id -> (a read-only matrix, its limbs)


def _constant_limbs16(b: Vec) -> list[Vec]:
    """:func:`_limbs16`, memoized for a read-only array that owns its data (the FLP's cached
    coset, interpolation and extension matrices: every proof multiplies by them)."""
    if b.flags.writeable or b.base is not None:
        return _limbs16(b)
    hit = _LIMBS.get(id(b))
    if hit is None or hit[0] is not b:
        if len(_LIMBS) >= 64:
            _LIMBS.clear()
        hit = _LIMBS[id(b)] = (b, _limbs16(b))
    return hit[1]


def _reduce128(hi: Vec, lo: Vec) -> Vec:
    """``hi * 2^64 + lo mod p64`` (``hi < 2^64``) via ``2^64 = 2^32 - 1``, ``2^96 = -1``."""
    with np.errstate(over="ignore"):
        h0, h1 = hi & _LO32, hi >> _S32
        t0 = lo - h1
        t0 = np.where(lo < h1, t0 - _EPS, t0)  # borrow of 2^64 = 2^32 - 1 (mod p)
        t1 = (h0 << _S32) - h0  # h0 * (2^32 - 1) < 2^64
        r = t0 + t1
        r = np.where(r < t1, r + _EPS, r)
        return np.where(r >= np.uint64(_P64), r - np.uint64(_P64), r)
