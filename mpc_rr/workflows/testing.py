"""The conformance kit's checks of a sum protocol inside the collection protocols.

Importing this module adds two checks to :mod:`mpc_rr.secure_sum.testing`
(:func:`~mpc_rr.secure_sum.testing.register_check`), for every sum protocol
whose party 0 learns the total:

* ``pipeline-inner-sum`` -- the pipeline's secure-sum dependence over the
  protocol gives the exact bivariate counts (Domingo-Ferrer & Soria-Comas,
  Sec. 4.2: the plaintext dependence matrix);
* ``rrba-inner-sum`` -- RRBA's secure tally over the protocol ends with the
  same estimate as the plain tally of the same seed (the tally is exact, so the
  sum changes nothing but who sees the answers).

Sizes are small (a 3-attribute schema, 8 parties).
"""

from __future__ import annotations

import numpy as np

from mpc_rr.core import COORDINATOR, HarnessRunner
from mpc_rr.secure_sum import SeededEntropy, SumProtocol
from mpc_rr.secure_sum.testing import KitRunner, register_check

__all__ = ["check_pipeline_inner_sum", "check_rrba_inner_sum"]


def _records(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.stack([rng.integers(0, 3, n), rng.integers(0, 2, n), rng.integers(0, 2, n)], axis=1)


def check_pipeline_inner_sum(protocol: SumProtocol, runner: KitRunner | None = None, *, n: int = 8, seed: int = 4) -> None:
    """The pipeline's dependences over ``protocol`` equal the plaintext dependence matrix."""
    from mpc_rr.data import Attribute, Schema
    from mpc_rr.estimation import dependence_matrix
    from mpc_rr.pipeline import PipelineConfig, pipeline_roles
    from mpc_rr.pipeline import _signing as signing

    schema = Schema((Attribute("a", ("0", "1", "2")), Attribute("b", ("0", "1")), Attribute("c", ("0", "1"))))
    key = signing.new_signing_key(bytes(range(32)))
    cfg = PipelineConfig(schema=schema, n=n, p=0.8, dependence="secure-sum", sum_protocol=protocol.name,
                         coordinator_key=signing.public_bytes(key), run=f"kit-pipeline-{protocol.name}")  # fmt: skip
    x = _records(n, seed)
    res = (runner or HarnessRunner())(pipeline_roles(cfg, x, seed, key, sum_entropy=SeededEntropy(seed).spawn))
    assert not res.errors, f"{protocol.name} as the pipeline's dependence sum: the run aborted: {res.errors}"
    got = res.roles[COORDINATOR].result.dependences
    want = dependence_matrix(x, schema)
    assert np.allclose(got, want), f"{protocol.name} as the pipeline's dependence sum: {got} != {want}"


def check_rrba_inner_sum(protocol: SumProtocol, runner: KitRunner | None = None, *, n: int = 8, seed: int = 5) -> None:
    """RRBA's secure tally over ``protocol`` ends where the plain tally of the same seed does."""
    from mpc_rr.rrba import RRBAConfig, rrba_roles

    x = _records(n, seed)
    ends = []
    for secure in (False, True):
        cfg = RRBAConfig(sizes=(3, 2, 2), n_clients=n, block=n // 2, p=0.5, run=f"kit-rrba-{protocol.name}",
                         secure_tally=secure, sum_protocol=protocol.name)  # fmt: skip
        res = (runner or HarnessRunner())(rrba_roles(cfg, x, seed, entropy=SeededEntropy(seed).spawn))
        assert not res.errors, f"{protocol.name} as RRBA's secure tally: the run aborted: {res.errors}"
        ends.append(res.roles[COORDINATOR].result)
    plain, secure_end = ends
    assert np.array_equal(np.asarray(plain.blocks_used), np.asarray(secure_end.blocks_used)), (
        f"{protocol.name} as RRBA's secure tally: {secure_end.blocks_used} blocks used, the plain tally {plain.blocks_used}"
    )
    for a, b in zip(plain.estimates, secure_end.estimates, strict=True):
        assert np.array_equal(np.asarray(a), np.asarray(b)), (
            f"{protocol.name} as RRBA's secure tally: its estimates differ from the plain tally's"
        )


def _at_coordinator(protocol: SumProtocol) -> bool:
    return protocol.total_at_coordinator


register_check("pipeline-inner-sum", check_pipeline_inner_sum, any_runner=False, applies=_at_coordinator)
register_check("rrba-inner-sum", check_rrba_inner_sum, any_runner=False, applies=_at_coordinator)
