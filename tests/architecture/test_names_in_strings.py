"""What string literals may name: protocols by their registered name, and modules of other layers.

**Protocol names.** A protocol's name is written once, where it is registered; everything
else asks the registry (``protocol_names()``, ``sum_protocol(...)``) or the protocol object
(``SECAGG.name``, ``p.ledger_channel``). Counted: every string constant (``ast.Constant``,
f-string parts included) in the ``.py`` files of ``mpc_rr``, ``parties``, ``transports`` and
``scenarios`` whose value *equals* a registered sum protocol's name, outside the allowed
places (:data:`ALLOWED`: the registry, each protocol package's ``_spec.py`` and the
classroom's lessons). At most :data:`MAX_PROTOCOL_LITERALS` such literals may remain.

**Layers.** No string in a lower layer names a module of a layer above it (``mpc_rr`` <
``transports`` < ``parties`` < ``scenarios``): a ``"scenarios.x"`` inside ``parties``, or a
``"parties.x:f"`` handed to an importer inside ``mpc_rr``, is an upward edge import-linter cannot
see. Documentation -- a bare string statement (docstrings, attribute docstrings) -- may point
a reader anywhere and is not counted.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

from mpc_rr.secure_sum import sum_protocol_names

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("mpc_rr", "parties", "transports", "scenarios")
LAYERS = ("mpc_rr", "transports", "parties", "scenarios")
"""Bottom to top."""

ALLOWED = (
    "mpc_rr/core/_registry.py",
    "mpc_rr/secure_sum/plainsum/_spec.py",
    "mpc_rr/secure_sum/full_mesh/_spec.py",
    "mpc_rr/secure_sum/secagg/_spec.py",
    "mpc_rr/secure_sum/prio3/_spec.py",
    "scenarios/classroom/",
)
MAX_PROTOCOL_LITERALS = 15


def _files(top: str) -> list[Path]:
    return sorted((ROOT / top).rglob("*.py"))


def _strings(tree: ast.AST, *, documentation: bool) -> list[ast.Constant]:
    """The string constants of ``tree``; without ``documentation``, bare string statements left out."""
    docs = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    }
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and (documentation or id(n) not in docs)
    ]


@cache
def _tree(source: str) -> ast.Module:
    return ast.parse(source)


def protocol_literals(source: str, names: set[str]) -> list[tuple[int, str]]:
    # only a file that quotes a name (or closes an f-string field next to it) can hold one: parsed
    if not re.search("[\"'}](?:" + "|".join(map(re.escape, names)) + ")[\"'{]", source):
        return []
    return [(n.lineno, n.value) for n in _strings(_tree(source), documentation=True) if n.value in names]


def upward_names(source: str, higher: tuple[str, ...]) -> list[tuple[int, str]]:
    pattern = re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, higher)) + r")\.[A-Za-z_]\w*")
    if not pattern.search(source):
        return []
    return [
        (n.lineno, m.group(0))
        for n in _strings(_tree(source), documentation=False)
        for m in pattern.finditer(n.value)
    ]


def test_protocol_names_are_written_where_they_are_registered() -> None:
    names = set(sum_protocol_names())
    assert {"secagg", "prio3", "full-mesh", "plainsum"} <= names  # the registry is what is read
    found = [
        f"{rel}:{line}: {value!r}"
        for top in PRODUCT
        for path in _files(top)
        if not (rel := str(path.relative_to(ROOT))).startswith(ALLOWED)
        for line, value in protocol_literals(path.read_text(), names)
    ]
    assert len(found) <= MAX_PROTOCOL_LITERALS, (
        f"{len(found)} protocol-name literals outside the registry, the specs and the lessons "
        f"(at most {MAX_PROTOCOL_LITERALS}; ask the registry or the protocol object):\n" + "\n".join(found)
    )


def test_no_string_in_a_lower_layer_names_a_module_above_it() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for i, low in enumerate(LAYERS[:-1])
        for path in _files(low)
        for line, name in upward_names(path.read_text(), LAYERS[i + 1 :])
    ]
    assert not found, "strings that name a module of a higher layer:\n" + "\n".join(found)


def test_the_rules_catch_planted_strings() -> None:
    source = (
        '"""Docs may say scenarios.cli and "secagg"."""\n'
        'X = "secagg"\nY = f"{1}prio3"\nZ = ("full-mesh", "secagg+")\n'
        'F = lazy("scenarios.classroom.live:make")\n'
        'def f():\n    """See parties.runner."""\n    return "parties.runner:run"\n'
        'G = "not_scenarios.x"\n'
    )
    assert sorted(protocol_literals(source, {"secagg", "prio3", "full-mesh"})) == [
        (2, "secagg"), (3, "prio3"), (4, "full-mesh"),
    ]  # fmt: skip
    assert sorted(upward_names(source, ("parties", "scenarios"))) == [
        (5, "scenarios.classroom"),
        (8, "parties.runner"),
    ]
