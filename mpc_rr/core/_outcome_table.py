"""How many roles ended, as columns: :class:`OutcomeTable`, a ``Mapping[int, Role]`` of
:class:`~mpc_rr.core.RoleOutcome` s built on access.

A sharded run hands back each role's outcome (its class, last state, result
or error, whom it waited for); one :class:`~mpc_rr.core.RoleOutcome` per
party is ~0.5 KB, 0.5 GB at 10^6 parties (docs/scale.md).  Here the class
and state names are indices, ``done`` a boolean column, a result an index
into the distinct results (every data party of a run usually ends with an
equal one), and errors and waiting sets are kept only for the parties that
have them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from mpc_rr.core._errors import ProtocolAbort, UsageError
from mpc_rr.core._id_columns import IdColumns
from mpc_rr.core._roles import Role
from mpc_rr.core._runs import RoleOutcome

__all__ = ["OutcomeTable"]


class OutcomeTable(IdColumns[Role]):
    """Outcomes of many roles, column by column (see module docstring).

    ``ids`` sorted party ids; ``role_type`` / ``final_state`` indices into
    ``names``; ``done``; ``result`` an index into ``results`` (-1: none);
    ``errors`` and ``waiting`` by party id, only where there are some.
    """

    def __init__(
        self,
        ids: np.ndarray,
        role_type: np.ndarray,
        final_state: np.ndarray,
        done: np.ndarray,
        result: np.ndarray,
        names: Sequence[str],
        results: Sequence[Any],
        errors: Mapping[int, ProtocolAbort] | None = None,
        waiting: Mapping[int, tuple[int, ...]] | None = None,
    ) -> None:
        n = len(ids)
        if any(len(c) != n for c in (role_type, final_state, done, result)):
            raise UsageError(f"OutcomeTable: every column needs {n} entries, one per party")
        self.ids = np.asarray(ids, np.int64)
        if n and np.any(np.diff(self.ids) <= 0):
            raise UsageError("OutcomeTable: party ids must be sorted and distinct")
        self.role_type = np.asarray(role_type, np.int32)
        self.final_state = np.asarray(final_state, np.int32)
        self.done = np.asarray(done, np.bool_)
        self.result = np.asarray(result, np.int32)
        self.names = list(names)
        self.results = list(results)
        if n and (
            max(int(self.role_type.max()), int(self.final_state.max())) >= len(self.names)
            or int(self.result.max()) >= len(self.results)
        ):
            raise UsageError("OutcomeTable: a name or result index outside its list")
        self.errors = dict(errors or {})
        self.waiting = dict(waiting or {})

    @classmethod
    def of(cls, roles: Mapping[int, Role], result_key: Any = None) -> OutcomeTable:
        """The outcomes of ``roles`` as they stand now.

        ``result_key(result)``: what makes two results one entry of ``results``
        (a worker passes their pickled bytes, shipped once; default: identity).
        """
        ids = sorted(roles)
        n = len(ids)
        names: dict[str, int] = {}
        keys: dict[Any, int] = {}
        results: list[Any] = []
        rtype, state = np.zeros(n, np.int32), np.zeros(n, np.int32)
        done, res = np.zeros(n, np.bool_), np.full(n, -1, np.int32)
        errors: dict[int, ProtocolAbort] = {}
        waiting: dict[int, tuple[int, ...]] = {}
        for i, pid in enumerate(ids):
            role = roles[pid]
            rtype[i] = names.setdefault(type(role).__name__, len(names))
            state[i] = names.setdefault(role.state.name, len(names))
            err = role.error
            done[i] = role.done or err is not None  # as RoleOutcome.of(role).done
            if err is not None:
                errors[pid] = err
            if role.done and err is None:
                value = role.result
                key = id(value) if result_key is None else result_key(value)
                k = keys.setdefault(key, len(results))
                if k == len(results):
                    results.append(value if result_key is None else key)
                res[i] = k
            if not role.done:
                waiting[pid] = tuple(sorted(role.waiting_for()))
        return cls(np.asarray(ids, np.int64), rtype, state, done, res, list(names), results, errors, waiting)

    def with_results(self, results: Sequence[Any]) -> OutcomeTable:
        """The same outcomes with ``results`` in place of the list they index (e.g. unpickled)."""
        return OutcomeTable(
            self.ids, self.role_type, self.final_state, self.done, self.result, self.names,
            results, self.errors, self.waiting,
        )  # fmt: skip

    # -- Mapping[int, Role] ----------------------------------------------------------------
    def __getitem__(self, pid: int) -> RoleOutcome:
        i = self._row(pid)
        if i < 0:
            raise KeyError(pid)
        k = int(self.result[i])
        return RoleOutcome(
            int(pid), self.names[self.role_type[i]], self.names[self.final_state[i]],
            self.results[k] if k >= 0 else None, self.errors.get(int(pid)),
            self.waiting.get(int(pid), ()), done=bool(self.done[i]),
        )  # fmt: skip

    def unfinished(self) -> list[int]:
        """Parties whose role did not finish (by id)."""
        return [int(p) for p in self.ids[~self.done]]

    def all_ok(self) -> bool:
        """Every role finished and none aborted (:attr:`RunResult.ok` without the objects)."""
        return bool(self.done.all()) and not self.errors

    @classmethod
    def concat(cls, tables: Iterable[OutcomeTable]) -> OutcomeTable:
        """One table of several with disjoint party ids (e.g. one per shard)."""
        ts = [t for t in tables if len(t)]
        names: dict[str, int] = {}
        results: list[Any] = []
        parts: dict[str, list[np.ndarray]] = {"ids": [], "rt": [], "st": [], "done": [], "res": []}
        for t in ts:
            nmap = np.array([names.setdefault(s, len(names)) for s in t.names], np.int32)
            parts["ids"].append(t.ids)
            parts["rt"].append(nmap[t.role_type])
            parts["st"].append(nmap[t.final_state])
            parts["done"].append(t.done)
            parts["res"].append(np.where(t.result >= 0, t.result + len(results), -1).astype(np.int32))
            results.extend(t.results)
        if not ts:
            z = np.zeros(0, np.int32)
            return cls(z, z, z, z.astype(np.bool_), z, [], [])
        cat = {k: np.concatenate(v) for k, v in parts.items()}
        order = np.argsort(cat["ids"], kind="stable")
        return cls(
            cat["ids"][order], cat["rt"][order], cat["st"][order], cat["done"][order],
            cat["res"][order], list(names), results,
            {p: e for t in ts for p, e in t.errors.items()},
            {p: w for t in ts for p, w in t.waiting.items()},
        )  # fmt: skip
