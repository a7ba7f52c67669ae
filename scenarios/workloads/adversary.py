"""Real protocol runs for the adversaries: roles, inputs, a tap, and the ground truth.

The adversary module (:mod:`mpc_rr.adversary`) is pure: it reads transcripts
and role states.  This module produces them: it builds one protocol's roles
over known inputs, runs them with a runner (memory transport, TCP + mutual
TLS, or the harness) with a :class:`~transports.tap.Tap` on the network, and
returns the tap, the roles after the run, the public parameters and the
inputs.  The inputs are for *scoring* only -- attacks never read them.

Protocols: ``plainsum`` (no privacy: the reference), ``full-mesh`` (Sec. 4.2,
all-to-all publication), ``full-mesh-board``, ``secagg`` (SecAgg+),
``pipeline`` (the distributed Sec. 4-5 pipeline over Adult records) and
``rrba`` (the distributed RRBA protocol over Survey, Adult, ... records).  Sum
protocols take one-hot inputs (one cell per party, drawn from the seed).
Broken-on-purpose variants (:mod:`mpc_rr.adversary._broken`) are built with
``planted=...`` -- tests and benchmarks only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpc_rr.core import COORDINATOR, Codec, Message, Role, RunResult, Transcript, UsageError
from transports.tap import Tap

__all__ = [
    "EAVESDROP_PROTOCOLS",
    "PLANTED",
    "ObservedRun",
    "all_message_types",
    "eavesdrop_report",
    "observed_run",
    "one_hot_inputs",
]

EAVESDROP_PROTOCOLS = ("plainsum", "full-mesh", "full-mesh-board", "secagg", "pipeline", "rrba")
PLANTED = ("masks", "isolated", "clear-shares", "sparse-encoding", "raw-record")
"""Broken-on-purpose variants: ``masks`` (SecAgg+ without pairwise masks / full mesh
without shares), ``isolated`` (party 1 has degree 0 in the masking graph),
``clear-shares`` (full mesh sending its shares unencrypted, as the paper over a relay),
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
    from parties.runners import runner_for

    if transport == "harness":
        return runner_for("harness", transcript=True)
    return runner_for(transport, step_timeout=step_timeout, tap=tap)


