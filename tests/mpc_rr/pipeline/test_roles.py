"""The distributed pipeline as sans-I/O roles, driven by the synchronous harness."""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from mpc_rr.core import (
    COORDINATOR,
    AllIn,
    Message,
    PeerError,
    Role,
    Send,
    Transition,
    UsageError,
    WireArray,
    party_generators,
    register_protocol,
    run_roles,
    table,
    unregister_protocol,
)
from mpc_rr.core._harness import codec_for_roles
from mpc_rr.data import Attribute, Schema
from mpc_rr.estimation import dependence_matrix
from mpc_rr.mdrr import PairLayout, cluster_attributes, release_groups, rr_independent
from mpc_rr.pipeline import (
    DataParty,
    PipelineConfig,
    RandomizedRecord,
    SignedClustering,
    pipeline_roles,
)
from mpc_rr.pipeline import _signing as signing
from mpc_rr.secure_sum import SeededEntropy, SumProtocol

SCHEMA = Schema(
    (
        Attribute("a", ("0", "1", "2")),
        Attribute("b", ("0", "1", "2")),
        Attribute("c", ("0", "1"), ordinal=True),
        Attribute("d", ("0", "1", "2", "3"), ordinal=True),
    )
)
KEY = signing.new_signing_key(bytes(range(32)))


