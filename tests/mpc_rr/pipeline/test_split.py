"""The coordinator split over shards (mpc_rr.pipeline._split): the unsplit coordinator's result.

A small superstep driver stands in for a sharded runner: payloads sent in one
superstep are delivered in the next; with ``parts``, what a data party sends
party 0 goes to its shard's :class:`CoordinatorShard` instead, whose tallies
party 0 receives at the end of the superstep.  When nothing is in flight and
party 0 has not finished, its deadline fires (the silent parties are dropouts).
"""

from __future__ import annotations

import itertools

import msgspec
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.core import COORDINATOR, Codec, DecodeError, Message, PeerError, Role, WireArray
from mpc_rr.pipeline import (
    PipelineConfig,
    PipelineResult,
    RandomizedRecord,
    Release,
    pipeline_roles,
)
from mpc_rr.pipeline import _signing as signing
from mpc_rr.pipeline._messages import PIPELINE_MESSAGES
from mpc_rr.pipeline._split import CoordinatorShard, CoordinatorTally
from tests.mpc_rr.pipeline.test_roles import KEY, SCHEMA, records

CODEC = Codec((*PIPELINE_MESSAGES, CoordinatorTally))
_ENC = msgspec.msgpack.Encoder().encode


def config(n: int, **kw: object) -> PipelineConfig:
    base = dict(schema=SCHEMA, n=n, p=0.75, tv=12, td=0.2, coordinator_key=signing.public_bytes(KEY))
    base.update(kw)
    return PipelineConfig(**base)  # type: ignore[arg-type]


def drive(
    roles: dict[int, Role], shards: int | None, cfg: PipelineConfig, silent: frozenset[int] = frozenset()
) -> tuple[Role, list[PeerError], int]:
    """Run ``roles`` in supersteps (``shards``: None = unsplit); ``silent`` parties never send.
    Returns party 0, the refusals and how many tallies it received."""
    n = cfg.n
    bounds = None if shards is None else np.linspace(1, n + 1, shards + 1).astype(int)
    parts = [] if bounds is None else [
        CoordinatorShard(cfg, range(int(lo), int(hi))) for lo, hi in itertools.pairwise(bounds)
    ]  # fmt: skip
    refused: list[PeerError] = []
    tallies = 0
    flight: list[tuple[int, int, Message]] = []

    def send(src: int, sends: list) -> None:  # type: ignore[type-arg]
        if src not in silent:
            flight.extend((src, s.dst, s.msg) for s in sends)

    for pid in sorted(roles):
        send(pid, roles[pid].start())
    coord = roles[COORDINATOR]
    for _ in range(50):
        now, flight[:] = list(flight), []
        for src, dst, msg in now:
            if parts and dst == COORDINATOR and parts[0].takes(msg):
                k = int(np.searchsorted(bounds, src, side="right")) - 1  # type: ignore[arg-type]
                parts[k].accept(src, _ENC(msg))
                continue
            try:
                send(dst, roles[dst].receive(src, CODEC.decode(_ENC(msg), sender=src)))
            except PeerError as exc:
                refused.append(exc)
        for part in parts:
            for tally in part.flush():
                tallies += 1
                send(COORDINATOR, coord.receive(COORDINATOR, CODEC.decode(_ENC(tally), sender=0)))
                refused.extend(coord.refused())
        if coord.done:
            return coord, refused, tallies
        if not flight:
            send(COORDINATOR, coord.on_timeout())
    raise AssertionError("the run did not end")


