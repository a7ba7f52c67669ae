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
inputs (one cell per party, drawn from the seed), and every protocol with
an observed run registered (:func:`register_observed_run`: ``pipeline`` over
Adult records, ``rrba`` over Survey, Adult, ... records).  Broken-on-purpose
variants (registered by the adversary module, :mod:`mpc_rr.adversary._broken`) are built with
``planted=...`` -- tests and benchmarks only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from mpc_rr.adversary import attacks_for
from mpc_rr.adversary._choices import planted_variants
from mpc_rr.core import (
    COORDINATOR,
    HarnessRunner,
    Message,
    Role,
    Runner,
    RunResult,
    Transcript,
    UsageError,
)
from mpc_rr.workflows._observed_runs import eavesdrop_protocols, observed_run_of

if TYPE_CHECKING:
    from mpc_rr.data import Dataset

__all__ = [
    "HarnessNetwork",
    "ObservedNetwork",
    "ObservedRun",
    "observed_run",
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
    from mpc_rr.secure_sum import SecureSumPlan, sum_options, sum_protocol

    spec = sum_protocol(protocol)
    parsed = spec.one_hot_options(sum_options(protocol, dict(options)), (x.shape[1],))  # one-hot inputs
    plan = SecureSumPlan(protocol, x, run=run, entropy=entropy, options=parsed)
    public = plan.public()
    roles = plan.build()
    if planted is not None:
        plants = attacks_for(protocol).planted()
        if planted not in plants:
            raise UsageError(f"{protocol} has no planted variant {planted!r} (its variants: "
                             f"{', '.join(plants) or 'none'})")  # fmt: skip
        roles = plants[planted](roles, x, public)
    return roles, public


def _legacy_public(protocol: str, public: Any) -> dict[str, Any]:
    """The named parameters the attacks of the adversary module take (``config``; ``n``, ``modulus``)."""
    if hasattr(public, "config"):
        return {"config": public.config}
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
    data: str | Dataset | None = None,
    block: int = 250,
    secure_tally: bool = False,
) -> ObservedRun:
    """Run ``protocol`` with ``parties`` data parties on ``network``, an observer watching.

    ``network``: default the harness (its transcript: plaintext, what a relay
    sees); the command line passes the memory transport (plaintext payloads on
    a tap) or TCP + mutual TLS (ciphertext on the tap).  Sum protocols: one-hot
    inputs over ``cells`` (:func:`one_hot_inputs`; ``data`` is refused).  Pipeline: ``parties``
    records of ``data`` (default Adult; or a :class:`~mpc_rr.data.Dataset`) drawn with ``seed``,
    keep probability ``p``, release ``mechanism``, ``dependence`` source.  RRBA: ``parties``
    clients drawn from ``data`` (a name for :func:`mpc_rr.data.load_records`, default
    ``survey``, or a :class:`~mpc_rr.data.Dataset` shuffled the same way), ``block`` clients per
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
        run_of = observed_run_of(protocol)
        return run_of(  # type: ignore[no-any-return]
            network=net, meta=meta, parties=parties, seed=seed, planted=planted,
            step_timeout=step_timeout, entropy=entropy, p=p, mechanism=mechanism,
            dependence=dependence, data=data, block=block, secure_tally=secure_tally,
        )  # fmt: skip
    if data is not None:
        raise UsageError(
            f"data: {protocol} runs on one-hot inputs over its cells, not on records; data applies "
            "to the pipeline and rrba"
        )
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
    dependence: str = "rr", data: str | Dataset | None = None, **_: Any,
) -> ObservedRun:
    """The pipeline's observed run (its registered observed run): records of ``data``
    (``None`` or ``"adult"``: Adult; or a :class:`~mpc_rr.data.Dataset`) drawn with ``seed``,
    keep probability ``p``, release ``mechanism``, ``dependence`` source."""
    from mpc_rr.data import Dataset, load_adult
    from mpc_rr.pipeline import PipelineConfig, pipeline_roles
    from mpc_rr.pipeline import _signing as signing

    if planted not in (None, "raw-record"):
        raise UsageError(f"pipeline has no planted variant {planted!r}")
    if planted == "raw-record" and dependence != "rr":
        raise UsageError("the raw-record plant needs dependence 'rr'")
    if isinstance(data, Dataset):
        records = data
    elif data in (None, "adult"):
        records = load_adult()
    else:
        raise UsageError(f"data: the pipeline's observed run takes adult or a Dataset, got {data!r}")
    if parties > records.n:
        raise UsageError(f"parties must be at most the {records.n} records of {records.name}, got {parties}")
    data = records
    data = data.subsample(parties, np.random.default_rng(np.random.SeedSequence([seed, 0xEA])))
    key = signing.new_signing_key()
    cfg = PipelineConfig(
        data.schema, n=parties, p=p, dependence=dependence, mechanism=mechanism,
        coordinator_key=signing.public_bytes(key), run=f"pipeline-{seed}",
    )  # fmt: skip
    roles = pipeline_roles(cfg, data.codes, seed, key, sum_entropy=entropy if dependence != "rr" else None)
    if planted == "raw-record":
        from mpc_rr.adversary._broken import RawRecordParty
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
    step_timeout: float, entropy: Any, p: float = 0.5, data: str | Dataset | None = None,
    block: int = 250, secure_tally: bool = False, **_: Any,
) -> ObservedRun:
    """RRBA's observed run (its registered observed run): ``parties`` clients drawn from
    ``data``, ``block`` clients per block, answers in the clear or ``secure_tally``."""
    from mpc_rr.data import Dataset
    from mpc_rr.data._records import load_records
    from mpc_rr.rrba import rrba_roles
    from mpc_rr.rrba._protocol import client_step_timeouts, config_for

    rng = np.random.default_rng(np.random.SeedSequence([seed, 0xBA]))
    if isinstance(data, Dataset):  # shuffled and cut as load_records does a named table
        if parties > data.n:
            raise UsageError(f"parties must be at most the {data.n} records of {data.name}, got {parties}")
        ds = Dataset(data.schema, data.codes[rng.permutation(data.n)[:parties]], data.name)
    else:
        ds, _where = load_records("survey" if data is None else data, parties, rng)
    cfg = config_for(ds, block, p, run=f"rrba-{seed}", secure_tally=secure_tally)
    roles = rrba_roles(cfg, ds.codes, seed, entropy=entropy, client_patience=1)
    # each client's whole wait as one step timeout (as mpc-rr rrba does)
    result = network.runner(client_step_timeouts(cfg, step_timeout))(roles)
    observed = network.observed(result)
    observed.meta.update(meta, p=p, data=ds.name if isinstance(data, Dataset) else data or "survey",
                         block=block, secure_tally=secure_tally)  # fmt: skip
    return ObservedRun(
        "rrba", network.name, parties, observed, roles, result, tuple(roles[COORDINATOR].message_types),
        {"rrba": cfg}, records=np.asarray(ds.codes), names=tuple(ds.schema.names),
    )  # fmt: skip


