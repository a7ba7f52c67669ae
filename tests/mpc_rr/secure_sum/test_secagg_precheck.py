"""The aggregator's stateless checks run by a trusted co-worker (RolePlan.prechecks): the same
verdicts as the aggregator's own, the same run when they are skipped, every cheat still caught."""

from __future__ import annotations

import numpy as np
import pytest

from mpc_rr.adversary.active._cheats import CheatingClient
from mpc_rr.core import COORDINATOR, Codec, WireArray, run_roles
from mpc_rr.secure_sum import SecureSumPlan, SeededEntropy
from mpc_rr.secure_sum._graph import Graph
from mpc_rr.secure_sum.secagg import (
    SECAGG_MESSAGES,
    AdvertiseKeys,
    EncryptedShares,
    MaskedInput,
    SecAggConfig,
    SecAggPublic,
    secagg_roles,
)
from mpc_rr.secure_sum.secagg._judge import SecAggPrecheck

N, CELLS = 12, 3


def setup(seed: int = 4):
    cfg = SecAggConfig.create(N, CELLS, max_dropout=0.2, max_corrupt=0.0, run="pre")
    rng = np.random.default_rng(seed)
    graph = Graph.random_regular(N, cfg.degree, rng)
    x = rng.integers(0, 2, size=(N, CELLS))
    return cfg, graph, x


def with_coworker(roles, check):
    """The aggregator receives what passed ``check`` as prechecked (as the sharded runtime does)."""
    server = roles[COORDINATOR]
    plain, counted = server.receive, {"prechecked": 0}

    def receive(src, msg):
        if not check(src, msg):
            return plain(src, msg)
        counted["prechecked"] += 1
        server.prechecked = True  # what receive_prechecked does, around the original receive
        try:
            return plain(src, msg)
        finally:
            server.prechecked = False

    server.receive = receive
    return counted


def test_the_precheck_passes_what_the_aggregator_would_pass_and_nothing_else() -> None:
    cfg, graph, x = setup()
    roles = secagg_roles(x, SecAggPublic(cfg, graph), entropy=SeededEntropy(1).spawn)
    check = SecAggPrecheck(cfg)
    keys = roles[1].start()[0].msg
    assert check(1, keys)
    assert not check(2, keys)  # claiming another sender
    assert not check(1, AdvertiseKeys(run="pre", c_pk=keys.c_pk, s_pk=keys.s_pk, b_commit=keys.b_commit, draw_commit=keys.draw_commit,
                                      signature=bytes(64)))  # fmt: skip
    assert not check(1, AdvertiseKeys(run="pre", c_pk=keys.c_pk[:31], s_pk=keys.s_pk, b_commit=keys.b_commit, draw_commit=keys.draw_commit,
                                      signature=keys.signature))  # fmt: skip
    other = SecAggPrecheck(SecAggConfig.create(N, CELLS, max_dropout=0.2, max_corrupt=0.0, run="other"))
    assert not other(1, keys)  # another run
    res = run_roles(roles, transcript=True)
    assert res.ok
    codec = Codec(SECAGG_MESSAGES)
    batches = [(a, codec.decode(m, sender=a)) for (a, b), ps in res.links().items() if b == COORDINATOR for m in ps]
    batches = [(a, m) for a, m in batches if isinstance(m, EncryptedShares)]
    assert len(batches) == N and all(check(a, m) for a, m in batches)
    a, m = batches[0]
    cts = m.ciphertexts.to_numpy().copy()
    cts[0, 0] ^= 1
    assert not check(a, EncryptedShares(run="pre", recipients=m.recipients, ciphertexts=WireArray.from_numpy(cts),
                                        signature=m.signature))  # fmt: skip
    assert not check(a, MaskedInput(run="pre", y=WireArray.from_numpy(np.zeros(CELLS, "<u2"))))  # not checkable


@pytest.mark.parametrize("cheat", [None, "forged-signature", "claim-sender", "bad-shares"])
def test_skipping_the_prechecked_checks_changes_nothing(cheat: str | None) -> None:
    cfg, graph, x = setup()
    pub = SecAggPublic(cfg, graph)
    plain = secagg_roles(x, pub, entropy=SeededEntropy(1).spawn)
    split = secagg_roles(x, pub, entropy=SeededEntropy(1).spawn)
    if cheat is not None:
        for roles in (plain, split):
            roles[3] = CheatingClient(3, cfg, graph, x[2], entropy=SeededEntropy(1).spawn(3), strategy=cheat)
    counted = with_coworker(split, SecAggPrecheck(cfg))
    a, b = run_roles(plain, transcript=True), run_roles(split, transcript=True)
    assert a.links() == b.links()  # the same run, message for message
    # every validly signed key and share batch was checked by the co-worker, not the aggregator
    # (garbage signed by its sender passes: the complaint round convicts it, not the signature)
    assert counted["prechecked"] == 2 * N - (2 if cheat in ("forged-signature", "claim-sender") else 0)
    for roles in (plain, split):
        server = roles[COORDINATOR]
        assert server.culprits == ([] if cheat is None else [3])
        np.testing.assert_array_equal(server.result.total, x[np.asarray(server.result.included) - 1].sum(axis=0))


def test_a_sharded_run_prechecks_where_the_parties_send() -> None:
    from parties.shard_direct import DirectShard
    from parties.shard_engine import ShardSpec
    from transports.shards import decode_batch_checked

    _, _, x = setup()
    plan = SecureSumPlan("secagg", x, run="pre", entropy=SeededEntropy(1).spawn, max_dropout=0.2, max_corrupt=0.0)
    assert set(plan.prechecks()) == {COORDINATOR}
    owner = np.asarray([0] + [1] * N, "<i4").tobytes()
    shards = [DirectShard(ShardSpec(k, plan.subset(ids), owner, direct=True)) for k, ids in
              enumerate([(0,), tuple(range(1, N + 1))])]  # fmt: skip
    frames: list[list[bytes]] = [[], []]
    checked = []
    for _ in range(30):
        reports = [s.step(frames[k], None) for k, s in enumerate(shards)]
        out = [s.take_frames() for s in shards]
        frames = [[out[1][0]] if 0 in out[1] else [], [out[0][1]] if 1 in out[0] else []]
        for f in frames[0]:  # what the parties' shard sends the aggregator
            items, ok = decode_batch_checked(f)
            checked.append((len(items), len(ok)))
        if all(r.unfinished == 0 for r in reports):
            break
    server = shards[0].roles[COORDINATOR]
    assert server.result.n_included == N
    np.testing.assert_array_equal(server.result.total, x.sum(axis=0))
    # keys and share batches passed where they were sent (the draw's reveals between them: checked by
    # the aggregator against its digest); the rest is not checkable
    assert checked[0] == checked[2] == (N, N) and all(k == 0 for i, (_, k) in enumerate(checked) if i not in (0, 2))
