"""Where a run's records come from: the shipped Adult, a Bayesian network, or your own CSV file.

One description (:class:`DataSpec`) and one loader (:func:`load_dataset`)
serve ``mpc-rr run`` (its data flags, :func:`add_data_arguments`) and the
``[data]`` table of a scenario (:mod:`scenarios.experiments.spec`):

* ``adult`` -- the 8 categorical attributes of UCI Adult (32,561 records), named ``adult``;
* a network shipped in the package (``survey``, ``alarm``, ``child``, ...: ``mpc-rr data list``) --
  scenarios only: records are *sampled* per run (:meth:`Source.draw`);
* ``FILE.csv`` -- your own data, with a schema file (``schema``) or an inferred
  schema (``infer``, optionally ``columns`` and ``ordinal``); named after the
  file's stem unless ``name`` is given.

Every error is a :class:`~mpc_rr.core.UsageError` naming the flag (or the
scenario key) and the rule.
"""

from __future__ import annotations

import argparse
import hashlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from mpc_rr.core import UsageError
from parties.cli_args import name_part

if TYPE_CHECKING:  # the CLI imports this module at start-up: numpy and the library load on use
    import numpy as np

    from mpc_rr.data import BayesNet, Dataset, Schema

__all__ = [
    "DataSpec",
    "Source",
    "add_data_arguments",
    "add_data_option",
    "add_reading_flags",
    "draw_records",
    "load_dataset",
    "open_source",
    "reading_flags_given",
    "spec_from_args",
]

EMBEDDED = ("adult",)


@dataclass(frozen=True)
class DataSpec:
    """A data set as a user names it (CLI flags or a scenario's ``[data]`` table).

    ``flag`` maps each field to how the user spelled it (``--schema`` or
    ``data.schema``), so errors name what the user wrote.
    """

    source: str = "adult"
    schema: Path | None = None
    infer: bool = False
    columns: tuple[str, ...] | None = None
    ordinal: tuple[str, ...] = ()
    max_categories: int | None = None
    name: str | None = None
    delimiter: str = ","
    encoding: str = "utf-8-sig"
    header: bool | tuple[str, ...] = True
    skip_lines: int = 0
    networks: bool = True  # Bayesian networks are sources here (scenarios), not in ``mpc-rr run``
    flag: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def spelled(self, key: str) -> str:
        return self.flag.get(key, key)

    @property
    def is_network(self) -> bool:
        if not self.networks:  # the networks' module imports numpy: only when they are sources
            return False
        from mpc_rr.data import NETWORKS

        return self.source in NETWORKS

    @property
    def is_file(self) -> bool:
        return self.source not in EMBEDDED and not self.is_network

    def check(self) -> None:
        """The rules between fields, and that the files named exist (nothing is read yet)."""
        src = self.spelled("source")
        if self.name is not None:
            try:
                name_part(self.name)
            except argparse.ArgumentTypeError as exc:
                raise UsageError(f"{self.spelled('name')} {exc}") from None
        if self.is_file:
            path = Path(self.source)
            if path.is_dir():
                raise UsageError(f"{src} {path}: is a directory, not a CSV file")
            if not path.exists():
                raise UsageError(
                    f"{src} {path}: no such file (or one of: {', '.join(_known(self.networks))})"
                )
            if self.schema is not None and not self.schema.is_file():
                what = "is a directory" if self.schema.is_dir() else "no such file"
                raise UsageError(f"{self.spelled('schema')} {self.schema}: {what}")
            if self.schema is None and not self.infer:
                raise UsageError(
                    f"{src} {self.source!r} is a CSV file: give its schema "
                    f"({self.spelled('schema')} schema.toml, see: mpc-rr schema infer) or "
                    f"{self.spelled('infer')}"
                )
            if self.schema is not None and self.infer:
                raise UsageError(
                    f"give either {self.spelled('schema')} or {self.spelled('infer')}, not both"
                )
            if not self.infer:
                for key, given in (("columns", self.columns is not None), ("ordinal", bool(self.ordinal)),
                                   ("max_categories", self.max_categories is not None)):  # fmt: skip
                    if given:
                        raise UsageError(
                            f"{self.spelled(key)} applies with {self.spelled('infer')}; with "
                            f"{self.spelled('schema')} the schema file says which columns and kinds"
                        )
            return
        kind = "Bayesian network" if self.is_network else "shipped data set"
        extra = [
            k for k, v in (("schema", self.schema is not None), ("infer", self.infer),
                           ("columns", self.columns is not None), ("ordinal", bool(self.ordinal)),
                           ("max_categories", self.max_categories is not None))
            if v
        ]  # fmt: skip
        if extra:
            raise UsageError(
                f"{', '.join(self.spelled(k) for k in extra)}: only for a CSV file; "
                f"{self.source!r} is the {kind} with its own schema"
            )


