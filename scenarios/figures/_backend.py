"""matplotlib without a display, imported only when a figure is drawn (``mpc-rr --help`` stays fast)."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["LOG_SPAN", "plain_log", "pyplot"]

# a measured x (messages, bytes, seconds) goes on a log axis only from this ratio of its largest to
# its smallest value (a decade and a half): on a narrower span a linear axis from zero shows the
# differences in proportion, and the smallest value still sits clear of the origin
LOG_SPAN = 30.0


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the non-interactive Agg backend (files only, no window)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plain_log(axis: Any) -> None:
    """Tick labels of a log axis as plain numbers (300, 1,000, 0.05) instead of powers of ten
    (call it once the data are drawn: the labelled minor ticks depend on the span)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    def fmt(v: float, _pos: int) -> str:
        return f"{v:,.0f}" if v >= 10 else f"{v:g}"

    lo, hi = axis.get_view_interval()
    span = hi / lo if lo > 0 else math.inf
    # a short span: 2, 3 and 5 times a power of ten; up to three decades: 3 times (evenly between
    # the decades, so a panel of a decade or two has labels at its low end too); wider: decades
    leads = "235" if span < LOG_SPAN else ("3" if span < 1000 else "")

    def minor(v: float, pos: int) -> str:
        lead = f"{v:.0e}"[0]
        return fmt(v, pos) if lead in leads else ""

    axis.set_major_formatter(FuncFormatter(fmt))
    axis.set_minor_formatter(FuncFormatter(minor) if leads else NullFormatter())