def records(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = np.where(rng.random(n) < 0.85, a, rng.integers(0, 3, n))
    c = rng.integers(0, 2, n)
    d = np.clip(c * 2 + rng.integers(0, 2, n), 0, 3)
    return np.stack([a, b, c, d], axis=1)


def config(n: int, **kw: object) -> PipelineConfig:
    base = dict(schema=SCHEMA, n=n, p=0.8, tv=12, td=0.2, coordinator_key=signing.public_bytes(KEY))
    base.update(kw)
    return PipelineConfig(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize("shuffle", [False, True])
def test_distributed_equals_centralized(shuffle: bool) -> None:
    n, seed = 120, 42
    x = records(n, 1)
    cfg = config(n)
    roles = pipeline_roles(cfg, x, seed, KEY)
    out = run_roles(roles, rng=np.random.default_rng(5), shuffle=shuffle)
    res = roles[COORDINATOR].result

    # the same computation with the centralized library functions and the same per-party seeds
    gens = party_generators(seed, n)
    dep_release = rr_independent(x, cfg.sizes, cfg.attribute_mechanisms(), gens)
    deps = dependence_matrix(dep_release.randomized, SCHEMA)
    cl = cluster_attributes(deps, cfg.sizes, cfg.tv, cfg.td)
    rel = release_groups(x, cfg.sizes, cl.clusters, cfg.release_mechanisms(cl.clusters), gens)

    np.testing.assert_array_equal(res.dependences, deps)
    assert res.clustering.clusters == cl.clusters == ((0, 1), (2, 3))
    np.testing.assert_array_equal(res.randomized, rel.randomized)
    for a, b in zip(res.estimates, rel.estimates, strict=True):
        np.testing.assert_array_equal(a.distribution, b.distribution)
    assert res.epsilon["total"] == pytest.approx(res.epsilon["dependence"] + res.epsilon["release"])
    assert res.epsilon["release"] == pytest.approx(
        sum(cfg.attribute_epsilons())
    )  # equal-risk release
    outcomes = [roles[i].result for i in range(1, n + 1)]
    assert all(o.clusters == cl.clusters for o in outcomes)
    assert out.costs.messages == 3 * n  # record, clustering, release


def test_dropout_in_dependence_phase_goes_on_without_the_party() -> None:
    n = 30
    roles = pipeline_roles(config(n), records(n, 2), 7, KEY)
    res = run_roles(roles, drop=lambda s, d, m: s == 5 and type(m).__name__ == "RandomizedRecord")
    coord = roles[COORDINATOR].result
    assert 5 not in coord.parties_dependence and len(coord.parties_release) == n - 1
    err = roles[5].error
    assert err is not None and "timed out waiting for parties [0]" in str(err)
    assert not res.peer_errors()


def test_too_few_parties_aborts_cleanly() -> None:
    n = 4
    roles = pipeline_roles(config(n, min_parties=3), records(n, 3), 7, KEY)
    run_roles(roles, drop=lambda s, d, m: s in (1, 2))
    err = roles[COORDINATOR].error
    assert err is not None and err.culprits == (1, 2)


def test_duplicate_submission_is_reported_and_ignored() -> None:
    n = 20
    roles = pipeline_roles(config(n), records(n, 4), 9, KEY)
    res = run_roles(roles, rng=np.random.default_rng(1), duplicate=0.3)
    assert roles[COORDINATOR].result.parties_release == tuple(range(1, n + 1))
    assert res.peer_errors() and all(isinstance(e, PeerError) for e in res.peer_errors())
    assert any("submitted twice" in str(e) for e in res.peer_errors())


def test_party_refuses_a_forged_broadcast() -> None:
    cfg = config(5)
    party = DataParty(1, cfg, np.array([0, 0, 1, 2]), np.random.default_rng(0))
    party.start()
    forger = signing.new_signing_key(bytes(32))
    clusters = [[0, 1], [2], [3]]
    from mpc_rr.mdrr import Clustering

    digest = Clustering(((0, 1), (2,), (3,)), ()).digest()
    sig = signing.sign(forger, signing.clustering_payload(cfg.run, "rr", clusters, digest))
    assert (
        party.receive(
            COORDINATOR,
            SignedClustering(
                run=cfg.run, source="rr", clusters=clusters, digest=digest, signature=sig
            ),
        )
        == []
    )
    assert party.error is not None and "invalid signature" in str(party.error)


def _secure_sum_roles(n: int, **kw: object) -> dict[int, Role]:
    return pipeline_roles(config(n, dependence="secure-sum", **kw), records(n, 5), 1, KEY,
                          sum_entropy=SeededEntropy(1).spawn)  # fmt: skip


@pytest.mark.parametrize("dependence", ["rr", "secure-sum"])
def test_a_clustering_from_a_data_party_is_refused_naming_it(dependence: str) -> None:
    """A data party cannot stop another by sending it a clustering (found by the fuzz target
    role-pipeline-DataParty: the party aborted and blamed the coordinator): the clustering is
    refused naming its sender, in the dependence phase too, and the party goes on waiting."""
    n = 4
    roles = pipeline_roles(config(n, dependence=dependence), records(n, 5), 1, KEY,
                           sum_entropy=SeededEntropy(1).spawn)  # fmt: skip
    party = roles[1]
    party.start()
    clustering = SignedClustering(run=party.run, source=dependence, clusters=[[0, 1], [2], [3]],
                                  digest=b"", signature=b"")  # fmt: skip
    with pytest.raises(PeerError, match="a clustering from party 2, not the coordinator") as info:
        party.receive(2, clustering)
    assert info.value.peer == 2 and party.error is None and not party.done
    assert party.waiting_for() and not party._early  # nothing kept for later either


def test_a_refused_sub_protocol_message_is_not_counted_as_progress() -> None:
    """The coordinator's secure-sum progress counts the messages it took, not those refused
    (found by the fuzz target role-pipeline-Coordinator: a refused one moved the count)."""
    honest = run_roles(_secure_sum_roles(3), transcript=True)
    assert honest.ok and honest.transcript is not None
    first = next(e for e in honest.transcript.events if e.dst == COORDINATOR)
    coord = _secure_sum_roles(3)[COORDINATOR]
    coord.start()
    msg = codec_for_roles({0: coord}).decode(bytes(first.data))
    with pytest.raises(PeerError):
        coord.receive(COORDINATOR, msg)  # party 0 is no data party of the sum
    assert coord._sub_messages == 0
    coord.receive(first.src, msg)
    assert coord._sub_messages == 1


def test_bad_record_from_a_party_is_a_peer_error() -> None:
    cfg = config(3)
    roles = pipeline_roles(cfg, records(3, 5), 1, KEY)
    coord = roles[COORDINATOR]
    coord.start()
    with pytest.raises(PeerError, match="party 2: code outside"):
        coord.receive(
            2,
            RandomizedRecord(
                run=cfg.run, codes=WireArray.from_numpy(np.array([0, 9, 0, 0], np.uint8))
            ),
        )
    with pytest.raises(PeerError, match=r"shape \(3,\), expected \(4,\)"):
        coord.receive(
            2,
            RandomizedRecord(
                run=cfg.run, codes=WireArray.from_numpy(np.array([0, 1, 0], np.uint8))
            ),
        )


def test_config_validation() -> None:
    with pytest.raises(UsageError, match="dependence must be one of"):
        config(5, dependence="oracle")
    with pytest.raises(UsageError, match=r"p must be in \(0, 1\]"):
        config(5, p=0.0)
    with pytest.raises(UsageError, match="sum_protocol must be a sum protocol whose coordinator learns the sum"):
        config(5, dependence="secure-sum", sum_protocol="full-mesh")  # parties publish among themselves
    with pytest.raises(UsageError, match="only apply to the secure-sum dependence sources"):
        config(5, dependence="rr", sum_options={"degree": 2})
    with pytest.raises(UsageError, match="nosuch: not an option of secagg"):
        config(5, dependence="secure-sum", sum_options={"nosuch": 1})


# ---- composition with a secure-sum sub-protocol (a plaintext stand-in with the same result shape)


@dataclass(frozen=True)
class _Sum:
    total: np.ndarray
    included: tuple[int, ...]


class PlainShare(Message, frozen=True):
    x: WireArray


class PlainTotal(Message, frozen=True):
    total: WireArray
    included: list[int]


class _S(enum.Enum):
    WAITING = "waiting"
    DONE = "done"
    ABORTED = "aborted"


class PlainClient(Role):
    message_types = (PlainTotal,)

    def __init__(self, pid: int, x: np.ndarray) -> None:
        super().__init__(pid, _S.WAITING)
        self.x = x

    def start(self) -> list[Send]:
        return [Send(COORDINATOR, PlainShare(x=WireArray.from_numpy(self.x)))]

    def waiting_for(self) -> set[int]:
        return set() if self.done else {COORDINATOR}

    def _on_total(self, src: int, msg: PlainTotal) -> list[Send]:
        self.finish(_Sum(msg.total.to_numpy().astype(np.int64), tuple(msg.included)))
        return []

    TRANSITIONS = table({(_S.WAITING, PlainTotal): Transition(_on_total, _S.DONE)})


class PlainServer(Role):
    message_types = (PlainShare,)

    def __init__(self, n: int, cells: int) -> None:
        super().__init__(COORDINATOR, _S.WAITING)
        self.n, self.got = n, {}
        self.cells = cells

    def start(self) -> list[Send]:
        return []

    def waiting_for(self) -> set[int]:
        return set() if self.done else set(range(1, self.n + 1)) - set(self.got)

    def _on_share(self, src: int, msg: PlainShare) -> list[Send]:
        self.got[src] = msg.x.to_numpy()
        return []

    def _publish(self) -> list[Send]:
        total = np.sum(list(self.got.values()), axis=0)
        self.finish(_Sum(total, tuple(sorted(self.got))))
        w = WireArray.from_numpy(total)
        return [Send(i, PlainTotal(total=w, included=sorted(self.got))) for i in sorted(self.got)]

    TRANSITIONS = table({
        (_S.WAITING, PlainShare): Transition(_on_share, _S.WAITING),
        (_S.WAITING, AllIn): Transition(_publish, _S.DONE),
    })


@dataclass(frozen=True)
class _PlainPublic:
    n: int
    cells: int

    def as_json(self) -> dict[str, int]:
        return {"n": self.n, "cells": self.cells}


def _plain_role(pid: int, pub: _PlainPublic, x: np.ndarray | None, *, entropy: object = None) -> Role:
    return PlainServer(pub.n, pub.cells) if pid == COORDINATOR else PlainClient(pid, x)


class _PlainSum(SumProtocol):
    name = "test-plain-sum"
    summary = "a plaintext stand-in, registered from this file"
    steps = ("share",)

    def public(self, n: int, cells: int, *, run: str, max_value: int = 1, options: Any = None) -> _PlainPublic:
        return _PlainPublic(n, cells)

    def role(self, party_id: int, public: Any, x: Any, *, entropy: Any = None, identity: Any = None) -> Role:
        return _plain_role(party_id, public, x, entropy=entropy)

    def message_types(self) -> tuple[type[Message], ...]:
        return (PlainShare, PlainTotal)

    def step_messages(self) -> dict[str, type[Message]]:
        return {"share": PlainShare}

    def message_count(self, n: int, options: Any) -> int:
        return 2 * n

    def memory_estimate(self, n: int, cells: int, options: Any) -> int:
        return 16 * n * cells


PLAIN_SUM = _PlainSum()


@pytest.fixture
def plain_sum() -> Iterator[str]:
    """The stand-in registered for one test: the pipeline takes any registered sum protocol."""
    register_protocol(PLAIN_SUM, replace=True)
    yield PLAIN_SUM.name
    unregister_protocol(PLAIN_SUM.name)


def test_secure_sum_source_composes_and_parties_check_the_digest(plain_sum: str) -> None:
    n = 80
    x = records(n, 6)
    cfg = config(n, dependence="secure-sum", sum_protocol=plain_sum)
    roles = pipeline_roles(cfg, x, 3, KEY)
    run_roles(roles, rng=np.random.default_rng(2), shuffle=True)
    res = roles[COORDINATOR].result
    np.testing.assert_allclose(
        res.dependences, dependence_matrix(x, SCHEMA)
    )  # exact bivariate counts
    assert all(roles[i].result.clusters == res.clustering.clusters for i in range(1, n + 1))
    assert res.epsilon["dependence"] == float("inf")


def test_party_refuses_a_broadcast_that_differs_from_its_own_clustering(plain_sum: str) -> None:
    n = 10
    x = records(n, 8)
    cfg = config(n, dependence="secure-sum", sum_protocol=plain_sum)
    roles = pipeline_roles(cfg, x, 3, KEY)
    coord = roles[COORDINATOR]
    # a coordinator that lies about the clustering (validly signed, but not what the aggregate gives)
    orig = coord._cluster_and_broadcast

    def lying() -> list[Send]:
        sends = orig()
        clusters = [[0], [1], [2], [3]] if len(sends[0].msg.clusters) < 4 else [[0, 1], [2], [3]]
        from mpc_rr.mdrr import Clustering

        digest = Clustering(tuple(tuple(c) for c in clusters), ()).digest()
        sig = signing.sign(
            KEY, signing.clustering_payload(cfg.run, cfg.dependence, clusters, digest)
        )
        msg = SignedClustering(
            run=cfg.run, source=cfg.dependence, clusters=clusters, digest=digest, signature=sig
        )
        return [Send(s.dst, msg) for s in sends]

    coord._cluster_and_broadcast = lying  # type: ignore[method-assign]
    run_roles(roles)
    errs = [roles[i].error for i in range(1, n + 1)]
    assert all(e is not None and "differs from the one computed locally" in str(e) for e in errs)
    assert all(e.culprits == (COORDINATOR,) for e in errs if e is not None)


@pytest.mark.parametrize("mechanism", ["lambda", "optimized"])
def test_structured_mechanisms_in_the_pipeline(mechanism: str) -> None:
    n, seed = 60, 11
    x = records(n, 12)
    cfg = config(n, mechanism=mechanism)
    roles = pipeline_roles(cfg, x, seed, KEY)
    run_roles(roles)
    res = roles[COORDINATOR].result
    gens = party_generators(seed, n)
    rr_independent(
        x, cfg.sizes, cfg.attribute_mechanisms(), gens
    )  # same draws as the dependence phase
    rel = release_groups(
        x, cfg.sizes, res.clustering.clusters, cfg.release_mechanisms(res.clustering.clusters), gens
    )
    np.testing.assert_array_equal(res.randomized, rel.randomized)
    for a, b in zip(res.estimates, rel.estimates, strict=True):
        np.testing.assert_allclose(a.distribution, b.distribution)
    eps_sum = sum(cfg.attribute_epsilons())
    if mechanism == "lambda":
        assert res.epsilon["release"] == pytest.approx(eps_sum)
    else:  # the optimized joint mechanism meets every eps_A with less overall epsilon
        assert res.epsilon["release"] < eps_sum


# ---- the real secure sum (SecAgg+) as the dependence phase


def _seeded(pid: int) -> SeededEntropy:
    return SeededEntropy(99, pid)


def test_secagg_exact_counts_give_the_true_dependences() -> None:
    n = 40
    x = records(n, 21)
    cfg = config(n, dependence="secure-sum", run="ss")
    roles = pipeline_roles(cfg, x, 4, KEY, sum_entropy=_seeded)
    run_roles(roles, rng=np.random.default_rng(3), shuffle=True)
    res = roles[COORDINATOR].result
    np.testing.assert_allclose(res.dependences, dependence_matrix(x, SCHEMA), atol=1e-12)
    assert res.parties_dependence == tuple(range(1, n + 1))
    assert all(roles[i].result.clusters == res.clustering.clusters for i in range(1, n + 1))


def test_secagg_pairwise_rr_matches_the_centralized_estimate() -> None:
    from mpc_rr.estimation import estimate_distribution

    n, seed = 40, 8
    x = records(n, 22)
    cfg = config(n, dependence="pairwise-rr", run="prr", p=0.6)
    roles = pipeline_roles(cfg, x, seed, KEY, sum_entropy=_seeded)
    run_roles(roles)
    res = roles[COORDINATOR].result
    # centrally: the same per-party draws, pair by pair, then Eq. 2 per pair table
    layout = PairLayout(cfg.sizes)
    gens = party_generators(seed, n)
    tables = {pair: np.zeros((cfg.sizes[pair[0]], cfg.sizes[pair[1]])) for pair in layout.pairs}
    for r, g in zip(x, gens, strict=True):
        for (i, j), mech in zip(layout.pairs, cfg.pair_mechanisms(), strict=True):
            a, b = mech.perturb(r[[i, j]][None, :], g)[0]
            tables[(i, j)][a, b] += 1
    from mpc_rr.estimation import dependence_matrix_from_tables

    est = {
        k: estimate_distribution(m, t, "clip").distribution * n
        for (k, t), m in zip(tables.items(), cfg.pair_mechanisms(), strict=True)
    }
    np.testing.assert_allclose(
        res.dependences, dependence_matrix_from_tables(est, SCHEMA), atol=1e-12
    )
    acc = cfg.dependence_epsilons_per_attribute()
    assert all(p <= s for p, s in zip(acc["parallel"], acc["sequential"], strict=True))
    assert res.epsilon["dependence"] == pytest.approx(sum(m.epsilon for m in cfg.pair_mechanisms()))


def test_an_estimator_that_cannot_invert_the_release_aborts_cleanly() -> None:
    """Found by the adversary work: --mechanism optimized on binary attributes can give a
    singular matrix; the estimator's UsageError used to escape the coordinator and crash the run."""
    schema = Schema((Attribute("a", ("0", "1")), Attribute("b", ("0", "1")), Attribute("c", ("0", "1"))))
    n = 300
    rng = np.random.default_rng(3)
    a = rng.integers(0, 2, n)
    x = np.stack([a, a, a], axis=1)  # fully dependent: one cluster of the three attributes
    cfg = PipelineConfig(schema=schema, n=n, p=0.3, tv=12, td=0.05, mechanism="optimized",
                         coordinator_key=signing.public_bytes(KEY))  # fmt: skip
    roles = pipeline_roles(cfg, x, 2, KEY)
    run_roles(roles)
    err = roles[COORDINATOR].error
    assert err is not None and "cannot be estimated" in str(err), err


def test_the_coordinator_keeps_records_as_rows_of_one_array() -> None:
    """RecordRows: a record is m codes in the wire's smallest dtype, read back as int64 rows in
    the order asked (what the coordinator's dict of arrays gave)."""
    from mpc_rr.pipeline._messages import RecordRows

    rows = RecordRows(5, (3, 300))
    assert rows.rows.dtype == np.uint16 and len(rows) == 0 and 2 not in rows
    rows[4] = [2, 299]
    rows[2] = [0, 7]
    assert 4 in rows and 3 not in rows and -1 not in rows and 6 not in rows and len(rows) == 2
    assert rows.ids() == [2, 4]
    got = rows.stack([4, 2])
    assert got.dtype == np.int64 and got.tolist() == [[2, 299], [0, 7]]
    assert RecordRows(3, (2, 2)).rows.dtype == np.uint8 and RecordRows(3, (2, 70000)).rows.dtype == np.int64
