"""Scenarios: an experiment declared in TOML, decoded into typed structs, expanded into runs.

A scenario file has four tables::

    [scenario]
    name = "dropout-secagg"          # letters, digits, '.', '_', '-'; names the runs in a store
    description = "..."
    seed = 7                         # one seed for the whole study (fans out, see below)
    repeats = 5                      # runs per grid point
    metrics = ["completed", "bytes"] # shown in tables and exports (default: the kind's)

    [data]                           # kinds that need records (pipeline, rrba, linkability)
    source = "adult"                 # adult | survey|alarm|child|... (sampled) | path/to/file.csv
    schema = "people.toml"           # CSV: a schema file, or: infer = true, columns = [...], ordinal = [...]

    [protocol]
    kind = "secure-sum"              # a registered kind (scenarios.experiments.kinds)
    protocol = "secagg"              # the kind's fixed parameters
    parties = 100

    [grid]                           # swept parameters: every combination, in the order written
    dropout = [0.0, 0.1, 0.2, 0.3, 0.4]
    drop_step = ["shares", "masked"]

Decoding is two passes of msgspec: the kind first, then the whole document
against a struct built for that kind (unknown keys forbidden, types and
ranges checked).  Every error names the file and the key (``grid.p[2]``).
Paths in ``[data]`` are relative to the scenario file.

Runs and seeds: a grid point ``x`` and a repeat ``r`` make one run.  Its
seed is drawn from ``SeedSequence(seed, spawn_key=(r,))`` -- child ``r`` of
the scenario seed -- so repeat ``r`` of every grid point uses the same
randomness (common random numbers: differences between points are not
differences in noise), and adding points or repeats never changes the
seeds of runs already made.  A run's key (:func:`run_key`) is a SHA-256 of
the scenario's name, kind, seed and data (content digest), the point's full
parameters, the repeat and the code version; changing the description,
metrics, or the grid's other points leaves it unchanged.
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import msgspec
import numpy as np
from msgspec import Meta

from mpc_rr.core import UsageError
from scenarios.experiments.kinds import Kind, get
from scenarios.workloads.data_source import DataSpec

__all__ = ["PlannedRun", "Scenario", "load_scenario", "parse_scenario", "run_key", "run_seed"]

Name = Annotated[str, Meta(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")]


class ScenarioTable(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    name: Name
    description: str = ""
    seed: Annotated[int, Meta(ge=0, le=2**63 - 1)] = 0
    repeats: Annotated[int, Meta(ge=1, le=1_000_000)] = 1
    metrics: list[str] = []


class DataTable(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    source: Annotated[str, Meta(min_length=1)] = "adult"
    schema: str | None = None
    infer: bool = False
    columns: Annotated[list[str], Meta(min_length=1)] | None = None
    ordinal: list[str] = []
    max_categories: Annotated[int, Meta(ge=1)] | None = None
    name: Annotated[str, Meta(min_length=1)] | None = None
    delimiter: Annotated[str, Meta(min_length=1, max_length=1)] = ","
    encoding: str = "utf-8-sig"
    header: bool | list[str] = True
    skip_lines: Annotated[int, Meta(ge=0)] = 0


_DATA_KEYS = {
    "source": "data.source", "schema": "data.schema", "infer": "data.infer", "columns": "data.columns",
    "ordinal": "data.ordinal", "max_categories": "data.max_categories", "name": "data.name",
}  # fmt: skip


class _KindOnly(msgspec.Struct):
    kind: str


class _Peek(msgspec.Struct):
    protocol: _KindOnly


def _doc_type(kind: Kind) -> type[msgspec.Struct]:
    fields = msgspec.structs.fields(kind.params)
    grid = msgspec.defstruct(
        f"Grid_{kind.name}",
        [(f.name, Annotated[list[f.type], Meta(min_length=1)] | None, None) for f in fields],  # type: ignore[name-defined]
        forbid_unknown_fields=True,
        kw_only=True,
    )
    return msgspec.defstruct(
        f"Scenario_{kind.name}",
        [
            ("scenario", ScenarioTable),
            ("protocol", kind.params),
            ("data", DataTable | None, None),
            ("grid", grid, msgspec.field(default_factory=grid)),
        ],
        forbid_unknown_fields=True,
        kw_only=True,
    )


def _key(path: str) -> str:
    """``$.grid.p[2]`` -> ``grid.p[2]``."""
    return path[2:] if path.startswith("$.") else path.lstrip("$") or "(top level)"


def _choices(kind: Kind | None, key: str) -> str:
    """`` (choose from ...)`` for a Literal field named by ``key``."""
    if kind is None:
        return ""
    m = re.match(r"(?:protocol|grid)\.([A-Za-z_]+)", key)
    if not m:
        return ""
    for f in msgspec.structs.fields(kind.params):
        if f.name == m.group(1):
            info = msgspec.inspect.type_info(f.type)
            for t in getattr(info, "types", (info,)):
                if isinstance(t, msgspec.inspect.LiteralType):
                    return f" (choose from: {', '.join(map(str, t.values))})"
    return ""


def _validation_error(source: str, exc: msgspec.ValidationError, kind: Kind | None) -> UsageError:
    text = str(exc)
    m = re.match(r"(.*) - at `(.*)`$", text)
    what, key = (m.group(1), _key(m.group(2))) if m else (text, "(top level)")
    what = what.replace("Object contains unknown field", "unknown key")
    if what.startswith("unknown key"):
        field = re.search(r"`(.*)`", what)
        name = field.group(1) if field else "?"
        where = f"{key}.{name}" if key != "(top level)" else name
        known = ""
        if kind is not None and key in ("protocol", "grid"):
            names = [f.name for f in msgspec.structs.fields(kind.params)]
            near = difflib.get_close_matches(name, names, n=3)
            known = (
                f"; did you mean {near}?" if near else ""
            ) + f" (parameters of {kind.name}: {', '.join(names)})"
        elif key == "(top level)":
            known = " (tables: scenario, data, protocol, grid)"
        return UsageError(f"{source}: {where}: unknown key{known}")
    if key == "(top level)":
        return UsageError(f"{source}: {what}")
    return UsageError(f"{source}: {key}: {what}{_choices(kind, key)}")


@dataclass(frozen=True)
class PlannedRun:
    """One run of a scenario: its key, grid point, full parameters, repeat and seed."""

    key: str
    point: dict[str, Any]
    params: dict[str, Any]
    repeat: int
    seed: int


def run_seed(seed: int, repeat: int) -> int:
    """The seed of repeat ``repeat``: child ``repeat`` of ``SeedSequence(seed)``, as a 63-bit int."""
    state = np.random.SeedSequence(seed, spawn_key=(repeat,)).generate_state(2, np.uint32)
    return int((int(state[0]) << 31) | (int(state[1]) >> 1))


def canonical(obj: Any) -> str:
    """JSON with sorted keys and no spaces (what keys are hashed from)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def run_key(identity: dict[str, Any], params: dict[str, Any], repeat: int, code: str) -> str:
    """SHA-256 (hex) of the scenario identity, the run's parameters, the repeat and the code."""
    doc = {"scenario": identity, "params": params, "repeat": repeat, "code": code}
    return hashlib.sha256(canonical(doc).encode()).hexdigest()


