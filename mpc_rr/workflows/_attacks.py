"""Real protocol runs for the adversaries: roles, inputs, what an observer recorded, the truth.

The adversary module (:mod:`mpc_rr.adversary`) is pure: it reads transcripts
and role states.  This module produces them: it builds one protocol's roles
over known inputs, runs them on an :class:`ObservedNetwork` -- by default the
synchronous harness, whose transcript is what a relay sees; the command line
passes the memory transport or TCP + mutual TLS with a tap on the wire
(``scenarios.workloads.networks``) -- and returns what the observer recorded,
the roles after the run, the public parameters and the inputs.  The inputs are for *scoring* only -- attacks never read them.

Protocols: every registered sum protocol (``plainsum``, the reference with no
privacy; ``full-mesh``; ``full-mesh-board``; ``secagg``; ...), with one-hot
inputs (one cell per party, drawn from the seed), and every protocol whose
spec names an ``observed_run`` hook (``pipeline`` over Adult records, ``rrba``
over Survey, Adult, ... records).  Broken-on-purpose variants (a spec's
``plants`` hook, :mod:`mpc_rr.adversary._broken`) are built with
``planted=...`` -- tests and benchmarks only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from mpc_rr.adversary import eavesdrop_protocols, planted_variants
from mpc_rr.core import (
    COORDINATOR,
    Codec,
    HarnessRunner,
    Message,
    Role,
    Runner,
    RunResult,
    Transcript,
    UsageError,
)

__all__ = [
    "HarnessNetwork",
    "ObservedNetwork",
    "ObservedRun",
    "all_message_types",
    "coalition_report",
    "eavesdrop_report",
    "observed_run",
    "offline_report",
    "one_hot_inputs",
    "pipeline_run",
    "rrba_run",
]

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
    sum_public: Any = None  # a sum protocol's public parameters (its spec's)

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


class ObservedNetwork(Protocol):
    """Where an observed run runs, and what its observer records.

    ``name``: the transport (``harness``, ``memory``, ``tcp``); ``runner(step_timeout)``:
    a runner for one run (``step_timeout``: seconds, or per party); ``observed(result)``:
    the transcript the observer holds after it; ``meta``: notes that go into it.
    """

    name: str

    def runner(self, step_timeout: float | Mapping[int, float]) -> Runner: ...

    def observed(self, result: RunResult) -> Transcript: ...


@dataclass
class HarnessNetwork:
    """The synchronous harness: its transcript (every message as encoded) is the observer's view."""

    name: str = "harness"

    def runner(self, step_timeout: float | Mapping[int, float]) -> Runner:
        return HarnessRunner(transcript=True)

    def observed(self, result: RunResult) -> Transcript:
        if result.transcript is None:
            raise UsageError("the harness run kept no transcript")
        return result.transcript


def _sum_roles(
    protocol: str, x: np.ndarray, run: str, planted: str | None, entropy: Any, options: Mapping[str, Any]
) -> tuple[dict[int, Role], Any]:
    """The honest roles of one run (with ``planted``: the spec's broken variant) and its public parameters."""
    from mpc_rr.secure_sum import SecureSumPlan, sum_protocol

    spec = sum_protocol(protocol)
    plan = SecureSumPlan(protocol, x, run=run, entropy=entropy, options=options)
    public = plan.public()
    roles = plan.build()
    if planted is not None:
        plants = spec.hook("plants") if spec.has_hook("plants") else {}
        if planted not in plants:
            raise UsageError(f"{protocol} has no planted variant {planted!r} (its variants: "
                             f"{', '.join(plants) or 'none'})")  # fmt: skip
        roles = plants[planted](roles, x, public)
    return roles, public


def _legacy_public(protocol: str, public: Any) -> dict[str, Any]:
    """The named parameters the attacks of the adversary module take (``config``; ``n``, ``modulus``)."""
    if hasattr(public, "config"):
        return {"config": public.config, "graph": public.graph}
    if hasattr(public, "modulus") and public.modulus:
        return {"n": public.n, "modulus": public.modulus}
    return {}


