"""What the adversaries learn from observed runs: the eavesdropper, coalitions, a saved transcript.

Each report is the document ``mpc-rr attack ... --json`` prints, scored
against the run's truth (:class:`~._observed.ObservedRun` keeps it); the
coalitions' is a typed :class:`CoalitionReport` whose ``to_json()`` is that document.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mpc_rr.adversary import attacks_for
from mpc_rr.core import (
    Codec,
    Message,
    Transcript,
    UsageError,
)
from mpc_rr.workflows._observed import (
    ObservedNetwork,
    ObservedRun,
    observed_run,
    one_hot_inputs,
)

if TYPE_CHECKING:
    from mpc_rr.adversary._recovery import RecoveryResult

__all__ = ["CoalitionPoint", "CoalitionReport", "all_message_types", "coalition_report", "eavesdrop_report", "offline_report"]


def all_message_types() -> tuple[type[Message], ...]:
    """Every message class of every registered protocol (an offline observer's codec)."""
    from mpc_rr.core import protocols
    from mpc_rr.core._views import message_types

    return message_types(*(spec.message_types() for spec in protocols()))


def offline_report(
    path: Path, protocol: str | None, rng: np.random.Generator, *, confidence: float = 0.95
) -> dict[str, Any]:
    """What an eavesdropper learns from a saved transcript alone: who took part and when, the
    size census, and -- where payloads are readable and the adversary registered an ``offline``
    decoder and a ``recover`` attack for the protocol -- input recovery, scored when the file's metadata holds the input recipe."""
    from mpc_rr.adversary._eavesdrop import participation, size_census
    from mpc_rr.core import DecodeError
    from mpc_rr.core._views import observe

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
    if view.plaintext and spec is not None and attacks_for(spec.name).has("offline") and attacks_for(spec.name).has("recover"):
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
    from mpc_rr.adversary import recover
    from mpc_rr.adversary._coalitions import score

    senders = sorted({s.src for s in view if s.src != 0})
    n = int(meta.get("parties", len(senders)))
    offline = attacks_for(spec.name).offline
    assert offline is not None  # offline_report checked it
    public = offline(view, n)
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


@dataclass(frozen=True)
class CoalitionPoint:
    """One coalition size of the sweep: success (with its interval), baseline and recovery rate."""

    size: int
    success: float
    ci: tuple[float, float]
    baseline: float
    recovery_rate: float

    def to_json(self) -> dict[str, Any]:
        return {"size": self.size, "success": self.success, "ci": list(self.ci), "baseline": self.baseline,
                "recovery_rate": self.recovery_rate}  # fmt: skip


@dataclass(frozen=True)
class CoalitionReport:
    """Coalitions against a sum protocol, typed: ``head`` the pooled result at the coalition size
    asked for (:class:`~mpc_rr.adversary.RecoveryResult`), the declared bound (``threshold`` and
    its ``threshold_rule``), how the coalition was chosen, the public parameters of the run
    (``params``), what an adaptive adversary knew (``adversary``: protocols with public draws) and
    the sweep over sizes (``curve``, ``None`` without it).  :meth:`to_json` is the document
    ``mpc-rr attack coalition --json`` prints."""

    head: RecoveryResult
    parties: int
    cells: int
    threshold: int
    threshold_rule: str
    coalition_choice: str
    server_colludes: bool
    repeats: int
    params: Mapping[str, Any]
    adversary: Mapping[str, Any] | None = None
    curve: tuple[CoalitionPoint, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = self.head.to_dict() | {
            "parties": self.parties, "cells": self.cells, "threshold": self.threshold,
            "threshold_rule": self.threshold_rule, "coalition_choice": self.coalition_choice,
            "server_colludes": self.server_colludes, "repeats": self.repeats, "params": self.params,
        }  # fmt: skip
        if self.adversary is not None:
            out |= self.adversary
        if self.curve is not None:
            out["curve"] = [c.to_json() for c in self.curve]
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
    variant: str | None = None,
) -> CoalitionReport:
    """Coalitions against ``protocol`` (its registered ``coalition`` model): ``repeats`` runs pooled.

    ``variant``: a broken variant of the protocol (a name of its ``plants`` hook, e.g.
    SecAgg+'s ``fixed-draw``: the graph from the run label), else the protocol itself.
    The coalition is chosen before the run with what is public then (the
    ``adversary_knew`` of the JSON).

    Each run: one-hot inputs over ``cells`` (seeds ``seed``, ``seed + 1``, ...),
    secrets from the OS CSPRNG; coalitions of ``size`` (and, with ``curve``,
    of every size worth trying) pool their views and role states.  Returns
    the typed report (its ``to_json()``: the JSON document of ``mpc-rr attack
    coalition``): the result at ``size``, the declared bound, the curve.
    """
    from mpc_rr.adversary import check_confidence
    from mpc_rr.adversary._coalitions import coalition_model, coalition_sweep, pool
    from mpc_rr.adversary._recovery import member_state
    from mpc_rr.core._views import observe

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
                           options=options, planted=variant)  # fmt: skip
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
    from mpc_rr.secure_sum import sum_protocol

    adaptive = sum_protocol(protocol).public_draws  # whom the adaptive adversary chose, what it knew before the draw
    return CoalitionReport(
        head=head, parties=n, cells=cells, threshold=model.threshold, threshold_rule=model.rule,
        coalition_choice="each target's graph neighbours first" if model.neighbours else "the C lowest ids",
        server_colludes=model.server_colludes, repeats=repeats,
        params=obs.sum_public.as_json(),  # what the run declared (SecAgg+: degree, threshold, bounds)
        adversary=_secagg_adversary(obs.sum_public.config, size, variant) if adaptive else None,
        curve=tuple(CoalitionPoint(c, r.success, (r.ci[0], r.ci[1]), r.baseline, r.recovery_rate)
                    for c, r in zip(grid, results, strict=True)) if curve else None,
    )  # fmt: skip


