"""The classroom page on a projector: the participants' names stay on screen while the diagram
scrolls, presenter clickers (PageDown / PageUp) step, the current label is brought into view."""

from __future__ import annotations

import re

from scenarios.classroom import make_trace
from scenarios.classroom.html import render_html


def test_names_stay_at_the_top_and_clickers_step() -> None:
    t = make_trace("secagg", 10, seed=1)
    page = render_html(t)
    heads = re.search(r'<svg id="heads".*?</svg>', page, re.S)
    assert heads is not None
    names = re.findall(r'<text class="actor-t"[^>]*>([^<]+)</text>', heads.group(0))
    assert names == ["Agg", *[f"P{i}" for i in range(1, 11)]]
    seq = re.search(r'<svg id="seq".*?</svg>', page, re.S)
    assert seq is not None and 'class="actor"' not in seq.group(0)  # drawn once, in the strip
    assert re.search(r"\.heads\{position:sticky;top:0", page)
    assert "'PageDown'" in page and "'PageUp'" in page
    assert "scrollLeft" in page  # the current label is scrolled into view sideways too


def test_no_message_label_starts_left_of_the_diagram() -> None:
    """The first arrows (P1 -> Agg) are short and their labels long: centred on the arrow, "#1 Adve"
    fell left of the diagram, where no scrolling reaches (seen at 1280x800 in chromium)."""
    page = render_html(make_trace("secagg", 10, seed=1))
    labels = re.findall(r'<text class="lbl" x="([0-9.]+)" y="[0-9.]+">([^<]+)</text>', page)
    assert len(labels) == 120  # 10 parties, six rounds each way (with the draw and the consistency round)
    for x, text in labels:  # centred (text-anchor: middle) at 14 px, at most ~9.3 px a character
        assert float(x) - 9.3 * len(text.replace("&amp;", "&")) / 2 >= 0, (x, text)
