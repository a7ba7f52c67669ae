"""Bayesian networks in BIF format: a small parser and seeded ancestral sampling.

The RRBA experiments (Imran & Meo, Sec. 7) use the bnlearn networks Survey,
Alarm and Child with n = 8,000 records, more than Survey's published 500
(docs/rrba.md, data): the records are drawn from the networks.  This module reads
the ``.bif`` files shipped in the package (``bnlearn/*.bif``; bnlearn's ``write.bif``
dialect: ``variable`` blocks with ``type discrete [ k ] { s1, ..., sk }``,
``probability ( X | P1, P2 )`` blocks with ``table`` rows, one
``(parent values) p1, ..., pk;`` row per parent configuration, or a
``default`` row) and draws records by ancestral (forward) sampling:
topological order, each node's categorical draw vectorized over all rows by
inverse-CDF with one uniform per row from an injected generator.

Rows of a conditional probability table must sum to 1 within ``1e-4``
(bnlearn writes rounded values) and are renormalized exactly; anything else
(unknown state or variable, missing configuration, cycle) raises
:class:`UsageError` naming the file, the variable and what was wrong.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.data._schema import Attribute, Dataset, Schema

__all__ = ["NETWORKS", "BayesNet", "load_network", "parse_bif"]

NETWORKS: tuple[str, ...] = ("survey", "alarm", "child", "asia", "sachs", "insurance")
"""Networks shipped in the package (``bnlearn/<name>.bif``: ``mpc-rr data list``)."""

_TOKEN = re.compile(r"\s*([{}()\[\],;|]|[^\s{}()\[\],;|]+)")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_ROW_TOL = 1e-4


@dataclass(frozen=True)
class BayesNet:
    """A discrete Bayesian network.

    ``schema`` lists the variables in declaration order (categories in the
    file's state order); ``parents[i]`` are schema indices of variable ``i``'s
    parents in the order of its ``probability`` block; ``cpts[i]`` has shape
    ``(|parent_1|, ..., |parent_m|, |X_i|)`` and sums to 1 over its last axis.
    """

    schema: Schema
    parents: tuple[tuple[int, ...], ...]
    cpts: tuple[np.ndarray, ...]
    name: str = "network"

    def __post_init__(self) -> None:
        if not (len(self.parents) == len(self.cpts) == len(self.schema)):
            raise UsageError("BayesNet: schema, parents and cpts must have one entry per node")
        sizes = self.schema.sizes
        for i, (pa, cpt) in enumerate(zip(self.parents, self.cpts, strict=True)):
            want = (*(sizes[j] for j in pa), sizes[i])
            if cpt.shape != want:
                raise UsageError(
                    f"BayesNet {self.name}: CPT of {self.schema.names[i]!r} has shape "
                    f"{cpt.shape}, expected {want}"
                )
        object.__setattr__(self, "_order", _topological(self.parents, self.schema.names, self.name))

    @property
    def order(self) -> tuple[int, ...]:
        """Node indices in a topological order (declaration order breaks ties)."""
        return self._order  # type: ignore[attr-defined,no-any-return]

    def sample(self, n: int, rng: np.random.Generator) -> Dataset:
        """``n`` i.i.d. records by ancestral sampling (one uniform per row and node).

        Nodes are visited in :attr:`order`; for node ``X`` the row's parent
        configuration selects a CDF row and the category is the number of CDF
        entries ``<= u``.  Vectorized over rows: O(n * sum |X|) numpy work.
        """
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
            raise UsageError(f"BayesNet.sample: n must be a positive int, got {n!r}")
        sizes = self.schema.sizes
        codes = np.zeros((int(n), len(sizes)), dtype=np.int64)
        for i in self.order:
            pa = self.parents[i]
            cdf = np.cumsum(self.cpts[i].reshape(-1, sizes[i]), axis=1)
            cdf[:, -1] = 1.0
            if pa:
                config = np.ravel_multi_index(
                    tuple(codes[:, j] for j in pa), tuple(sizes[j] for j in pa)
                )
            else:
                config = np.zeros(int(n), dtype=np.int64)
            u = rng.random(int(n))
            codes[:, i] = (u[:, None] >= cdf[config]).sum(axis=1)
        return Dataset(self.schema, codes)

    def joint(self, max_cells: int = 1_000_000) -> np.ndarray:
        """The exact joint distribution, shape ``schema.sizes`` (small networks only)."""
        if self.schema.domain_size > max_cells:
            raise UsageError(
                f"BayesNet.joint: {self.name} has {self.schema.domain_size} joint cells "
                f"(> max_cells={max_cells})"
            )
        d = len(self.schema)
        out = np.ones(self.schema.sizes)
        sizes = self.schema.sizes
        for i, pa in enumerate(self.parents):
            axes = [*pa, i]
            # the CPT's axes in ascending schema order, then singleton axes elsewhere
            cpt = np.transpose(self.cpts[i], np.argsort(axes))
            out = out * cpt.reshape([sizes[a] if a in axes else 1 for a in range(d)])
        return out

    def marginal(self, attrs: Sequence[int], max_cells: int = 1_000_000) -> np.ndarray:
        """Exact marginal over ``attrs`` (in that order) from :meth:`joint`."""
        j = self.joint(max_cells)
        attrs = [int(a) for a in attrs]
        rest = tuple(a for a in range(j.ndim) if a not in attrs)
        m = j.sum(axis=rest)
        kept = sorted(attrs)
        return np.transpose(m, [kept.index(a) for a in attrs])


def _topological(
    parents: tuple[tuple[int, ...], ...], names: tuple[str, ...], net: str
) -> tuple[int, ...]:
    indeg = [len(p) for p in parents]
    children: list[list[int]] = [[] for _ in parents]
    for i, pa in enumerate(parents):
        for j in pa:
            children[j].append(i)
    ready = [i for i, k in enumerate(indeg) if k == 0]
    order: list[int] = []
    while ready:
        i = min(ready)
        ready.remove(i)
        order.append(i)
        for c in children[i]:
            indeg[c] -= 1
            if indeg[c] == 0:
                ready.append(c)
    if len(order) != len(parents):
        stuck = [names[i] for i in range(len(parents)) if i not in order]
        raise UsageError(f"BayesNet {net}: the graph has a cycle through {stuck}")
    return tuple(order)


class _Tokens:
    def __init__(self, text: str, where: str) -> None:
        self.toks: list[str] = _TOKEN.findall(_COMMENT.sub(" ", text))
        self.i = 0
        self.where = where

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def next(self) -> str:
        if self.i >= len(self.toks):
            raise UsageError(f"{self.where}: unexpected end of file")
        t = self.toks[self.i]
        self.i += 1
        return t

    def expect(self, tok: str) -> None:
        t = self.next()
        if t != tok:
            raise UsageError(f"{self.where}: expected {tok!r}, got {t!r} (token {self.i})")

    def until(self, stop: str) -> list[str]:
        """Tokens up to ``stop`` (consumed), commas dropped."""
        out = []
        while (t := self.next()) != stop:
            if t != ",":
                out.append(t)
        return out

    def skip_block(self) -> None:
        self.expect("{")
        depth = 1
        while depth:
            t = self.next()
            depth += (t == "{") - (t == "}")


def _floats(tokens: list[str], where: str) -> np.ndarray:
    try:
        return np.array([float(t) for t in tokens])
    except ValueError:
        raise UsageError(f"{where}: non-numeric probability in {tokens}") from None


def parse_bif(text: str, name: str = "network") -> BayesNet:
    """Parse BIF text (see the module docstring for the dialect)."""
    tk = _Tokens(text, f"BIF {name}")
    variables: dict[str, tuple[str, ...]] = {}
    blocks: dict[str, tuple[list[str], list[tuple[list[str] | None, list[str]]]]] = {}
    while (t := tk.peek()) is not None:
        tk.next()
        if t == "network":
            tk.next()
            tk.skip_block()
        elif t == "variable":
            var = tk.next()
            where = f"BIF {name}, variable {var!r}"
            tk.expect("{")
            states: list[str] | None = None
            while (u := tk.next()) != "}":
                if u == "type":
                    if tk.next() != "discrete":
                        raise UsageError(f"{where}: only discrete variables are supported")
                    tk.expect("[")
                    k = int(tk.next())
                    tk.expect("]")
                    tk.expect("{")
                    states = tk.until("}")
                    tk.expect(";")
                    if len(states) != k:
                        raise UsageError(f"{where}: declares {k} states but lists {states}")
                else:  # property ... ;
                    tk.until(";")
            if states is None:
                raise UsageError(f"{where}: no 'type discrete' line")
            if var in variables:
                raise UsageError(f"{where}: declared twice")
            variables[var] = tuple(states)
        elif t == "probability":
            tk.expect("(")
            head = tk.until(")")
            if not head:
                raise UsageError(f"BIF {name}: empty probability header")
            child, pa = head[0], [h for h in head[1:] if h != "|"]
            rows: list[tuple[list[str] | None, list[str]]] = []
            tk.expect("{")
            while (u := tk.next()) != "}":
                if u in ("table", "default"):
                    rows.append((None if u == "table" else ["__default__"], tk.until(";")))
                elif u == "(":
                    rows.append((tk.until(")"), tk.until(";")))
                else:
                    raise UsageError(f"BIF {name}, probability of {child!r}: unexpected {u!r}")
            if child in blocks:
                raise UsageError(f"BIF {name}: two probability blocks for {child!r}")
            blocks[child] = ([child, *pa], rows)
        else:
            raise UsageError(f"BIF {name}: unexpected token {t!r} at top level")
    if not variables:
        raise UsageError(f"BIF {name}: no variables")
    names = tuple(variables)
    schema = Schema(tuple(Attribute(v, s) for v, s in variables.items()))
    parents, cpts = [], []
    for v in names:
        if v not in blocks:
            raise UsageError(f"BIF {name}: variable {v!r} has no probability block")
        head, rows = blocks[v]
        pa = head[1:]
        unknown = [p for p in pa if p not in variables]
        if unknown:
            raise UsageError(f"BIF {name}: {v!r} has undeclared parents {unknown}")
        parents.append(tuple(names.index(p) for p in pa))
        cpts.append(_cpt(v, pa, rows, variables, name))
    return BayesNet(schema, tuple(parents), tuple(cpts), name)


def _cpt(
    var: str,
    pa: list[str],
    rows: list[tuple[list[str] | None, list[str]]],
    variables: dict[str, tuple[str, ...]],
    net: str,
) -> np.ndarray:
    where = f"BIF {net}, probability of {var!r}"
    k = len(variables[var])
    psizes = tuple(len(variables[p]) for p in pa)
    n_conf = math.prod(psizes)
    table = np.full((n_conf, k), np.nan)
    default = None
    for key, vals in rows:
        probs = _floats(vals, where)
        if key is None:  # "table": all configurations, child fastest
            if pa:  # the value order of a conditional "table" differs between writers
                raise UsageError(
                    f"{where}: a 'table' line with parents is not supported; "
                    "write one '(parent values) p1, ..., pk;' row per configuration"
                )
            if probs.size != k:
                raise UsageError(f"{where}: table has {probs.size} values, expected {k}")
            table[0] = probs
            continue
        if probs.size != k:
            raise UsageError(f"{where}: row {key} has {probs.size} values, expected {k}")
        if key == ["__default__"]:
            default = probs
            continue
        if len(key) != len(pa):
            raise UsageError(
                f"{where}: row {key} names {len(key)} parent values, expected {len(pa)}"
            )
        idx = []
        for p, s in zip(pa, key, strict=True):
            if s not in variables[p]:
                raise UsageError(f"{where}: unknown state {s!r} of parent {p!r}")
            idx.append(variables[p].index(s))
        table[np.ravel_multi_index(tuple(idx), psizes) if pa else 0] = probs
    missing = np.isnan(table).any(axis=1)
    if missing.any():
        if default is None:
            first = np.unravel_index(int(np.flatnonzero(missing)[0]), psizes)
            conf = tuple(variables[p][c] for p, c in zip(pa, first, strict=True))
            raise UsageError(f"{where}: no row for parent configuration {conf}")
        table[missing] = default
    if (table < 0).any():
        raise UsageError(f"{where}: negative probability")
    sums = table.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > _ROW_TOL)
    if bad.size:
        raise UsageError(f"{where}: a row sums to {sums[bad[0]]:.6g}, not 1")
    return np.asarray((table / sums[:, None]).reshape(*psizes, k))


def load_network(name_or_path: str | Path) -> BayesNet:
    """A shipped network by name (``survey``, ``alarm``, ...) or any ``.bif`` path."""
    from mpc_rr.data._shipped import data_file

    s = str(name_or_path)
    path = data_file(f"bnlearn/{s}.bif") if s in NETWORKS else Path(s)
    if not path.exists():
        raise UsageError(f"load_network: {path} not found (known names: {', '.join(NETWORKS)})")
    return parse_bif(path.read_text(), path.stem)
