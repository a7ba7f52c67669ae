"""Names a user chooses from, import-free (the command line reads them at start-up)."""

from __future__ import annotations

__all__ = ["SECURE_SUM_PROTOCOLS"]

SECURE_SUM_PROTOCOLS: tuple[str, ...] = ("full-mesh", "full-mesh-board", "secagg")
