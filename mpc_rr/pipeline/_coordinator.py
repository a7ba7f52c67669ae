"""The pipeline's coordinator (:mod:`mpc_rr.pipeline._roles` has the whole protocol)."""

from __future__ import annotations

import enum
from collections.abc import Callable
from collections.abc import Set as AbstractSet

import numpy as np
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from mpc_rr.core import (
    COORDINATOR,
    NOBODY,
    AllIn,
    Deadline,
    Message,
    PeerError,
    Send,
    SubMessage,
    SubProtocolHost,
    Transition,
    UsageError,
    broadcast,
    table,
)
from mpc_rr.estimation import dependence_matrix, estimate_distribution, rr_adjustment
from mpc_rr.mdrr import Clustering, cluster_attributes, joint_counts
from mpc_rr.pipeline import _signing as signing
from mpc_rr.pipeline._config import PipelineConfig
from mpc_rr.pipeline._dependence import (
    dependence_public,
    dependence_role,
    dependence_sum,
    dependences_from_aggregate,
)
from mpc_rr.pipeline._messages import (
    PIPELINE_MESSAGES,
    RandomizedRecord,
    RecordRows,
    Release,
    SignedClustering,
    read_codes,
)
from mpc_rr.pipeline._results import PipelineResult, epsilons

__all__ = ["CoordState", "Coordinator", "Progress"]

Progress = Callable[[str, int, int], None]
"""``progress(phase, received, expected)``; ``expected = 0`` when not known in advance."""


class CoordState(enum.Enum):
    DEPENDENCE = "collecting the dependence submissions (or running the secure sum)"
    RELEASE = "clustering broadcast; collecting the clustered releases"
    DONE = "estimated"
    ABORTED = "aborted"


# The coordinator (party 0, untrusted) runs two steps, each closed at "all in" or at its
# deadline -- the silent parties are dropouts, down to min_parties; below, it aborts naming
# them:
#   DEPENDENCE  it collects the randomized records (dependence="rr") or runs the dependence
#               secure sum (a sub-protocol, which decides its own deadlines); then it
#               computes the dependences, clusters the attributes (Algorithm 1) and
#               broadcasts the clustering, signed (SignedClustering);
#   RELEASE     it collects the clustered releases, then estimates every cluster (Eq. 2 and
#               repair) and runs RR-Adjustment: its result.
# A record that comes after its step closed is counted (``late``); a late sum message goes
# to the ended sum, which ignores it.
COORDINATOR_TABLE = table({
    (CoordState.DEPENDENCE, RandomizedRecord): Transition("_on_record", CoordState.DEPENDENCE),
    (CoordState.DEPENDENCE, SubMessage): Transition("_forward_sub", CoordState.DEPENDENCE),
    (CoordState.DEPENDENCE, Deadline): Transition("_dependence_deadline", CoordState.DEPENDENCE),
    (CoordState.DEPENDENCE, AllIn): Transition("_cluster_and_broadcast", CoordState.RELEASE),
    (CoordState.RELEASE, Release): Transition("_on_release", CoordState.RELEASE),
    (CoordState.RELEASE, Deadline): Transition("_release_deadline", CoordState.RELEASE),
    (CoordState.RELEASE, AllIn): Transition("_estimate", CoordState.DONE),
    (CoordState.RELEASE, RandomizedRecord): Transition("_late", CoordState.RELEASE),
    (CoordState.RELEASE, SubMessage): Transition("_late_sub", CoordState.RELEASE),
})


