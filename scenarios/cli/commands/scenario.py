"""``mpc-rr scenario``: run a declared experiment into a results store, check one, list the kinds.

Examples::

    mpc-rr scenario run scenarios/experiments/examples/dropout_secagg.toml --store results.db
    mpc-rr scenario check my_study.toml --store results.db     # decode, validate, count what is missing
    mpc-rr scenario kinds pipeline                             # parameters and metrics of a kind

A killed sweep (Ctrl-C, ``kill -9``, a crash) resumes where it stopped: run
it again and only the missing runs execute (docs/scenarios.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from scenarios.cli.options import HelpFormatter, add_json, int_at_least, on_interrupt

DEFAULT_STORE = Path("results.db")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "scenario",
        help="run a declared experiment (TOML: data, protocol, grid, repeats, seed) into a results store",
        description=__doc__,
        formatter_class=HelpFormatter,
    )
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    run = verbs.add_parser(
        "run", formatter_class=HelpFormatter,
        help="execute the runs missing from the store (all of them the first time)",
        description="Decode FILE.toml, load its data, check every grid point, then execute every run "
        "whose key is not in the store yet, storing each as it finishes. One progress bar for the sweep.",
    )  # fmt: skip
    run.add_argument("file", type=Path, metavar="FILE.toml", help="the scenario file")
    run.add_argument("--store", type=Path, default=DEFAULT_STORE,
                     help=f"SQLite results store, created if missing (default: {DEFAULT_STORE})")  # fmt: skip
    run.add_argument("--jobs", type=int_at_least(1), default=1,
                     help="worker processes (default: 1; results do not depend on it, wall times do)")  # fmt: skip
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    add_json(run, "print the session summary as JSON")
    run.set_defaults(func=_run)

    chk = verbs.add_parser(
        "check", formatter_class=HelpFormatter,
        help="decode and validate FILE.toml; count its runs (and, with --store, the missing ones)",
    )  # fmt: skip
    chk.add_argument("file", type=Path, metavar="FILE.toml", help="the scenario file")
    chk.add_argument("--store", type=Path, default=None, help="also count the runs stored there")
    add_json(chk, "print JSON")
    chk.set_defaults(func=_check)

    kinds = verbs.add_parser(
        "kinds",
        formatter_class=HelpFormatter,
        help="the protocol kinds: parameters (type, default) and metrics",
    )
    kinds.add_argument("kind", nargs="?", default=None, help="one kind (default: all)")
    add_json(kinds, "print JSON")
    kinds.set_defaults(func=_kinds)


def _run(args: argparse.Namespace) -> int:
    from scenarios.experiments.spec import load_scenario
    from scenarios.experiments.sweep import check_size, sweep
    from scenarios.results.store import Store, StoreFull

    scenario = load_scenario(args.file)
    check_size(scenario)  # before the store is created
    with Store(args.store) as store:
        kept: list[int] = []
        on_interrupt(lambda: f"{scenario.name}: {kept[0] if kept else 0:,} runs are in {args.store} "
                     "(every finished run, none half-written); the same command runs only the "
                     "missing ones")  # fmt: skip
        try:
            res = sweep(scenario, store, jobs=args.jobs, progress=not args.quiet and not args.json,
                        argv=sys.argv)  # fmt: skip
        except StoreFull as exc:  # every run stored so far is whole; the rerun resumes
            print(f"mpc-rr scenario: {exc}. {store.count():,} runs are stored in {args.store} (each "
                  "complete); free some space and run the same command again to execute only the "
                  "missing ones.", file=sys.stderr)  # fmt: skip
            return 1
        except BaseException:
            kept.append(store.count())
            raise
    doc = {
        "scenario": res.scenario, "store": str(args.store), "planned": res.planned,
        "stored_before": res.stored_before, "executed": res.executed, "failed": res.failed,
        "complete": res.complete, "seconds": res.seconds, "session": res.session,
        "failures": list(res.failures),
    }  # fmt: skip
    if args.json:
        print(json.dumps(doc, indent=1))
    else:
        print(
            f"{res.scenario}: {res.planned:,} runs planned: {res.stored_before:,} already stored, "
            f"{res.executed:,} executed now, {res.failed:,} failed ({res.seconds:.1f} s); store {args.store}"
        )
        if res.complete:
            print(f"  next: mpc-rr results show {res.scenario} --store {args.store}; "
                  f"mpc-rr report {args.store} --out report.html")  # fmt: skip
    if res.failed:
        print(f"mpc-rr scenario: {res.failed} run(s) failed (a bug or an environment error); the first: "
              f"{res.failures[0]}. Tracebacks: mpc-rr results show {res.scenario} --failures "
              f"--store {args.store}. They run again next time.", file=sys.stderr)  # fmt: skip
        return 3
    return 0


def _check(args: argparse.Namespace) -> int:
    from scenarios.experiments.spec import load_scenario
    from scenarios.experiments.sweep import MAX_RUNS, plan, prepare
    from scenarios.results.store import Store

    scenario = load_scenario(args.file)
    store = Store(args.store, create=False, read_only=True) if args.store is not None else None
    present: set[str] = set()
    try:
        if store is None:  # counted, not planned: a check of a million runs is instant
            source = prepare(scenario)
        else:  # each run's key is matched against the store
            source, _, present = plan(scenario, store)
    finally:
        if store is not None:
            store.close()
    points = scenario.points()
    n_runs = scenario.runs_planned
    doc = {
        "scenario": scenario.name, "kind": scenario.kind.name,
        "data": None if source is None else {"name": source.name, "description": source.description,
                                              "records": source.records, "identity": source.identity},
        "grid": scenario.grid, "points": len(points), "repeats": scenario.meta.repeats,
        "runs": n_runs, "stored": len(present) if store is not None else None,
        "missing": n_runs - len(present) if store is not None else None,
        "metrics": list(scenario.metrics), "seed": scenario.meta.seed,
    }  # fmt: skip
    if args.json:
        print(json.dumps(doc, indent=1))
        return 0
    print(f"{scenario.name} ({scenario.kind.name}): valid")
    if source is not None:
        n = "sampled per run" if source.records is None else f"{source.records:,} records"
        print(f"  data: {source.name}, {source.description}, {n}")
    for k, v in scenario.grid.items():
        print(f"  grid {k}: {v}")
    print(
        f"  {len(points):,} points x {scenario.meta.repeats:,} repeats = {n_runs:,} runs, seed {scenario.meta.seed}"
    )
    if n_runs > MAX_RUNS:
        print(f"  more than the {MAX_RUNS:,} runs `scenario run` plans per scenario: lower repeats "
              "or split the grid")  # fmt: skip
    if store is not None:
        print(f"  {args.store}: {len(present):,} stored, {n_runs - len(present):,} missing")
    return 0


def _kinds(args: argparse.Namespace) -> int:
    import msgspec

    from scenarios.experiments.kinds import get, kinds

    chosen = [get(args.kind)] if args.kind is not None else list(kinds().values())
    out: list[dict[str, Any]] = []
    for k in chosen:
        params = []
        for f in msgspec.structs.fields(k.params):
            default = None if f.default is msgspec.NODEFAULT else f.default
            if f.default_factory is not msgspec.NODEFAULT:
                default = f.default_factory()
            params.append({"name": f.name, "type": _type_name(f.type), "default": default})
        out.append({"kind": k.name, "summary": k.summary, "data": k.data, "parameters": params,
                    "metrics": list(k.metrics), "default_metrics": list(k.default_metrics)})  # fmt: skip
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    for d in out:
        print(f"{d['kind']}: {d['summary']}" + ("" if d["data"] == "table" else " (no [data])"))
        for prm in d["parameters"]:
            print(f"    {prm['name']:<20} {prm['type']:<46} default {json.dumps(prm['default'])}")
        print(f"  metrics: {', '.join(d['metrics'])}\n")
    return 0


def _type_name(t: object) -> str:
    import msgspec

    info = msgspec.inspect.type_info(t)
    return _info_name(info)


def _info_name(info: object) -> str:
    import msgspec.inspect as mi

    if isinstance(info, mi.UnionType):
        return " | ".join(_info_name(t) for t in info.types)
    if isinstance(info, mi.LiteralType):
        return "|".join(map(str, info.values))
    if isinstance(info, mi.ListType):
        return f"list[{_info_name(info.item_type)}]"
    names: dict[type, str] = {
        mi.IntType: "int",
        mi.FloatType: "float",
        mi.BoolType: "bool",
        mi.StrType: "str",
        mi.NoneType: "none",
    }
    base = names.get(type(info), type(info).__name__)
    bounds = [f"{op}{getattr(info, a)}" for a, op in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<"))
              if getattr(info, a, None) is not None]  # fmt: skip
    return str(base) + (f" ({', '.join(bounds)})" if bounds else "")
