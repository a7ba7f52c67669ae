"""The validity circuits of Prio3's variants (draft-irtf-cfrg-vdaf-20, Sec. 7.4), in wire form.

* :class:`Count` -- a bit: ``x * x - x = 0`` (Mul gadget, one call).
* :class:`Sum` -- an integer in ``[0, max_measurement]`` as a weighted bit
  vector, each bit checked with ``PolyEval(x^2 - x)``.
* :class:`SumVec`, :class:`Histogram`, :class:`MultihotCountVec`,
  :class:`OneHotBlocks` (one one-hot vector per block; not a draft variant) -- the
  randomized range check ``sum_j r_i^(j+1) * x * (x - 1/SHARES)`` over chunks
  (``ParallelSum(Mul, chunk_length)``, one joint-randomness element per
  chunk), plus, for Histogram, ``sum(x) - 1/SHARES`` (one-hot) and, for
  MultihotCountVec, ``sum(count_vec) - weight_reported`` (weight bound).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mpc_rr.secure_sum.prio3._field import Field, Field64
from mpc_rr.secure_sum.prio3._field128 import Field128
from mpc_rr.secure_sum.prio3._flp import Mul, ParallelSum, PolyEval, Valid, powers

__all__ = [
    "AtMostOneBlocks",
    "Count",
    "Histogram",
    "MultihotCountVec",
    "OneHotBlocks",
    "Sum",
    "SumVec",
    "block_sums",
    "decode_range_checked",
    "encode_range_checked",
    "encode_range_checked_int",
]

Vec = Any


def _range_weights(field: type[Field], max_measurement: int) -> Vec:
    bits = max_measurement.bit_length()
    rest_all_ones = 2 ** (bits - 1) - 1
    return field.array([1 << i for i in range(bits - 1)] + [max_measurement - rest_all_ones])


def encode_range_checked_int(field: type[Field], value: int, max_measurement: int) -> list[int]:
    """The draft's ``encode_range_checked_int`` (Sec. 7.4.2) as integers 0/1."""
    if not 0 <= value <= max_measurement:
        raise ValueError(f"measurement {value} is outside [0, {max_measurement}]")
    bits = max_measurement.bit_length()
    rest_all_ones = 2 ** (bits - 1) - 1
    last_weight = max_measurement - rest_all_ones
    rest, last = (value, 0) if value <= rest_all_ones else (value - last_weight, 1)
    return [(rest >> i) & 1 for i in range(bits - 1)] + [last]


def encode_range_checked(values: Any, max_measurement: int) -> np.ndarray:
    """:func:`encode_range_checked_int` of every value at once: ``(len, bits)`` 0/1 (int64)."""
    v = np.asarray(values, dtype=np.int64).reshape(-1)
    bad = (v < 0) | (v > max_measurement)
    if bad.any():
        raise ValueError(f"measurement {int(v[np.argmax(bad)])} is outside [0, {max_measurement}]")
    bits = max_measurement.bit_length()
    rest_all_ones = 2 ** (bits - 1) - 1
    last = v > rest_all_ones
    rest = np.where(last, v - (max_measurement - rest_all_ones), v)
    out = np.empty((v.size, bits), np.int64)
    out[:, : bits - 1] = (rest[:, None] >> np.arange(bits - 1)) & 1
    out[:, bits - 1] = last
    return out


def decode_range_checked(field: type[Field], encoded: Vec, max_measurement: int) -> Vec:
    """The draft's ``decode_range_checked_int``, linear, over the last axis (shares too).

    ``max_measurement`` 1 has the single weight 1: the encoding is the value."""
    if max_measurement == 1:
        return np.asarray(encoded)[..., 0]
    return field.sum(field.mul(encoded, _range_weights(field, max_measurement)), axis=-1)


def _as_field(field: type[Field], small: np.ndarray) -> Vec:
    """Small non-negative int64 values (< 2^62) as field elements, without Python ints."""
    return field.from_small(small)


