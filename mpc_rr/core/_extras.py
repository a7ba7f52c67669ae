"""Optional extras: import a module of one, or refuse with the exact command that installs it.

mpc-rr's optional features live in pip extras (``pyproject.toml``): ``classroom``
(hypercorn, segno), ``ray``, ``pandas``.  Every place that needs one imports it
through :func:`require_extra`, so a missing extra is a :class:`UsageError` (exit 2
from the command line, before any work) naming what to run, never a traceback.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from mpc_rr.core._errors import UsageError

__all__ = ["MissingExtra", "require_extra"]


class MissingExtra(UsageError):
    """An optional extra is not installed; the message ends with the command that installs it."""

    def __init__(self, module: str, extra: str, message: str) -> None:
        super().__init__(message)
        self.module = module
        self.extra = extra


def require_extra(module: str, extra: str, *, needed_for: str | None = None) -> ModuleType:
    """``importlib.import_module(module)``, or :class:`MissingExtra` if it cannot be imported:
    ``"<needed_for> needs <module>, which is not installed: pip install 'mpc-rr[<extra>]'"``.

    ``needed_for`` names the feature (default: "this"); ``module`` may be a submodule
    (``"hypercorn.trio"``), whose top-level package is what the message names.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        missing = getattr(exc, "name", None)
        why = "is not installed" if missing in (None, top, module) else f"cannot be imported ({exc})"
        raise MissingExtra(
            module, extra,
            f"{needed_for or 'this'} needs {top}, which {why}: pip install 'mpc-rr[{extra}]'",
        ) from None  # fmt: skip
