"""Pipeline roles: data party and coordinator (sans-I/O).

How this protocol works (``dependence="rr"``, Sec. 4.1)::

    party i                                coordinator (party 0)
    ------- RandomizedRecord(y_i) -------->  collects n records (timeout: go on
                                             with >= min_parties), dependences on
                                             the randomized data, Algorithm 1
    <------ SignedClustering ---------------  clusters + digest, Ed25519-signed
    verify signature (and, where it can
    compute the clustering itself, its
    own digest); randomize each cluster
    ------- Release(z_i) ----------------->  collects, estimates every cluster
                                             (Eq. 2 + repair), RR-Adjustment

With ``dependence="secure-sum"`` the first step is a secure sum (a
sub-protocol, :mod:`mpc_rr.compose`) of each party's one-hot pair vector;
every party learns the aggregate and checks the broadcast digest against its
own clustering.

Randomness: party ``i`` draws everything from its own generator, in the
order (dependence release, cluster release), group by group, exactly as
:func:`mpc_rr.rr_protocols.release_groups` with one generator per record --
so the distributed estimates equal the centralized ones for the same seeds.

State table (anything else raises ``PeerError`` "cannot handle X from party P in state S"):

=================  ==================  =========================================
role / state       message             action
=================  ==================  =========================================
party AWAIT_CLU    SignedClustering    verify, release, done
party DEPENDENCE   (sub-protocol)      forward; on done compute own digest
coord DEPENDENCE   RandomizedRecord    store; when all in: cluster + broadcast
coord DEPENDENCE   (sub-protocol)      forward; on done: cluster + broadcast
coord RELEASE      Release             store; when all in: estimate, done
=================  ==================  =========================================
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from mpc_rr.adjustment import AdjustmentResult, rr_adjustment
from mpc_rr.clustering import Clustering, cluster_attributes
from mpc_rr.compose import SubProtocol
from mpc_rr.dependence import dependence_matrix, dependence_matrix_from_tables
from mpc_rr.errors import PeerError, UsageError
from mpc_rr.estimation import Estimate, estimate_distribution
from mpc_rr.messages import Message, WireArray
from mpc_rr.models import FactorModel, WeightedRecords
from mpc_rr.pair_cells import PairLayout
from mpc_rr.pipeline import signing
from mpc_rr.pipeline.config import PipelineConfig
from mpc_rr.roles import COORDINATOR, Role, Send
from mpc_rr.rr_protocols import joint_counts, perturb_record

__all__ = [
    "PIPELINE_MESSAGES",
    "Coordinator",
    "DataParty",
    "PartyOutcome",
    "PipelineResult",
    "RandomizedRecord",
    "Release",
    "SignedClustering",
    "pipeline_roles",
]


class RandomizedRecord(Message, frozen=True):
    """Sec. 4.1: a party's record randomized attribute by attribute."""

    codes: WireArray


class SignedClustering(Message, frozen=True):
    """Algorithm 1's output, signed by the coordinator (Ed25519)."""

    source: str
    clusters: list[list[int]]
    digest: str
    signature: bytes


class Release(Message, frozen=True):
    """A party's record randomized cluster by cluster."""

    codes: WireArray


PIPELINE_MESSAGES: tuple[type[Message], ...] = (RandomizedRecord, SignedClustering, Release)

# a factory building the secure-sum sub-protocol roles: (config, party id, input vector) -> Role
SubFactory = Callable[[PipelineConfig, int, np.ndarray | None], Role]


@dataclass(frozen=True)
class PartyOutcome:
    """What a data party ends with: the clustering it acted on and its privacy spend."""

    clusters: tuple[tuple[int, ...], ...]
    epsilon_dependence: float
    epsilon_release: float

    @property
    def epsilon_total(self) -> float:
        return self.epsilon_dependence + self.epsilon_release


