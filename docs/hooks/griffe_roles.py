"""Griffe extension: the docstrings' reStructuredText roles as Markdown code spans.

The library's docstrings name other objects as ``:func:`mpc_rr.x.f``` (and ``~`` for the
last component only); the API reference renders Markdown, so each role becomes a code
span: ``:func:`~mpc_rr.x.f``` -> `` `f` ``, ``:class:`Schema``` -> `` `Schema` ``.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?[a-z]+:`(~?)([^`<]*?)(?:\s*<[^>]*>)?`")


def plain(text: str) -> str:
    """``text`` with every reST role replaced by a Markdown code span."""
    return ROLE.sub(lambda m: f"`{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}`", text)


class RolesAsCode(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = plain(obj.docstring.value)
