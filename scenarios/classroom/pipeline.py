"""Classroom lesson for the distributed RR-Clusters pipeline (``mpc-rr run``) on a class survey.

Each student (data party) answers a four-question survey; the untrusted
coordinator (party 0) computes dependences from randomized answers
(Sec. 4.1), broadcasts a signed clustering (Algorithm 1), collects the
clustered release and estimates each cluster.  Every party's noise comes from
its own generator of ``SeedSequence(seed)``
(:func:`mpc_rr.core.party_generators`) and the coordinator's Ed25519
key from :class:`~mpc_rr.secure_sum.SeededEntropy`, so the same seed
gives the same trace -- and the check recomputes everything centrally with
the same seeds.
"""

from __future__ import annotations

import numpy as np

from mpc_rr.core import COORDINATOR, DropAt, party_generators
from mpc_rr.data import Attribute, Schema
from mpc_rr.estimation import dependence_matrix
from mpc_rr.mdrr import cluster_attributes, release_groups, rr_independent
from mpc_rr.pipeline import (
    Coordinator,
    DataParty,
    PipelineConfig,
    RandomizedRecord,
    Release,
    SignedClustering,
    pipeline_roles,
)
from mpc_rr.pipeline import _signing as signing
from mpc_rr.secure_sum import SeededEntropy
from scenarios.classroom.lesson import Context, Lesson, Note, Sent, drop_roles

__all__ = ["PIPELINE_STEPS", "SURVEY", "pipeline_lesson", "survey_records"]

SURVEY = Schema(
    (
        Attribute("commute", ("walk", "bike", "bus", "car")),
        Attribute("sleep", ("<6h", "6-8h", ">8h"), ordinal=True),
        Attribute("coffee", ("none", "1-2", "3+"), ordinal=True),
        Attribute("smoker", ("no", "yes")),
    )
)
"""The class survey: four questions, coffee and sleep negatively related."""

PIPELINE_STEPS = {"record": RandomizedRecord, "release": Release}