@dataclass(frozen=True)
class PipelineResult:
    """The coordinator's output."""

    config: PipelineConfig
    dependences: np.ndarray
    clustering: Clustering
    parties_dependence: tuple[int, ...]  # whose submissions the dependence phase used
    parties_release: tuple[int, ...]  # whose release is in the estimates (sorted ids)
    randomized: np.ndarray  # (len(parties_release), m) released records, in id order
    estimates: tuple[Estimate, ...]  # one per cluster
    adjustment: AdjustmentResult | None
    epsilon: dict[str, float]
    dependence_randomized: np.ndarray | None = None  # Sec. 4.1 records (source "rr"), id order

    def independent(self) -> tuple[tuple[Estimate, ...], WeightedRecords | None] | None:
        """RR-Independent from the Sec. 4.1 records (source ``rr`` only): marginal
        estimates and, if ``adjust``, the RR-Adjustment of those records."""
        y = self.dependence_randomized
        if y is None:
            return None
        cfg = self.config
        mechs = cfg.attribute_mechanisms()
        ests = tuple(
            estimate_distribution(m, np.bincount(y[:, j], minlength=cfg.sizes[j]), cfg.estimator)
            for j, m in enumerate(mechs)
        )
        if not cfg.adjust:
            return ests, None
        singles = [(j,) for j in range(len(cfg.sizes))]
        adj = rr_adjustment(
            y, cfg.sizes, singles, [e.distribution for e in ests], max_iter=cfg.adjust_iterations
        )
        return ests, WeightedRecords(cfg.sizes, y, adj.weights)

    @property
    def model(self) -> FactorModel:
        sizes = self.config.sizes
        return FactorModel(
            sizes,
            self.clustering.clusters,
            tuple(
                e.distribution.reshape(tuple(sizes[i] for i in c))
                for c, e in zip(self.clustering.clusters, self.estimates, strict=True)
            ),
        )

    @property
    def adjusted(self) -> WeightedRecords | None:
        if self.adjustment is None:
            return None
        return WeightedRecords(self.config.sizes, self.randomized, self.adjustment.weights)


def _epsilons(cfg: PipelineConfig, clusters: tuple[tuple[int, ...], ...]) -> dict[str, float]:
    dep = cfg.dependence_epsilon()
    rel = math.fsum(m.epsilon for m in cfg.release_mechanisms(clusters))
    return {"dependence": dep, "release": rel, "total": dep + rel}


def dependences_from_aggregate(cfg: PipelineConfig, total: np.ndarray) -> np.ndarray:
    """Dependence matrix from the secure-sum aggregate of pair cells.

    ``secure-sum``: the aggregate holds the exact bivariate tables.
    ``pairwise-rr``: it holds the tables of randomized pairs; each is estimated
    by Eq. 2 (and the configured repair; ``clip`` if none) before measuring dependence.
    """
    tables = PairLayout(cfg.sizes).decode(np.asarray(total))
    if cfg.dependence == "pairwise-rr":
        repair = cfg.estimator if cfg.estimator != "none" else "clip"
        for (pair, table), mech in zip(list(tables.items()), cfg.pair_mechanisms(), strict=True):
            tables[pair] = estimate_distribution(mech, table, repair).distribution * table.sum()
    return dependence_matrix_from_tables(tables, cfg.schema)


@lru_cache(maxsize=8)
def _local_clustering(cfg: PipelineConfig, total: bytes) -> Clustering:
    """A party's own clustering from the public aggregate (memoized on its exact bytes:
    a pure function, so thousands of simulated parties in one process compute it once)."""
    deps = dependences_from_aggregate(cfg, np.frombuffer(total, dtype=np.int64))
    return cluster_attributes(deps, cfg.sizes, cfg.tv, cfg.td)


def _read_record(w: WireArray, cfg: PipelineConfig, src: int, what: str) -> np.ndarray:
    m = len(cfg.sizes)
    if w.dtype not in ("|u1", "<u2", "<i8"):
        raise PeerError(f"{what} from party {src}: dtype {w.dtype} not allowed", src)
    rec = w.to_numpy(shape=(m,), sender=src).astype(np.int64)
    if (rec < 0).any() or (rec >= np.asarray(cfg.sizes)).any():
        raise PeerError(f"{what} from party {src}: code outside its attribute's categories", src)
    return rec


def _wire_record(rec: np.ndarray, cfg: PipelineConfig) -> WireArray:
    dt = np.uint8 if max(cfg.sizes) <= 256 else np.uint16 if max(cfg.sizes) <= 65536 else np.int64
    return WireArray.from_numpy(np.asarray(rec, dtype=dt))


