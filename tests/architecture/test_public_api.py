"""Each package's public API is what docs/api.md documents, nothing more.

* **Documented = exported.** Under every ``::: package`` block docs/api.md lists the package's
  members (``options: members: [...]``, what mkdocstrings renders); that list must equal the
  package's ``__all__``. Every package of ``mpc_rr``, ``parties`` and ``transports`` with an
  ``__all__``, and ``scenarios`` itself, has a block.
* **The lazy table agrees.** A package that loads its names on first use
  (``lazy_exports(__name__, TABLE, globals())``) has ``TABLE``'s keys, the names its
  ``if TYPE_CHECKING:`` block imports (what mypy and mkdocstrings read) and ``__all__`` equal,
  each from the same module, which defines it.
* **Users see only public names.** The Python a user copies -- README.md, the fenced Python
  blocks of docs/, the notebooks of examples/ -- imports no private module (``_name``) and no
  name a package does not export.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
from functools import cache
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "docs" / "api.md"
CHECKED_TOPS = ("mpc_rr", "parties", "transports")

_BLOCK = re.compile(r"^::: ([\w.]+)[ \t]*\n((?:[ \t]+\S.*\n?)*)", re.MULTILINE)
_PYTHON = re.compile(r"^```(?:python|py)[ \t]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def documented(text: str) -> dict[str, list[str]]:
    """``package -> the members listed under its ::: block`` (no list: an empty one)."""
    out = {}
    for name, body in _BLOCK.findall(text):
        options = (yaml.safe_load(_dedent(body)) or {}).get("options", {}) if body.strip() else {}
        out[name] = list(options.get("members") or [])
    return out


def _dedent(body: str) -> str:
    lines = [line for line in body.splitlines() if line.strip()]
    cut = min(len(line) - len(line.lstrip()) for line in lines)
    return "\n".join(line[cut:] for line in lines)


def _module(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).parent.parts)


@cache
def _init_tree(package: str) -> ast.Module:
    return ast.parse((ROOT.joinpath(*package.split(".")) / "__init__.py").read_text())


def static_all(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            return list(ast.literal_eval(node.value))
    return None


def packages_with_api() -> list[str]:
    found = [
        _module(p)
        for top in CHECKED_TOPS
        for p in sorted((ROOT / top).rglob("__init__.py"))
        if static_all(ast.parse(p.read_text())) is not None
    ]
    return [*found, "scenarios"]


def lazy_tables(tree: ast.Module) -> tuple[dict[str, str], dict[str, str]] | None:
    """(the ``lazy_exports`` table: name -> module, the TYPE_CHECKING imports: name -> module),
    or None for a package that is not lazy."""
    table_name = None
    tables: dict[str, ast.expr] = {}
    checking: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            if isinstance(node.targets[0], ast.Name):
                tables[node.targets[0].id] = node.value
            call = node.value
            if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "lazy_exports":
                table_name = ast.unparse(call.args[1])
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module, ast.unparse(imp)
                for alias in imp.names:
                    module = imp.module if alias.name[0] != "_" else f"{imp.module}.{alias.name}:module"
                    checking[alias.asname or alias.name] = module
    if table_name is None:
        return None
    return dict(ast.literal_eval(tables[table_name])), checking


def test_every_package_exports_exactly_what_docs_api_md_lists() -> None:
    docs = documented(API.read_text())
    wrong = []
    for package in packages_with_api():
        exported = sorted(importlib.import_module(package).__all__)
        listed = sorted(docs.get(package, ["<no ::: block>"]))
        if exported != listed:
            wrong.append(
                f"{package}: exported, not listed {sorted(set(exported) - set(listed))}; "
                f"listed, not exported {sorted(set(listed) - set(exported))}"
            )
    stray = sorted(set(docs) - set(packages_with_api()))
    assert not wrong, "docs/api.md and the packages' __all__ disagree:\n" + "\n".join(wrong)
    assert not stray, f"docs/api.md documents packages the check does not know: {stray}"


def test_the_lazy_tables_agree_with_all_and_point_where_each_name_is_defined() -> None:
    bad = []
    for package in packages_with_api():
        tree = _init_tree(package)
        names = static_all(tree)
        tables = lazy_tables(tree)
        if tables is not None:
            table, checking = tables
            if not (set(table) == set(checking) == set(names or ())):
                bad.append(f"{package}: __all__, the table and TYPE_CHECKING list different names")
            bad += [
                f"{package}.{n}: the table says {table[n]}, TYPE_CHECKING imports it from {checking[n]}"
                for n in sorted(set(table) & set(checking))
                if table[n] != checking[n]
            ]
            bad += [f"{package}.{n}: {table[n]} does not define it" for n in sorted(table) if not binds(table[n], n)]
    assert not bad, "\n".join(bad)


def binds(module: str, name: str) -> bool:
    """Whether ``module`` (a repository module; ``"x.y:module"``: the module itself) defines
    or imports ``name`` at its top level -- read from the file, nothing imported."""
    base = ROOT.joinpath(*module.removesuffix(":module").split("."))
    path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    if module.endswith(":module") or not path.is_file():
        return path.is_file()
    return name in _bound(path)


@cache
def _bound(path: Path) -> frozenset[str]:
    bound: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Import | ast.ImportFrom):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return frozenset(bound)


def test_the_documented_list_is_read_from_the_block(tmp_path: Path) -> None:
    text = (
        "intro\n\n::: mpc_rr.x\n    options:\n      members: [b, a,\n        c]\n\n"
        "::: mpc_rr.y\n\n::: mpc_rr.z\n    options:\n      members:\n        - d\n"
    )
    assert documented(text) == {"mpc_rr.x": ["b", "a", "c"], "mpc_rr.y": [], "mpc_rr.z": ["d"]}
    tree = ast.parse(
        "__all__ = ['A', 'b']\n_T = {'A': 'p._m', 'b': 'p._n'}\n"
        "__getattr__, __dir__ = lazy_exports(__name__, _T, globals())\n"
        "if TYPE_CHECKING:\n    from p._m import A\n    from p._m import b\n"
    )
    assert static_all(tree) == ["A", "b"]
    assert lazy_tables(tree) == ({"A": "p._m", "b": "p._n"}, {"A": "p._m", "b": "p._m"})
    assert binds("mpc_rr.core._registry", "register_protocol")
    assert not binds("mpc_rr.core._registry", "SumProtocol")
    assert binds("mpc_rr.secure_sum._crypto:module", "crypto")


# -- what a user copies ------------------------------------------------------------------------


def user_code() -> list[tuple[str, str]]:
    """(where, Python source) of the README's and docs' Python blocks and the notebooks' cells."""
    out = []
    for md in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for i, block in enumerate(_PYTHON.findall(md.read_text())):
            out.append((f"{md.relative_to(ROOT)} block {i + 1}", block))
    for nb in sorted((ROOT / "examples").glob("*.ipynb")):
        for i, cell in enumerate(json.loads(nb.read_text())["cells"]):
            if cell["cell_type"] == "code":
                source = "".join(cell["source"])
                source = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
                out.append((f"{nb.relative_to(ROOT)} cell {i}", source))
    return out


