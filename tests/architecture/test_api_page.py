"""docs/api.md, the API reference generated from the docstrings: it builds, documents every
exported name, and is up to date (``python docs/gen_api.py`` rewrites it)."""

from __future__ import annotations

import importlib
import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GEN = runpy.run_path(str(ROOT / "docs" / "gen_api.py"), run_name="gen_api")


def test_the_api_page_documents_every_exported_name_and_is_up_to_date() -> None:
    page = GEN["render"]()
    for pkg in GEN["packages"]():
        mod = importlib.import_module(pkg)
        assert f"## `{pkg}`" in page
        for name in mod.__all__:
            assert f"- **`{name}`** (" in page, f"{pkg}.{name} is not on the page"
    # the docstrings' reStructuredText became Markdown, and nothing from one process only
    assert ":func:`" not in page and "``" not in page and " at 0x" not in page
    assert "`run_pipeline(data: 'Any', *, parties: 'int | None' = None," in page  # a signature, as inspect gives it
    committed = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    assert committed == page, "docs/api.md is not up to date: run python docs/gen_api.py (make api)"