def same_result(a: PipelineResult, b: PipelineResult) -> None:
    assert a.clustering.clusters == b.clustering.clusters
    assert a.parties_dependence == b.parties_dependence and a.parties_release == b.parties_release
    np.testing.assert_array_equal(a.dependences, b.dependences)
    np.testing.assert_array_equal(a.randomized, b.randomized)
    for x, y in zip(a.estimates, b.estimates, strict=True):
        np.testing.assert_array_equal(x.distribution, y.distribution)
    assert a.adjustment is not None and b.adjustment is not None
    np.testing.assert_array_equal(a.adjustment.weights, b.adjustment.weights)
    assert a.patterns is not None and b.patterns is not None
    np.testing.assert_array_equal(a.patterns.patterns, b.patterns.patterns)
    np.testing.assert_array_equal(a.patterns.counts, b.patterns.counts)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1), n=st.integers(12, 60), shards=st.integers(1, 5),
    silent=st.sets(st.integers(1, 60), max_size=3),
)  # fmt: skip
def test_split_coordinator_gives_the_unsplit_result(seed: int, n: int, shards: int, silent: set[int]) -> None:
    """Random data, shard counts and dropouts in the dependence phase: bit for bit the same
    clusters, estimates, adjustment weights and histogram as one coordinator."""
    cfg = config(n, min_parties=2)
    x = records(n, seed)
    quiet = frozenset(i for i in silent if i <= n)
    one, _, none = drive(pipeline_roles(cfg, x, seed, KEY), None, cfg, quiet)
    many, refused, tallies = drive(pipeline_roles(cfg, x, seed, KEY), shards, cfg, quiet)
    assert not refused and none == 0 and tallies >= 2  # records and releases came in tallies
    assert one.late == many.late == 0
    same_result(one.result, many.result)
    assert set(one.result.parties_dependence).isdisjoint(quiet)


def test_a_shards_refusals_name_the_party() -> None:
    """Codes outside the categories, a wrong run label, a second record: refused by the shard's
    part with the reason, each naming its party; the others' records are kept."""
    cfg = config(6)
    part = CoordinatorShard(cfg, range(1, 7))
    good = WireArray.from_numpy(np.array([0, 1, 1, 2], np.uint8))
    part.accept(1, _ENC(RandomizedRecord(run=cfg.run, codes=good)))
    part.accept(2, _ENC(RandomizedRecord(run=cfg.run, codes=WireArray.from_numpy(np.array([0, 3, 0, 0], np.uint8)))))
    part.accept(3, _ENC(RandomizedRecord(run="another run", codes=good)))
    part.accept(1, _ENC(RandomizedRecord(run=cfg.run, codes=good)))
    part.accept(4, b"\x93not a message")
    part.accept(5, _ENC(Release(run=cfg.run, codes=good)))
    (dep, rel) = part.flush()
    assert not part.pending and part.flush() == []
    assert [p for p, _ in dep.rejected] == [2, 3, 1, 4] and dep.messages == 6
    why = dict(dep.rejected)
    assert "from party 2: code outside its attribute's categories" in why[2]
    assert "from party 3 is labelled run 'another run'" in why[3]
    assert "party 1 submitted twice in DEPENDENCE" in why[1]
    assert "party 4" in why[4]
    roles = pipeline_roles(cfg, records(6, 1), 1, KEY)
    coord = roles[COORDINATOR]
    coord.start()
    coord.receive(COORDINATOR, dep)
    got = coord.refused()
    assert [e.peer for e in got] == [2, 3, 1, 4] and coord.refused() == []
    assert 1 in coord.records and 2 not in coord.records
    # a Release while party 0 still collects records: refused naming party 5, as unsplit
    coord.receive(COORDINATOR, rel)
    (e,) = coord.refused()
    assert e.peer == 5 and "cannot handle Release in state DEPENDENCE" in str(e)


def tally(cfg: PipelineConfig, **kw: object) -> CoordinatorTally:
    part = CoordinatorShard(cfg, range(1, cfg.n + 1))
    for i, rec in enumerate(records(3, 2), start=1):
        part.accept(i, _ENC(RandomizedRecord(run=cfg.run, codes=WireArray.from_numpy(rec.astype(np.uint8)))))
    (t,) = part.flush()
    return msgspec.structs.replace(t, **kw)