class DataParty(Role):
    """A data-holding party: its own record, its own generator; never reveals the record."""

    def __init__(
        self,
        party_id: int,
        config: PipelineConfig,
        record: np.ndarray,
        rng: np.random.Generator,
        *,
        sub_factory: SubFactory | None = None,
    ) -> None:
        super().__init__(party_id)
        if not 1 <= party_id <= config.n:
            raise UsageError(f"party id must be in 1..{config.n}, got {party_id}")
        rec = np.asarray(record)
        if (
            rec.shape != (len(config.sizes),)
            or (rec < 0).any()
            or (rec >= np.asarray(config.sizes)).any()
        ):
            raise UsageError(
                f"party {party_id}: record {rec!r} does not fit the schema sizes {config.sizes}"
            )
        self.cfg = config
        self.record = rec.astype(np.int64)
        self.rng = rng
        self.state = "START"
        self.sub: SubProtocol | None = None
        self.own_clustering: Clustering | None = None
        self._early: list[tuple[int, Message]] = []
        self.message_types = PIPELINE_MESSAGES
        if config.dependence != "rr":
            if sub_factory is None:
                raise UsageError(f"dependence {config.dependence!r} needs a secure-sum sub_factory")
            self.sub = SubProtocol(sub_factory(config, party_id, self._dependence_input()))
            self.message_types = PIPELINE_MESSAGES + tuple(self.sub.role.message_types)

    def _dependence_input(self) -> np.ndarray:
        """The secure-sum input: one-hot pair cells of the true record (4.2) or of
        its pairwise-randomized values (4.3, drawn pair by pair from the party's generator)."""
        layout = PairLayout(self.cfg.sizes)
        if self.cfg.dependence != "pairwise-rr":
            return layout.one_hot(self.record[None, :])[0]
        x = np.zeros(layout.cells, np.uint8)
        for k, ((i, j), mech) in enumerate(
            zip(layout.pairs, self.cfg.pair_mechanisms(), strict=True)
        ):
            a, b = mech.perturb(self.record[[i, j]][None, :], self.rng)[0]
            x[layout.offsets[k] + a * self.cfg.sizes[j] + b] = 1
        return x

    def start(self) -> list[Send]:
        if self.sub is None:
            singles = [(j,) for j in range(len(self.cfg.sizes))]
            y = perturb_record(
                self.record, self.cfg.sizes, singles, self.cfg.attribute_mechanisms(), self.rng
            )
            self.state = "AWAIT_CLUSTERING"
            return [
                Send(
                    COORDINATOR, RandomizedRecord(run=self.cfg.run, codes=_wire_record(y, self.cfg))
                )
            ]
        self.state = "DEPENDENCE"
        return self.sub.start()

    def waiting_for(self) -> set[int]:
        if self.state == "DEPENDENCE" and self.sub is not None:
            return self.sub.role.waiting_for()
        return set() if self.done else {COORDINATOR}

    def on_timeout(self) -> list[Send]:
        if self.state == "DEPENDENCE" and self.sub is not None:
            out = self.sub.role.on_timeout()
            return out + self._after_sub()
        return super().on_timeout()

    def receive(self, src: int, msg: Message) -> list[Send]:
        if self.done:
            return []
        if self.state == "DEPENDENCE" and self.sub is not None and self.sub.accepts(msg):
            return self.sub.receive(src, msg) + self._after_sub()
        if isinstance(msg, SignedClustering) and src == COORDINATOR:
            if self.state == "DEPENDENCE":
                self._early.append((src, msg))  # only possible if a transport reordered a link
                return []
            if self.state == "AWAIT_CLUSTERING":
                return self._on_clustering(msg)
        raise PeerError(
            f"party {self.party_id}: cannot handle {type(msg).__name__} from party {src} in state {self.state}",
            src,
        )

    def _after_sub(self) -> list[Send]:
        assert self.sub is not None
        if not self.sub.done or self.state != "DEPENDENCE":
            return []
        if self.sub.role.error is not None:
            self.abort(f"party {self.party_id}: dependence phase failed: {self.sub.role.error}")
            return []
        total = np.ascontiguousarray(self.sub.role.result.total, dtype=np.int64)
        self.own_clustering = _local_clustering(self.cfg, total.tobytes())
        self.state = "AWAIT_CLUSTERING"
        out: list[Send] = []
        for src, msg in self._early:
            out += self.receive(src, msg)
        self._early.clear()
        return out

    def _on_clustering(self, msg: SignedClustering) -> list[Send]:
        payload = signing.clustering_payload(msg.run, msg.source, msg.clusters, msg.digest)
        if msg.run != self.cfg.run or msg.source != self.cfg.dependence:
            self.abort(
                f"party {self.party_id}: clustering broadcast for run {msg.run!r}/{msg.source!r}, expected {self.cfg.run!r}/{self.cfg.dependence!r}",
                [COORDINATOR],
            )
            return []
        if not signing.verify(self.cfg.coordinator_key, msg.signature, payload):
            self.abort(
                f"party {self.party_id}: clustering broadcast has an invalid signature; refusing it",
                [COORDINATOR],
            )
            return []
        clusters = tuple(tuple(int(i) for i in c) for c in msg.clusters)
        m = len(self.cfg.sizes)
        if (
            sorted(i for c in clusters for i in c) != list(range(m))
            or Clustering(clusters, ()).digest() != msg.digest
        ):
            self.abort(
                f"party {self.party_id}: clustering broadcast is malformed (not a partition or wrong digest)",
                [COORDINATOR],
            )
            return []
        if self.own_clustering is not None and self.own_clustering.digest() != msg.digest:
            self.abort(
                f"party {self.party_id}: broadcast clustering {list(clusters)} does not match the one computed "
                f"locally from the secure-sum aggregate {list(self.own_clustering.clusters)}; refusing it",
                [COORDINATOR],
            )
            return []
        mechs = self.cfg.release_mechanisms(clusters)
        z = perturb_record(self.record, self.cfg.sizes, clusters, mechs, self.rng)
        eps = _epsilons(self.cfg, clusters)
        self._result = PartyOutcome(clusters, eps["dependence"], eps["release"])
        self._done = True
        self.state = "DONE"
        return [Send(COORDINATOR, Release(run=self.cfg.run, codes=_wire_record(z, self.cfg)))]


