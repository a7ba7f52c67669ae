"""Every official Prio3 test vector of draft-irtf-cfrg-vdaf-20, from ``vectors/`` beside this file.

Each file's ``operations`` list is replayed in order (shard, verify_init,
verifier_shares_to_message, verify_next, aggregate, unshard): a ``success``
operation must reproduce the vector's bytes exactly, a failing one (the
``bad_*`` vectors) must raise :class:`InvalidReport`.

Two vectors use test-only instances the draft names but does not register:
``Prio3SumVecWithMultiproof`` (SumVec over Field64 with 3 proofs, Sec. 7.1.2
and 9.7) and ``Prio3HigherDegree`` (the degree-3 range check
``x^3 - 3x^2 + 2x`` of Sec. 7.3.1.1 over one Field64 element); both use the
private-use algorithm id ``0xFFFFFFFF``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

from mpc_rr.secure_sum.prio3 import Field64, Field128, InvalidReport, Prio3, SumVec
from mpc_rr.secure_sum.prio3._flp import PolyEval, Valid
from mpc_rr.secure_sum.prio3._vdaf import prio3_variant
from mpc_rr.secure_sum.prio3._xof import XofTurboShake128

SPECS = pathlib.Path(__file__).resolve().parent / "vectors"
"""The draft's official vectors, copied unchanged (``vectors/README.md``: source, licence)."""
VECTORS = sorted((SPECS / "vdaf").glob("Prio3*.json"))
TEST_ID = 0xFFFFFFFF


class HigherDegree(Valid):
    """The draft's Range3 example circuit: one element in ``[0, 3)`` (test vector only)."""

    JOINT_RAND_LEN = 0
    MEAS_LEN = OUTPUT_LEN = EVAL_OUTPUT_LEN = 1
    GADGET_CALLS = 1
    field = Field64

    def __init__(self) -> None:
        self.GADGET = PolyEval([0, 2, -3, 1], 1)

    def encode(self, measurement: Any) -> Any:
        return Field64.array([measurement])

    def wires(self, meas: Any, joint_rand: Any, num_shares: int) -> Any:
        return meas[..., None, :]

    def finish(self, meas: Any, gadget_out: Any, joint_rand: Any, num_shares: int) -> Any:
        return gadget_out

    def truncate(self, meas: Any) -> Any:
        return meas

    def decode(self, output: Any, num_measurements: int) -> Any:
        return int(Field64.to_ints(output)[0])


def _instance(path: pathlib.Path, d: dict[str, Any]) -> Prio3:
    name = path.stem.split("_")[0]
    if name == "Prio3SumVecWithMultiproof":
        valid = SumVec(d["length"], d["max_measurement"], d["chunk_length"], field=Field64)
        return Prio3(valid, shares=d["shares"], proofs=3, algorithm_id=TEST_ID)
    if name == "Prio3HigherDegree":
        return Prio3(HigherDegree(), shares=d["shares"], algorithm_id=TEST_ID)
    keys = ("max_measurement", "length", "chunk_length", "max_weight")
    return prio3_variant(name, shares=d["shares"], **{k: d[k] for k in keys if k in d})


def test_the_vectors_are_there() -> None:
    names = {p.stem for p in VECTORS}
    assert len(VECTORS) == 25, names
    assert sum(1 for n in names if "_bad_" in n) == 8


def test_xof_turboshake128_vector() -> None:
    d = json.loads((SPECS / "XofTurboShake128.json").read_text())
    seed, dst, binder = (bytes.fromhex(d[k]) for k in ("seed", "dst", "binder"))
    assert XofTurboShake128.derive_seed(seed, dst, binder).hex() == d["derived_seed"]
    vec = XofTurboShake128.expand_into_vec(Field128, seed, dst, binder, d["length"])
    assert Field128.encode_vec(vec).hex() == d["expanded_vec_field128"]


def _run(vdaf: Prio3, d: dict[str, Any], op: dict[str, Any], st: dict[Any, Any]) -> None:
    ctx, vk = bytes.fromhex(d["ctx"]), bytes.fromhex(d["verify_key"])
    kind = op["operation"]
    i = op.get("report_index")
    r = d["reports"][i] if i is not None else None
    if kind == "shard":
        assert r is not None
        public, inputs = vdaf.shard(
            ctx, r["measurement"], bytes.fromhex(r["nonce"]), bytes.fromhex(r["rand"])
        )
        assert public.hex() == r["public_share"]
        assert [s.hex() for s in inputs] == r["input_shares"]
    elif kind == "verify_init":
        assert r is not None
        a = op["aggregator_id"]
        state, vshare = vdaf.verify_init(
            vk,
            ctx,
            a,
            bytes.fromhex(r["nonce"]),
            bytes.fromhex(r["public_share"]),
            bytes.fromhex(r["input_shares"][a]),
        )
        assert vshare.hex() == r["verifier_shares"][0][a]
        st[("state", i, a)] = state
    elif kind == "verifier_shares_to_message":
        assert r is not None
        msg = vdaf.verifier_shares_to_message(
            ctx, [bytes.fromhex(s) for s in r["verifier_shares"][op["round"]]]
        )
        assert msg.hex() == r["verifier_messages"][op["round"]]
    elif kind == "verify_next":
        assert r is not None
        a = op["aggregator_id"]
        out = vdaf.verify_next(
            st[("state", i, a)], bytes.fromhex(r["verifier_messages"][op["round"] - 1])
        )
        assert vdaf.field.encode_vec(out).hex() == r["out_shares"][a]
        st.setdefault(("out", a), []).append(out)
    elif kind == "aggregate":
        a = op["aggregator_id"]
        agg = vdaf.aggregate(st.get(("out", a), []))
        assert vdaf.field.encode_vec(agg).hex() == d["agg_shares"][a]
    elif kind == "unshard":
        shares = [vdaf.field.decode_vec(bytes.fromhex(s)) for s in d["agg_shares"]]
        assert vdaf.unshard(shares, len(d["reports"])) == d["agg_result"]
    else:  # pragma: no cover - a new operation kind in a future draft
        raise AssertionError(f"unknown operation {kind!r}")


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_official_vector(path: pathlib.Path) -> None:
    d = json.loads(path.read_text())
    vdaf = _instance(path, d)
    state: dict[Any, Any] = {}
    failures = 0
    for op in d["operations"]:
        if op["success"]:
            _run(vdaf, d, op, state)
        else:
            failures += 1
            with pytest.raises(InvalidReport):
                _run(vdaf, d, op, state)
    assert failures == (1 if "_bad_" in path.stem else 0)
