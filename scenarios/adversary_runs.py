"""Real protocol runs for the adversaries: roles, inputs, a tap, and the ground truth.

The adversary module (:mod:`mpc_rr.adversary`) is pure: it reads transcripts
and role states.  This module produces them: it builds one protocol's roles
over known inputs, runs them with a runner (memory transport, TCP + mutual
TLS, or the harness) with a :class:`~transports.tap.Tap` on the network, and
returns the tap, the roles after the run, the public parameters and the
inputs.  The inputs are for *scoring* only -- attacks never read them.

Protocols: ``plainsum`` (no privacy: the reference), ``full-mesh`` (Sec. 4.2,
all-to-all publication), ``full-mesh-board``, ``secagg`` (SecAgg+), and
``pipeline`` (the distributed Sec. 4-5 pipeline over Adult records).  Sum
protocols take one-hot inputs (one cell per party, drawn from the seed).
Broken-on-purpose variants (:mod:`mpc_rr.adversary.broken`) are built with
``planted=...`` -- tests and benchmarks only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpc_rr.errors import UsageError
from mpc_rr.messages import Codec, Message
from mpc_rr.roles import COORDINATOR, Role
from mpc_rr.runs import RunResult
from mpc_rr.transcript import Transcript
from transports.tap import Tap

__all__ = ["EAVESDROP_PROTOCOLS", "PLANTED", "ObservedRun", "observed_run", "one_hot_inputs"]

EAVESDROP_PROTOCOLS = ("plainsum", "full-mesh", "full-mesh-board", "secagg", "pipeline")
PLANTED = ("masks", "isolated", "sparse-encoding", "raw-record")
"""Broken-on-purpose variants: ``masks`` (SecAgg+ without pairwise masks / full mesh
without shares), ``isolated`` (party 1 has degree 0 in the masking graph),
``sparse-encoding`` (plainsum drops trailing zeros), ``raw-record`` (pipeline
party 1..n sends its true record as the dependence record)."""


@dataclass
class ObservedRun:
    """One run as the adversaries see it, plus the truth to score them.

    ``tap``: what the network observer recorded (plaintext on the memory
    transport, ciphertext beneath TLS on TCP); ``roles``: every role after
    the run (coalitions read their members' states); ``public``: public
    parameters (``config`` for SecAgg+, ``n`` and ``modulus`` for the full
    mesh, ``pipeline`` for the pipeline); ``cells``: each data party's hot
    cell (sum protocols); ``records``: each data party's record (pipeline).
    """

    protocol: str
    transport: str
    parties: int
    tap: Transcript
    roles: Mapping[int, Role]
    result: RunResult
    message_types: tuple[type[Message], ...]
    public: dict[str, Any] = field(default_factory=dict)
    cells: dict[int, int] = field(default_factory=dict)
    records: np.ndarray | None = None
    names: tuple[str, ...] = ()
    planted: str | None = None

    @property
    def data_parties(self) -> list[int]:
        return list(range(1, self.parties + 1))


def one_hot_inputs(n: int, cells: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``(x, hot)``: ``n`` one-hot vectors over ``cells`` and their hot cells (seeded).

    The recipe of ``mpc-rr secure-sum``: ``default_rng(seed).integers(0, cells, n)``.
    """
    rng = np.random.default_rng(seed)
    hot = rng.integers(0, cells, n)
    x = np.zeros((n, cells), np.uint8)
    x[np.arange(n), hot] = 1
    return x, hot


def _runner(transport: str, tap: Tap, step_timeout: float) -> Any:
    from scenarios.runners import runner_for

    if transport == "harness":
        return runner_for("harness", transcript=True)
    return runner_for(transport, step_timeout=step_timeout, tap=tap)


def _sum_roles(
    protocol: str, x: np.ndarray, run: str, planted: str | None, entropy: Any, options: dict[str, Any]
) -> tuple[dict[int, Role], dict[str, Any], tuple[type[Message], ...]]:
    from mpc_rr.plainsum import PlainSumClient, PlainSumHub, PlainTotal, PlainValue
    from mpc_rr.secure_sum.factories import secure_sum_roles

    n, cells = x.shape
    if protocol == "plainsum":
        if planted not in (None, "sparse-encoding"):
            raise UsageError(f"plainsum has no planted variant {planted!r}")
        from mpc_rr.adversary.broken import LenientPlainSumHub, SparsePlainSumClient

        hub_cls = LenientPlainSumHub if planted else PlainSumHub
        cli_cls = SparsePlainSumClient if planted else PlainSumClient
        roles: dict[int, Role] = {COORDINATOR: hub_cls(n, cells, run=run)}
        for i in range(1, n + 1):
            roles[i] = cli_cls(i, x[i - 1].astype(np.int64), run=run)
        return roles, {}, (PlainValue, PlainTotal)
    if planted not in (None, "masks", "isolated"):
        raise UsageError(f"{protocol} has no planted variant {planted!r}")
    roles, params = secure_sum_roles(protocol, x, run=run, entropy=entropy, **options)  # type: ignore[arg-type]
    if protocol == "secagg":
        from mpc_rr.secure_sum.secagg import SECAGG_MESSAGES, SecAggClient

        srv = roles[COORDINATOR]
        cfg, graph = srv.cfg, srv.graph  # type: ignore[attr-defined]
        if planted is not None:
            from mpc_rr.adversary.broken import ALL, UnmaskedSecAggClient

            iso = ALL if planted == "masks" else {1}
            for i in range(1, n + 1):
                old = roles[i]
                assert isinstance(old, SecAggClient)
                roles[i] = UnmaskedSecAggClient(
                    i, cfg, graph, x[i - 1], entropy=old.entropy, isolated=iso
                )
        return roles, {"config": cfg, "graph": graph}, SECAGG_MESSAGES
    from mpc_rr.secure_sum.full_mesh import MESH_MESSAGES, FullMeshParty

    if planted is not None:
        from mpc_rr.adversary.broken import ALL, ZeroShareMeshParty

        iso = ALL if planted == "masks" else {1}
        for i in range(1, n + 1):
            old = roles[i]
            assert isinstance(old, FullMeshParty)
            roles[i] = ZeroShareMeshParty(
                i, n, x[i - 1], publication=old.publication, entropy=old.entropy, run=run,
                isolated=iso,
            )  # fmt: skip
    return roles, {"n": n, "modulus": params["modulus"]}, MESH_MESSAGES


def observed_run(
    protocol: str,
    *,
    transport: str = "memory",
    parties: int = 30,
    cells: int = 16,
    seed: int = 0,
    planted: str | None = None,
    deterministic: bool = False,
    step_timeout: float = 30.0,
    p: float = 0.5,
    mechanism: str = "cluster",
    dependence: str = "rr",
    secagg: Mapping[str, Any] | None = None,
) -> ObservedRun:
    """Run ``protocol`` with ``parties`` data parties and a tap on the network.

    ``transport``: ``memory`` (plaintext payloads on the tap), ``tcp`` (TCP +
    mutual TLS on loopback: ciphertext on the tap) or ``harness`` (the
    synchronous driver's transcript: plaintext).  Sum protocols: one-hot
    inputs over ``cells`` (:func:`one_hot_inputs`).  Pipeline: ``parties``
    Adult records drawn with ``seed``, keep probability ``p``, release
    ``mechanism``, ``dependence`` source.  ``secagg``: SecAgg+ options
    (``degree``, ``threshold``, ``max_dropout``, ``failure``).  ``deterministic``:
    seeded secrets (tests only).
    """
    if protocol not in EAVESDROP_PROTOCOLS:
        raise UsageError(f"protocol must be one of {EAVESDROP_PROTOCOLS}, got {protocol!r}")
    if transport not in ("memory", "tcp", "harness"):
        raise UsageError(f"transport must be memory, tcp or harness, got {transport!r}")
    if parties < 2:
        raise UsageError(f"parties must be >= 2, got {parties}")
    if planted is not None and planted not in PLANTED:
        raise UsageError(f"planted must be one of {PLANTED}, got {planted!r}")
    from mpc_rr.secure_sum.entropy import SeededEntropy

    tap = Tap(meta={"protocol": protocol, "parties": parties, "seed": seed, "transport": transport})
    run = f"{protocol}-{seed}"
    entropy = SeededEntropy(seed).spawn if deterministic else None
    if protocol == "pipeline":
        return _pipeline_run(
            transport, parties, seed, planted, tap, step_timeout, p, mechanism, dependence, entropy
        )
    if cells < 2:
        raise UsageError(f"cells must be >= 2 (one-hot inputs), got {cells}")
    x, hot = one_hot_inputs(parties, cells, seed)
    options = dict(secagg or {}) if protocol == "secagg" else {}
    roles, public, types = _sum_roles(protocol, x, run, planted, entropy, options)
    result = _runner(transport, tap, step_timeout)(roles)
    observed = result.transcript if transport == "harness" and result.transcript is not None else tap
    observed.meta.update(tap.meta, cells=cells)
    return ObservedRun(
        protocol, transport, parties, observed, roles, result, types, public,
        {i + 1: int(c) for i, c in enumerate(hot)}, planted=planted,
    )  # fmt: skip


def _pipeline_run(
    transport: str, parties: int, seed: int, planted: str | None, tap: Tap, step_timeout: float,
    p: float, mechanism: str, dependence: str, entropy: Any,
) -> ObservedRun:
    from mpc_rr.datasets import load_adult
    from mpc_rr.pipeline import PipelineConfig, pipeline_roles, signing
    from mpc_rr.pipeline.dependence import secagg_dependence

    if planted not in (None, "raw-record"):
        raise UsageError(f"pipeline has no planted variant {planted!r}")
    if planted == "raw-record" and dependence != "rr":
        raise UsageError("the raw-record plant needs dependence 'rr'")
    data = load_adult()
    if parties > data.n:
        raise UsageError(f"parties must be at most Adult's {data.n} records, got {parties}")
    data = data.subsample(parties, np.random.default_rng(np.random.SeedSequence([seed, 0xEA])))
    key = signing.new_signing_key()
    cfg = PipelineConfig(
        data.schema, n=parties, p=p, dependence=dependence, mechanism=mechanism,
        coordinator_key=signing.public_bytes(key), run=f"pipeline-{seed}",
    )  # fmt: skip
    sub = secagg_dependence(entropy) if dependence != "rr" else None
    roles = pipeline_roles(cfg, data.codes, seed, key, sub_factory=sub)
    if planted == "raw-record":
        from mpc_rr.adversary.broken import RawRecordParty
        from mpc_rr.randomness import party_generators

        gens = party_generators(seed, parties)
        for i in range(1, parties + 1):
            roles[i] = RawRecordParty(i, cfg, data.codes[i - 1], gens[i - 1])
    coord = roles[COORDINATOR]
    types = tuple(coord.message_types)
    result = _runner(transport, tap, step_timeout)(roles)
    observed = result.transcript if transport == "harness" and result.transcript is not None else tap
    observed.meta.update(tap.meta, p=p, mechanism=mechanism, dependence=dependence)
    return ObservedRun(
        "pipeline", transport, parties, observed, roles, result, types, {"pipeline": cfg},
        records=np.asarray(data.codes), names=tuple(data.schema.names), planted=planted,
    )  # fmt: skip


def all_message_types() -> tuple[type[Message], ...]:
    """Every message class of the protocols above (an offline observer's codec)."""
    from mpc_rr.adversary.views import message_types
    from mpc_rr.pipeline.messages import PIPELINE_MESSAGES
    from mpc_rr.plainsum import PlainTotal, PlainValue
    from mpc_rr.secure_sum.full_mesh import MESH_MESSAGES
    from mpc_rr.secure_sum.secagg import SECAGG_MESSAGES

    return message_types((PlainValue, PlainTotal), MESH_MESSAGES, SECAGG_MESSAGES, PIPELINE_MESSAGES)


def eavesdrop_report(
    run: ObservedRun,
    rng: np.random.Generator,
    *,
    permutations: int = 200,
    confidence: float = 0.95,
) -> dict[str, Any]:
    """Everything the eavesdropper of ``run.tap`` learns, scored against the run's truth.

    Keys: ``participation`` (who took part and when), ``size_census`` (distinct
    sizes per send position), ``size`` / ``timing`` (the traffic metrics with the
    private value as label: the hot cell, or the pipeline record's last
    attribute), ``content`` (payloads: input recovery for the sums, Bayes
    inference of every attribute for the pipeline; ``None`` beneath TLS) and the
    headline ``success`` / ``baseline`` / ``ci`` (``content`` where payloads are
    readable, else ``size``).
    """
    from mpc_rr.adversary import size_leakage, timing_leakage
    from mpc_rr.adversary.eavesdrop import participation, size_census
    from mpc_rr.adversary.inference import bayes_inference, pipeline_observations
    from mpc_rr.adversary.recovery import recover, score
    from mpc_rr.adversary.views import observe

    tap = run.tap
    data = run.data_parties
    if run.records is not None:
        secrets = {i: int(run.records[i - 1, -1]) for i in data}
        secret_label = f"record's {run.names[-1] if run.names else 'last attribute'}"
    else:
        secrets = dict(run.cells)
        secret_label = "hot cell of the input"
    view = observe(tap, run.message_types)
    codec = Codec(run.message_types)
    part = participation(tap.with_labels(codec.decode) if view.plaintext else tap)
    seen, unseen = part.took_part(data)
    size = size_leakage(tap, secrets, rng, confidence=confidence, permutations=permutations)
    timing = timing_leakage(tap, secrets, rng, confidence=confidence, permutations=permutations)
    content: dict[str, Any] | None = None
    headline: Any = size
    if view.plaintext:
        if run.protocol == "pipeline":
            cfg = run.public["pipeline"]
            ids, obs = pipeline_observations(view, cfg)
            assert run.records is not None
            inf = bayes_inference(
                obs, cfg.sizes, run.records[np.asarray(ids) - 1], names=run.names, confidence=confidence
            )
            content = {"kind": "Bayes-optimal inference of each attribute from the randomized records",
                       "mechanism": cfg.mechanism, "p": cfg.p, "dependence": cfg.dependence} | inf.to_dict()  # fmt: skip
            headline = inf
        else:
            public = {k: v for k, v in run.public.items() if k != "graph"}
            rec = recover(run.protocol, view, **public)
            res = score(rec, run.cells, confidence=confidence)
            content = {"kind": "recovery of each input from the payloads"} | res.to_dict()
            headline = res
    out: dict[str, Any] = {
        "protocol": run.protocol,
        "transport": run.transport,
        "observer": tap.observer,
        "parties": run.parties,
        "planted": run.planted,
        "success": headline.success,
        "baseline": headline.baseline,
        "ci": list(headline.ci),
        "headline": "content" if content is not None else "size",
        "participation": part.to_dict() | {"data_parties_seen": len(seen), "data_parties_unseen": unseen},
        "size_census": size_census(tap, data).to_dict(),
        "secret": secret_label,
        "size": size.to_dict(),
        "timing": timing.to_dict(),
        "plaintext_payloads": len(view),
        "undecodable_events": view.undecodable,
        "content": content,
    }
    if run.protocol == "secagg":
        out["params"] = run.public["config"].as_json()
    return out


def rrba_eavesdrop(
    *,
    data: str = "survey",
    before: int = 2500,
    observed: int = 2000,
    block: int = 250,
    p: float = 0.5,
    k: int = 2,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict[str, Any]:
    """What a plaintext eavesdropper infers from RRBA answers (the client's pure function).

    ``before`` records run block by block (pooled estimator, the defaults of
    ``mpc-rr rrba``) to produce the public tables; the next ``observed``
    clients each answer their view (view ``i mod V``) at those tables with
    :func:`~mpc_rr.rrba.client.answers_from_uniforms`, the function the RRBA
    client calls; the eavesdropper reads the answers and the tables (both in
    plaintext) and runs the Bayes-optimal inference per view group.  The RRBA
    roles are not on main yet: no transport is involved.
    """
    from mpc_rr.adversary._stats import cp_two_sided
    from mpc_rr.adversary.inference import Observation, bayes_inference
    from mpc_rr.rrba.client import answers_from_uniforms, cdf_table
    from mpc_rr.rrba.privacy import implied_matrix, paper_epsilon, table_epsilon
    from mpc_rr.rrba.simulate import run_rrba
    from mpc_rr.rrba.views import cover
    from mpc_rr.schema import Dataset
    from scenarios.rrba_data import load_data

    rng = np.random.default_rng(seed)
    ds, source = load_data(data, before + observed, rng)
    first = Dataset(ds.schema, ds.codes[:before])
    cov = cover(len(ds.schema.sizes), k)
    run = run_rrba(first, p=p, block=block, views=cov, seed=seed)
    index = run.index
    lay = index.layout
    tables = lay.pack([np.asarray(t).reshape(-1) for t in run.estimates])
    cdf = cdf_table(tables, lay)
    codes = ds.codes[before:]
    n, d = codes.shape
    assign = np.arange(n) % cov.n_views
    sizes = ds.schema.sizes
    hits = np.zeros(d)
    counts = np.zeros(d)
    base_hits = np.zeros(d)
    for v, view_ids in enumerate(cov.view_tables):
        rows = np.flatnonzero(assign == v)
        if rows.size == 0:
            continue
        ids = np.asarray(view_ids, np.int64)
        t_ids = np.tile(ids, rows.size)
        r_ids = np.repeat(rows, ids.size)
        truth_cells = index.cells(codes, r_ids, t_ids)
        u = rng.random((2, t_ids.size))
        ans = answers_from_uniforms(truth_cells, t_ids, u[0], u[1], cdf, p).reshape(rows.size, ids.size)
        obs = []
        for j, s in enumerate(ids.tolist()):
            shape = index.shape(s)
            z = np.stack(np.unravel_index(ans[:, j], shape), axis=1)
            table = tables[s, : lay.cells[s]]
            obs.append(Observation(cov.subsets[s], implied_matrix(table, p), z, f"answer, table {s}"))
        inf = bayes_inference(obs, sizes, codes[rows], names=ds.schema.names, confidence=confidence)
        for name, sp, bp in zip(inf.attributes, inf.success_per_attribute, inf.baseline_per_attribute, strict=True):
            a = ds.schema.names.index(name)
            hits[a] += sp * rows.size
            base_hits[a] += bp * rows.size
            counts[a] += rows.size
    asked = counts > 0
    per = [
        {
            "attribute": ds.schema.names[a],
            "success": float(hits[a] / counts[a]),
            "baseline": float(base_hits[a] / counts[a]),
            "ci": list(cp_two_sided(round(float(hits[a])), int(counts[a]), confidence)),
            "answers": int(counts[a]),
        }
        for a in np.flatnonzero(asked).tolist()
    ]
    total = round(float(hits[asked].sum()))
    eps = table_epsilon(tables, lay, p)
    return {
        "protocol": "rrba",
        "transport": "none: the client's pure function (RRBA roles are not on main yet)",
        "observer": "plaintext eavesdropper (answers and the public tables)",
        "source": source,
        "p": p,
        "k": cov.k,
        "tables_after_clients": run.clients,
        "observed_clients": n,
        "success": float(hits[asked].sum() / counts[asked].sum()),
        "baseline": float(base_hits[asked].sum() / counts[asked].sum()),
        "ci": list(cp_two_sided(total, int(counts[asked].sum()), confidence)),
        "per_attribute": per,
        "epsilon_true_per_answer_max": float(eps.max()),
        "epsilon_paper_per_answer": paper_epsilon(p),
    }
