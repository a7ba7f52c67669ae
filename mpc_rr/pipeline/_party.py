"""The pipeline's data party (:mod:`mpc_rr.pipeline._roles` has the whole protocol)."""

from __future__ import annotations

import enum
from collections.abc import Set as AbstractSet
from functools import lru_cache

import numpy as np

from mpc_rr.core import COORDINATOR, PeerError, Send, Transition, UsageError, table
from mpc_rr.core._compose import SubProtocolHost, sub_protocol_steps
from mpc_rr.core._roles import NOBODY, ONLY_COORDINATOR
from mpc_rr.mdrr import Clustering
from mpc_rr.mdrr._release import perturb_record
from mpc_rr.mechanisms._domain import check_record
from mpc_rr.pipeline import _signing as signing
from mpc_rr.pipeline._config import PipelineConfig
from mpc_rr.pipeline._dependence import (
    dependence_input,
    dependence_role,
    dependence_sum,
    local_clustering,
)
from mpc_rr.pipeline._messages import (
    PIPELINE_MESSAGES,
    RandomizedRecord,
    Release,
    SignedClustering,
    wire_record,
)
from mpc_rr.pipeline._results import PartyOutcome, epsilons
from mpc_rr.secure_sum import Entropy

__all__ = ["DataParty", "PartyState"]



@lru_cache(maxsize=64)
def _broadcast_fault(
    key: bytes, signature: bytes, run: str, source: str, clusters: tuple[tuple[int, ...], ...], digest: str,
    m: int,
) -> str:
    """Why a signed clustering broadcast is not genuine ('' when it is): signature, partition, digest.

    A pure function of the bytes, memoized: every party of a simulation checks the same broadcast.
    """
    payload = signing.clustering_payload(run, source, [list(c) for c in clusters], digest)
    if not signing.verify(key, signature, payload):
        return "invalid signature"
    if sorted(i for c in clusters for i in c) != list(range(m)) or Clustering(clusters, ()).digest() != digest:
        return "not a partition of the attributes, or a wrong digest"
    return ""

class PartyState(enum.Enum):
    DEPENDENCE = "running the dependence secure sum"
    AWAIT_CLUSTERING = "waiting for the signed clustering"
    DONE = "released"
    ABORTED = "aborted"


# A data party never reveals its record.  With dependence="rr" it sends its randomized
# record when it starts and waits for the clustering.  Otherwise it first runs the
# dependence secure sum (DEPENDENCE, a sub-protocol) and clusters the attributes itself from
# the sum.  Then the coordinator's SignedClustering: if the signature, the partition and the
# digest check out (and match its own clustering, where it has one), it randomizes its
# record cluster by cluster and sends the Release -- done; if not, it refuses (aborts).
# A clustering that overtakes the end of the sum is held, and acted on when the sum ends.
PARTY_TABLE = table({
    **sub_protocol_steps(
        PartyState.DEPENDENCE, "_after_sub", PartyState.AWAIT_CLUSTERING,
        also=(PartyState.DONE,),  # the clustering came early: released at once
    ),
    (PartyState.DEPENDENCE, SignedClustering): Transition("_early_clustering", PartyState.DEPENDENCE),
    (PartyState.AWAIT_CLUSTERING, SignedClustering): Transition("_on_clustering", PartyState.DONE),
})