def arr(values: list, dtype: str) -> WireArray:  # type: ignore[type-arg]
    return WireArray.from_numpy(np.array(values, dtype))


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"ids": arr([2, 1, 3], "u4")}, "ids not increasing"),
        ({"ids": arr([1, 2, 9], "u4")}, "ids not increasing within 1..6"),
        ({"which": arr([0, 0, 7], "u4")}, "pattern index outside"),
        ({"counts": arr([1, 1, 5], "i8")}, "do not count the parties' patterns|do not match"),
        ({"patterns": arr([[0, 0, 0, 9]] * 3, "u1")}, "outside its attribute's categories|not sorted"),
        ({"ids": arr([1, 2, 3], "i8")}, "dtype"),
        ({"phase": "LATER"}, "unknown phase"),
        ({"which": None}, "missing arrays"),
    ],
)
def test_a_malformed_tally_is_refused(change: dict[str, object], match: str) -> None:
    cfg = config(6)
    coord = pipeline_roles(cfg, records(6, 1), 1, KEY)[COORDINATOR]
    coord.receive(COORDINATOR, tally(cfg))  # a well-formed one is taken
    assert len(coord.records) == 3
    with pytest.raises(DecodeError, match=match) as err:
        coord.receive(COORDINATOR, tally(cfg, **change))
    assert err.value.peer == 0 and len(coord.records) == 3


def test_a_tally_from_a_data_party_is_refused_naming_it() -> None:
    cfg = config(6)
    coord = pipeline_roles(cfg, records(6, 1), 1, KEY)[COORDINATOR]
    with pytest.raises(PeerError, match="from party 4: only the coordinator's own processes") as err:
        coord.receive(4, tally(cfg))
    assert err.value.peer == 4 and len(coord.records) == 0


@pytest.mark.parametrize("shards", [None, 3])
def test_without_rows_the_result_holds_the_histograms_and_the_same_estimates(shards: int | None) -> None:
    """``keep_rows=False``: no per-party rows in the result (asking for them says why), the same
    clusters, estimates and histograms; RR-Adjustment's weighted patterns give the weighted
    rows' marginals, and RR-Independent comes from the Sec. 4.1 histogram."""
    from mpc_rr.core import UsageError
    from mpc_rr.pipeline import Coordinator

    n, seed = 80, 9
    cfg = config(n)
    x = records(n, seed)
    kept, _, _ = drive(pipeline_roles(cfg, x, seed, KEY), shards, cfg)
    roles = pipeline_roles(cfg, x, seed, KEY)
    roles[COORDINATOR] = Coordinator(cfg, KEY, keep_rows=False)
    lean, _, _ = drive(roles, shards, cfg)
    a, b = kept.result, lean.result
    assert b.randomized is None and b.dependence_randomized is None
    with pytest.raises(UsageError, match="kept no per-party rows"):
        b.rows()
    assert a.clustering.clusters == b.clustering.clusters and a.parties_release == b.parties_release
    np.testing.assert_array_equal(a.dependences, b.dependences)
    for e, f in zip(a.estimates, b.estimates, strict=True):
        np.testing.assert_array_equal(e.distribution, f.distribution)
    np.testing.assert_array_equal(a.patterns.counts, b.patterns.counts)
    assert b.adjustment is not None and b.adjustment.weights.shape == (len(b.patterns),)
    wa, wb = a.adjusted, b.adjusted
    assert wa is not None and wb is not None
    for g in [(0,), (0, 1), (2, 3)]:
        np.testing.assert_allclose(wa.marginal(g), wb.marginal(g), atol=1e-12)
    ia, ib = a.independent(), b.independent()
    assert ia is not None and ib is not None and ia[1] is not None and ib[1] is not None
    for e, f in zip(ia[0], ib[0], strict=True):
        np.testing.assert_array_equal(e.distribution, f.distribution)
    np.testing.assert_allclose(ia[1].marginal((0, 1)), ib[1].marginal((0, 1)), atol=1e-9)