def survey_records(n: int, seed: int) -> np.ndarray:
    """``(n, 4)`` answers of ``n`` students (seeded; independent of the protocol's noise)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5C4001]))
    commute = rng.choice(4, n, p=[0.25, 0.2, 0.35, 0.2])
    sleep = rng.choice(3, n, p=[0.3, 0.5, 0.2])
    coffee = np.clip(2 - sleep + rng.integers(-1, 2, n) * (rng.random(n) < 0.3), 0, 2)
    smoker = (rng.random(n) < 0.2).astype(np.int64)
    return np.stack([commute, sleep, coffee, smoker], axis=1).astype(np.int64)


def _record_text(rec: np.ndarray, attrs: tuple[int, ...] | None = None) -> str:
    idx = range(len(SURVEY)) if attrs is None else attrs
    return ", ".join(
        f"{SURVEY.attributes[j].name}={SURVEY.attributes[j].categories[int(rec[j])]}" for j in idx
    )


def _clusters_text(clusters: tuple[tuple[int, ...], ...] | list[list[int]]) -> str:
    return " | ".join("{" + ", ".join(SURVEY.names[i] for i in c) + "}" for c in clusters)


def pipeline_lesson(
    n: int, *, seed: int, p: float = 0.7, tv: int = 12, td: float = 0.3,
    drops: dict[int, str] | None = None,
) -> Lesson:  # fmt: skip
    """The pipeline with dependence source ``rr`` on ``n`` survey answers."""
    drops = drops or {}
    x = survey_records(n, seed)
    key = signing.new_signing_key(SeededEntropy(seed, "classroom/coordinator").key(32))
    cfg = PipelineConfig(
        schema=SURVEY, n=n, p=p, tv=tv, td=td, run=f"classroom-pipeline-{seed}",
        coordinator_key=signing.public_bytes(key), min_parties=2,
    )  # fmt: skip
    roles = drop_roles(dict(pipeline_roles(cfg, x, seed, key)), drops, PIPELINE_STEPS)
    coord = roles[COORDINATOR]
    assert isinstance(coord, Coordinator)
    eps = cfg.attribute_epsilons()
    setup = [
        f"{n} students P1..P{n} answer a survey of {len(SURVEY)} questions; an untrusted "
        f"coordinator (Coord, party 0) wants the joint distribution without seeing any true "
        f"answer (Domingo-Ferrer & Soria-Comas, Sec. 4-5).",
        "Questions: " + "; ".join(f"{a.name} ({'/'.join(a.categories)})" for a in SURVEY.attributes) + ".",
        f"Randomized response: keep-or-uniform with p = {p} -- keep the true answer with probability "
        f"p, else draw one uniformly (it may come out the same). Epsilon per question: "
        + ", ".join(f"{a} {e:.2f}" for a, e in zip(SURVEY.names, eps, strict=True))
        + f". Algorithm 1 thresholds: Tv = {tv} value combinations per cluster, Td = {td}.",
        "Private answers (printed only because this is a classroom):",
        *[f"  P{i}: {_record_text(r)}" for i, r in enumerate(x, 1)],
    ]
    rounds = {
        "RandomizedRecord": ("record", "Phase 1 - dependence: every student sends its answers "
                                       "randomized question by question (Sec. 4.1)"),
        "SignedClustering": ("cluster", "Phase 2 - clustering: the coordinator groups dependent "
                                        "questions (Algorithm 1) and broadcasts them, signed"),
        "Release": ("release", "Phase 3 - release: every student randomizes each cluster of "
                               "questions jointly and sends it"),
    }  # fmt: skip

    def truth(pid: int, attrs: tuple[int, ...] | None = None) -> str:
        return _record_text(x[pid - 1], attrs)

    def describe(s: Sent) -> list[tuple[str, str]]:
        m = s.msg
        if isinstance(m, RandomizedRecord):
            sent = m.codes.to_numpy().astype(np.int64)
            diff = [SURVEY.names[j] for j in range(len(SURVEY)) if sent[j] != x[s.src - 1, j]]
            return [
                ("sent", _record_text(sent)),
                ("true (private, not sent)", truth(s.src)),
                ("differs in", ", ".join(diff) or "nothing"),
            ]
        if isinstance(m, SignedClustering):
            return [
                ("clusters", _clusters_text(m.clusters)),
                ("SHA-256 digest", m.digest[:16] + "..."),
                ("Ed25519 signature", m.signature[:8].hex() + "..."),
            ]
        if isinstance(m, Release):
            sent = m.codes.to_numpy().astype(np.int64)
            clusters = coord.clustering.clusters if coord.clustering is not None else ()
            return [
                ("sent", " | ".join(_record_text(sent, c) for c in clusters)),
                ("true (private, not sent)", truth(s.src)),
            ]
        return []

    def notes(key: str, ctx: Context) -> list[Note]:
        everyone = tuple(range(1, n + 1))
        out: list[Note] = []
        if key == "record":
            recs = ctx.of_type("RandomizedRecord")
            changed = 0
            for r in recs:
                assert isinstance(r.msg, RandomizedRecord)
                changed += int((r.msg.codes.to_numpy() != x[r.src - 1]).sum())
            out.append((
                f"{changed} of {len(recs) * len(SURVEY)} answers on the wire differ from the truth. "
                f"The coordinator only ever sees randomized answers.",
                everyone,
            ))  # fmt: skip
            if coord.dependences is not None:
                d, names = coord.dependences, SURVEY.names
                pairs = ", ".join(
                    f"{names[i]}~{names[j]} {d[i, j]:.2f}"
                    for i in range(len(names)) for j in range(i + 1, len(names))
                )  # fmt: skip
                out.append((
                    f"Dependences computed by the coordinator from the randomized answers "
                    f"(|Pearson r| for two ordered questions, else Cramer's V): {pairs}. With a "
                    f"class this small they are mostly noise.",
                    (COORDINATOR,),
                ))  # fmt: skip
        elif key == "cluster" and coord.clustering is not None:
            out.append((
                f"Algorithm 1 merged questions whose dependence is at least Td = {td} while a "
                f"cluster keeps at most Tv = {tv} value combinations: "
                f"{_clusters_text(coord.clustering.clusters)}. Each student verifies the Ed25519 "
                f"signature with the coordinator's public key before acting on it.",
                everyone,
            ))  # fmt: skip
        elif key == "release" and coord.clustering is not None:
            e = coord.result.epsilon if coord.error is None and coord.done else None
            tail = (
                f" Epsilon per student: dependence phase {e['dependence']:.2f} + release "
                f"{e['release']:.2f} = {e['total']:.2f} (sequential composition)."
                if e is not None
                else ""
            )
            out.append((
                "Each cluster is randomized jointly with the cluster mechanism at the sum of its "
                "questions' epsilons (k-RR over the cluster's value combinations), so dependent "
                "answers are perturbed together and their relation survives." + tail,
                everyone,
            ))  # fmt: skip
        return out

    def check(ctx: Context) -> tuple[list[str], bool]:
        if coord.error is not None or not coord.done:
            return [f"no result: {coord.error}"], False
        res = coord.result
        dep_ids = np.asarray(res.parties_dependence)
        rel_ids = np.asarray(res.parties_release)
        gens = party_generators(seed, n)
        # the same computation, centrally, with the same per-party generators
        dep = rr_independent(x, cfg.sizes, cfg.attribute_mechanisms(), gens)
        deps = dependence_matrix(dep.randomized[dep_ids - 1], SURVEY)
        cl = cluster_attributes(deps, cfg.sizes, cfg.tv, cfg.td)
        rel = release_groups(
            x[rel_ids - 1], cfg.sizes, cl.clusters, cfg.release_mechanisms(cl.clusters),
            [gens[i - 1] for i in rel_ids], method=cfg.estimator,
        )  # fmt: skip
        same = (
            np.array_equal(deps, res.dependences)
            and cl.clusters == res.clustering.clusters
            and np.array_equal(rel.randomized, res.randomized)
            and all(
                np.array_equal(a.distribution, b.distribution)
                for a, b in zip(rel.estimates, res.estimates, strict=True)
            )
        )
        lines = [
            f"answers used: dependence phase P{', P'.join(map(str, dep_ids))}; release "
            f"P{', P'.join(map(str, rel_ids))}",
            "the same computation done centrally with the same seeds (rr_independent -> "
            "dependence_matrix -> cluster_attributes -> release_groups) gives "
            + ("identical dependences, clusters, releases and estimates: OK" if same else "DIFFERENT results"),
            "estimated vs true share of the students in the release (RR-Clusters; noisy with so few):",
        ]
        model = res.model
        truth_rel = x[rel_ids - 1]
        for j, a in enumerate(SURVEY.attributes):
            est = model.marginal((j,))
            true = np.bincount(truth_rel[:, j], minlength=a.size) / len(rel_ids)
            parts = []
            for c, name in enumerate(a.categories):
                e_txt = f"{100 * float(np.asarray(est).reshape(-1)[c]):.0f}%"
                parts.append(f"{name} {e_txt} (true {100 * true[c]:.0f}%)")
            lines.append(f"  {a.name}: " + ", ".join(parts))
        for i in range(1, n + 1):
            r = ctx.roles[i]
            if isinstance(r, DropAt) and r.crashed:
                continue
            if r.error is not None:
                lines.append(f"P{i}: {r.error}")
        return lines, same

    return Lesson(
        protocol="pipeline", title=f"RR-Clusters pipeline, {n} students, p = {p}", seed=seed,
        roles=roles, participants={COORDINATOR: "Coord", **{i: f"P{i}" for i in range(1, n + 1)}},
        setup=setup, rounds=rounds, describe=describe, notes=notes, check=check,
        diagrams=[DataParty, Coordinator], drops=drops,
        extra={"records": x.tolist(), "p": p, "tv": tv, "td": td},
    )  # fmt: skip