class Coordinator(Role):
    """The untrusted coordinator (data controller), party 0."""

    def __init__(
        self,
        config: PipelineConfig,
        signing_key: Ed25519PrivateKey,
        *,
        sub_factory: SubFactory | None = None,
    ) -> None:
        super().__init__(COORDINATOR)
        if signing.public_bytes(signing_key) != config.coordinator_key:
            raise UsageError("coordinator signing key does not match config.coordinator_key")
        self.cfg = config
        self.key = signing_key
        self.state = "START"
        self.expected: set[int] = set(range(1, config.n + 1))
        self.records: dict[int, np.ndarray] = {}
        self.releases: dict[int, np.ndarray] = {}
        self.dep_parties: tuple[int, ...] = ()
        self.dependences: np.ndarray | None = None
        self.clustering: Clustering | None = None
        self.dep_randomized: np.ndarray | None = None
        self._sub_messages = 0
        self.progress: Callable[[str, int, int], None] | None = None  # (phase, received, expected)
        self.sub: SubProtocol | None = None
        self.message_types = PIPELINE_MESSAGES
        if config.dependence != "rr":
            if sub_factory is None:
                raise UsageError(f"dependence {config.dependence!r} needs a secure-sum sub_factory")
            self.sub = SubProtocol(sub_factory(config, COORDINATOR, None))
            self.message_types = PIPELINE_MESSAGES + tuple(self.sub.role.message_types)

    def start(self) -> list[Send]:
        self.state = "DEPENDENCE"
        return self.sub.start() if self.sub is not None else []

    def waiting_for(self) -> set[int]:
        if self.state == "DEPENDENCE" and self.sub is not None:
            return self.sub.role.waiting_for()
        if self.state == "DEPENDENCE":
            return self.expected - set(self.records)
        if self.state == "RELEASE":
            return self.expected - set(self.releases)
        return set()

    def on_timeout(self) -> list[Send]:
        """Go on without the silent parties (dropouts) if at least ``min_parties`` answered."""
        if self.state == "DEPENDENCE" and self.sub is not None:
            return self.sub.role.on_timeout() + self._after_sub()
        have = self.records if self.state == "DEPENDENCE" else self.releases
        if len(have) < self.cfg.min_parties:
            return super().on_timeout()
        self.expected = set(have)
        return self._advance()

    def receive(self, src: int, msg: Message) -> list[Send]:
        if self.done:
            return []
        if self.state == "DEPENDENCE" and self.sub is not None and self.sub.accepts(msg):
            self._sub_messages += 1
            if self.progress is not None:
                self.progress("SECURE SUM", self._sub_messages, 0)  # 0: total not known in advance
            return self.sub.receive(src, msg) + self._after_sub()
        if self.state == "DEPENDENCE" and isinstance(msg, RandomizedRecord) and self.sub is None:
            return self._store(
                self.records, src, _read_record(msg.codes, self.cfg, src, "RandomizedRecord")
            )
        if self.state == "RELEASE" and isinstance(msg, Release):
            return self._store(
                self.releases, src, _read_record(msg.codes, self.cfg, src, "Release")
            )
        raise PeerError(
            f"coordinator: cannot handle {type(msg).__name__} from party {src} in state {self.state}",
            src,
        )

    def _store(self, store: dict[int, np.ndarray], src: int, rec: np.ndarray) -> list[Send]:
        if src not in self.expected:
            raise PeerError(
                f"coordinator: unexpected submission from party {src} (not in this phase)", src
            )
        if src in store:
            raise PeerError(
                f"coordinator: party {src} submitted twice in state {self.state}; keeping the first",
                src,
            )
        store[src] = rec
        if self.progress is not None:
            self.progress(self.state, len(store), len(self.expected))
        return self._advance() if len(store) == len(self.expected) else []

    def _after_sub(self) -> list[Send]:
        assert self.sub is not None
        if not self.sub.done or self.state != "DEPENDENCE":
            return []
        if self.sub.role.error is not None:
            self.abort(
                f"coordinator: dependence phase failed: {self.sub.role.error}",
                self.sub.role.error.culprits,
            )
            return []
        res = self.sub.role.result
        self.dep_parties = tuple(int(i) for i in res.included)
        self.dependences = dependences_from_aggregate(self.cfg, res.total)
        self.expected = set(self.dep_parties)
        return self._broadcast()

    def _advance(self) -> list[Send]:
        if self.state == "DEPENDENCE":
            ids = sorted(self.records)
            self.dep_parties = tuple(ids)
            y = np.stack([self.records[i] for i in ids])
            self.dep_randomized = y
            self.dependences = dependence_matrix(y, self.cfg.schema)
            return self._broadcast()
        if self.state == "RELEASE":
            self._finish()
        return []

    def _broadcast(self) -> list[Send]:
        assert self.dependences is not None
        self.clustering = cluster_attributes(
            self.dependences, self.cfg.sizes, self.cfg.tv, self.cfg.td
        )
        clusters = [list(c) for c in self.clustering.clusters]
        digest = self.clustering.digest()
        sig = signing.sign(
            self.key,
            signing.clustering_payload(self.cfg.run, self.cfg.dependence, clusters, digest),
        )
        msg = SignedClustering(
            run=self.cfg.run,
            source=self.cfg.dependence,
            clusters=clusters,
            digest=digest,
            signature=sig,
        )
        self.state = "RELEASE"
        return [Send(i, msg) for i in sorted(self.expected)]

    def _finish(self) -> None:
        assert self.clustering is not None and self.dependences is not None
        cfg = self.cfg
        ids = tuple(sorted(self.releases))
        z = np.stack([self.releases[i] for i in ids])
        clusters = self.clustering.clusters
        mechs = cfg.release_mechanisms(clusters)
        ests = tuple(
            estimate_distribution(
                mech,
                joint_counts(z, c, cfg.sizes)
                if len(mech.sizes) == len(c)
                else joint_counts(z, c, cfg.sizes).reshape(-1),
                cfg.estimator,
            )
            for c, mech in zip(clusters, mechs, strict=True)
        )
        adj = None
        if cfg.adjust:
            adj = rr_adjustment(
                z,
                cfg.sizes,
                clusters,
                [e.distribution for e in ests],
                max_iter=cfg.adjust_iterations,
            )
        self._result = PipelineResult(
            cfg,
            self.dependences,
            self.clustering,
            self.dep_parties,
            ids,
            z,
            ests,
            adj,
            _epsilons(cfg, clusters),
            self.dep_randomized,
        )
        self._done = True
        self.state = "DONE"


