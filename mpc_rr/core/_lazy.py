"""Package names loaded on first use (PEP 562): one ``__getattr__`` / ``__dir__`` pair.

``mpc_rr``, ``parties`` and ``transports`` export names from their submodules
without importing them up front, so that a process importing one light
submodule (a party process, a multi-process runner needing only
``transports.pki``, the command line) does not pay for the rest.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, home: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` for the names of ``home``.

    ``home`` maps each exported name to the module that defines it, or to
    ``"<module>:module"`` for a module exported whole as a namespace (e.g.
    ``crypto`` of ``mpc_rr.secure_sum``); ``namespace`` is the package's
    ``globals()``, where a loaded name is kept so that the next access is a
    plain lookup.
    """

    def __getattr__(name: str) -> Any:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        if module.endswith(":module"):
            value = importlib.import_module(module.removesuffix(":module"))
        else:
            value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(home))

    return __getattr__, __dir__