def private_uses(where: str, source: str) -> list[str]:
    """The private modules and unexported names ``source`` imports from the repository's packages."""
    tops = (*CHECKED_TOPS, "scenarios")
    bad = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in tops:
            if any(part.startswith("_") for part in node.module.split(".")):
                bad.append(f"{where}: from {node.module} import ...")
                continue
            exported = _exports(node.module)
            bad += [f"{where}: {node.module}.{a.name}" for a in node.names if exported is not None and a.name not in exported]
        elif isinstance(node, ast.Import):
            bad += [f"{where}: import {a.name}" for a in node.names
                    if a.name.split(".")[0] in tops and any(p.startswith("_") for p in a.name.split("."))]  # fmt: skip
    return bad


@cache
def _exports(module: str) -> frozenset[str] | None:
    """A package's exported names and public subpackages/modules; None for a plain module or a
    package without ``__all__`` (nothing to check)."""
    folder = ROOT.joinpath(*module.split("."))
    if not (folder / "__init__.py").is_file():
        return None
    subs = {p.stem for p in folder.glob("*.py") if not p.stem.startswith("_")}
    subs |= {p.name for p in folder.iterdir() if (p / "__init__.py").is_file() and not p.name.startswith("_")}
    exported = getattr(importlib.import_module(module), "__all__", None)
    return None if exported is None else frozenset(exported) | subs


