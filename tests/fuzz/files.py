"""Fuzz targets of what the library reads from files: the results store's rows, scenario TOML,
schema TOML, CSV.  Every one refuses bad input with a :class:`~mpc_rr.core.UsageError` (the CLI's
exit 2), nothing else."""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mpc_rr.core import UsageError
from mpc_rr.data import Attribute, Schema, load_csv, load_network, parse_schema, schema_to_toml
from scenarios.experiments.spec import parse_scenario
from scenarios.results.store import Store
from tests.fuzz._targets import Fuzzed, register

EXAMPLES = Path(__file__).parents[2] / "scenarios" / "experiments" / "examples"


def _scratch(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix, dir="/dev/shm" if os.path.isdir("/dev/shm") else None))


def _values(data: bytes, count: int) -> list[Any]:
    """``count`` SQLite values from ``data``: parts split at NUL bytes, each part's first byte
    picking its type (text, blob, integer, NULL) and the rest its content."""
    parts = data.split(b"\0")
    out: list[Any] = []
    for i in range(count):
        part = parts[i] if i < len(parts) else b""
        kind, body = (part[0] % 4, part[1:]) if part else (0, b"")
        if kind == 0:
            out.append(body.decode("utf-8", "replace"))
        elif kind == 1:
            out.append(body)
        elif kind == 2:
            out.append(int.from_bytes(body[:8], "little", signed=True))
        else:
            out.append(None)
    return out


_RUN_JSON = ("point", "params", "metrics", "result")
_SESSION_JSON = ("planned_keys", "argv", "versions", "machine")
_KEY = "a1b2c3d4e5f6"


def _store_target() -> Fuzzed:
    """A store with one session and one run whose JSON columns the input overwrites (a damaged
    or hand-edited store file): reading it back raises only ``UsageError``."""
    store = Store(_scratch("fuzz-store-") / "results.sqlite")
    session = store.begin(scenario="s", kind="k", path=None, text="", text_id="t", code_version="c",
                          data_identity=None, data_description=None, planned=[_KEY], stored_before=0,
                          jobs=1, argv=["run"], versions={}, machine={})  # fmt: skip
    store.put(session=session, key=_KEY, scenario="s", kind="k", point={"p": 1}, params={"p": 1},
              repeat=0, seed=1, code_version="c", data_identity=None, dataset=None, status="ok",
              metrics={"m": 1.0}, result={"r": [1, 2]}, wall_s=0.5)  # fmt: skip

    def one(data: bytes) -> None:
        values = _values(data, len(_RUN_JSON) + len(_SESSION_JSON))
        runs, sessions = values[: len(_RUN_JSON)], values[len(_RUN_JSON) :]
        try:
            store.db.execute(f"UPDATE runs SET {', '.join(f'{c} = ?' for c in _RUN_JSON)}", runs)
            store.db.execute(f"UPDATE sessions SET {', '.join(f'{c} = ?' for c in _SESSION_JSON)}", sessions)
            store.db.commit()
        except sqlite3.Error:
            store.db.rollback()
            return  # not a value SQLite stores (e.g. an integer out of range)
        for read in (store.runs, lambda: store.run(_KEY[:6]), store.sessions,
                     lambda: store.planned_keys(session)):  # fmt: skip
            try:
                read()
            except UsageError:
                pass

    def seeds() -> Iterable[bytes]:
        good = [b"\x00" + t for t in (b'{"p":1}', b'{"p":1}', b'{"m":1.0}', b'{"r":[1]}', b'["a1b2c3d4e5f6"]',
                                      b'["run"]', b"{}", b'{"cpu":2}')]  # fmt: skip
        return [b"\0".join(good), b"\0".join([b"\x00{", *good[1:]]), b"\0".join([b"\x02\x05", b"\x03", b"\x01[]"])]

    return Fuzzed(one, seeds)


register("store-rows", "files", _store_target)


def _scenario_target() -> Fuzzed:
    def one(data: bytes) -> None:
        try:
            parse_scenario(data, source="fuzz", base=EXAMPLES)
        except UsageError:
            pass

    return Fuzzed(one, lambda: [p.read_bytes() for p in sorted(EXAMPLES.glob("*.toml"))])


register("scenario-toml", "files", _scenario_target)


def _schema_target() -> Fuzzed:
    def one(data: bytes) -> None:
        try:
            schema = parse_schema(data, source="fuzz")
        except UsageError:
            return
        assert parse_schema(schema_to_toml(schema)) == schema, "a schema does not survive its TOML"

    def seeds() -> Iterable[bytes]:
        return [schema_to_toml(load_network("survey").schema).encode(),
                b'[[attribute]]\nname = "x"\nkind = "ordinal"\ncategories = ["1", "2"]\n']  # fmt: skip

    return Fuzzed(one, seeds)


register("schema-toml", "files", _schema_target)

_CSV_SCHEMA = Schema((Attribute("age", ("young", "old"), ordinal=True), Attribute("sex", ("F", "M")),
                      Attribute("region", ("north", "south"))))  # fmt: skip


def _csv_target() -> Fuzzed:
    path = _scratch("fuzz-csv-") / "data.csv"

    def one(data: bytes) -> None:
        path.write_bytes(data)
        try:
            ds = load_csv(path, _CSV_SCHEMA)
        except UsageError:
            return
        assert ds.codes.shape[1] == len(_CSV_SCHEMA.names)

    def seeds() -> Iterable[bytes]:
        return [b"id,age,sex,region\n1,young,F,north\n2,old,M,south\n\n3, old ,F,\"north\"\n",
                b"\xef\xbb\xbfregion;sex;age\r\nnorth;F;young\r\n",
                b"age,sex,region,note\nyoung,F,north,\"a,b\nc\"\n"]  # fmt: skip

    return Fuzzed(one, seeds)


register("csv", "files", _csv_target)
