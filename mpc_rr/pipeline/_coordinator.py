"""The pipeline's coordinator (:mod:`mpc_rr.pipeline._roles` has the whole protocol)."""

from __future__ import annotations

import enum
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import replace

import numpy as np
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from mpc_rr.core import (
    COORDINATOR,
    AllIn,
    Deadline,
    Message,
    PeerError,
    Send,
    SubMessage,
    Transition,
    UsageError,
    table,
)
from mpc_rr.core._compose import SubProtocolHost
from mpc_rr.core._id_mask import IdMask
from mpc_rr.core._roles import NOBODY, broadcast
from mpc_rr.estimation import estimate_distribution
from mpc_rr.estimation._patterns import PatternCounts
from mpc_rr.mdrr import Clustering, cluster_attributes
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
from mpc_rr.pipeline._split import CoordinatorTally, read_tally

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
# to the ended sum, which ignores it.  In a sharded run each shard's part of the coordinator
# (mpc_rr.pipeline._split) may take its parties' records and releases and hand over one
# CoordinatorTally per superstep instead (ids, their patterns' histogram): the same steps.
COORDINATOR_TABLE = table({
    (CoordState.DEPENDENCE, RandomizedRecord): Transition("_on_record", CoordState.DEPENDENCE),
    (CoordState.DEPENDENCE, CoordinatorTally): Transition("_on_tally", CoordState.DEPENDENCE),
    (CoordState.DEPENDENCE, SubMessage): Transition("_forward_sub", CoordState.DEPENDENCE),
    (CoordState.DEPENDENCE, Deadline): Transition("_dependence_deadline", CoordState.DEPENDENCE),
    (CoordState.DEPENDENCE, AllIn): Transition("_cluster_and_broadcast", CoordState.RELEASE),
    (CoordState.RELEASE, Release): Transition("_on_release", CoordState.RELEASE),
    (CoordState.RELEASE, CoordinatorTally): Transition("_on_tally", CoordState.RELEASE),
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
        keep_rows: bool = True,
    ) -> None:
        super().__init__(COORDINATOR, CoordState.DEPENDENCE)
        self.keep_rows = keep_rows  # False: the result holds the records' histograms, not their rows
        if signing.public_bytes(signing_key) != config.coordinator_key:
            raise UsageError("coordinator signing key does not match config.coordinator_key")
        self.cfg = config
        self.run = config.run
        self.key = signing_key
        self.progress = progress
        # masks, not sets: ~1 byte per party, updated a tally (an array of ids) at a time
        self.expected = IdMask.of(config.n, np.arange(1, config.n + 1))
        self._missing = self.expected.copy()  # expected parties silent in this step
        self.records = RecordRows(config.n, config.sizes)
        self.releases = RecordRows(config.n, config.sizes)
        # per phase: the shards' histograms, and who came through one (the rest came directly)
        self._parts: dict[str, list[PatternCounts]] = {"DEPENDENCE": [], "RELEASE": []}
        self._tallied: dict[str, np.ndarray] = {}
        self._refused: list[PeerError] = []
        self.patterns: PatternCounts | None = None  # the releases' histogram, once estimated
        self.dependence_patterns: PatternCounts | None = None
        self.dep_parties: tuple[int, ...] = ()
        self.dependences: np.ndarray | None = None
        self.clustering: Clustering | None = None
        self.dep_randomized: np.ndarray | None = None
        self.late = 0
        self._sub_messages = 0
        self._sub_expected = self._sub_bulk = 0
        self.message_types = (*PIPELINE_MESSAGES, CoordinatorTally)
        if config.dependence != "rr":
            self.attach_sub(dependence_role(config, COORDINATOR, None))
            # what the coordinator receives of the sum without dropouts: the data parties' messages
            # (SecAgg+'s four rounds and the committee's signatures, a Prio3 or plain report), plus
            # what the protocol says (Prio3: the helper's answer to each aggregation job) -- the
            # total a progress line shows
            spec = dependence_sum(config)
            pub = dependence_public(config)
            self._sub_bulk = spec.messages_from_parties(pub, config.n)
            self._sub_expected = spec.coordinator_messages(pub, config.n)

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
        sends = super()._forward_sub(src, msg)  # a refused message is not progress
        k = self._sub_messages = self._sub_messages + 1
        if k <= self._sub_bulk:
            if k % 256 == 0 or k == self._sub_bulk:
                self._report("SECURE SUM", k, self._sub_bulk)
        else:  # past one message per party and step: the aggregators' own steps (prio3: a job each)
            extra = k - self._sub_bulk
            self._report("SECURE SUM SERVERS", extra, max(self._sub_expected - self._sub_bulk, extra))
        return sends

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

    def _on_tally(self, src: int, msg: CoordinatorTally) -> list[Send]:
        """A shard's part of this coordinator hands over a superstep's records (vectorized)."""
        if src != COORDINATOR:
            raise PeerError(f"{self.name}: a CoordinatorTally from party {src}: only the "
                            "coordinator's own processes send one", src)  # fmt: skip
        self._refused.extend(PeerError(why, pid) for pid, why in msg.rejected)
        t = read_tally(msg, self.cfg)  # a malformed tally raises DecodeError, naming party 0
        if not len(t.ids):
            return []
        store = self.records if msg.phase == "DEPENDENCE" else self.releases
        if msg.phase != self.state.name:
            if msg.phase == "DEPENDENCE":  # records after their step closed (as _late)
                self.late += len(t.ids)
                return []
            self._refuse(t.ids, f"cannot handle Release in state {self.state.name}")
            return []
        expected = self.expected.mask
        ok = expected[t.ids] & ~store.have[t.ids]
        hist = t.hist
        if not ok.all():
            bad = t.ids[~ok]
            self._refuse(bad[~expected[bad]], f"unexpected submission in {msg.phase}")
            self._refuse(bad[expected[bad]], f"submitted twice in {msg.phase}; kept the first")
            hist = hist.without(t.which[~ok])
            t = type(t)(t.ids[ok], t.which[ok], hist)
        tallied = self._tallied.setdefault(msg.phase, np.zeros(self.cfg.n + 1, np.bool_))
        tallied[t.ids] = True
        store.put_many(t.ids, hist.patterns[t.which] if self.keep_rows else None)
        self._parts[msg.phase].append(hist)
        self._missing.discard_many(t.ids)
        self._report(msg.phase, len(store), len(self.expected))
        return []

    def _refuse(self, ids: np.ndarray, why: str) -> None:
        self._refused.extend(PeerError(f"{self.name}: party {int(i)}: {why}", int(i)) for i in ids)

    def refused(self) -> list[PeerError]:
        """The refusals a tally brought (each naming its party), once: the host records them."""
        out, self._refused = self._refused, []
        return out

    def _histogram(self, phase: str, store: RecordRows, ids: list[int] | tuple[int, ...]) -> PatternCounts:
        """The phase's records as one histogram: the shards' parts merged with the records
        that came directly (the same arrays however the records were split)."""
        tallied = self._tallied.get(phase)
        direct = np.asarray(ids, np.intp)
        if tallied is not None:
            direct = direct[~tallied[direct]]
        parts = [*self._parts[phase], PatternCounts.of(store.stack(direct), self.cfg.sizes)]
        return PatternCounts.merge(parts, self.cfg.sizes)

    def _go_on_without_silent(self, have: RecordRows) -> list[Send]:
        """A deadline passed: the silent parties are dropouts (abort below min_parties)."""
        if len(have) < self.cfg.min_parties:
            missing = np.flatnonzero(self.expected.mask & ~have.have).tolist()
            self.abort(
                f"{self.name}: only {len(have)} of {len(self.expected)} parties answered in "
                f"{self.state.name} (min_parties={self.cfg.min_parties}); silent: {missing[:20]}",
                missing,
            )
            return []
        self.expected = IdMask(have.have.copy())
        self._missing = IdMask(np.zeros_like(have.have))
        return []  # the AllIn transition closes the step

    @property
    def culprits(self) -> tuple[int, ...]:
        """The parties its dependence sum left out for misbehaving (a deployed report names them)."""
        return () if self.sub is None else tuple(int(c) for c in getattr(self.sub.role, "culprits", ()))

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
            self.dep_randomized = self.records.stack(ids) if self.keep_rows else None
            self.dependence_patterns = self._histogram("DEPENDENCE", self.records, ids)
            self.dependences = self.dependence_patterns.dependence_matrix(self.cfg.schema)
        self.expected = IdMask.of(self.cfg.n, np.asarray(self.dep_parties, np.intp))
        self._missing = self.expected.copy()
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
        return broadcast(self.expected.ids(), msg)

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
        z = self.releases.stack(ids) if self.keep_rows else None
        hist = self.patterns = self._histogram("RELEASE", self.releases, ids)
        clusters = self.clustering.clusters
        mechs = cfg.release_mechanisms(clusters)
        ests = []
        for c, mech in zip(clusters, mechs, strict=True):
            counts = hist.joint_counts(c)
            try:
                ests.append(estimate_distribution(
                    mech, counts if len(mech.sizes) == len(c) else counts.reshape(-1), cfg.estimator
                ))  # fmt: skip
            except UsageError as exc:  # e.g. a singular LP optimum of --mechanism optimized
                names = [cfg.schema.names[i] for i in c]
                self.abort(f"{self.name}: the release of cluster {names} cannot be estimated: {exc}")
                return []
        adj = None
        if cfg.adjust:  # Algorithm 2 over the distinct patterns; each record gets its share
            adj = hist.adjust(clusters, [e.distribution for e in ests], max_iter=cfg.adjust_iterations)
            if z is not None:
                adj = replace(adj, weights=hist.row_weights(z, adj.weights))
        result = PipelineResult(
            cfg, self.dependences, self.clustering, self.dep_parties, ids, z, tuple(ests), adj,
            epsilons(cfg, clusters), self.dep_randomized, hist, self.dependence_patterns,
        )  # fmt: skip
        self.finish(result)
        return []
