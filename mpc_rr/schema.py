"""Categorical schemas and the encoder from raw values to integer codes.

A :class:`Schema` is an ordered tuple of :class:`Attribute` (name, ordered
category list, ordinal or nominal).  Records are encoded as an ``(n, m)``
integer array of category codes, ``codes[i, j]`` being the index of party
``i``'s value of attribute ``j`` in ``attributes[j].categories``.  The kind
(ordinal / nominal) chooses the dependence measure (|Pearson r| for two
ordinal attributes, Cramér's V otherwise; Domingo-Ferrer & Soria-Comas,
Expressions 8-9).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from mpc_rr.errors import UsageError

__all__ = ["Attribute", "Dataset", "Schema", "encode_columns", "load_csv"]


@dataclass(frozen=True)
class Attribute:
    """One categorical attribute: ``categories`` in their (ordinal) order."""

    name: str
    categories: tuple[str, ...]
    ordinal: bool = False

    def __post_init__(self) -> None:
        if not self.name:
            raise UsageError("Attribute: name must be non-empty")
        if len(self.categories) < 1:
            raise UsageError(f"Attribute {self.name!r}: needs at least one category")
        if len(set(self.categories)) != len(self.categories):
            raise UsageError(f"Attribute {self.name!r}: duplicate categories {self.categories}")

    @property
    def size(self) -> int:
        return len(self.categories)


@dataclass(frozen=True)
class Schema:
    """An ordered set of attributes (hashable; names and sizes are cached)."""

    attributes: tuple[Attribute, ...]

    def __post_init__(self) -> None:
        names = [a.name for a in self.attributes]
        if not names:
            raise UsageError("Schema: needs at least one attribute")
        if len(set(names)) != len(names):
            raise UsageError(f"Schema: duplicate attribute names in {names}")

    @cached_property
    def names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attributes)

    @cached_property
    def sizes(self) -> tuple[int, ...]:
        return tuple(a.size for a in self.attributes)

    @property
    def domain_size(self) -> int:
        return math.prod(self.sizes)

    def index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise UsageError(f"Schema: no attribute named {name!r}; have {self.names}") from None

    def __len__(self) -> int:
        return len(self.attributes)

    def subset(self, idx: Sequence[int]) -> Schema:
        return Schema(tuple(self.attributes[i] for i in idx))


@dataclass(frozen=True)
class Dataset:
    """Encoded records: ``codes`` is ``(n, m)`` int with ``m == len(schema)``."""

    schema: Schema
    codes: np.ndarray

    def __post_init__(self) -> None:
        c = self.codes
        if c.ndim != 2 or c.shape[1] != len(self.schema):
            raise UsageError(
                f"Dataset: codes must have shape (n, {len(self.schema)}), got {c.shape}"
            )
        if c.shape[0] == 0:
            raise UsageError("Dataset: no records")
        if not np.issubdtype(c.dtype, np.integer):
            raise UsageError(f"Dataset: codes must be integers, got dtype {c.dtype}")
        bad = (c < 0) | (c >= np.asarray(self.schema.sizes))
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise UsageError(
                f"Dataset: record {i}, attribute {self.schema.names[j]!r}: code {c[i, j]} "
                f"outside 0..{self.schema.sizes[j] - 1}"
            )

    @property
    def n(self) -> int:
        return int(self.codes.shape[0])

    def repeat(self, times: int) -> Dataset:
        """The data set concatenated ``times`` times (the paper's Adult6)."""
        if times < 1:
            raise UsageError(f"Dataset.repeat: times must be >= 1, got {times}")
        return Dataset(self.schema, np.tile(self.codes, (times, 1)))

    def subsample(self, n: int, rng: np.random.Generator) -> Dataset:
        if not 1 <= n <= self.n:
            raise UsageError(f"Dataset.subsample: n must be in 1..{self.n}, got {n}")
        idx = np.sort(rng.choice(self.n, size=n, replace=False))
        return Dataset(self.schema, self.codes[idx])


def encode_columns(columns: Mapping[str, Sequence[str]], schema: Schema) -> Dataset:
    """Encode raw string columns (one per schema attribute) into a :class:`Dataset`.

    Raises :class:`UsageError` for a missing column, empty input, columns of
    different lengths, or a value that is not among the attribute's
    categories (the message names the attribute, the value and its first row).
    """
    missing = [a.name for a in schema.attributes if a.name not in columns]
    if missing:
        raise UsageError(f"encode: missing columns {missing}; have {sorted(columns)}")
    lengths = {a.name: len(columns[a.name]) for a in schema.attributes}
    n = next(iter(lengths.values()))
    if n == 0:
        raise UsageError("encode: empty input (no records)")
    if len(set(lengths.values())) != 1:
        raise UsageError(f"encode: columns have different lengths {lengths}")
    codes = np.empty((n, len(schema)), dtype=np.int64)
    for j, attr in enumerate(schema.attributes):
        values, inverse = np.unique(
            np.asarray(columns[attr.name], dtype=object).astype(str), return_inverse=True
        )
        lookup = {c: k for k, c in enumerate(attr.categories)}
        unseen = [str(v) for v in values if v not in lookup]
        if unseen:
            first = int(np.flatnonzero(np.asarray(columns[attr.name]) == unseen[0])[0])
            raise UsageError(
                f"encode: attribute {attr.name!r} has unseen category {unseen[0]!r} "
                f"(first at record {first}); known categories: {list(attr.categories)}"
            )
        codes[:, j] = np.array([lookup[v] for v in values], dtype=np.int64)[inverse]
    return Dataset(schema, codes)


def load_csv(
    path: str | Path,
    schema: Schema,
    *,
    header: bool | Iterable[str] = True,
    delimiter: str = ",",
) -> Dataset:
    """Load a CSV file and encode the schema's columns.

    ``header=True`` reads column names from the first line; otherwise pass
    the column names.  Surrounding whitespace of every field is stripped and
    blank lines are skipped.
    """
    path = Path(path)
    if not path.exists():
        raise UsageError(f"load_csv: no such file {path}")
    with path.open(newline="") as fh:
        reader = csv.reader(fh, delimiter=delimiter, skipinitialspace=True)
        rows = [[f.strip() for f in r] for r in reader if r and any(f.strip() for f in r)]
    if header is True:
        if not rows:
            raise UsageError(f"load_csv: {path} is empty")
        names, rows = rows[0], rows[1:]
    else:
        names = list(header) if header is not False else []
    if not rows:
        raise UsageError(f"load_csv: {path} has no records")
    width = len(names)
    for i, r in enumerate(rows):
        if len(r) != width:
            raise UsageError(f"load_csv: {path} record {i} has {len(r)} fields, expected {width}")
    cols = {name: [r[k] for r in rows] for k, name in enumerate(names)}
    return encode_columns(cols, schema)
