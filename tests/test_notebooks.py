"""The notebooks in ``examples/`` run top to bottom, and are kept in the repository without outputs.

Each notebook is executed by a fresh Jupyter kernel (nbclient) in a temporary
folder, so the figures it saves land there; a cell that raises fails the test
with the cell's traceback. The notebooks use small sizes so the whole file
runs in well under a minute.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="the test extra installs nbformat")
nbclient = pytest.importorskip("nbclient", reason="the test extra installs nbclient")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))


def test_there_are_notebooks() -> None:
    assert len(NOTEBOOKS) >= 3, NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_without_outputs(path: Path) -> None:
    book = nbformat.read(path, as_version=4)
    nbformat.validate(book)
    dirty = [i for i, c in enumerate(book.cells)
             if c.cell_type == "code" and (c.outputs or c.execution_count is not None)]  # fmt: skip
    assert not dirty, f"{path.name}: cells {dirty} hold outputs (clear them before committing)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    book = nbformat.read(path, as_version=4)
    # the kernel imports this checkout's packages, whatever the kernel's own cwd
    root = str(EXAMPLES.parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    # the kernel talks to this process over IPC sockets in tmp_path, not loopback TCP
    manager = nbclient.client.KernelManager(kernel_name="python3", transport="ipc",
                                            ip=str(tmp_path / "kernel"))  # fmt: skip
    client = nbclient.NotebookClient(book, km=manager, timeout=300,
                                     resources={"metadata": {"path": str(tmp_path)}})  # fmt: skip
    client.execute()
    errors = [o for c in book.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    # each notebook saves at least one figure, and it is a real PNG
    figures = list(tmp_path.glob("*.png"))
    assert figures, f"{path.name} saved no figure"
    assert all(f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for f in figures)
