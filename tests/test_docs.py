"""The docs describe the product as it is: every path and module they name exists, and neither
they nor the sources tell the history of the work or cite files outside the repository.

What counts as a **repository path** (checked to exist; the rule has no false positives on
output files, user files or other machines' paths):

* in an inline code span (`` `...` ``, outside fenced blocks): its first token (cut at white
  space, ``::`` and a trailing ``:``), made only of letters, digits, ``_ . - /``, that either
  starts with a top-level folder of the repository (:data:`TOP`: ``mpc_rr/``, ``parties/``,
  ``transports/``, ``scenarios/``, ``tests/``, ``benchmarks/``, ``docs/``, ``examples/``,
  ``.ci/``) or is a file at its root (:data:`ROOT_FILES`), or is a bare file name ending in
  ``.py`` or ``.md`` (then some file of the repository has that name);
* in a fenced code block: every token that starts with one of :data:`TOP` followed by ``/``,
  and every bare ``NAME.py`` token;
* in README.md: every relative Markdown link target (docs links are checked by
  ``mkdocs build --strict``).

Not paths: tokens with placeholders (``<name>``, ``*``, ``{a,b}``), absolute paths
(``/tmp/...``), URLs, and files a command writes (``results.json``, ``deploy/roster.json``,
``survey.toml``): their first component is not a folder of the repository.

A **module** named is ``python -m X`` anywhere, or an inline code span that is a dotted path
starting with one of the repository's packages (``mpc_rr.core.Transcript``,
``mpc_rr.secure_sum.prio3:SPEC``, ``scenarios.cli.build_parser(...)``): its longest prefix that is
a module file or package of the repository must exist and the next component, if any, must be
a name in that module's source. Nothing is imported (other packages of ``python -m`` are found
with :func:`importlib.util.find_spec`).

**History** (:data:`HISTORY`): "issue N", "stop N", "wave N", "the Nth session", "this branch",
"the integrator", "the brief", "the/this/another issue('s)", ``DESIGN.md`` or its notes,
``STYLE.md``, ``../shared``, ``/work/...``, ``shared/papers`` and ``shared/specs`` (folders
beside the repository), in docs/, README.md and the sources of the four packages.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOP = ("mpc_rr", "parties", "transports", "scenarios", "tests", "benchmarks", "docs", "examples", ".ci")
ROOT_FILES = ("Makefile", "pyproject.toml", "README.md", "mkdocs.yml", ".gitignore")
PACKAGES = ("mpc_rr", "parties", "transports", "scenarios", "benchmarks")
SOURCES = ("mpc_rr", "parties", "transports", "scenarios")

HISTORY = re.compile(
    r"\bissue \d+|\bstop \d+|\bwave \d+|\blast stop\b|\bthis stop\b"
    r"|\b(?:first|second|third|fourth|fifth|earlier|previous|this) sessions?\b"
    r"|\bthis branch\b|\bthe integrator\b|\bthe brief\b|\b(?:the|this|another) issue'?s?\b"
    r"|DESIGN\.md|\bDESIGN note|STYLE\.md|\.\./shared|(?<![\w.~])/work/|\bshared/(?:papers|specs)\b",
    re.IGNORECASE,
)

_FENCE = re.compile(r"^( {0,3})(```+|~~~+)[^\n]*\n.*?^\1\2[ \t]*$", re.MULTILINE | re.DOTALL)
_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_TOKEN = re.compile(r"^[\w.\-/]+$")
_BLOCK_PATH = re.compile(
    r"(?<![\w./-])((?:" + "|".join(re.escape(t) for t in TOP) + r")/[\w./-]*|[\w-]+\.py)(?![\w/-])"
)
_RUN_MODULE = re.compile(r"python3? -m ([\w.]+)")
_DOTTED = re.compile(r"^((?:" + "|".join(PACKAGES) + r")(?:\.\w+)+)(?::(\w+))?(?:\(.*)?$")
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def doc_files() -> list[Path]:
    return [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]


def source_files() -> list[Path]:
    return sorted(p for d in SOURCES for p in (ROOT / d).rglob("*.py"))


def split_markdown(text: str) -> tuple[list[str], list[str]]:
    """(inline code spans outside fenced blocks, the fenced blocks' contents)."""
    blocks = [m.group(0) for m in _FENCE.finditer(text)]
    prose = _FENCE.sub("", text)
    return [m.group(2).strip() for m in _SPAN.finditer(prose)], blocks


def path_candidates(text: str) -> list[str]:
    """The repository paths a Markdown text names (the rule of the module docstring)."""
    spans, blocks = split_markdown(text)
    out = []
    for span in spans:
        token = span.split()[0].split("::")[0].rstrip(":,;") if span.split() else ""
        if not _TOKEN.match(token) or token.startswith(("/", "..")):
            continue
        first = token.split("/")[0]
        if ("/" in token and first in TOP) or token in ROOT_FILES:
            out.append(token)
        elif "/" not in token and token.endswith((".py", ".md")):
            out.append(token)
    for block in blocks:
        out += [m.group(1) for m in _BLOCK_PATH.finditer(block)]
    return out


@cache
def _basenames() -> frozenset[str]:
    names = {p.name for d in TOP if (ROOT / d).is_dir() for p in (ROOT / d).rglob("*")}
    return frozenset(names | set(ROOT_FILES))


def path_exists(token: str, root: Path = ROOT) -> bool:
    token = token.rstrip(".,")
    if "/" not in token:
        return token in _basenames() if root == ROOT else any(root.rglob(token))
    return (root / token.rstrip("/")).exists()


def module_candidates(text: str) -> list[tuple[str, str | None]]:
    """(dotted module path, attribute or None) of every module the text names."""
    spans, _ = split_markdown(text)
    out: list[tuple[str, str | None]] = [(m.group(1), None) for m in _RUN_MODULE.finditer(text)]
    for span in spans:
        m = _DOTTED.match(span)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def _module_file(dotted: str, root: Path) -> Path | None:
    base = root.joinpath(*dotted.split("."))
    for f in (base / "__init__.py", base.with_suffix(".py")):
        if f.is_file():
            return f
    return None


def module_exists(dotted: str, attr: str | None = None, root: Path = ROOT) -> bool:
    """A repository module (or an attribute of one) by the files alone; another package's
    module by :func:`importlib.util.find_spec`."""
    parts = dotted.split(".")
    if parts[0] not in PACKAGES:
        try:
            return importlib.util.find_spec(dotted) is not None
        except (ImportError, ValueError):
            return False
    for cut in range(len(parts), 0, -1):
        file = _module_file(".".join(parts[:cut]), root)
        if file is not None:
            rest = parts[cut:] + ([attr] if attr else [])
            return not rest or re.search(rf"\b{re.escape(rest[0])}\b", file.read_text("utf-8")) is not None
    return False


def history_lines(files: Iterable[Path]) -> list[str]:
    return [
        f"{f.relative_to(ROOT)}:{i}: {line.strip()[:120]}"
        for f in files
        for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
        if HISTORY.search(line)
    ]


def missing_paths(files: Iterable[Path]) -> list[str]:
    out = []
    for f in files:
        text = f.read_text(encoding="utf-8")
        out += [f"{f.relative_to(ROOT)}: {t}" for t in path_candidates(text) if not path_exists(t)]
        if f.name == "README.md":
            out += [
                f"README.md: link {t}"
                for t in _LINK.findall(text)
                if "://" not in t and not t.startswith(("#", "mailto:")) and not (ROOT / t.split("#")[0]).exists()
            ]
    return out


def missing_modules(files: Iterable[Path]) -> list[str]:
    return [
        f"{f.relative_to(ROOT)}: {mod}{':' + attr if attr else ''}"
        for f in files
        for mod, attr in module_candidates(f.read_text(encoding="utf-8"))
        if not module_exists(mod, attr)
    ]


def test_every_repository_path_the_docs_name_exists() -> None:
    assert missing_paths(doc_files()) == []


def test_every_module_the_docs_name_exists() -> None:
    assert missing_modules(doc_files()) == []


def test_the_docs_and_the_sources_tell_no_history_and_cite_nothing_outside_the_repository() -> None:
    assert history_lines(doc_files() + source_files()) == []


def test_the_commands_at_a_glance_are_the_commands_of_the_parser() -> None:
    from scenarios.cli import build_parser

    names = {a for act in build_parser()._actions if hasattr(act, "choices") and act.choices for a in act.choices}
    text = (ROOT / "docs" / "reference" / "commands.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| \[`mpc-rr ([\w-]+)", text, re.MULTILINE)
    assert listed and set(listed) - {"classroom"} <= names, set(listed) - names


PLANTED = """\
Code: `mpc_rr/secure_sum/full_mesh/_protocol.py` and `mpc_rr/core/_runs.py: Runner`,
`secagg_client.py`, `tests/mpc_rr/core/test_nope.py::test_x`, `docs/nope.md`.
Fine: `mpc_rr/core/_roles.py`, `results.json`, `deploy/roster.json`, `/tmp/x.py`,
`https://example.org/a/b.py`, `survey.toml`, `mpc_rr/secure_sum/<name>/`, `make test`.
Modules: `python -m benchmarks.nope`, `python -m benchmarks.secure_sum`, `mpc_rr.core.NoSuchName`,
`mpc_rr.core.Transcript`, `mpc_rr.secure_sum.prio3:SPEC`, `python -m no_such_package_here`.

```
mpc_rr/secure_sum/_plan.py     fine
mpc_rr/secure_sum/secagg/_gone.py   gone
  secagg_messages.py           gone
```
As measured in issue 25 (the fourth session), see DESIGN.md and ../shared/papers, /work/x.
"""


def test_the_checks_find_a_planted_bad_path_module_and_history_line() -> None:
    paths = path_candidates(PLANTED)
    bad = sorted(p for p in paths if not path_exists(p))
    assert bad == sorted([
        "mpc_rr/secure_sum/full_mesh/_protocol.py",
        "secagg_client.py",
        "tests/mpc_rr/core/test_nope.py",
        "docs/nope.md",
        "mpc_rr/secure_sum/secagg/_gone.py",
        "secagg_messages.py",
    ])
    # the good ones are candidates and exist; output files, URLs and placeholders are not candidates
    assert {"mpc_rr/core/_runs.py", "mpc_rr/core/_roles.py", "mpc_rr/secure_sum/_plan.py"} <= set(paths)
    assert not {"results.json", "deploy/roster.json", "/tmp/x.py", "survey.toml"} & set(paths)
    assert not any("example.org" in p or "<" in p for p in paths)
    mods = module_candidates(PLANTED)
    assert sorted(f"{m}:{a}" for m, a in mods if not module_exists(m, a)) == [
        "benchmarks.nope:None", "mpc_rr.core.NoSuchName:None", "no_such_package_here:None",
    ]
    assert len(mods) == 6
    assert [m.group(0).lower() for m in HISTORY.finditer(PLANTED)] == [
        "issue 25", "fourth session", "design.md", "../shared", "/work/",
    ]
    # a product's own "session" (a study's run of `mpc-rr scenario run`) is not history
    assert not HISTORY.search("the last session's start; a later session retries it")


@pytest.mark.parametrize("span", ["`mpc_rr/core/_roles.py`", "`Makefile`"])
def test_a_path_that_exists_passes(span: str) -> None:
    assert [p for p in path_candidates(span) if not path_exists(p)] == []
    assert path_candidates(span)


def test_the_cli_reference_page_is_the_parsers_help_of_every_command() -> None:
    import runpy

    from scenarios.cli import build_parser

    hook = runpy.run_path(str(ROOT / "docs" / "hooks" / "cli_reference.py"))
    page = hook["render"]()
    progs = []

    def walk(parser: Any) -> None:
        for _, sub in hook["_subcommands"](parser):
            progs.append(sub.prog)
            walk(sub)

    parser = build_parser()
    walk(parser)
    assert len(progs) > 20
    for prog in progs:
        assert f"`{prog}`\n" in page, prog
    run = next(sub for name, sub in hook["_subcommands"](parser) if name == "run")
    assert all(s in page for a in run._actions for s in a.option_strings)  # every flag of `run`


def test_the_python_examples_of_the_api_page_run() -> None:
    """Every ```python block of docs/api.md, executed as written, one namespace per block."""
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 2
    for i, code in enumerate(blocks):
        exec(compile(code, f"docs/api.md block {i + 1}", "exec"), {})