class Count(Valid):
    """Prio3Count's circuit (Sec. 7.4.1)."""

    ID = 0x00000001
    JOINT_RAND_LEN = 0
    MEAS_LEN = OUTPUT_LEN = EVAL_OUTPUT_LEN = 1
    GADGET_CALLS = 1

    def __init__(self, field: type[Field] = Field64) -> None:
        self.field = field
        self.GADGET = Mul()

    def encode(self, measurement: Any) -> Vec:
        if measurement not in (0, 1) or isinstance(measurement, float):
            raise ValueError(f"a count is 0 or 1, got {measurement!r}")
        return self.field.array([int(measurement)])

    def wires(self, meas: Vec, joint_rand: Vec, num_shares: int) -> Vec:
        return np.stack([meas[..., :1], meas[..., :1]], axis=-2)

    def finish(self, meas: Vec, gadget_out: Vec, joint_rand: Vec, num_shares: int) -> Vec:
        return self.field.sub(gadget_out[..., :1], meas[..., :1])

    def truncate(self, meas: Vec) -> Vec:
        return meas

    def decode(self, output: Vec, num_measurements: int) -> Any:
        return int(self.field.to_ints(output)[0])


class Sum(Valid):
    """Prio3Sum's circuit (Sec. 7.4.2)."""

    ID = 0x00000002
    JOINT_RAND_LEN = 0
    OUTPUT_LEN = 1

    def __init__(self, max_measurement: int, field: type[Field] = Field64) -> None:
        if max_measurement < 1:
            raise ValueError(f"max_measurement must be >= 1, got {max_measurement}")
        self.field = field
        self.max_measurement = max_measurement
        self.bits = max_measurement.bit_length()
        self.GADGET_CALLS = self.bits
        self.GADGET = PolyEval([0, -1, 1], self.bits)
        self.MEAS_LEN = self.EVAL_OUTPUT_LEN = self.bits

    def encode(self, measurement: Any) -> Vec:
        return self.field.array(
            encode_range_checked_int(self.field, int(measurement), self.max_measurement)
        )

    def wires(self, meas: Vec, joint_rand: Vec, num_shares: int) -> Vec:
        return meas[..., None, :]

    def finish(self, meas: Vec, gadget_out: Vec, joint_rand: Vec, num_shares: int) -> Vec:
        return gadget_out

    def truncate(self, meas: Vec) -> Vec:
        return decode_range_checked(self.field, meas, self.max_measurement)[..., None]

    def decode(self, output: Vec, num_measurements: int) -> Any:
        return int(self.field.to_ints(output)[0])


class _RangeChecked(Valid):
    """Shared range check of SumVec, Histogram, MultihotCountVec (``ParallelSum(Mul)``)."""

    chunk_length: int

    def _setup(self, field: type[Field], meas_len: int, chunk_length: int) -> None:
        if chunk_length < 1:
            raise ValueError(f"chunk_length must be >= 1, got {chunk_length}")
        self.field = field
        self.chunk_length = chunk_length
        self.MEAS_LEN = meas_len
        self.GADGET = ParallelSum(Mul(), chunk_length)
        self.GADGET_CALLS = (meas_len + chunk_length - 1) // chunk_length
        self.JOINT_RAND_LEN = self.GADGET_CALLS

    def wires(self, meas: Vec, joint_rand: Vec, num_shares: int) -> Vec:
        f, c, calls = self.field, self.chunk_length, self.GADGET_CALLS
        pad = f.zeros((*meas.shape[:-1], calls * c - meas.shape[-1]))
        x = np.concatenate([meas, pad], axis=-1).reshape(*meas.shape[:-1], calls, c)
        if num_shares == 1 and _few_ones(f, x):
            left = _sparse_left(f, x, joint_rand)  # the prover's own sparse 0/1 measurement
        else:
            # r_i^(j+1) for chunk i, position j
            left = f.mul(powers(f, joint_rand, c, first=1), x)  # (..., calls, c)
        right = f.sub(x, self.shares_inv(num_shares))
        # gadget input order: [left_0, right_0, left_1, right_1, ...] per call
        inp = np.stack([left, right], axis=-1).reshape(*meas.shape[:-1], calls, 2 * c)
        return np.swapaxes(inp, -1, -2)  # (..., ARITY, calls)

    def range_check(self, gadget_out: Vec) -> Vec:
        return self.field.sum(gadget_out, axis=-1)


#: at most this many ones per proof take :func:`_sparse_left`; more: the dense powers (a few
#: vectorized products) cost less than one Python ``pow`` per one
SPARSE_ONES = 64


def _few_ones(field: type[Field], x: Vec) -> bool:
    """Whether every element is 0 or 1 with at most :data:`SPARSE_ONES` ones per proof (an honest
    client's one-hot cells or few bits)."""
    ones = field.eq_small(x, 1)
    if not bool((ones | field.eq_small(x, 0)).all()):
        return False
    per_proof = ones.reshape(*np.shape(ones)[:-2], -1).sum(axis=-1)
    return bool(np.all(per_proof <= SPARSE_ONES))