class DataParty(SubProtocolHost):
    """A data-holding party: its own record, its own generator; never reveals the record.

    ``rng`` is the only source of its randomized-response noise: seeded in a
    simulation (:func:`mpc_rr.core.party_generators`), a CSPRNG in a
    deployment (:func:`mpc_rr.core.csprng_generator`).
    """

    TRANSITIONS = PARTY_TABLE
    patience = 3  # the coordinator may spend its own deadline waiting for dropouts

    def __init__(
        self,
        party_id: int,
        config: PipelineConfig,
        record: np.ndarray,
        rng: np.random.Generator,
        *,
        sum_entropy: Entropy | None = None,
    ) -> None:
        secure = config.dependence != "rr"
        super().__init__(party_id, PartyState.DEPENDENCE if secure else PartyState.AWAIT_CLUSTERING)
        if not 1 <= party_id <= config.n:
            raise UsageError(f"party id must be in 1..{config.n}, got {party_id}")
        self.record = check_record(record, config.sizes, f"party {party_id}")
        self.cfg = config
        self.run = config.run
        self.rng = rng
        self.own_clustering: Clustering | None = None
        self._early: list[tuple[int, SignedClustering]] = []
        self.message_types = PIPELINE_MESSAGES
        if secure:
            x = dependence_input(config, self.record, rng)
            self.attach_sub(dependence_role(config, party_id, x, sum_entropy))

    def start(self) -> list[Send]:
        if self.sub is not None:
            return self.start_sub()
        singles = [(j,) for j in range(len(self.cfg.sizes))]
        y = perturb_record(
            self.record, self.cfg.sizes, singles, self.cfg.attribute_mechanisms(), self.rng
        )
        return [Send(COORDINATOR, RandomizedRecord(run=self.run, codes=wire_record(y, self.cfg)))]

    def waiting_for(self) -> AbstractSet[int]:
        if self.done:
            return NOBODY
        if self.state is PartyState.DEPENDENCE and self.sub is not None:
            return self.sub_waiting()
        return ONLY_COORDINATOR

    # -- dependence phase ---------------------------------------------------------------
    def _after_sub(self) -> list[Send]:
        assert self.sub is not None
        err = self.sub_error()
        if err is not None:
            self.abort(f"{self.name}: dependence phase failed: {err}", err.culprits)
            return []
        total = dependence_sum(self.cfg).result_of(self.sub.role).total
        self.own_clustering = local_clustering(self.cfg, total)
        if self._early:  # the broadcast overtook the end of the sub-protocol: act on it now
            src, msg = self._early.pop(0)
            return self._on_clustering(src, msg)
        return []

    def _early_clustering(self, src: int, msg: SignedClustering) -> list[Send]:
        """Only possible if a transport reordered a link: keep it for after the sub-protocol."""
        _from_coordinator(self, src)
        self._early.append((src, msg))
        return []

    # -- clustering and release -----------------------------------------------------------
    def _refuse(self, why: str) -> list[Send]:
        self.abort(f"{self.name}: {why}; refusing the clustering broadcast", [COORDINATOR])
        return []

    def _on_clustering(self, src: int, msg: SignedClustering) -> list[Send]:
        _from_coordinator(self, src)
        if msg.source != self.cfg.dependence:
            return self._refuse(f"source {msg.source!r}, expected {self.cfg.dependence!r}")
        clusters = tuple(tuple(int(i) for i in c) for c in msg.clusters)
        why = _broadcast_fault(self.cfg.coordinator_key, msg.signature, msg.run, msg.source, clusters,
                               msg.digest, len(self.cfg.sizes))  # fmt: skip
        if why:
            return self._refuse(why)
        if self.own_clustering is not None and self.own_clustering.digest() != msg.digest:
            return self._refuse(
                f"broadcast clustering {list(clusters)} differs from the one computed locally "
                f"from the secure-sum aggregate {list(self.own_clustering.clusters)}"
            )
        mechs = self.cfg.release_mechanisms(clusters)
        z = perturb_record(self.record, self.cfg.sizes, clusters, mechs, self.rng)
        eps = epsilons(self.cfg, clusters)
        self.finish(PartyOutcome(clusters, eps["dependence"], eps["release"]))
        return [Send(COORDINATOR, Release(run=self.run, codes=wire_record(z, self.cfg)))]


def _from_coordinator(party: DataParty, src: int) -> None:
    """A clustering sent by a data party is refused, naming it: only the coordinator's is the
    broadcast (aborting would let any party stop another and get the coordinator blamed)."""
    if src != COORDINATOR:
        raise PeerError(f"{party.name}: a clustering from party {src}, not the coordinator; refused", src)