def _known(networks: bool) -> tuple[str, ...]:
    if not networks:  # the networks' module imports numpy: only when they are sources
        return EMBEDDED
    from mpc_rr.data import NETWORKS

    return (*EMBEDDED, *NETWORKS)


@dataclass(frozen=True)
class Source:
    """A loaded data source: a fixed table of records, or a network to sample from.

    ``identity`` fingerprints the content (file bytes and schema), so a
    results store can tell when the data under a name changed.
    """

    name: str
    description: str
    identity: str
    table: Dataset | None = None
    network: BayesNet | None = None

    @property
    def schema(self) -> Schema:
        if self.table is not None:
            return self.table.schema
        assert self.network is not None
        return self.network.schema

    @property
    def records(self) -> int | None:
        """How many records the table holds (``None`` for a network: unbounded)."""
        return None if self.table is None else self.table.n

    def draw(self, n: int | None, rng: np.random.Generator, *, key: str = "parties") -> Dataset:
        """``n`` records: a subsample without replacement of the table (all of it for
        ``None``), or ``n`` records sampled from the network (``n`` required)."""
        if self.table is not None:
            if n is None or n == self.table.n:
                return self.table
            if not 1 <= n <= self.table.n:
                raise UsageError(
                    f"{key} must be in 1..{self.table.n} (the records of {self.name}), got {n}"
                )
            return self.table.subsample(n, rng)
        if n is None:
            raise UsageError(f"{key}: records sampled from the network {self.name!r}; say how many")
        from mpc_rr.data import Dataset

        assert self.network is not None
        sample = self.network.sample(n, rng)
        return Dataset(sample.schema, sample.codes, self.name)


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _schema_digest(schema: Schema) -> str:
    text = repr([(a.name, a.categories, a.ordinal) for a in schema.attributes])
    return hashlib.sha256(text.encode()).hexdigest()


def open_source(spec: DataSpec) -> Source:
    """Load what ``spec`` names (see the module docstring)."""
    spec.check()
    if spec.source == "adult":
        from mpc_rr.data import Dataset, data_file, load_adult

        data = load_adult()
        ident = f"adult:{_file_digest(data_file('adult.data'))[:16]}"
        name = spec.name or data.name
        return Source(name, "UCI Adult, adult.data (8 categorical attributes)", ident,
                      table=Dataset(data.schema, data.codes, name))  # fmt: skip
    if spec.is_network:
        from mpc_rr.data import data_file, load_network

        net = load_network(spec.source)
        path = data_file(f"bnlearn/{spec.source}.bif")
        digest = _file_digest(path)[:16] if path.exists() else _schema_digest(net.schema)[:16]
        return Source(spec.name or spec.source, f"records sampled from {spec.source}.bif",
                      f"bif:{spec.source}:{digest}", network=net)  # fmt: skip
    return _open_csv(spec)


def _open_csv(spec: DataSpec) -> Source:
    from mpc_rr.data import (
        DEFAULT_MAX_CATEGORIES,
        infer_schema,
        load_csv,
        load_schema,
        read_csv_columns,
    )

    path = Path(spec.source)
    header: bool | list[str] = spec.header if isinstance(spec.header, bool) else list(spec.header)
    opts = {"header": header, "delimiter": spec.delimiter, "encoding": spec.encoding,
            "skip_lines": spec.skip_lines}  # fmt: skip
    if spec.schema is not None:
        schema = load_schema(spec.schema)
        how = f"schema {spec.schema}"
    else:
        cols = read_csv_columns(path, spec.columns, **opts)  # type: ignore[arg-type]
        try:
            schema = infer_schema(
                cols, ordinal=spec.ordinal,
                max_categories=spec.max_categories if spec.max_categories is not None else DEFAULT_MAX_CATEGORIES,
            )  # fmt: skip
        except UsageError as exc:  # name the flag (or scenario key) of the column lists
            text = str(exc).removeprefix("infer_schema: ")
            if text.startswith("ordinal column(s)"):
                text = f"{spec.spelled('ordinal')}: {text.removeprefix('ordinal ')}"
            raise UsageError(text) from None
        how = "inferred schema"
    name = spec.name or path.stem
    data = load_csv(path, schema, name=name, **opts)  # type: ignore[arg-type]
    ident = f"csv:{_file_digest(path)[:16]}:{_schema_digest(schema)[:16]}"
    return Source(name, f"{path.name} ({how})", ident, table=data)