def _sum_roles(
    protocol: str, x: np.ndarray, run: str, planted: str | None, entropy: Any, options: dict[str, Any]
) -> tuple[dict[int, Role], dict[str, Any], tuple[type[Message], ...]]:
    from mpc_rr.secure_sum import secure_sum_roles
    from mpc_rr.secure_sum.plainsum import PlainSumClient, PlainSumHub, PlainTotal, PlainValue

    n, cells = x.shape
    if protocol == "plainsum":
        if planted not in (None, "sparse-encoding"):
            raise UsageError(f"plainsum has no planted variant {planted!r}")
        from mpc_rr.adversary import LenientPlainSumHub, SparsePlainSumClient

        hub_cls = LenientPlainSumHub if planted else PlainSumHub
        cli_cls = SparsePlainSumClient if planted else PlainSumClient
        roles: dict[int, Role] = {COORDINATOR: hub_cls(n, cells, run=run)}
        for i in range(1, n + 1):
            roles[i] = cli_cls(i, x[i - 1].astype(np.int64), run=run)
        return roles, {}, (PlainValue, PlainTotal)
    if planted not in (None, "masks", "isolated") and not (
        planted == "clear-shares" and protocol != "secagg"
    ):
        raise UsageError(f"{protocol} has no planted variant {planted!r}")
    roles, params = secure_sum_roles(protocol, x, run=run, entropy=entropy, **options)  # type: ignore[arg-type]
    if protocol == "secagg":
        from mpc_rr.secure_sum.secagg import SECAGG_MESSAGES, SecAggClient

        srv = roles[COORDINATOR]
        cfg, graph = srv.cfg, srv.graph  # type: ignore[attr-defined]
        if planted is not None:
            from mpc_rr.adversary import ALL, UnmaskedSecAggClient

            iso = ALL if planted == "masks" else {1}
            for i in range(1, n + 1):
                old = roles[i]
                assert isinstance(old, SecAggClient)
                roles[i] = UnmaskedSecAggClient(
                    i, cfg, graph, x[i - 1], entropy=old.entropy, isolated=iso
                )
        return roles, {"config": cfg, "graph": graph}, SECAGG_MESSAGES
    from mpc_rr.secure_sum.full_mesh import MESH_MESSAGES, FullMeshParty

    if planted == "clear-shares":
        from mpc_rr.adversary import PlaintextShareMeshParty

        for i in range(1, n + 1):
            old = roles[i]
            assert isinstance(old, FullMeshParty)
            roles[i] = PlaintextShareMeshParty(
                i, n, x[i - 1], publication=old.publication, entropy=old.entropy, run=run
            )
    elif planted is not None:
        from mpc_rr.adversary import ALL, ZeroShareMeshParty

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
    data: str = "survey",
    block: int = 250,
    secure_tally: bool = False,
) -> ObservedRun:
    """Run ``protocol`` with ``parties`` data parties and a tap on the network.

    ``transport``: ``memory`` (plaintext payloads on the tap), ``tcp`` (TCP +
    mutual TLS on loopback: ciphertext on the tap) or ``harness`` (the
    synchronous driver's transcript: plaintext).  Sum protocols: one-hot
    inputs over ``cells`` (:func:`one_hot_inputs`).  Pipeline: ``parties``
    Adult records drawn with ``seed``, keep probability ``p``, release
    ``mechanism``, ``dependence`` source.  RRBA: ``parties`` clients drawn
    from ``data`` (:func:`scenarios.workloads.rrba_data.load_data`), ``block`` clients per
    block, keep probability ``p``, answers in the clear or ``secure_tally``.
    ``secagg``: SecAgg+ options (``degree``, ``threshold``, ``max_dropout``,
    ``failure``).  ``deterministic``: seeded secrets (tests only).
    """
    if protocol not in EAVESDROP_PROTOCOLS:
        raise UsageError(f"protocol must be one of {EAVESDROP_PROTOCOLS}, got {protocol!r}")
    if transport not in ("memory", "tcp", "harness"):
        raise UsageError(f"transport must be memory, tcp or harness, got {transport!r}")
    if parties < 2:
        raise UsageError(f"parties must be >= 2, got {parties}")
    if planted is not None and planted not in PLANTED:
        raise UsageError(f"planted must be one of {PLANTED}, got {planted!r}")
    from mpc_rr.secure_sum import SeededEntropy

    tap = Tap(meta={"protocol": protocol, "parties": parties, "seed": seed, "transport": transport})
    run = f"{protocol}-{seed}"
    entropy = SeededEntropy(seed).spawn if deterministic else None
    if protocol == "pipeline":
        return _pipeline_run(
            transport, parties, seed, planted, tap, step_timeout, p, mechanism, dependence, entropy
        )
    if protocol == "rrba":
        if planted is not None:
            raise UsageError(f"rrba has no planted variant {planted!r}")
        return _rrba_run(transport, parties, seed, tap, step_timeout, p, data, block, secure_tally, entropy)
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
    from mpc_rr.data import load_adult
    from mpc_rr.pipeline import PipelineConfig, pipeline_roles, secagg_dependence, signing

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
        from mpc_rr.adversary import RawRecordParty
        from mpc_rr.core import party_generators

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


def _rrba_run(
    transport: str, parties: int, seed: int, tap: Tap, step_timeout: float, p: float, data: str,
    block: int, secure_tally: bool, entropy: Any,
) -> ObservedRun:
    from mpc_rr.rrba import client_step_timeouts, config_for, rrba_roles
    from parties.runners import runner_for
    from scenarios.workloads.rrba_data import load_data

    ds, _ = load_data(data, parties, np.random.default_rng(np.random.SeedSequence([seed, 0xBA])))
    cfg = config_for(ds, block, p, run=f"rrba-{seed}", secure_tally=secure_tally)
    roles = rrba_roles(cfg, ds.codes, seed, entropy=entropy, client_patience=1)
    if transport == "harness":
        runner = runner_for("harness", transcript=True)
    else:  # each client's whole wait as one step timeout (as mpc-rr rrba does)
        runner = runner_for(transport, step_timeout=client_step_timeouts(cfg, step_timeout), tap=tap)
    result = runner(roles)
    observed = result.transcript if transport == "harness" and result.transcript is not None else tap
    observed.meta.update(tap.meta, p=p, data=data, block=block, secure_tally=secure_tally)
    return ObservedRun(
        "rrba", transport, parties, observed, roles, result, tuple(roles[COORDINATOR].message_types),
        {"rrba": cfg}, records=np.asarray(ds.codes), names=tuple(ds.schema.names),
    )  # fmt: skip


