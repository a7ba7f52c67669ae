"""The Section 4.2 full-mesh secure sum: exact, faithful message counts, clean aborts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.errors import PeerError, ProtocolAbort, UsageError
from mpc_rr.harness import run_roles
from mpc_rr.messages import Codec, WireArray
from mpc_rr.roles import COORDINATOR
from mpc_rr.secure_sum.entropy import SeededEntropy, SystemEntropy, smallest_uint
from mpc_rr.secure_sum.full_mesh import (
    MESH_MESSAGES,
    FullMeshParty,
    MeshShare,
    full_mesh_message_count,
    full_mesh_roles,
)

CODEC = Codec(MESH_MESSAGES)


def onehot(rng: np.random.Generator, n: int, cells: int) -> np.ndarray:
    x = np.zeros((n, cells), np.int64)
    x[np.arange(n), rng.integers(0, cells, n)] = 1
    return x


def seeded(seed: int):
    root = SeededEntropy(seed)
    return lambda pid: root.spawn(pid)


@pytest.mark.parametrize("publication", ["all-to-all", "board"])
@pytest.mark.parametrize("n", [2, 3, 17])
def test_sum_is_exact_and_message_count_matches_formula(n: int, publication: str) -> None:
    rng = np.random.default_rng(n)
    x = onehot(rng, n, 6)
    roles = full_mesh_roles(x, publication=publication, entropy=seeded(n))
    res = run_roles(roles, rng=rng, shuffle=True)
    for pid, role in roles.items():
        np.testing.assert_array_equal(role.result.total, x.sum(axis=0), err_msg=f"party {pid}")
        assert role.result.modulus == n + 1
    assert res.costs.messages == full_mesh_message_count(n, publication)
    assert full_mesh_message_count(3, "all-to-all") == 12
    assert full_mesh_message_count(3, "board") == 12 and full_mesh_message_count(4, "board") == 20


@settings(max_examples=15, deadline=None)
@given(
    n=st.integers(2, 200),
    cells=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
    publication=st.sampled_from(["all-to-all", "board"]),
)
def test_property_random_inputs(n: int, cells: int, seed: int, publication: str) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2, size=(n, cells))
    roles = full_mesh_roles(x, publication=publication, entropy=seeded(seed))
    run_roles(roles, rng=rng, shuffle=n <= 40)
    np.testing.assert_array_equal(roles[1].result.total, x.sum(axis=0))
    np.testing.assert_array_equal(roles[n].result.total, x.sum(axis=0))


def test_default_entropy_is_the_system_csprng_and_shares_hide_inputs() -> None:
    x = np.ones((3, 4000), np.int64)
    roles = full_mesh_roles(x)
    assert isinstance(roles[1].entropy, SystemEntropy)
    res = run_roles(roles, transcript=True)
    np.testing.assert_array_equal(roles[2].result.total, np.full(4000, 3))
    # every share is uniform mod 4 whatever the input: all residues appear ~equally often
    msgs = [CODEC.decode(e.data) for e in res.transcript]
    shares = np.concatenate([m.share.to_numpy() for m in msgs if isinstance(m, MeshShare)])
    counts = np.bincount(shares, minlength=4)
    assert counts.size == 4 and counts.min() > 0.2 * shares.size


def test_wire_dtype_is_smallest_uint() -> None:
    assert smallest_uint(32_562) == np.uint16
    assert smallest_uint(256) == np.uint8 and smallest_uint(257) == np.uint16
    roles = full_mesh_roles(np.zeros((300, 2), np.int64), entropy=seeded(1))
    sends = roles[1].start()
    assert {s.msg.share.dtype for s in sends} == {"<u2"}
    assert len(sends) == 299


def test_uniform_rejection_sampling_is_unbiased() -> None:
    # modulus 3 on 32-bit words: exact uniformity -> chi-square small
    u = SeededEntropy(5).uniform(3, 300_000)
    counts = np.bincount(u.astype(np.int64), minlength=3)
    chi2 = ((counts - 100_000) ** 2 / 100_000).sum()
    assert chi2 < 20, counts
    big = SeededEntropy(6).uniform(2**40 + 15, 1000)
    assert big.max() < 2**40 + 15
    with pytest.raises(UsageError, match="modulus must be in"):
        SeededEntropy(1).uniform(0, 3)


def test_missing_share_aborts_naming_the_silent_party() -> None:
    x = onehot(np.random.default_rng(0), 5, 3)
    roles = full_mesh_roles(x, entropy=seeded(2))
    run_roles(roles, drop=lambda s, d, m: s == 4 and d == 2 and isinstance(m, MeshShare))
    err = roles[2].error
    assert isinstance(err, ProtocolAbort) and err.culprits == (4,)
    with pytest.raises(ProtocolAbort, match=r"timed out waiting for parties \[4\]"):
        _ = roles[2].result


def test_malformed_share_aborts_naming_sender() -> None:
    p = FullMeshParty(1, 3, np.array([1, 0]), entropy=SeededEntropy(0))
    p.start()
    bad = MeshShare(share=WireArray.from_numpy(np.array([1, 2], np.uint32)))
    with pytest.raises(PeerError, match=r"dtype '<u4', expected '\|u1'"):
        p.receive(2, bad)
    assert p.error is not None and p.error.culprits == (2,)
    q = FullMeshParty(1, 3, np.array([1, 0]), entropy=SeededEntropy(0))
    q.start()
    with pytest.raises(PeerError, match=r"value 9 out of range \[0, 4\)"):
        q.receive(3, MeshShare(share=WireArray.from_numpy(np.array([9, 0], np.uint8))))
    assert q.error.culprits == (3,)


def test_duplicates_reported_and_ignored_conflicts_abort() -> None:
    x = onehot(np.random.default_rng(3), 6, 4)
    roles = full_mesh_roles(x, entropy=seeded(3), publication="board")
    res = run_roles(roles, rng=np.random.default_rng(1), duplicate=1.0)
    np.testing.assert_array_equal(roles[COORDINATOR].result.total, x.sum(axis=0))
    assert res.peer_errors() and all("duplicate" in str(e) for e in res.peer_errors())
    p = FullMeshParty(1, 3, np.array([1, 0]), entropy=SeededEntropy(0))
    p.start()
    p.receive(2, MeshShare(share=WireArray.from_numpy(np.array([1, 2], np.uint8))))
    with pytest.raises(PeerError, match="conflicting share from party 2"):
        p.receive(2, MeshShare(share=WireArray.from_numpy(np.array([0, 2], np.uint8))))
    assert p.error.culprits == (2,)


def test_usage_errors_name_the_parameter() -> None:
    with pytest.raises(UsageError, match=r"entries must be in \[0, 1\]"):
        FullMeshParty(1, 3, np.array([2, 0]))
    with pytest.raises(UsageError, match=r"party_id must be in 1\.\.3"):
        FullMeshParty(4, 3, np.array([1]))
    with pytest.raises(UsageError, match="publication must be"):
        full_mesh_roles(np.zeros((2, 2), np.int64), publication="gossip")
