"""The pipeline's roles as a :class:`~mpc_rr.core.RolePlan`: built where they run.

A sharded run sends each worker ``plan.subset(ids)``: the public
:class:`~mpc_rr.pipeline.PipelineConfig`, the records of its own data parties
only, and the coordinator's signing key only to the worker that runs party 0.
Party ``i``'s generator is child ``i - 1`` of ``SeedSequence(seed)``
(``SeedSequence(seed, spawn_key=(i - 1,))``, O(1) per party), so a subset
builds exactly the roles :func:`~mpc_rr.pipeline.pipeline_roles` builds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from mpc_rr.core import COORDINATOR, Message, Role, UsageError
from mpc_rr.core._runs import Progress, RolePlan
from mpc_rr.pipeline import _signing as signing
from mpc_rr.pipeline._config import PipelineConfig
from mpc_rr.pipeline._coordinator import Coordinator
from mpc_rr.pipeline._dependence import dependence_public, dependence_sum
from mpc_rr.pipeline._party import DataParty
from mpc_rr.pipeline._split import CoordinatorShard
from mpc_rr.secure_sum import StatelessPrechecks

__all__ = ["PipelinePlan"]


class PipelinePlan(RolePlan):
    """Coordinator and data parties of one simulated pipeline run.

    Parameters
    ----------
    config:
        The run's public parameters.
    records:
        ``(n, m)`` codes, party ``i`` holding row ``i - 1`` (for a subset: the
        rows of its data parties, in id order).
    seed:
        Simulation seed: party ``i``'s noise comes from child ``i - 1`` of
        ``SeedSequence(seed)``.
    signing_key:
        The coordinator's raw 32-byte Ed25519 private key (``None`` in a
        subset without party 0).
    entropy_seed:
        Secure-sum dependence sources: ``None`` draws the sum's keys, seeds and
        shares from the OS CSPRNG; an int uses
        :class:`~mpc_rr.secure_sum.SeededEntropy` (tests and teaching:
        reproducible transcripts).
    keep_rows:
        Whether the coordinator's result holds every party's released (and Sec. 4.1)
        record, ``randomized``; ``False``: only their histograms (``patterns``), which is all
        its estimates use (:mod:`mpc_rr.pipeline._split`).
    """

    def __init__(
        self,
        config: PipelineConfig,
        records: np.ndarray,
        seed: int,
        signing_key: bytes | None,
        *,
        entropy_seed: int | None = None,
        ids: Sequence[int] | None = None,
        progress: Progress | None = None,
        keep_rows: bool = True,
    ) -> None:
        self.config = config
        self.keep_rows = keep_rows
        self.seed = int(seed)
        self.entropy_seed = entropy_seed
        self._ids = tuple(range(config.n + 1)) if ids is None else tuple(sorted(int(i) for i in ids))
        data = [i for i in self._ids if i != COORDINATOR]
        recs = np.asarray(records)
        if recs.shape != (len(data), len(config.sizes)):
            raise UsageError(
                f"records must have shape ({len(data)}, {len(config.sizes)}) for these parties, "
                f"got {recs.shape}"
            )
        if data and not 1 <= data[0] <= data[-1] <= config.n:
            raise UsageError(f"data party ids must be in 1..{config.n}")
        if COORDINATOR in self._ids and (signing_key is None or len(signing_key) != 32):
            raise UsageError("the coordinator's plan needs its raw 32-byte Ed25519 signing key")
        self.records = recs
        self.signing_key = signing_key if COORDINATOR in self._ids else None
        self.progress = progress

    @property
    def parties(self) -> tuple[int, ...]:
        return self._ids

    def subset(self, ids: Sequence[int]) -> PipelinePlan:
        ids_t = self._check_subset(ids)
        row = {p: k for k, p in enumerate(i for i in self._ids if i != COORDINATOR)}
        rows = [row[i] for i in ids_t if i != COORDINATOR]
        return PipelinePlan(
            self.config, self.records[rows], self.seed,
            self.signing_key if COORDINATOR in ids_t else None,
            entropy_seed=self.entropy_seed, ids=ids_t, keep_rows=self.keep_rows,
        )  # fmt: skip

    def coordinator_part(self, ids: Sequence[int]) -> CoordinatorShard:
        """Party 0's per-party work for the data parties among ``ids`` (mpc_rr.pipeline._split)."""
        return CoordinatorShard(self.config, [i for i in ids if i != COORDINATOR])

    def prechecks(self) -> Mapping[int, Callable[[int, Message], bool]]:
        """The coordinator's stateless checks of the dependence sum's messages (its sub-role
        is the sum's party 0, under the same ids), where the sum protocol has them."""
        cfg = self.config
        if cfg.dependence == "rr":
            return {}
        spec = dependence_sum(cfg)
        if not isinstance(spec, StatelessPrechecks):
            return {}
        return {COORDINATOR: spec.precheck(dependence_public(cfg))}

    def build(self, progress: Progress | None = None) -> dict[int, Role]:
        cfg = self.config
        spawn = None
        if cfg.dependence != "rr" and self.entropy_seed is not None:
            from mpc_rr.secure_sum import SeededEntropy

            spawn = SeededEntropy(self.entropy_seed).spawn
        roles: dict[int, Role] = {}
        k = 0
        for i in self._ids:
            if i == COORDINATOR:
                assert self.signing_key is not None
                key = signing.new_signing_key(self.signing_key)
                roles[i] = Coordinator(cfg, key, progress=progress, keep_rows=self.keep_rows)
                continue
            rng = np.random.default_rng(np.random.SeedSequence(self.seed, spawn_key=(i - 1,)))
            roles[i] = DataParty(i, cfg, self.records[k], rng, sum_entropy=spawn(i) if spawn else None)
            k += 1
        return roles
