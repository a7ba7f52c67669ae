"""Write docs/api.md, the API reference of ``mpc_rr``, from the docstrings (``make api``).

Every package of ``mpc_rr`` exports its API in ``__all__`` (a lazy ``__init__``);
for each package this lists the names it exports, each with its kind, its
signature and the first paragraph of its docstring, and the module that
defines it.  The page is generated, never edited by hand: the suite checks that
it is up to date and builds (``tests/architecture/test_api_page.py``); a name
without a docstring is marked so on the page (:func:`missing_docstrings` lists them).

    python docs/gen_api.py            # rewrite docs/api.md
    python docs/gen_api.py --check    # exit 1 if docs/api.md is not up to date
"""

from __future__ import annotations

import argparse
import enum
import importlib
import inspect
import pkgutil
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "api.md"

__all__ = ["main", "missing_docstrings", "packages", "render"]


def packages() -> list[str]:
    """``mpc_rr`` and every package under it, in import-path order."""
    import mpc_rr

    names = ["mpc_rr"] + [m.name for m in pkgutil.walk_packages(mpc_rr.__path__, "mpc_rr.") if m.ispkg]
    return sorted(names)


def _summary(doc: str | None) -> str:
    """The first paragraph of a docstring, on one line, its reStructuredText roles and literals
    as Markdown code (``:func:`~mpc_rr.x.f``` -> `` `f` ``)."""
    if not doc:
        return ""
    text = " ".join(inspect.cleandoc(doc).split("\n\n", 1)[0].split())
    text = re.sub(r":[a-z]+:`~?([^`<]*?)(?: <[^>]*>)?`", lambda m: f"`{m.group(1).rsplit('.', 1)[-1]}`"
                  if m.group(0).split("`")[1].startswith("~") else f"`{m.group(1)}`", text)  # fmt: skip
    return re.sub(r"``([^`]+)``", r"`\1`", text)


def _kind(obj: Any) -> str:
    if inspect.isclass(obj):
        if issubclass(obj, enum.Enum):
            return "enum"
        if issubclass(obj, BaseException):
            return "exception"
        return "class"
    if inspect.isfunction(obj) or inspect.isbuiltin(obj):
        return "function"
    if inspect.ismodule(obj):
        return "module"
    return "data"


def _signature(name: str, obj: Any) -> str:
    if not callable(obj) or inspect.ismodule(obj):
        return ""
    try:
        sig = str(inspect.signature(obj))
    except (TypeError, ValueError):
        return ""
    return f"{name}{sig}"


def _own_doc(obj: Any, kind: str) -> str | None:
    """The object's docstring, not one inherited from a builtin base (``int``, ``object``,
    ``Enum``, ``tuple``) -- that would document Python, not this name."""
    if kind == "data":
        return None
    doc = obj.__doc__ if kind in ("function", "module") else obj.__dict__.get("__doc__")
    return doc if isinstance(doc, str) else None


def _entry(pkg: str, name: str) -> tuple[str, str, str, str, str]:
    """(name, kind, signature, summary, defined-in) of one exported name."""
    obj = getattr(importlib.import_module(pkg), name)
    if callable(obj) and hasattr(obj, "__wrapped__"):  # a cached function: document the function
        obj = inspect.unwrap(obj)
    kind = _kind(obj)
    where = getattr(obj, "__module__", None) if kind != "data" else None
    if kind == "module":
        where = obj.__name__
    summary = _summary(_own_doc(obj, kind))
    if kind == "data":
        # (a set's order changes with the process's hash seed: sorted, the page stays the same)
        text = f"{{{', '.join(sorted(map(repr, obj)))}}}" if isinstance(obj, set | frozenset) else repr(obj)
        summary = f"`{type(obj).__name__}`" + (f": `{text}`" if len(text) <= 80 else "")
    return name, kind, _stable(_signature(name, obj)), _stable(summary), where or pkg


def _stable(text: str) -> str:
    """Without what changes from one process to the next (object addresses)."""
    return re.sub(r" (?:object )?at 0x[0-9a-f]+", "", text)


def missing_docstrings() -> list[str]:
    """``package.name`` of every exported class or function without its own docstring."""
    out = []
    for pkg in packages():
        mod = importlib.import_module(pkg)
        for name in getattr(mod, "__all__", ()):
            _, kind, _, summary, _ = _entry(pkg, name)
            if kind not in ("data", "module") and not summary:
                out.append(f"{pkg}.{name}")
    return out


def _source(module: str) -> str:
    """A link to the module's file in this repository (a third-party module: its name only)."""
    mod = sys.modules.get(module)
    file = Path(getattr(mod, "__file__", None) or "/").resolve()
    if not file.is_relative_to(ROOT):
        return f"`{module}`"
    return f"[`{module}`](../{file.relative_to(ROOT).as_posix()})"


def _anchor(pkg: str) -> str:
    return pkg.replace(".", "")


def render() -> str:
    """The whole page (deterministic: the same sources give the same bytes)."""
    pkgs = packages()
    lines = [
        "# API reference",
        "",
        "Generated from the docstrings by `python docs/gen_api.py` (`make api`); do not edit by hand.",
        "Every package of `mpc_rr` exports its API in `__all__`; a name's first docstring paragraph",
        "is shown here, the rest (parameters, units, the paper and equation it implements) is in",
        "the source it links to and in `help(name)`. The layers and what each package is for:",
        "[modules.md](modules.md).",
        "",
    ]
    for pkg in pkgs:
        mod = importlib.import_module(pkg)
        lines.append(f"- [`{pkg}`](#{_anchor(pkg)}) ({len(getattr(mod, '__all__', ()))} names): "
                     f"{_summary(mod.__doc__)}")  # fmt: skip
    for pkg in pkgs:
        mod = importlib.import_module(pkg)
        path = Path(mod.__file__ or "").resolve().relative_to(ROOT).as_posix()
        lines += ["", f"## `{pkg}`", "", f"[`{path}`](../{path}): {_summary(mod.__doc__)}", ""]
        for name in sorted(getattr(mod, "__all__", ()), key=str.lower):
            name, kind, sig, summary, where = _entry(pkg, name)
            text = summary or "*(no docstring yet)*"
            lines.append(f"- **`{name}`** ({kind}, in {_source(where)}): {text}")
            if sig and len(sig) > len(name) + 2:
                lines.append(f"  `{sig}`")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="write or check docs/api.md")
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/api.md is not up to date")
    args = ap.parse_args(argv)
    text = render()
    if args.check:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.relative_to(ROOT)} is not up to date: run python docs/gen_api.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({text.count(chr(10)):,} lines)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