@dataclass(frozen=True)
class Scenario:
    """A decoded scenario (see the module docstring)."""

    source: str  # where it was read from (for messages)
    text: str
    meta: ScenarioTable
    kind: Kind
    protocol: msgspec.Struct  # fixed parameters, defaults filled in
    grid: dict[str, list[Any]]  # swept parameters in the order written
    data: DataTable | None
    base: Path  # folder that relative paths in [data] start from

    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def metrics(self) -> tuple[str, ...]:
        return tuple(self.meta.metrics) or self.kind.default_metrics or self.kind.metrics

    def points(self) -> list[dict[str, Any]]:
        """Every combination of the grid's values (one empty point without a grid)."""
        keys = list(self.grid)
        return [
            dict(zip(keys, combo, strict=True)) for combo in itertools.product(*self.grid.values())
        ]

    def params(self, point: dict[str, Any]) -> msgspec.Struct:
        return msgspec.structs.replace(self.protocol, **point)

    @property
    def runs_planned(self) -> int:
        return len(self.points()) * self.meta.repeats

    def data_spec(self) -> DataSpec | None:
        """The ``[data]`` table as a :class:`DataSpec` (paths resolved), or ``None``."""
        if self.kind.data == "none":
            return None
        from mpc_rr.data import NETWORKS
        from scenarios.workloads.data_source import EMBEDDED

        d = self.data or DataTable()
        src = d.source
        if src not in EMBEDDED and src not in NETWORKS:  # a file, relative to the scenario's folder
            src = str(self.base / src)
        header: bool | tuple[str, ...] = d.header if isinstance(d.header, bool) else tuple(d.header)
        return DataSpec(
            source=src, schema=None if d.schema is None else self.base / d.schema, infer=d.infer,
            columns=None if d.columns is None else tuple(d.columns), ordinal=tuple(d.ordinal),
            max_categories=d.max_categories, name=d.name, delimiter=d.delimiter, encoding=d.encoding,
            header=header, skip_lines=d.skip_lines, flag={k: v for k, v in _DATA_KEYS.items()},
        )  # fmt: skip

    def identity(self, data_identity: str | None) -> dict[str, Any]:
        """What makes runs of this scenario the same runs (see :func:`run_key`)."""
        return {
            "name": self.name,
            "kind": self.kind.name,
            "seed": self.meta.seed,
            "data": data_identity,
        }

    def plan(self, data_identity: str | None, code: str) -> list[PlannedRun]:
        """Every run, point-major (all repeats of the first point first)."""
        ident = self.identity(data_identity)
        out = []
        for point in self.points():
            params = msgspec.to_builtins(self.params(point))
            for r in range(self.meta.repeats):
                out.append(
                    PlannedRun(
                        run_key(ident, params, r, code),
                        point,
                        params,
                        r,
                        run_seed(self.meta.seed, r),
                    )
                )
        return out