def observed_run(
    protocol: str,
    *,
    network: ObservedNetwork | None = None,
    parties: int = 30,
    cells: int = 16,
    seed: int = 0,
    planted: str | None = None,
    deterministic: bool = False,
    step_timeout: float = 30.0,
    p: float = 0.5,
    mechanism: str = "cluster",
    dependence: str = "rr",
    options: Mapping[str, Any] | None = None,
    secagg: Mapping[str, Any] | None = None,
    data: str = "survey",
    block: int = 250,
    secure_tally: bool = False,
) -> ObservedRun:
    """Run ``protocol`` with ``parties`` data parties on ``network``, an observer watching.

    ``network``: default the harness (its transcript: plaintext, what a relay
    sees); the command line passes the memory transport (plaintext payloads on
    a tap) or TCP + mutual TLS (ciphertext on the tap).  Sum protocols: one-hot
    inputs over ``cells`` (:func:`one_hot_inputs`).  Pipeline: ``parties``
    Adult records drawn with ``seed``, keep probability ``p``, release
    ``mechanism``, ``dependence`` source.  RRBA: ``parties`` clients drawn
    from ``data`` (:func:`mpc_rr.data.load_records`), ``block`` clients per
    block, keep probability ``p``, answers in the clear or ``secure_tally``.
    ``options``: the sum protocol's options (``secagg``: the same, the name
    earlier callers used).  ``deterministic``: seeded secrets (tests only).
    """
    from mpc_rr.core import get_protocol

    if protocol not in eavesdrop_protocols():
        raise UsageError(f"protocol must be one of {eavesdrop_protocols()}, got {protocol!r}")
    net = network if network is not None else HarnessNetwork()
    if parties < 2:
        raise UsageError(f"parties must be >= 2, got {parties}")
    if planted is not None and planted not in planted_variants():
        raise UsageError(f"planted must be one of {planted_variants()}, got {planted!r}")
    from mpc_rr.secure_sum import SeededEntropy

    meta = {"protocol": protocol, "parties": parties, "seed": seed, "transport": net.name}
    run = f"{protocol}-{seed}"
    entropy = SeededEntropy(seed).spawn if deterministic else None
    spec = get_protocol(protocol)
    if spec.family != "sum":
        if planted is not None and planted not in planted_variants(protocol):
            raise UsageError(f"{protocol} has no planted variant {planted!r}")
        run_of = spec.hook("observed_run")
        return run_of(  # type: ignore[no-any-return]
            network=net, meta=meta, parties=parties, seed=seed, planted=planted,
            step_timeout=step_timeout, entropy=entropy, p=p, mechanism=mechanism,
            dependence=dependence, data=data, block=block, secure_tally=secure_tally,
        )  # fmt: skip
    if cells < 2:
        raise UsageError(f"cells must be >= 2 (one-hot inputs), got {cells}")
    x, hot = one_hot_inputs(parties, cells, seed)
    opts = dict(options or secagg or {})
    roles, public = _sum_roles(protocol, x, run, planted, entropy, opts)
    result = net.runner(step_timeout)(roles)
    observed = net.observed(result)
    observed.meta.update(meta, cells=cells)
    return ObservedRun(
        protocol, net.name, parties, observed, roles, result, spec.message_types(),
        _legacy_public(protocol, public), {i + 1: int(c) for i, c in enumerate(hot)},
        planted=planted, sum_public=public,
    )  # fmt: skip


def pipeline_run(
    *, network: ObservedNetwork, meta: dict[str, Any], parties: int, seed: int, planted: str | None,
    step_timeout: float, entropy: Any, p: float = 0.5, mechanism: str = "cluster",
    dependence: str = "rr", **_: Any,
) -> ObservedRun:
    """The pipeline's observed run (its spec's ``observed_run`` hook): Adult records drawn
    with ``seed``, keep probability ``p``, release ``mechanism``, ``dependence`` source."""
    from mpc_rr.data import load_adult
    from mpc_rr.pipeline import PipelineConfig, pipeline_roles, signing

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
    roles = pipeline_roles(cfg, data.codes, seed, key, sum_entropy=entropy if dependence != "rr" else None)
    if planted == "raw-record":
        from mpc_rr.adversary import RawRecordParty
        from mpc_rr.core import party_generators

        gens = party_generators(seed, parties)
        for i in range(1, parties + 1):
            roles[i] = RawRecordParty(i, cfg, data.codes[i - 1], gens[i - 1])
    coord = roles[COORDINATOR]
    types = tuple(coord.message_types)
    result = network.runner(step_timeout)(roles)
    observed = network.observed(result)
    observed.meta.update(meta, p=p, mechanism=mechanism, dependence=dependence)
    return ObservedRun(
        "pipeline", network.name, parties, observed, roles, result, types, {"pipeline": cfg},
        records=np.asarray(data.codes), names=tuple(data.schema.names), planted=planted,
    )  # fmt: skip