def all_message_types() -> tuple[type[Message], ...]:
    """Every message class of the protocols above (an offline observer's codec)."""
    from mpc_rr.core import message_types
    from mpc_rr.pipeline import PIPELINE_MESSAGES
    from mpc_rr.rrba import RRBA_MESSAGES
    from mpc_rr.secure_sum.full_mesh import MESH_MESSAGES
    from mpc_rr.secure_sum.plainsum import PlainTotal, PlainValue
    from mpc_rr.secure_sum.secagg import SECAGG_MESSAGES

    return message_types(
        (PlainValue, PlainTotal), MESH_MESSAGES, SECAGG_MESSAGES, PIPELINE_MESSAGES, RRBA_MESSAGES
    )


def eavesdrop_report(
    run: ObservedRun,
    rng: np.random.Generator,
    *,
    permutations: int = 200,
    confidence: float = 0.95,
    secret_attribute: int = -1,
) -> dict[str, Any]:
    """Everything the eavesdropper of ``run.tap`` learns, scored against the run's truth.

    Keys: ``participation`` (who took part and when), ``size_census`` (distinct
    sizes per send position), ``size`` / ``timing`` (the traffic metrics with the
    private value as label: the hot cell, or the record's attribute
    ``secret_attribute``, default the last), ``content`` (payloads: input
    recovery for the sums, Bayes inference of every attribute for the pipeline
    and RRBA; ``None`` beneath TLS) and the
    headline ``success`` / ``baseline`` / ``ci`` (``content`` where payloads are
    readable, else ``size``).
    """
    from mpc_rr.adversary import (
        bayes_inference,
        participation,
        pipeline_observations,
        pool_inference,
        recover,
        rrba_observations,
        score,
        size_census,
        size_leakage,
        timing_leakage,
    )
    from mpc_rr.core import observe

    tap = run.tap
    data = run.data_parties
    if run.records is not None:
        a = secret_attribute % run.records.shape[1]
        secrets = {i: int(run.records[i - 1, a]) for i in data}
        secret_label = f"record's {run.names[a] if run.names else f'attribute {a}'}"
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
        elif run.protocol == "rrba":
            rcfg = run.public["rrba"]
            assert run.records is not None
            groups = rrba_observations(view, rcfg)
            if groups:
                pop = _population_priors(run.records, rcfg.sizes, rcfg.cover.subsets)
                parts = [
                    (len(ids), bayes_inference(
                        obs, rcfg.sizes, run.records[np.asarray(ids) - 1], names=run.names,
                        confidence=confidence, priors=pop, attacker_priors=tables,
                    ))
                    for ids, obs, tables in groups
                ]  # fmt: skip
                inf = pool_inference(parts, confidence)
                content = {"kind": "Bayes-optimal inference of each attribute from the RRBA answers",
                           "mechanism": "rrba", "p": rcfg.p, "dependence": "-",
                           "groups": len(groups)} | inf.to_dict()  # fmt: skip
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


def _population_priors(
    records: np.ndarray, sizes: tuple[int, ...], subsets: tuple[tuple[int, ...], ...]
) -> dict[tuple[int, ...], np.ndarray]:
    """Empirical joint distribution of every subset over all the run's records."""
    out = {}
    for s in subsets:
        shape = tuple(sizes[a] for a in s)
        flat = np.ravel_multi_index(tuple(records[:, list(s)].T), shape)
        out[tuple(s)] = np.bincount(flat, minlength=int(np.prod(shape))) / records.shape[0]
    return out
