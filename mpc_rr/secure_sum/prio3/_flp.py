"""The fully linear proof of BBCGGI19 as specified in draft-irtf-cfrg-vdaf-20, Sec. 7.3 and App. A.

Gadgets (App. A): :class:`Mul`, :class:`PolyEval`, :class:`ParallelSum`.
Polynomials are in the Lagrange basis over the powers of a principal root of
unity (Sec. 6.1.3).  :class:`Flp` implements ``prove``, ``query`` and
``decide`` for a validity circuit (:class:`Valid`).

Batching: every array's last axis is the vector of the draft; leading axes
batch reports, so the prover and the verifier run a whole batch of reports in
one pass.  A circuit here hands the proof system the *input wires* of all its
gadget calls at once (:meth:`Valid.wires`) and finishes its output from the
gadget outputs (:meth:`Valid.finish`); this is the draft's recording shim
(``ProveGadget``/``QueryGadget``) for circuits whose gadget inputs do not
depend on earlier gadget outputs, which holds for every variant specified.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mpc_rr.secure_sum.prio3._field import Field, next_power_of_2

__all__ = [
    "Flp",
    "Gadget",
    "Mul",
    "ParallelSum",
    "PolyEval",
    "Valid",
    "gadget_poly_len",
    "lagrange_eval",
    "powers",
    "wire_poly_len",
]

Vec = Any


def wire_poly_len(gadget_calls: int) -> int:
    """Evaluations per wire polynomial: ``next_power_of_2(1 + calls)``."""
    return next_power_of_2(1 + gadget_calls)


def gadget_poly_len(degree: int, wire_len: int) -> int:
    """Evaluations of a gadget polynomial sent in the proof: ``degree * (wire_len - 1) + 1``."""
    return degree * (wire_len - 1) + 1


def double_evaluations(field: type[Field], p: Vec) -> Vec:
    """``2n`` evaluations (at the ``2n``-th roots) from ``n`` Lagrange evaluations (last axis).

    The odd half (the coset ``s W_n^i``) is a fixed linear map of the even
    half: Field64 applies it as one exact matrix product (:meth:`Field64.matmul`),
    Field128 (Python integers) keeps the ``n log n`` NTT pair.
    """
    n = p.shape[-1]
    if field.FAST_MATMUL:
        odd = field.matmul(p, _coset_matrix(field, n))
    else:
        odd = field.ntt(field.inv_ntt(p, n), n, set_s=True)
    return np.stack([p, odd], axis=-1).reshape(*p.shape[:-1], 2 * n)


_MATRICES: dict[tuple[str, str, int], Vec] = {}  # read-only (:func:`_constant`)


def _coset_matrix(field: type[Field], n: int) -> Vec:
    """``C`` with ``v @ C`` = the evaluations at ``s W_n^i`` of the interpolant of ``v``."""
    key = ("coset", field.NAME, n)
    if key not in _MATRICES:
        eye = field.array(np.eye(n, dtype=np.int64))
        _MATRICES[key] = _constant(field.ntt(field.inv_ntt(eye, n), n, set_s=True))
    return _MATRICES[key]


def _constant(m: Vec) -> Vec:
    """``m`` as a read-only array owning its data (Field64 then memoizes its BLAS limbs)."""
    m = np.array(m, copy=True, order="C")
    m.setflags(write=False)
    return m


def _interp_matrix(field: type[Field], n: int) -> Vec:
    """``M`` with ``(1, t, ..., t^(n-1)) @ M`` = the Lagrange basis at ``t`` (``inv_ntt``'s transpose)."""
    key = ("interp", field.NAME, n)
    if key not in _MATRICES:
        eye = field.array(np.eye(n, dtype=np.int64))
        _MATRICES[key] = _constant(field.inv_ntt(eye, n).T)
    return _MATRICES[key]


def powers(field: type[Field], t: Vec, n: int, *, first: int = 0) -> Vec:
    """``(t^first, ..., t^(first+n-1))`` along a new last axis (``first`` 0 or 1), by doubling
    (``log n`` products, the last one only as long as needed)."""
    t = np.asarray(t)
    out = field.array(np.ones((*t.shape, 1), dtype=np.int64)) if first == 0 else t[..., None]
    step = t[..., None]
    while out.shape[-1] < n:
        out = np.concatenate([out, field.mul(out[..., : n - out.shape[-1]], step)], axis=-1)
        if out.shape[-1] < n:
            step = field.mul(step, step)
    return out[..., :n]


def lagrange_eval(field: type[Field], polys: Vec, t: Vec) -> Vec:
    """Evaluate Lagrange-basis polynomials (last axis, ``n`` a power of two) at points ``t``.

    ``polys``: ``(..., k, n)``; ``t``: ``(...)``, never an ``n``-th root of
    unity.  The same value as the draft's ``poly_eval_batched`` (both evaluate
    the unique interpolant).  Field64: the Lagrange basis at ``t`` is the
    powers of ``t`` through the fixed interpolation matrix, then one batched
    product -- no inversion.  Field128: the barycentric form over the roots of
    unity ``p(t) = (t^n - 1)/n * sum_i v_i w_i / (t - w_i)`` (one batch
    inversion, Python integers either way).
    """
    n = polys.shape[-1]
    if field.FAST_MATMUL:
        basis = field.matmul(powers(field, t, n), _interp_matrix(field, n))  # (..., n)
        return field.matmul(polys, basis[..., :, None])[..., 0]
    nodes = field.nth_root_powers(n)
    t = np.asarray(t)[..., None]  # (..., 1)
    diff = field.sub(t, nodes)  # (..., n)
    inv = field.inv(diff)
    tn = t
    for _ in range(n.bit_length() - 1):
        tn = field.mul(tn, tn)
    scale = field.mul(field.sub(tn, field.array([1])), field.array([pow(n, -1, field.MODULUS)]))
    weights = field.mul(field.mul(inv, nodes), scale)  # (..., n)
    return field.sum(field.mul(polys, weights[..., None, :]), axis=-1)


_EXTENSIONS: dict[tuple[str, int, int], tuple[tuple[int, ...], ...]] = {}


def _extension_matrix(field: type[Field], m: int, n: int) -> tuple[tuple[int, ...], ...]:
    """Coefficients ``L_i(x_k)`` for ``k in [m, n)``, ``i < m``: the values at the
    remaining ``n``-th roots of the degree-``< m`` interpolant through the first ``m``."""
    key = (field.NAME, m, n)
    if key in _EXTENSIONS:
        return _EXTENSIONS[key]
    p = field.MODULUS
    x = [int(v) for v in field.to_ints(field.nth_root_powers(n))]
    rows = []
    for k in range(m, n):
        row = []
        for i in range(m):
            num, den = 1, 1
            for j in range(m):
                if j != i:
                    num = num * (x[k] - x[j]) % p
                    den = den * (x[i] - x[j]) % p
            row.append(num * pow(den, -1, p) % p)
        rows.append(tuple(row))
    _EXTENSIONS[key] = tuple(rows)
    return _EXTENSIONS[key]


def extend_values_to_power_of_2(field: type[Field], p: Vec, n: int) -> Vec:
    """The draft's ``extend_values_to_power_of_2``: append evaluations until there are ``n``."""
    m = p.shape[-1]
    if m == n:
        return p
    key = ("extend", field.NAME, m * 2**32 + n)
    if key not in _MATRICES:
        _MATRICES[key] = _constant(field.array(list(_extension_matrix(field, m, n))).T)  # (m, n - m)
    extra = field.matmul(p, _MATRICES[key])
    return np.concatenate([p, extra], axis=-1)


class Gadget:
    """A non-affine sub-circuit (App. A)."""

    ARITY: int
    DEGREE: int

    def eval(self, field: type[Field], inp: Vec) -> Vec:
        """Gadget value; ``inp``: ``(..., ARITY, calls)`` -> ``(..., calls)``."""
        raise NotImplementedError

    def eval_poly(self, field: type[Field], inp_poly: Vec) -> Vec:
        """The gadget on wire polynomials ``(..., ARITY, p)`` (Lagrange), output Lagrange evaluations."""
        raise NotImplementedError


class Mul(Gadget):
    """``Mul(x, y) = x * y`` (App. A.1)."""

    ARITY = 2
    DEGREE = 2

    def eval(self, field: type[Field], inp: Vec) -> Vec:
        return field.mul(inp[..., 0, :], inp[..., 1, :])

    def eval_poly(self, field: type[Field], inp_poly: Vec) -> Vec:
        d = double_evaluations(field, inp_poly)
        return field.mul(d[..., 0, :], d[..., 1, :])


class PolyEval(Gadget):
    """``PolyEval(x) = p(x)`` for a fixed polynomial ``p`` (App. A.2)."""

    ARITY = 1

    def __init__(self, coeffs: list[int], num_calls: int) -> None:
        while len(coeffs) > 1 and coeffs[-1] == 0:
            coeffs = coeffs[:-1]
        if not coeffs:
            raise ValueError("invalid polynomial: zero length")
        self.coeffs = coeffs
        self.DEGREE = len(coeffs) - 1
        self.n = next_power_of_2(gadget_poly_len(self.DEGREE, wire_poly_len(num_calls)))

    def _horner(self, field: type[Field], x: Vec) -> Vec:
        acc = field.zeros(np.shape(x))
        for c in reversed(self.coeffs):
            acc = field.add(field.mul(acc, x), field.array([c]))
        return acc

    def eval(self, field: type[Field], inp: Vec) -> Vec:
        return self._horner(field, inp[..., 0, :])

    def eval_poly(self, field: type[Field], inp_poly: Vec) -> Vec:
        p_len = inp_poly.shape[-1]
        mon = field.inv_ntt(inp_poly[..., 0, :], p_len)
        return self._horner(field, field.ntt(mon, self.n))


class ParallelSum(Gadget):
    """Sum of ``count`` parallel copies of ``subcircuit`` (App. A.3)."""

    def __init__(self, subcircuit: Gadget, count: int) -> None:
        self.subcircuit = subcircuit
        self.count = count
        self.ARITY = subcircuit.ARITY * count
        self.DEGREE = subcircuit.DEGREE

    def _split(self, inp: Vec) -> Vec:
        a = self.subcircuit.ARITY
        return inp.reshape(*inp.shape[:-2], self.count, a, inp.shape[-1])

    def eval(self, field: type[Field], inp: Vec) -> Vec:
        return field.sum(self.subcircuit.eval(field, self._split(inp)), axis=-2)

    def eval_poly(self, field: type[Field], inp_poly: Vec) -> Vec:
        if isinstance(self.subcircuit, Mul):  # the products and their sum in one pass
            d = double_evaluations(field, self._split(inp_poly))  # (..., count, 2, N)
            return field.mul_sum(d[..., 0, :], d[..., 1, :], axis=-2)
        out = self.subcircuit.eval_poly(field, self._split(inp_poly))  # (..., count, N)
        return field.sum(out, axis=-2)


class Valid:
    """A validity circuit (Sec. 7.3.2), in wire form (module docstring)."""

    GADGET: Gadget
    GADGET_CALLS: int
    MEAS_LEN: int
    JOINT_RAND_LEN: int
    EVAL_OUTPUT_LEN: int
    OUTPUT_LEN: int
    field: type[Field]

    def wires(self, meas: Vec, joint_rand: Vec, num_shares: int) -> Vec:
        """Inputs of every gadget call: ``(..., ARITY, GADGET_CALLS)``."""
        raise NotImplementedError

    def finish(self, meas: Vec, gadget_out: Vec, joint_rand: Vec, num_shares: int) -> Vec:
        """Circuit output ``(..., EVAL_OUTPUT_LEN)`` from the gadget outputs ``(..., GADGET_CALLS)``."""
        raise NotImplementedError

    def encode(self, measurement: Any) -> Vec:
        raise NotImplementedError

    def truncate(self, meas: Vec) -> Vec:
        raise NotImplementedError

    def decode(self, output: Vec, num_measurements: int) -> Any:
        raise NotImplementedError

    def eval(self, meas: Vec, joint_rand: Vec, num_shares: int) -> Vec:
        """The circuit on a (shared) measurement, gadgets evaluated directly."""
        w = self.wires(meas, joint_rand, num_shares)
        return self.finish(meas, self.GADGET.eval(self.field, w), joint_rand, num_shares)

    def shares_inv(self, num_shares: int) -> Any:
        return self.field.array([pow(num_shares, -1, self.field.MODULUS)])


class Flp:
    """The FLP of BBCGGI19 over one-gadget circuits (Sec. 7.3.3-7.3.5)."""

    def __init__(self, valid: Valid) -> None:
        self.valid = valid
        self.field = valid.field
        g = valid.GADGET
        self.p = wire_poly_len(valid.GADGET_CALLS)
        self.gpl = gadget_poly_len(g.DEGREE, self.p)
        self.PROVE_RAND_LEN = g.ARITY
        self.QUERY_RAND_LEN = 1 + (valid.EVAL_OUTPUT_LEN if valid.EVAL_OUTPUT_LEN > 1 else 0)
        self.JOINT_RAND_LEN = valid.JOINT_RAND_LEN
        self.MEAS_LEN = valid.MEAS_LEN
        self.OUTPUT_LEN = valid.OUTPUT_LEN
        self.PROOF_LEN = g.ARITY + self.gpl
        self.VERIFIER_LEN = 1 + g.ARITY + 1

    def _wire_polys(self, seeds: Vec, wires: Vec) -> Vec:
        calls = wires.shape[-1]
        pad = self.field.zeros((*wires.shape[:-1], self.p - 1 - calls))
        return np.concatenate([seeds[..., None], wires, pad], axis=-1)

    def prove(self, meas: Vec, prove_rand: Vec, joint_rand: Vec) -> Vec:
        """The proof ``(..., PROOF_LEN)``: wire seeds then the gadget polynomial's first evaluations."""
        wires = self.valid.wires(meas, joint_rand, 1)
        polys = self._wire_polys(prove_rand, wires)
        gadget_poly = self.valid.GADGET.eval_poly(self.field, polys)
        return np.concatenate([prove_rand, gadget_poly[..., : self.gpl]], axis=-1)

    def query(
        self, meas: Vec, proof: Vec, query_rand: Vec, joint_rand: Vec, num_shares: int
    ) -> Vec:
        """(A share of) the verifier message ``(..., VERIFIER_LEN)``.

        Raises ``ValueError`` when the test point is a root of unity of the
        wire polynomials' order (the draft's abort: the message would leak).
        """
        g, f = self.valid.GADGET, self.field
        seeds, gpoly = proof[..., : g.ARITY], proof[..., g.ARITY :]
        size = next_power_of_2(self.gpl)
        poly = extend_values_to_power_of_2(f, gpoly, size)
        step = size // self.p
        calls = self.valid.GADGET_CALLS
        gadget_out = poly[..., step : step * (calls + 1) : step]
        wires = self.valid.wires(meas, joint_rand, num_shares)
        out = self.valid.finish(meas, gadget_out, joint_rand, num_shares)
        if self.valid.EVAL_OUTPUT_LEN > 1:
            k = self.valid.EVAL_OUTPUT_LEN
            v = f.sum(f.mul(query_rand[..., :k], out), axis=-1)
            t = query_rand[..., k]
        else:
            v = out[..., 0]
            t = query_rand[..., 0]
        t_pow = t
        for _ in range(self.p.bit_length() - 1):
            t_pow = f.mul(t_pow, t_pow)
        if f.eq_small(t_pow, 1).any():
            raise ValueError("test point is a root of unity")
        wire_polys = self._wire_polys(seeds, wires)
        wire_checks = lagrange_eval(f, wire_polys, t)
        gadget_check = lagrange_eval(f, poly[..., None, :], t)
        return np.concatenate([v[..., None], wire_checks, gadget_check], axis=-1)

    def decide(self, verifier: Vec) -> Vec:
        """Whether each verifier message accepts (a bool array over the batch axes)."""
        g, f = self.valid.GADGET, self.field
        v = verifier[..., 0]
        wire_checks = verifier[..., 1 : 1 + g.ARITY]
        gadget_check = verifier[..., 1 + g.ARITY]
        recomputed = g.eval(f, wire_checks[..., None])[..., 0]
        ok_v = f.eq_small(v, 0)
        ok_g = f.eq_small(f.sub(recomputed, gadget_check), 0)
        return np.asarray(ok_v & ok_g)