def pipeline_roles(
    config: PipelineConfig,
    records: np.ndarray,
    seed: int | np.random.SeedSequence,
    signing_key: Ed25519PrivateKey,
    *,
    sub_factory: SubFactory | None = None,
    parties: Sequence[int] | None = None,
) -> dict[int, Role]:
    """The coordinator and the data parties of one run.

    Party ``i`` holds ``records[i - 1]`` and a generator from the ``i - 1``-th
    child of ``SeedSequence(seed)`` (:func:`party_generators`).  ``parties``
    restricts which data-party roles are built (for multi-process runs).
    """
    gens = party_generators(seed, config.n)
    recs = np.asarray(records)
    if recs.shape != (config.n, len(config.sizes)):
        raise UsageError(
            f"records must have shape ({config.n}, {len(config.sizes)}), got {recs.shape}"
        )
    roles: dict[int, Role] = {
        COORDINATOR: Coordinator(config, signing_key, sub_factory=sub_factory)
    }
    for i in parties if parties is not None else range(1, config.n + 1):
        roles[i] = DataParty(i, config, recs[i - 1], gens[i - 1], sub_factory=sub_factory)
    return roles


def party_generators(seed: int | np.random.SeedSequence, n: int) -> list[np.random.Generator]:
    """One independent generator per data party: children of ``SeedSequence(seed)``."""
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return [np.random.default_rng(s) for s in ss.spawn(n)]