def _sparse_left(field: type[Field], x: Vec, joint_rand: Vec) -> Vec:
    """``r_i^(j+1) x_ij`` for a 0/1 ``x``: the powers only where ``x`` is 1.

    The same values as the dense product (``r^(j+1) 1`` and ``0``), for the
    prover, who holds its measurement in the clear: a one-hot-blocks vector of
    1,582 cells has 28 ones, so 28 modular powers replace the ``2 x 1,582``
    products of all powers and the product with ``x`` (per proof).  Verifiers
    hold uniform shares: dense.
    """
    left = field.zeros(np.shape(x))
    hot = np.nonzero(field.eq_small(x, 1))
    if not hot[0].size:
        return left
    base = field.to_ints(np.asarray(joint_rand)[hot[:-1]])  # r of each hot cell's chunk
    p = field.MODULUS
    # a few dozen powers: Python's modular pow beats array calls on arrays this small
    left[hot] = field.array([pow(int(b), int(e), p) for b, e in zip(base, (hot[-1] + 1).tolist(), strict=True)])
    return left


class SumVec(_RangeChecked):
    """Prio3SumVec's circuit (Sec. 7.4.3)."""

    ID = 0x00000003
    EVAL_OUTPUT_LEN = 1

    def __init__(
        self, length: int, max_measurement: int, chunk_length: int, field: type[Field] = Field128
    ) -> None:
        if length < 1 or max_measurement < 1:
            raise ValueError(
                f"SumVec needs length >= 1 and max_measurement >= 1, got {length}, {max_measurement}"
            )
        self.length = length
        self.max_measurement = max_measurement
        self.bits = max_measurement.bit_length()
        self.OUTPUT_LEN = length
        self._setup(field, length * self.bits, chunk_length)

    def encode(self, measurement: Any) -> Vec:
        values = np.asarray(measurement, dtype=np.int64).reshape(-1)
        if len(values) != self.length:
            raise ValueError(f"measurement has {len(values)} entries, not {self.length}")
        return _as_field(self.field, encode_range_checked(values, self.max_measurement).reshape(-1))

    def finish(self, meas: Vec, gadget_out: Vec, joint_rand: Vec, num_shares: int) -> Vec:
        return self.range_check(gadget_out)[..., None]

    def truncate(self, meas: Vec) -> Vec:
        shaped = meas.reshape(*meas.shape[:-1], self.length, self.bits)
        return decode_range_checked(self.field, shaped, self.max_measurement)

    def decode(self, output: Vec, num_measurements: int) -> Any:
        return [int(x) for x in self.field.to_ints(output)]


class Histogram(_RangeChecked):
    """Prio3Histogram's circuit (Sec. 7.4.4): a one-hot vector."""

    ID = 0x00000004
    EVAL_OUTPUT_LEN = 2

    def __init__(self, length: int, chunk_length: int, field: type[Field] = Field128) -> None:
        if length < 1:
            raise ValueError(f"Histogram needs length >= 1, got {length}")
        self.length = length
        self.OUTPUT_LEN = length
        self._setup(field, length, chunk_length)

    def encode(self, measurement: Any) -> Vec:
        m = int(measurement)
        if not 0 <= m < self.length:
            raise ValueError(f"bucket {m} is outside [0, {self.length})")
        v = [0] * self.length
        v[m] = 1
        return self.field.array(v)

    def finish(self, meas: Vec, gadget_out: Vec, joint_rand: Vec, num_shares: int) -> Vec:
        f = self.field
        sum_check = f.sub(f.sum(meas, axis=-1), self.shares_inv(num_shares)[0])
        return np.stack([self.range_check(gadget_out), sum_check], axis=-1)

    def truncate(self, meas: Vec) -> Vec:
        return meas

    def decode(self, output: Vec, num_measurements: int) -> Any:
        return [int(x) for x in self.field.to_ints(output)]


