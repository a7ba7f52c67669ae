"""Schemas a person can read and edit: inference from a CSV file, TOML out and in.

A schema file lists the attributes in order, each with its categories in
order and its kind::

    # mpc-rr schema (edit freely: order, kinds, categories)
    [[attribute]]
    name = "education"
    kind = "ordinal"          # ordinal: the order of the categories matters
    categories = [
      "Bachelors",            # 5,355 records
      "HS-grad",              # 10,501 records
    ]

The kind chooses the dependence measure (|Pearson r| between two ordinal
attributes, Cramér's V otherwise), so an ordinal attribute's categories must
be in their real order: inference cannot know it for text, a person edits it.

Inferred category order (:func:`category_order`): values that read as
numbers first, in numeric order (``"9"`` before ``"10"``), then the others in
text order (Unicode code points; so a missing-value token such as ``"?"``
comes after the numbers of a numeric column).

Loading (:func:`load_schema`) decodes the TOML into typed structs with
msgspec (unknown keys rejected); every error names the file and the key
(``$.attribute[2].categories``) and, where known, the attribute.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

import msgspec

from mpc_rr.core import UsageError
from mpc_rr.data._choices import DEFAULT_MAX_CATEGORIES
from mpc_rr.data._csv_reader import CsvColumns
from mpc_rr.data._schema import Attribute, Schema

__all__ = [
    "ConstantColumnWarning",
    "category_order",
    "infer_schema",
    "load_schema",
    "parse_schema",
    "schema_of_values",
    "schema_to_toml",
]



class _AttributeSpec(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    categories: list[str]
    kind: Literal["nominal", "ordinal"] = "nominal"


class _SchemaSpec(msgspec.Struct, forbid_unknown_fields=True):
    attribute: list[_AttributeSpec]


def category_order(values: Iterable[str]) -> tuple[str, ...]:
    """Numbers in numeric order, then the other values in text order (see module doc)."""
    nums: list[tuple[float, str]] = []
    text: list[str] = []
    for v in set(values):
        try:
            x = float(v)
        except ValueError:
            text.append(v)
            continue
        if math.isnan(x):
            text.append(v)
        else:
            nums.append((x, v))
    return tuple(v for _, v in sorted(nums)) + tuple(sorted(text))


def infer_schema(
    data: CsvColumns,
    *,
    ordinal: Sequence[str] = (),
    max_categories: int = DEFAULT_MAX_CATEGORIES,
) -> Schema:
    """A schema with every kept column of ``data`` as an attribute (:func:`schema_of_values`)."""
    return schema_of_values(
        data.names, data.values, ordinal=ordinal, max_categories=max_categories, where=str(data.path)
    )


def schema_of_values(
    names: Sequence[str],
    values: Sequence[Iterable[str]],
    *,
    ordinal: Sequence[str] = (),
    max_categories: int = DEFAULT_MAX_CATEGORIES,
    where: str = "table",
) -> Schema:
    """A schema with one attribute per column: ``names[j]`` takes the distinct ``values[j]``.

    Categories are ordered by :func:`category_order`; columns named in
    ``ordinal`` are ordinal, the others nominal.  A column with more than
    ``max_categories`` distinct values (an identifier, a measurement) is
    refused: randomized response over it would carry no information; bin it
    first or leave it out.
    """
    known, ordinals = set(names), frozenset(ordinal)
    unknown = [c for c in ordinal if c not in known]
    if unknown:
        raise UsageError(
            f"infer_schema: ordinal column(s) {unknown} are not among the columns {list(names)}"
        )
    if max_categories < 1:
        raise UsageError(f"infer_schema: max_categories must be >= 1, got {max_categories}")
    attrs, constant = [], []
    for name, vals in zip(names, values, strict=True):
        distinct = tuple(dict.fromkeys(vals))
        if len(distinct) == 1:
            constant.append(f"{name!r} (always {distinct[0][:20]!r})")
        if len(distinct) > max_categories:
            raise UsageError(
                f"{where}: column {name!r} has {len(distinct):,} distinct values, more than "
                f"max_categories = {max_categories} (CLI --max-categories); bin it, or leave it "
                "out by naming the columns to keep (--columns)"
            )
        attrs.append(Attribute(name, category_order(distinct), ordinal=name in ordinals))
    if constant:
        shown = ", ".join(constant[:10]) + (f" and {len(constant) - 10:,} more" if len(constant) > 10 else "")
        warnings.warn(
            f"{where}: {len(constant):,} constant column(s): {shown}; one value in every record "
            "carries no information (its randomized response has epsilon 0 and costs cells): "
            "leave it out (--columns)",
            ConstantColumnWarning,
            stacklevel=2,
        )
    return Schema(tuple(attrs))


class ConstantColumnWarning(UserWarning):
    """A column has the same value in every record (it was accepted silently)."""


def schema_to_toml(
    schema: Schema, *, data: CsvColumns | None = None, source: str | None = None
) -> str:
    """The schema as TOML (one ``[[attribute]]`` table each), with record counts as
    comments when ``data`` (the columns it was inferred from) is given."""
    lines = [
        "# mpc-rr schema: one [[attribute]] table per attribute, in order.",
        "# Edit freely: reorder categories (the order matters for ordinal attributes),",
        '# set kind = "ordinal" or "nominal", remove attributes you do not need.',
    ]
    if source:
        lines.append(f"# inferred from {source}" + (f" ({data.n:,} records)" if data else ""))
    column = {} if data is None else {nm: j for j, nm in enumerate(data.names)}
    for attr in schema.attributes:
        counts: dict[str, int] = {}
        if data is not None and attr.name in column:
            j = column[attr.name]
            counts = dict(zip(data.values[j], data.counts(j).tolist(), strict=True))
        lines += ["", "[[attribute]]", f"name = {_toml_str(attr.name)}"]
        if attr.ordinal:
            lines.append('kind = "ordinal"  # check the order of the categories: it is used')
        else:
            lines.append('kind = "nominal"')
        lines.append("categories = [")
        width = max(len(_toml_str(c)) for c in attr.categories) + 1
        for c in attr.categories:
            item = f"{_toml_str(c)},"
            note = f"  # {counts[c]:,} records" if c in counts else ""
            lines.append(f"  {item:<{width}}{note}".rstrip())
        lines.append("]")
    return "\n".join(lines) + "\n"


def parse_schema(text: str | bytes, *, source: str = "schema") -> Schema:
    """Decode a schema TOML document; errors name ``source`` and the key."""
    raw = text.encode() if isinstance(text, str) else text
    try:
        spec = msgspec.toml.decode(raw, type=_SchemaSpec)
    except msgspec.ValidationError as exc:
        raise UsageError(f"{source}: {exc}{_which_attribute(raw, str(exc))}") from None
    except msgspec.DecodeError as exc:
        raise UsageError(f"{source}: not valid TOML: {exc}") from None
    if not spec.attribute:
        raise UsageError(f"{source}: no [[attribute]] tables")
    attrs = []
    for i, a in enumerate(spec.attribute):
        try:
            attrs.append(Attribute(a.name, tuple(a.categories), ordinal=a.kind == "ordinal"))
        except UsageError as exc:
            raise UsageError(f"{source}: $.attribute[{i}] ({a.name!r}): {exc}") from None
    try:
        return Schema(tuple(attrs))
    except UsageError as exc:
        raise UsageError(f"{source}: {exc}") from None


def load_schema(path: str | Path) -> Schema:
    """Read a schema TOML file (see the module docstring for the format)."""
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{p}: is a directory, not a schema file")
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise UsageError(f"{p}: cannot read schema ({exc.strerror})") from None
    return parse_schema(raw, source=str(p))


def _toml_str(s: str) -> str:
    """A TOML basic string (JSON's escapes are a subset of TOML's; TOML also escapes DEL)."""
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")


def _which_attribute(raw: bytes, message: str) -> str:
    """`` (attribute 'x')`` when the error path points into a named attribute table."""
    marker = "$.attribute["
    if marker not in message:
        return ""
    try:
        i = int(message.split(marker, 1)[1].split("]", 1)[0])
        doc: Any = msgspec.toml.decode(raw)
        name = doc["attribute"][i]["name"]
    except (ValueError, KeyError, IndexError, TypeError, msgspec.MsgspecError):
        return ""
    return f" (attribute {name!r})" if isinstance(name, str) else ""