class Coordinator(SubProtocolHost):
    """The untrusted coordinator (data controller), party 0.

    After a deadline it goes on without the silent parties (dropouts) if at
    least ``config.min_parties`` answered, and aborts naming them otherwise.
    """

    TRANSITIONS = COORDINATOR_TABLE

    def __init__(
        self,
        config: PipelineConfig,
        signing_key: Ed25519PrivateKey,
        *,
        progress: Progress | None = None,
    ) -> None:
        super().__init__(COORDINATOR, CoordState.DEPENDENCE)
        if signing.public_bytes(signing_key) != config.coordinator_key:
            raise UsageError("coordinator signing key does not match config.coordinator_key")
        self.cfg = config
        self.run = config.run
        self.key = signing_key
        self.progress = progress
        self.expected: set[int] = set(range(1, config.n + 1))
        self._missing: set[int] = set(self.expected)  # expected parties silent in this step
        self.records = RecordRows(config.n, config.sizes)
        self.releases = RecordRows(config.n, config.sizes)
        self.dep_parties: tuple[int, ...] = ()
        self.dependences: np.ndarray | None = None
        self.clustering: Clustering | None = None
        self.dep_randomized: np.ndarray | None = None
        self.late = 0
        self._sub_messages = 0
        self._sub_expected = self._sub_bulk = 0
        self.message_types = PIPELINE_MESSAGES
        if config.dependence != "rr":
            self.attach_sub(dependence_role(config, COORDINATOR, None))
            # what the coordinator receives of the sum without dropouts: one message per party and
            # step (SecAgg+'s five rounds, a Prio3 or plain report), plus what the protocol says
            # (Prio3: the helper's answer to each aggregation job) -- the total a progress line shows
            spec = dependence_sum(config)
            self._sub_bulk = len(spec.steps) * config.n
            count = spec.coordinator_messages
            self._sub_expected = self._sub_bulk if count is None else count(dependence_public(config))

    def start(self) -> list[Send]:
        return self.start_sub() if self.sub is not None else []

    def waiting_for(self) -> AbstractSet[int]:
        if self.done:
            return NOBODY
        if self.state is CoordState.DEPENDENCE and self.sub is not None:
            return self.sub_waiting()
        return self._missing

    def _report(self, phase: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(phase, done, total)

    # -- dependence phase ---------------------------------------------------------------
    def _on_record(self, src: int, msg: RandomizedRecord) -> list[Send]:
        if self.sub is not None:
            raise PeerError(f"{self.name}: RandomizedRecord from party {src}, but the "
                            f"dependence source is {self.cfg.dependence!r}", src)  # fmt: skip
        rec = read_codes(msg.codes, self.cfg, src, "RandomizedRecord")
        self._store(self.records, src, rec, "DEPENDENCE")
        return []

    def _forward_sub(self, src: int, msg: Message) -> list[Send]:
        k = self._sub_messages = self._sub_messages + 1
        if k <= self._sub_bulk:
            if k % 256 == 0 or k == self._sub_bulk:
                self._report("SECURE SUM", k, self._sub_bulk)
        else:  # past one message per party and step: the aggregators' own steps (prio3: a job each)
            extra = k - self._sub_bulk
            self._report("SECURE SUM SERVERS", extra, max(self._sub_expected - self._sub_bulk, extra))
        return super()._forward_sub(src, msg)

    def _dependence_deadline(self) -> list[Send]:
        if self.sub is not None:
            return self._sub_deadline()
        return self._go_on_without_silent(self.records)

    def _store(self, store: RecordRows, src: int, rec: list[int], phase: str) -> None:
        if src not in self.expected:
            raise PeerError(f"{self.name}: unexpected submission from party {src} in {phase}", src)
        if src in store:
            raise PeerError(f"{self.name}: party {src} submitted twice in {phase}; kept the first", src)
        store[src] = rec
        self._missing.discard(src)
        self._report(phase, len(store), len(self.expected))

    def _go_on_without_silent(self, have: RecordRows) -> list[Send]:
        """A deadline passed: the silent parties are dropouts (abort below min_parties)."""
        if len(have) < self.cfg.min_parties:
            missing = sorted(self.expected - set(have.ids()))
            self.abort(
                f"{self.name}: only {len(have)} of {len(self.expected)} parties answered in "
                f"{self.state.name} (min_parties={self.cfg.min_parties}); silent: {missing[:20]}",
                missing,
            )
            return []
        self.expected = set(have.ids())
        self._missing = set()
        return []  # the AllIn transition closes the step

    def _cluster_and_broadcast(self) -> list[Send]:
        if self.sub is not None:
            err = self.sub_error()
            if err is not None:
                self.abort(f"{self.name}: dependence phase failed: {err}", err.culprits)
                return []
            res = dependence_sum(self.cfg).result_of(self.sub.role)
            self.dep_parties = tuple(int(i) for i in res.included)
            self.dependences = dependences_from_aggregate(self.cfg, res.total)
        else:
            ids = self.records.ids()
            self.dep_parties = tuple(ids)
            y = self.records.stack(ids)
            self.dep_randomized = y
            self.dependences = dependence_matrix(y, self.cfg.schema)
        self.expected = set(self.dep_parties)
        self._missing = set(self.expected)
        self._report("DEPENDENCE", len(self.dep_parties), len(self.dep_parties))
        self.clustering = cluster_attributes(
            self.dependences, self.cfg.sizes, self.cfg.tv, self.cfg.td
        )
        clusters = [list(c) for c in self.clustering.clusters]
        digest = self.clustering.digest()
        sig = signing.sign(
            self.key, signing.clustering_payload(self.run, self.cfg.dependence, clusters, digest)
        )
        msg = SignedClustering(
            run=self.run, source=self.cfg.dependence, clusters=clusters, digest=digest, signature=sig
        )
        return broadcast(sorted(self.expected), msg)

    # -- release phase ------------------------------------------------------------------
    def _on_release(self, src: int, msg: Release) -> list[Send]:
        self._store(self.releases, src, read_codes(msg.codes, self.cfg, src, "Release"), "RELEASE")
        return []

    def _release_deadline(self) -> list[Send]:
        return self._go_on_without_silent(self.releases)

    def _late(self, src: int, msg: Message) -> list[Send]:
        self.late += 1
        return []

    def _late_sub(self, src: int, msg: Message) -> list[Send]:
        return super()._forward_sub(src, msg)  # the sum has ended: it ignores the message

    def _estimate(self) -> list[Send]:
        assert self.clustering is not None and self.dependences is not None
        cfg = self.cfg
        ids = tuple(self.releases.ids())
        z = self.releases.stack(ids)
        clusters = self.clustering.clusters
        mechs = cfg.release_mechanisms(clusters)
        ests = []
        for c, mech in zip(clusters, mechs, strict=True):
            counts = joint_counts(z, c, cfg.sizes)
            try:
                ests.append(estimate_distribution(
                    mech, counts if len(mech.sizes) == len(c) else counts.reshape(-1), cfg.estimator
                ))  # fmt: skip
            except UsageError as exc:  # e.g. a singular LP optimum of --mechanism optimized
                names = [cfg.schema.names[i] for i in c]
                self.abort(f"{self.name}: the release of cluster {names} cannot be estimated: {exc}")
                return []
        adj = None
        if cfg.adjust:
            adj = rr_adjustment(
                z, cfg.sizes, clusters, [e.distribution for e in ests], max_iter=cfg.adjust_iterations
            )
        result = PipelineResult(
            cfg, self.dependences, self.clustering, self.dep_parties, ids, z, tuple(ests), adj,
            epsilons(cfg, clusters), self.dep_randomized,
        )  # fmt: skip
        self.finish(result)
        return []