def _secagg_adversary(cfg: Any, size: int, variant: str | None) -> dict[str, Any]:
    """What the adaptive adversary of ``attack coalition`` knew and could do (SecAgg+)."""
    from mpc_rr.adversary._coalitions import draw_exposure

    fixed = variant == "fixed-draw"
    p = draw_exposure(cfg.n, cfg.degree, cfg.threshold, size)
    return {
        "variant": variant or "protocol",
        "draw": ("fixed: the graph and committee from the run label's base alone (broken variant)" if fixed else
                 "joint: seed = H(digest of the commitments, the revealers' reveals: every party up to "
                 "about 400, then the few dozen the digest selects); commitments signed in the keys "
                 "step, fixed before any reveal; a revealer's missing reveal aborts naming it"),
        "adversary_knew": [
            "the roster (every party's id and verification key)",
            "the run label, its nonce and the protocol's parameters (n, k, t, committee size): the "
            "server chooses the nonce and may grind it",
            "its colluders' draw contributions (chosen before any honest reveal)",
            "every reveal before the parties see them (it relays them): it may abort and rerun, "
            "one fresh draw per run",
        ],
        "colluders_chosen": "before the draw, for each target: the neighbours of the graph the label "
                            "determines, then the other parties"
                            + (" (the run's graph: the label fixes it)" if fixed else
                               " (a guess: the run's graph is drawn after)"),
        "exposure_per_draw": None if fixed else p,
        "exposure_note": (None if fixed else
                          f"a fresh draw gives one target >= t = {cfg.threshold} of its k = {cfg.degree} "
                          f"neighbours among {size} fixed colluders with probability {p:.3g}; R aborted "
                          f"and rerun draws: at most R x that"),
    }


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
    from mpc_rr.adversary import bayes_inference, recover, size_leakage, timing_leakage
    from mpc_rr.adversary._coalitions import score
    from mpc_rr.adversary._eavesdrop import participation, size_census
    from mpc_rr.adversary._inference import pipeline_observations, pool_inference, rrba_observations
    from mpc_rr.core._views import observe

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
        elif attacks_for(run.protocol).has("recover"):
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