def rrba_run(
    *, network: ObservedNetwork, meta: dict[str, Any], parties: int, seed: int, planted: str | None,
    step_timeout: float, entropy: Any, p: float = 0.5, data: str = "survey", block: int = 250,
    secure_tally: bool = False, **_: Any,
) -> ObservedRun:
    """RRBA's observed run (its spec's ``observed_run`` hook): ``parties`` clients drawn from
    ``data``, ``block`` clients per block, answers in the clear or ``secure_tally``."""
    from mpc_rr.data import load_records
    from mpc_rr.rrba import client_step_timeouts, config_for, rrba_roles

    ds, _where = load_records(data, parties, np.random.default_rng(np.random.SeedSequence([seed, 0xBA])))
    cfg = config_for(ds, block, p, run=f"rrba-{seed}", secure_tally=secure_tally)
    roles = rrba_roles(cfg, ds.codes, seed, entropy=entropy, client_patience=1)
    # each client's whole wait as one step timeout (as mpc-rr rrba does)
    result = network.runner(client_step_timeouts(cfg, step_timeout))(roles)
    observed = network.observed(result)
    observed.meta.update(meta, p=p, data=data, block=block, secure_tally=secure_tally)
    return ObservedRun(
        "rrba", network.name, parties, observed, roles, result, tuple(roles[COORDINATOR].message_types),
        {"rrba": cfg}, records=np.asarray(ds.codes), names=tuple(ds.schema.names),
    )  # fmt: skip


def all_message_types() -> tuple[type[Message], ...]:
    """Every message class of every registered protocol (an offline observer's codec)."""
    from mpc_rr.core import message_types, protocols

    return message_types(*(spec.message_types() for spec in protocols()))


def offline_report(
    path: Path, protocol: str | None, rng: np.random.Generator, *, confidence: float = 0.95
) -> dict[str, Any]:
    """What an eavesdropper learns from a saved transcript alone: who took part and when, the
    size census, and -- where payloads are readable and the protocol has an ``offline`` and a
    ``recover`` hook -- input recovery, scored when the file's metadata holds the input recipe."""
    from mpc_rr.adversary import participation, size_census
    from mpc_rr.core import DecodeError, Transcript, observe

    try:
        t = Transcript.load(path)
    except DecodeError as exc:
        raise UsageError(str(exc)) from None
    meta = dict(t.meta)
    proto = protocol or meta.get("protocol")
    part = participation(t)
    view = observe(t, all_message_types())
    data = [p for p in part.senders if p != 0]
    out: dict[str, Any] = {
        "transcript": str(path),
        "observer": t.observer,
        "meta": meta,
        "protocol": proto,
        "participation": part.to_dict() | {"data_parties_seen": len(data)},
        "size_census": size_census(t, data).to_dict(),
        "plaintext_payloads": len(view),
        "undecodable_events": view.undecodable,
        "content": None,
    }
    headline: dict[str, Any] = {"success": None, "baseline": None, "ci": None}
    spec = _spec_or_none(proto)
    if view.plaintext and spec is not None and spec.has_hook("offline") and spec.has_hook("recover"):
        content = _offline_recovery(view, spec, meta, confidence)
        out["content"] = content
        if content.get("scored"):
            headline = {k: content[k] for k in ("success", "baseline", "ci")}
    out.update(headline)
    out["headline"] = "content" if headline["success"] is not None else None
    return out


def _spec_or_none(name: object) -> Any:
    from mpc_rr.core import get_protocol

    if not isinstance(name, str):
        return None
    try:
        return get_protocol(name)
    except UsageError:
        return None