def parse_scenario(
    text: str | bytes, *, source: str = "scenario", base: Path | None = None
) -> Scenario:
    """Decode a scenario document; every error names ``source`` and the key."""
    raw = text.encode() if isinstance(text, str) else text
    try:
        doc_any: Any = msgspec.toml.decode(raw)
    except msgspec.DecodeError as exc:
        raise UsageError(f"{source}: not valid TOML: {exc}") from None
    if not isinstance(doc_any, dict):
        raise UsageError(f"{source}: expected TOML tables")
    for table in ("scenario", "protocol"):
        if table not in doc_any:
            raise UsageError(f"{source}: missing the [{table}] table")
    try:
        kind_name = msgspec.convert(doc_any, _Peek).protocol.kind
    except msgspec.ValidationError as exc:
        raise _validation_error(source, exc, None) from None
    try:
        kind = get(kind_name)
    except UsageError as exc:
        raise UsageError(f"{source}: {exc}") from None
    try:
        doc: Any = msgspec.convert(doc_any, _doc_type(kind))
    except msgspec.ValidationError as exc:
        raise _validation_error(source, exc, kind) from None
    raw_grid: dict[str, Any] = doc_any.get("grid", {}) or {}
    raw_protocol: dict[str, Any] = doc_any["protocol"]
    both = [k for k in raw_grid if k in raw_protocol]
    if both:
        raise UsageError(
            f"{source}: grid.{both[0]}: also set in [protocol]; give each parameter in one place"
        )
    grid = {k: list(getattr(doc.grid, k)) for k in raw_grid}
    for k, allowed in kind.choices.items():  # fields whose values are a live list (the registry)
        names = tuple(allowed())
        found = [(f"grid.{k}[{i}]", v) for i, v in enumerate(grid.get(k, []))]
        if k in raw_protocol:
            found.append((f"protocol.{k}", getattr(doc.protocol, k)))
        for where, v in found:
            if v not in names:
                raise UsageError(
                    f"{source}: {where}: Invalid enum value {v!r} (choose from: {', '.join(names)})"
                )
    for k, values in grid.items():
        seen: list[Any] = []
        for i, v in enumerate(values):
            if v in seen:
                raise UsageError(f"{source}: grid.{k}[{i}]: repeated value {v!r}")
            seen.append(v)
    meta: ScenarioTable = doc.scenario
    for i, m in enumerate(meta.metrics):
        if m not in kind.metrics:
            near = difflib.get_close_matches(m, kind.metrics, n=3)
            hint = f"did you mean {near}? " if near else ""
            raise UsageError(
                f"{source}: scenario.metrics[{i}]: unknown metric {m!r} for kind {kind.name}; "
                f"{hint}(known: {', '.join(kind.metrics)})"
            )
    if kind.data == "none" and doc.data is not None:
        raise UsageError(
            f"{source}: data: the {kind.name} kind draws its own inputs; remove the [data] table"
        )
    text_str = raw.decode("utf-8", errors="replace")
    return Scenario(source, text_str, meta, kind, doc.protocol, grid, doc.data, base or Path.cwd())


def load_scenario(path: str | Path) -> Scenario:
    """Read and decode a scenario file (relative data paths start from its folder)."""
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{p}: is a directory, not a scenario file")
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise UsageError(f"{p}: cannot read the scenario ({exc.strerror})") from None
    return parse_scenario(raw, source=str(p), base=p.resolve().parent)


def describe_point(point: dict[str, Any]) -> str:
    """``p=0.5, parties=100`` (``(single point)`` without a grid)."""
    return ", ".join(f"{k}={v}" for k, v in point.items()) or "(single point)"


def check_points(
    scenario: Scenario, source: Any, points: Sequence[dict[str, Any]] | None = None
) -> None:
    """Run the kind's checks on every grid point before any run; errors name the point."""
    if scenario.kind.check is None:
        return
    for point in points if points is not None else scenario.points():
        try:
            scenario.kind.check(scenario.params(point), source)
        except UsageError as exc:
            where = f"grid point {describe_point(point)}" if point else "protocol"
            raise UsageError(f"{scenario.source}: {where}: {exc}") from None
