"""The classroom trace on a 1024 x 768 projector: every party's lifeline is on screen (the step
details move under the diagram), checked in headless Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.classroom import make_trace
from scenarios.classroom.html import render_html
from tests.scenarios.classroom.browser import chromium, needs_chromium

pytestmark = [needs_chromium, pytest.mark.xdist_group("browser")]


@pytest.mark.parametrize("size", [(1024, 768), (1600, 1000)])
def test_every_party_head_is_inside_the_diagram(size: tuple[int, int], tmp_path: Path) -> None:
    page = tmp_path / "trace.html"
    page.write_text(render_html(make_trace("secagg", 5, seed=1)))
    with chromium(*size) as d:
        d.get(page.as_uri())
        # the right edge of the last party's head against the visible part of the diagram pane
        last, pane = d.execute_script(
            "const heads = document.querySelectorAll('#heads rect.actor');"
            "const r = heads[heads.length - 1].getBoundingClientRect();"
            "const p = document.getElementById('diagram').getBoundingClientRect();"
            "return [r.right, p.right];"
        )
    assert last <= pane, (size, last, pane)