def test_the_code_users_copy_imports_only_public_names() -> None:
    bad = [line for where, source in user_code() for line in private_uses(where, source)]
    assert not bad, "docs and notebooks import private names:\n" + "\n".join(bad)


def test_the_user_code_check_catches_a_private_import() -> None:
    source = (
        "from mpc_rr.secure_sum._crypto import agree\nimport mpc_rr.core._roles\n"
        "from mpc_rr.secure_sum import shamir, SumProtocol\nfrom mpc_rr.secure_sum import secagg\n"
    )
    assert sorted(private_uses("x", source)) == [
        "x: from mpc_rr.secure_sum._crypto import ...",
        "x: import mpc_rr.core._roles",
        "x: mpc_rr.secure_sum.shamir",
    ]


# -- inside the project -------------------------------------------------------------------------

_FROM = re.compile(
    r"^[ \t]*from[ \t]+((?:mpc_rr|parties|transports|scenarios|benchmarks)(?:\.\w+)*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)",
    re.MULTILINE,
)


def from_imports(source: str) -> list[tuple[int, str, str]]:
    """(line, module, name) of every ``from <repository module> import name`` in ``source``
    (read with a pattern, not parsed: function-level imports included, fast over ~800 files)."""
    out = []
    for m in _FROM.finditer(source):
        line = source.count("\n", 0, m.start()) + 1
        names = re.sub(r"#[^\n]*", "", m.group(2)).strip("() \t\n\\")
        out += [(line, m.group(1), n.split()[0]) for n in names.split(",") if n.strip() and n.strip() != "*"]
    return out


def unexported_imports(source: str, where: str) -> list[str]:
    """The names ``source`` imports from a package that does not export them, or from a module
    that does not define them."""
    bad = []
    for line, module, name in from_imports(source):
        base = ROOT.joinpath(*module.split("."))
        if (base / "__init__.py").is_file():
            exported = _exports(module)
            if exported is None or name in exported or (base / f"{name}.py").is_file() or (base / name).is_dir():
                continue
            if not lazy_tables(_init_tree(module)) and binds(module, name):
                continue  # a plain package's own name, outside __all__
        elif base.with_suffix(".py").is_file():
            if binds(module, name) or binds(module, "__getattr__"):
                continue
        bad.append(f"{where}:{line}: {module} has no public {name}")
    return bad


def test_every_import_from_a_package_names_a_name_it_exports() -> None:
    """Code of the project that needs an internal name imports it from the module that defines it
    (``from mpc_rr.secure_sum._crypto import agree``): a package's ``__init__`` serves only its
    documented names. Checked over every ``.py`` file of the repository, tests included."""
    files = [p for top in (*CHECKED_TOPS, "scenarios", "benchmarks", "tests", "docs") for p in sorted((ROOT / top).rglob("*.py"))]
    bad = [line for path in files for line in unexported_imports(path.read_text(), str(path.relative_to(ROOT)))]
    assert not bad, "imports of names their package does not export (import from the defining module):\n" + "\n".join(bad)


def test_the_import_check_catches_an_unexported_name() -> None:
    source = (
        "from mpc_rr.core import Role, table  # ok\n"
        "def g():\n    from mpc_rr.secure_sum import (\n        SumProtocol,\n        agree as a,\n    )\n"
        "    from mpc_rr.secure_sum._crypto import agree, nothing_here\n"
        "from mpc_rr.secure_sum import secagg, _crypto as crypto\n"
        "from mpc_rr.secure_sum.secagg import SPEC, bitmap\n"
    )
    assert from_imports(source)[:3] == [(1, "mpc_rr.core", "Role"), (1, "mpc_rr.core", "table"), (3, "mpc_rr.secure_sum", "SumProtocol")]
    assert unexported_imports(source, "m.py") == [
        "m.py:3: mpc_rr.secure_sum has no public agree",
        "m.py:7: mpc_rr.secure_sum._crypto has no public nothing_here",
        "m.py:9: mpc_rr.secure_sum.secagg has no public bitmap",
    ]