def load_dataset(spec: DataSpec) -> Dataset:
    """The records of a table source (``adult`` or a CSV file)."""
    src = open_source(spec)
    if src.table is None:
        raise UsageError(
            f"{spec.spelled('source')} {spec.source!r} is a Bayesian network; records are sampled "
            "from it in scenarios (mpc-rr scenario run), not here"
        )
    return src.table


# -- the command line ----------------------------------------------------------------------


def _names(text: str) -> tuple[str, ...]:
    names = tuple(v.strip() for v in text.split(",") if v.strip())
    if not names:
        raise argparse.ArgumentTypeError(f"expected comma-separated column names, got {text!r}")
    return names


def _nonneg(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {v}")
    return v


def _positive(text: str) -> int:
    v = _nonneg(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {v}")
    return v


def add_data_arguments(p: argparse.ArgumentParser) -> None:
    """``DATA`` (adult or FILE.csv) and the flags that say how to read a CSV file."""
    p.add_argument(
        "dataset", metavar="DATA",
        help="adult (shipped, the default data set) or FILE.csv (your own data: each record is "
        "one party; give --schema or --infer-schema)",
    )  # fmt: skip
    add_reading_flags(p)


def add_data_option(p: argparse.ArgumentParser, *, default: str | None, sources: str, what: str) -> None:
    """``--data SOURCE`` (``sources``: e.g. ``"survey|alarm|child|adult|FILE.csv"``) and the same
    CSV reading flags as ``mpc-rr run``'s DATA (:func:`add_reading_flags`): the one option group
    of every command that takes data.  ``what`` says what the records are for."""
    shown = "" if default is None else f" (default {default})"
    p.add_argument(
        "--data", default=default, metavar="SOURCE",
        help=f"{what}: {sources}{shown}; FILE.csv is your own data, read with the flags of "
        "'your own data' (without --schema its schema is inferred)",
    )  # fmt: skip
    add_reading_flags(p)


def add_reading_flags(p: argparse.ArgumentParser) -> None:
    """The flags that say how to read a CSV file (schema, columns, delimiter, header, names)."""
    g = p.add_argument_group("your own data (a CSV file)")
    how = g.add_mutually_exclusive_group()
    how.add_argument(
        "--schema", type=Path, default=None, metavar="SCHEMA.toml",
        help="schema file: attributes, ordered categories, ordinal or nominal "
        "(write one with: mpc-rr schema infer FILE.csv > schema.toml)",
    )  # fmt: skip
    how.add_argument(
        "--infer-schema", action="store_true",
        help="infer the schema from the file: categories in numeric then text order; "
        "nominal unless named in --ordinal",
    )  # fmt: skip
    g.add_argument("--columns", type=_names, default=None,
                   help="with --infer-schema: columns to keep, e.g. age,sex,region (none given: all)")  # fmt: skip
    g.add_argument("--ordinal", type=_names, default=(),
                   help="with --infer-schema: columns whose categories are ordered")  # fmt: skip
    g.add_argument("--max-categories", type=_positive, default=None,
                   help="with --infer-schema: refuse a column with more distinct values (none given: 200)")  # fmt: skip
    g.add_argument("--name", type=name_part, default=None,
                   help="the data set's name in every output (none given: the file's stem)")  # fmt: skip
    g.add_argument("--delimiter", default=",", help="field separator ('\\t' for TSV)")
    g.add_argument("--encoding", default="utf-8-sig",
                   help="text encoding (utf-8-sig: UTF-8 with or without BOM; e.g. latin-1)")  # fmt: skip
    hdr = g.add_mutually_exclusive_group()
    hdr.add_argument("--names", type=_names, default=None,
                     help="the file has no header: these are its column names, in order")  # fmt: skip
    hdr.add_argument("--no-header", action="store_true",
                     help="the file has no header: columns are named 1, 2, ... by position")  # fmt: skip
    g.add_argument("--skip-lines", type=_nonneg, default=0,
                   help="lines to skip before the header or first record")  # fmt: skip


_CLI_FLAGS = {
    "source": "DATA", "schema": "--schema", "infer": "--infer-schema", "columns": "--columns",
    "ordinal": "--ordinal", "max_categories": "--max-categories", "name": "--name",
}  # fmt: skip

_READING = ("--delimiter", "--encoding", "--names", "--no-header", "--skip-lines")


def spec_from_args(args: argparse.Namespace, *, option: bool = False, networks: bool = False) -> DataSpec:
    """The :class:`DataSpec` of the data flags (rules checked, nothing read yet): ``mpc-rr run``'s
    positional DATA, or (``option``) the ``--data`` of :func:`add_data_option`, where a CSV file
    without ``--schema`` has its schema inferred and ``networks`` says whether a Bayesian network
    name is a source (records sampled from it)."""
    header: bool | tuple[str, ...] = True
    if args.names is not None:
        header = tuple(args.names)
    elif args.no_header:
        header = False
    delimiter = "\t" if args.delimiter in ("\\t", "tab") else str(args.delimiter)
    source = str(args.data if option else args.dataset)
    flags = dict(_CLI_FLAGS, source="--data") if option else dict(_CLI_FLAGS)
    spec = DataSpec(
        source=source, schema=args.schema, infer=args.infer_schema,
        columns=None if args.columns is None else tuple(args.columns), ordinal=tuple(args.ordinal),
        max_categories=args.max_categories, name=args.name, delimiter=delimiter,
        encoding=args.encoding, header=header, skip_lines=args.skip_lines, networks=networks,
        flag=flags,
    )  # fmt: skip
    if option and spec.is_file and spec.schema is None and not spec.infer:
        spec = replace(spec, infer=True)
    spec.check()
    reading = [f for f, given in zip(_READING, (args.delimiter != ",", args.encoding != "utf-8-sig",
               args.names is not None, args.no_header, args.skip_lines != 0), strict=True) if given]  # fmt: skip
    if reading and not spec.is_file:
        raise UsageError(f"{', '.join(reading)}: only for a CSV file, not {spec.source!r}")
    if args.name is not None and not args.name.strip():
        raise UsageError("--name must not be empty")
    return spec


def reading_flags_given(args: argparse.Namespace) -> list[str]:
    """The CSV reading flags of :func:`add_reading_flags` that were given (a command that does not
    read a file in this mode refuses them, naming them)."""
    given = (("--schema", args.schema is not None), ("--infer-schema", args.infer_schema),
             ("--columns", args.columns is not None), ("--ordinal", bool(args.ordinal)),
             ("--max-categories", args.max_categories is not None), ("--name", args.name is not None),
             ("--delimiter", args.delimiter != ","), ("--encoding", args.encoding != "utf-8-sig"),
             ("--names", args.names is not None), ("--no-header", args.no_header),
             ("--skip-lines", args.skip_lines != 0))  # fmt: skip
    return [f for f, g in given if g]


def draw_records(
    spec: DataSpec, count: int | None, rng: np.random.Generator, *, flag: str = "--clients",
    default: int = 8000,
) -> tuple[Dataset, str]:
    """``count`` records of ``spec`` and a one-line description of where they came from.

    A network: ``count`` records sampled (default ``default``); a table (Adult or a CSV file):
    the records shuffled with ``rng`` and the first ``count`` kept (all of them by default) --
    the sampling of :func:`mpc_rr.data.load_records`, so a name gives the same records either way.
    """
    from mpc_rr.data import Dataset

    if count is not None and count < 1:
        raise UsageError(f"{flag} must be >= 1, got {count}")
    src = open_source(spec)
    if src.table is None:
        n = default if count is None else count
        assert src.network is not None
        sample = src.network.sample(n, rng)
        return Dataset(sample.schema, sample.codes, src.name), f"{n} records sampled from {spec.source}.bif"
    full = src.table
    n = full.n if count is None else count
    if n > full.n:
        raise UsageError(f"{flag} {n} exceeds the {full.n} records of {src.description}")
    order = rng.permutation(full.n)[:n]
    return Dataset(full.schema, full.codes[order], src.name), f"{n} of {full.n} records of {src.description}, shuffled"