def _offline_recovery(view: Any, spec: Any, meta: dict[str, Any], confidence: float) -> dict[str, Any]:
    """Input recovery from a saved plaintext transcript; scored if ``meta`` holds the input recipe."""
    from mpc_rr.adversary import recover, score

    senders = sorted({s.src for s in view if s.src != 0})
    n = int(meta.get("parties", len(senders)))
    public = spec.hook("offline")(view, n)
    cells = public.cells
    rec = recover(spec.name, view, public=public)
    out: dict[str, Any] = {
        "kind": "recovery of each input from the payloads",
        "recovered": len(rec.recovered),
        "candidates_one_hot": sorted(rec.recovered),
        "cells": cells,
        "scored": False,
    }
    seed = meta.get("seed")
    if seed is not None and cells is not None and "parties" in meta:
        _, hot = one_hot_inputs(n, cells, int(seed))
        res = score(rec, {i + 1: int(c) for i, c in enumerate(hot)}, confidence=confidence)
        out |= res.to_dict() | {"scored": True,
                                 "truth": "regenerated from the file's seed (mpc-rr secure-sum's input recipe)"}  # fmt: skip
    return out


def coalition_report(
    protocol: str,
    *,
    parties: int,
    size: int,
    cells: int = 16,
    seed: int = 0,
    repeats: int = 1,
    options: Mapping[str, Any] | None = None,
    confidence: float = 0.95,
    curve: bool = True,
    network: ObservedNetwork | None = None,
) -> dict[str, Any]:
    """Coalitions against ``protocol`` (its ``coalition`` hook): ``repeats`` runs pooled.

    Each run: one-hot inputs over ``cells`` (seeds ``seed``, ``seed + 1``, ...),
    secrets from the OS CSPRNG; coalitions of ``size`` (and, with ``curve``,
    of every size worth trying) pool their views and role states.  Returns
    the JSON document of ``mpc-rr attack coalition`` (the result at ``size``,
    the declared bound, the curve); ``head`` holds the pooled result at ``size``.
    """
    from mpc_rr.adversary import (
        check_confidence,
        coalition_model,
        coalition_sweep,
        member_state,
        pool,
    )
    from mpc_rr.core import observe

    check_confidence(confidence)
    n = parties
    top = n - 1
    if size > top:
        raise UsageError(f"--size must be at most --parties - 1 = {top}, got {size}")
    grid: list[int] = []
    per_run = []
    model = None
    obs = None
    for rep in range(repeats):
        obs = observed_run(protocol, network=network, parties=n, cells=cells, seed=seed + rep,
                           options=options)  # fmt: skip
        if not obs.result.ok:
            raise UsageError(f"the {protocol} run did not finish: {obs.result.errors}")
        view = observe(obs.tap, obs.message_types)
        states = {i: member_state(obs.roles[i]) for i in obs.data_parties}
        model = coalition_model(protocol, obs.sum_public, n)
        if size < model.smallest:
            raise UsageError(f"--size must be >= {model.smallest} for {protocol}")
        if not grid:
            grid = list(range(model.smallest, top + 1)) if curve else [size]
            if model.neighbours is not None and curve:  # sparse: beyond k + 2 nothing changes
                k = max(len(v) for v in model.neighbours.values())
                grid = sorted(set(range(model.smallest, min(top, k + 2) + 1)) | {size})
        per_run.append(coalition_sweep(
            protocol, view, states, obs.cells, grid, neighbours=model.neighbours,
            confidence=confidence, public=obs.sum_public,
        ))  # fmt: skip
    assert model is not None and obs is not None
    results = [pool([r[k] for r in per_run]) for k in range(len(grid))]
    head = results[grid.index(size)]
    out: dict[str, Any] = head.to_dict() | {
        "parties": n,
        "cells": cells,
        "threshold": model.threshold,
        "threshold_rule": model.rule,
        "coalition_choice": "each target's graph neighbours first" if model.neighbours else "the C lowest ids",
        "server_colludes": model.server_colludes,
        "repeats": repeats,
    }
    if protocol == "secagg":  # its declared parameters (degree, threshold, bounds)
        out["params"] = obs.sum_public.as_json()
    if curve:
        out["curve"] = [
            {"size": c, "success": r.success, "ci": list(r.ci), "baseline": r.baseline,
             "recovery_rate": r.recovery_rate}
            for c, r in zip(grid, results, strict=True)
        ]  # fmt: skip
    out["head"] = head
    return out


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
    from mpc_rr.core import get_protocol, observe

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
        elif get_protocol(run.protocol).has_hook("recover"):
            rec = recover(run.protocol, view, public=run.sum_public)
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
    if run.sum_public is not None:
        out["params"] = run.sum_public.as_json()
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