class MultihotCountVec(_RangeChecked):
    """Prio3MultihotCountVec's circuit (Sec. 7.4.5): a 0/1 vector of weight <= ``max_weight``."""

    ID = 0x00000005
    EVAL_OUTPUT_LEN = 2

    def __init__(
        self, length: int, max_weight: int, chunk_length: int, field: type[Field] = Field128
    ) -> None:
        if length < 1 or not 0 < max_weight <= length:
            raise ValueError(
                f"MultihotCountVec needs length >= 1 and 0 < max_weight <= length, got {length}, {max_weight}"
            )
        if field.MODULUS <= length:
            raise ValueError("length is too large for the field")
        self.length = length
        self.max_weight = max_weight
        self.bits_for_weight = max_weight.bit_length()
        self.OUTPUT_LEN = length
        self._setup(field, length + self.bits_for_weight, chunk_length)

    def encode(self, measurement: Any) -> Vec:
        values = (np.asarray(measurement).reshape(-1) != 0).astype(np.int64)
        if len(values) != self.length:
            raise ValueError(f"measurement has {len(values)} entries, not {self.length}")
        weight = encode_range_checked(int(values.sum()), self.max_weight).reshape(-1)
        return _as_field(self.field, np.concatenate([values, weight]))

    def finish(self, meas: Vec, gadget_out: Vec, joint_rand: Vec, num_shares: int) -> Vec:
        f = self.field
        weight = f.sum(meas[..., : self.length], axis=-1)
        reported = decode_range_checked(f, meas[..., self.length :], self.max_weight)
        return np.stack([self.range_check(gadget_out), f.sub(weight, reported)], axis=-1)

    def truncate(self, meas: Vec) -> Vec:
        return meas[..., : self.length]

    def decode(self, output: Vec, num_measurements: int) -> Any:
        return [int(x) for x in self.field.to_ints(output)]


class OneHotBlocks(_RangeChecked):
    """Several one-hot vectors side by side: every block of ``blocks`` holds exactly one 1.

    Not a draft variant (the private-use algorithm id ``0xFFFF0001``, draft
    Sec. 10): the pipeline's pair cells, where each party's vector is one
    one-hot block per attribute pair.  The circuit is Histogram's, per block:

    * the range check ``sum_i sum_j r_i^(j+1) x (x - 1/SHARES)`` over all cells
      (``ParallelSum(Mul)`` on chunks, one joint-randomness element per chunk),
      non-zero for a cell outside ``{0, 1}`` except with probability
      ``<= chunk_length / |F|`` per chunk (a non-zero polynomial of degree
      ``chunk_length`` in ``r_i``, Schwartz-Zippel);
    * one linear check per block, ``sum(block) - 1/SHARES``: once every cell is
      0 or 1 the field sum is the integer sum (a block is far shorter than
      ``p``), so it is zero iff the block holds exactly one 1.

    The ``1 + len(blocks)`` outputs are combined by the FLP with the verifiers'
    query randomness (``EVAL_OUTPUT_LEN > 1``), so a non-zero output passes
    with probability ``1/|F|``; soundness is thus Histogram's with one more
    ``1/|F|`` term, and zero knowledge is unchanged (an honest client's
    outputs are all zero).  A client can still choose *which* cell of each
    block is 1 -- no validity proof can refuse a valid input.
    """

    ID = 0xFFFF0001

    def __init__(
        self, blocks: tuple[int, ...], chunk_length: int, field: type[Field] = Field64
    ) -> None:
        if not blocks or min(blocks) < 1:
            raise ValueError(f"OneHotBlocks needs blocks of >= 1 cells, got {list(blocks)[:8]}")
        self.blocks = tuple(int(b) for b in blocks)
        self.length = sum(self.blocks)
        self.OUTPUT_LEN = self.length
        self.EVAL_OUTPUT_LEN = 1 + len(self.blocks)
        self.starts = np.concatenate([[0], np.cumsum(self.blocks)[:-1]]).astype(np.intp)
        self._setup(field, self.length, chunk_length)

    def encode(self, measurement: Any) -> Vec:
        x = np.asarray(measurement, dtype=np.int64).reshape(-1)
        if len(x) != self.length:
            raise ValueError(f"measurement has {len(x)} entries, not {self.length}")
        ok = ((x == 0) | (x == 1)).all() and (np.add.reduceat(x, self.starts) == 1).all()
        if not ok:
            bad = int(np.argmax(np.add.reduceat(np.abs(x), self.starts) != 1))
            raise ValueError(f"block {bad} (cells {self.starts[bad]}..) is not one-hot")
        return _as_field(self.field, x)

    def encode_unchecked(self, x: np.ndarray) -> Vec:
        """The encoding of any integer vector (a malicious client's: the adversary module)."""
        return self.field.array(np.asarray(x, dtype=np.int64).reshape(-1))

    def encoded_index(self, cell: int) -> int:
        """Where cell ``cell`` of a measurement sits in its encoding."""
        return int(cell)

    def finish(self, meas: Vec, gadget_out: Vec, joint_rand: Vec, num_shares: int) -> Vec:
        f = self.field
        sums = block_sums(f, meas, self.starts)
        checks = f.sub(sums, self.shares_inv(num_shares))
        return np.concatenate([self.range_check(gadget_out)[..., None], checks], axis=-1)

    def truncate(self, meas: Vec) -> Vec:
        return meas

    def decode(self, output: Vec, num_measurements: int) -> Any:
        return [int(x) for x in self.field.to_ints(output)]


