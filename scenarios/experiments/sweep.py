"""Run a scenario's missing runs into a results store, with one progress bar for the sweep.

:func:`sweep` loads the data once, checks every grid point, plans every run
(:meth:`scenarios.experiments.spec.Scenario.plan`), asks the store which keys it already
holds, and executes only the others -- in this process, or in ``jobs``
worker processes (``spawn``ed; each loads the data once).  Each finished run
is stored at once, in its own transaction, by this (the only writing)
process; a run that raises is recorded in ``failures`` and retried by the
next session; ``Ctrl-C`` or ``kill -9`` lose at most the runs in flight.

Progress: one bar for the sweep on a terminal; without one (a log file), one
line per finished run.  Results do not depend on ``jobs``: every run draws
from its own seed.
Wall times do (runs share the machine): compare costs measured with the same
``jobs``, which each session records.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import hashlib
import multiprocessing
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from mpc_rr.core import UsageError
from scenarios.experiments.kinds import Outcome, RunContext, get
from scenarios.experiments.spec import PlannedRun, Scenario, check_points, describe_point
from scenarios.results.provenance import code_version, machine, versions
from scenarios.results.store import Store
from scenarios.workloads.data_source import DataSpec, Source, open_source

__all__ = ["MAX_RUNS", "SweepResult", "check_size", "execute_run", "plan", "prepare", "sweep"]


@dataclass(frozen=True)
class SweepResult:
    """What a session did: runs planned, already stored, executed now, failed, and how long."""

    scenario: str
    planned: int
    stored_before: int
    executed: int
    failed: int
    seconds: float
    session: int
    failures: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return self.stored_before + self.executed == self.planned


@functools.cache
def _source(spec: DataSpec | None) -> Source | None:
    return None if spec is None else open_source(spec)


def execute_run(
    kind: str, params: dict[str, Any], seed: int, repeat: int, spec: DataSpec | None
) -> tuple[Outcome, float]:
    """One run (picklable arguments: also the worker processes' entry point)."""
    k = get(kind)
    prm = msgspec.convert(params, k.params)
    t0 = time.perf_counter()
    out = k.run(RunContext(prm, seed, repeat, _source(spec)))
    return out, time.perf_counter() - t0


MAX_RUNS = 1_000_000
"""Most runs one scenario plans (each is keyed and stored one by one; a million runs of the
quickest kind is already days of work): more is refused before any is planned."""


def check_size(scenario: Scenario) -> None:
    """Refuse a scenario of more than :data:`MAX_RUNS` runs (counted: nothing is built)."""
    total = scenario.runs_planned
    if total > MAX_RUNS:
        raise UsageError(
            f"{scenario.source}: {len(scenario.points()):,} grid points x {scenario.meta.repeats:,} "
            f"repeats = {total:,} runs; at most {MAX_RUNS:,} are planned per scenario: lower "
            "repeats or split the grid into several scenarios"
        )


def prepare(scenario: Scenario) -> Source | None:
    """Load the data and check every point (nothing planned: the runs are counted, not built)."""
    spec = scenario.data_spec()
    try:
        source = _source(spec)
    except UsageError as exc:
        raise UsageError(f"{scenario.source}: {exc}") from None
    check_points(scenario, source)
    return source


def plan(
    scenario: Scenario, store: Store | None = None
) -> tuple[Source | None, list[PlannedRun], set[str]]:
    """Load the data, check every point, plan every run; the keys already in ``store``."""
    check_size(scenario)
    source = prepare(scenario)
    runs = scenario.plan(source.identity if source is not None else None, code_version())
    present = store.present(r.key for r in runs) if store is not None else set()
    return source, runs, present


def sweep(
    scenario: Scenario,
    store: Store,
    *,
    jobs: int = 1,
    progress: bool = True,
    argv: Sequence[str] = (),
    on_run: Callable[[PlannedRun, Outcome], None] | None = None,
) -> SweepResult:
    """Execute the runs of ``scenario`` missing from ``store`` (see the module docstring)."""
    if jobs < 1:
        raise UsageError(f"jobs must be >= 1, got {jobs}")
    t0 = time.perf_counter()
    source, runs, present = plan(scenario, store)
    missing = [r for r in runs if r.key not in present]
    spec = scenario.data_spec()
    code = code_version()
    session = store.begin(
        scenario=scenario.name, kind=scenario.kind.name, path=scenario.source, text=scenario.text,
        text_id=hashlib.sha256(scenario.text.encode()).hexdigest(), code_version=code,
        data_identity=source.identity if source else None,
        data_description=source.description if source else None, planned=[r.key for r in runs],
        stored_before=len(runs) - len(missing), jobs=jobs, argv=list(argv), versions=versions(),
        machine=machine(),
    )  # fmt: skip
    from scenarios.cli.options import human_seconds
    from scenarios.cli.progress import progress_bar

    bar = progress_bar(total=len(runs), initial=len(runs) - len(missing), desc=scenario.name, unit="run",
               file=sys.stderr, disable=None if progress else True, mininterval=0.5, dynamic_ncols=True)  # fmt: skip
    lines = progress and not sys.stderr.isatty()
    executed, failures = 0, []
    dataset = source.name if source is not None else None

    def done(run: PlannedRun, result: tuple[Outcome, float] | BaseException) -> None:
        nonlocal executed
        if isinstance(result, BaseException):
            tb = "".join(traceback.format_exception(result))
            store.fail(session=session, key=run.key, scenario=scenario.name, point=run.point,
                       repeat=run.repeat, error=f"{type(result).__name__}: {result}", traceback=tb)  # fmt: skip
            failures.append(
                f"{describe_point(run.point)}, repeat {run.repeat}: {type(result).__name__}: {result}"
            )
            bar.write(
                f"{scenario.name}: run failed ({failures[-1]}); recorded, retried next time",
                file=sys.stderr,
            )
            return
        out, wall = result
        name = str(out.result.get("dataset", dataset)) if dataset is not None else None
        store.put(
            session=session, key=run.key, scenario=scenario.name, kind=scenario.kind.name, point=run.point,
            params=run.params, repeat=run.repeat, seed=run.seed, code_version=code,
            data_identity=source.identity if source else None, dataset=name, status=out.status,
            metrics=out.metrics, result=out.result, wall_s=wall,
        )  # fmt: skip
        executed += 1
        if on_run is not None:
            on_run(run, out)
        bar.set_postfix_str(f"{describe_point(run.point)} #{run.repeat}", refresh=False)
        bar.update(1)
        if lines:  # no terminal (a log file): one line per run instead of a bar
            stored = len(runs) - len(missing) + executed
            left = len(missing) - executed  # at the pace of the runs so far (the bar shows its own)
            eta = "" if not left else f"; about {human_seconds((time.perf_counter() - t_runs) / executed * left)} left"
            print(f"{scenario.name}: [{stored}/{len(runs)}] {describe_point(run.point)}, repeat {run.repeat}: "
                  f"{out.status} ({wall:.2f} s{eta})", file=sys.stderr, flush=True)  # fmt: skip

    t_runs = time.perf_counter()
    try:
        if jobs == 1 or len(missing) <= 1:
            for run in missing:
                try:
                    res: tuple[Outcome, float] | BaseException = execute_run(
                        scenario.kind.name, run.params, run.seed, run.repeat, spec
                    )
                except UsageError:
                    raise
                except Exception as exc:
                    res = exc
                done(run, res)
        else:
            _parallel(scenario, missing, spec, jobs, done)
    finally:
        bar.close()
        store.end(session)  # also when stopped (Ctrl-C): the session is over, its counters say how far it got
    return SweepResult(scenario.name, len(runs), len(runs) - len(missing), executed, len(failures),
                       time.perf_counter() - t0, session, tuple(failures))  # fmt: skip


def _parallel(
    scenario: Scenario, missing: list[PlannedRun], spec: DataSpec | None, jobs: int,
    done: Callable[[PlannedRun, Any], None],
) -> None:  # fmt: skip
    ctx = multiprocessing.get_context("spawn")
    pool = cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_ignore_sigint)
    from parties.launch import sigint_held

    with sigint_held(exec_children=True):  # the workers start (at the first submit) deaf to
        futures = {  # the terminal's Ctrl-C, before their own initializer says so
            pool.submit(execute_run, scenario.kind.name, r.params, r.seed, r.repeat, spec): r
            for r in missing
        }
    try:
        for fut in cf.as_completed(futures):
            run = futures[fut]
            res: tuple[Outcome, float] | BaseException
            try:
                res = fut.result()
            except UsageError:
                raise
            except Exception as exc:
                res = exc
            done(run, res)
    except BaseException:
        _stop(pool)
        raise
    pool.shutdown(wait=True)


def _ignore_sigint() -> None:
    """A worker ignores Ctrl-C (the terminal sends it to the whole group): the parent stops it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop(pool: cf.ProcessPoolExecutor, grace: float = 0.5) -> None:
    """Stop the workers now (runs in flight are lost, as the module docstring says), not when
    their runs end: ``shutdown`` alone waits for them."""
    procs = list((getattr(pool, "_processes", None) or {}).values())  # no public handle on them
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        p.terminate()
    deadline = time.monotonic() + grace
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join(0.2)