class AtMostOneBlocks(OneHotBlocks):
    """Blocks that each hold at most one 1 (a one-hot block, or an empty one).

    Not a draft variant (private-use id ``0xFFFF0002``): RRBA's secure tally,
    where a client puts a 1 in its reported cell of each table it was asked
    and nothing in the others (:meth:`mpc_rr.rrba.RRBAClient._tally_input`).
    The encoding appends to each block a slack cell ``1 - sum(block)``, and
    the circuit is :class:`OneHotBlocks`' on the extended blocks: every cell,
    slack included, in ``{0, 1}`` (the range check) and every extended block
    summing to 1.  Both hold iff the block's cells are 0/1 with at most one 1
    (the slack is then 1 exactly when the block is empty), so soundness and
    zero knowledge are those of :class:`OneHotBlocks` over ``len(blocks)``
    more cells; :meth:`truncate` drops the slack cells, so the aggregate is
    the blocks' counts.  What it cannot refuse: an empty block where the
    client was asked (RRBA's aggregator sees it, the block's counts then
    disagree with the clients asked, and it drops the block), or which cell
    of a block is 1.
    """

    ID = 0xFFFF0002

    def __init__(
        self, blocks: tuple[int, ...], chunk_length: int, field: type[Field] = Field64
    ) -> None:
        if not blocks or min(blocks) < 1:
            raise ValueError(f"AtMostOneBlocks needs blocks of >= 1 cells, got {list(blocks)[:8]}")
        self.cells_per_block = tuple(int(b) for b in blocks)
        super().__init__(tuple(b + 1 for b in self.cells_per_block), chunk_length, field)
        self.OUTPUT_LEN = sum(self.cells_per_block)
        self._ends = np.cumsum(self.cells_per_block)  # where each slack cell is inserted
        self._keep = np.concatenate(
            [np.arange(s, s + b) for s, b in zip(self.starts, self.cells_per_block, strict=True)]
        )

    def encode(self, measurement: Any) -> Vec:
        x = np.asarray(measurement, dtype=np.int64).reshape(-1)
        if len(x) != self.OUTPUT_LEN:
            raise ValueError(f"measurement has {len(x)} entries, not {self.OUTPUT_LEN}")
        starts = self._ends - np.asarray(self.cells_per_block)
        bad = (np.add.reduceat(np.abs(x), starts) > 1) | (np.maximum.reduceat(np.abs(x), starts) > 1)
        if bad.any() or (x < 0).any():
            b = int(np.argmax(bad)) if bad.any() else int(np.searchsorted(self._ends, np.argmax(x < 0), "right"))
            raise ValueError(f"block {b} (cells {int(starts[b])}..) holds more than one 1 or a cell outside 0/1")
        return self.encode_unchecked(x)

    def encode_unchecked(self, x: np.ndarray) -> Vec:
        x = np.asarray(x, dtype=np.int64).reshape(-1)
        slack = 1 - np.add.reduceat(x, self._ends - np.asarray(self.cells_per_block))
        return self.field.array(np.insert(x, self._ends, slack))

    def encoded_index(self, cell: int) -> int:
        return int(cell) + int(np.searchsorted(self._ends, cell, "right"))  # after earlier slacks

    def truncate(self, meas: Vec) -> Vec:
        return meas[..., self._keep]


def block_sums(field: type[Field], a: Vec, starts: np.ndarray) -> Vec:
    """Sums (mod p) of consecutive blocks beginning at ``starts`` along the last axis."""
    return field.reduceat_sum(a, starts)


FIELDS: dict[str, type[Field]] = {"Field64": Field64, "Field128": Field128}
