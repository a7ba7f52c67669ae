"""The results store's file: opening it (read-write or read-only), and SQLite's errors as ours.

SQLite reports trouble with the file as ``sqlite3.DatabaseError`` s raised by
any statement -- or later, while rows are fetched.  Left alone they reached
the command line as "internal error (a bug in mpc-rr)".  The
connection :func:`connect` returns translates them where they are raised:

* the disk (or a quota) is full: :class:`StoreFull` (the command exits 1,
  saying how many runs are stored and that the rerun resumes);
* the file is damaged (flipped bytes, truncated, zeroed) or is not SQLite:
  :class:`~mpc_rr.core.UsageError` naming the file and what is wrong
  (:func:`diagnose` looks at the header: size, magic, page count);
* the file or its folder may not be written: a UsageError saying so (and
  ``read_only=True`` opens it without writing anything: ``mode=ro``, or
  ``immutable=1`` when not even SQLite's side files may be created).
"""

from __future__ import annotations

import os
import sqlite3
import struct
from pathlib import Path
from typing import Any
from urllib.parse import quote

from mpc_rr.core import UsageError

__all__ = ["StoreFull", "connect", "diagnose", "translate"]

_MAGIC = b"SQLite format 3\x00"
_FULL, _CORRUPT, _NOTADB, _READONLY, _CANTOPEN, _IOERR = 13, 11, 26, 8, 14, 10


class StoreFull(Exception):
    """The disk holding the store filled up (SQLITE_FULL): nothing half-written is kept."""


def diagnose(path: Path) -> str:
    """What is wrong with ``path`` as an SQLite file, judged from its size and header."""
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            head = f.read(100)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if size == 0:
        return "is empty (0 bytes)"
    if not head.startswith(_MAGIC):
        if not head.strip(b"\x00"):
            return f"is damaged: its first {len(head)} bytes are all zero (a zeroed file)"
        return f"is not an SQLite file (it starts with {head[:16]!r})"
    if len(head) < 100:
        return f"is damaged: truncated inside its header ({size} bytes)"
    page = struct.unpack_from(">H", head, 16)[0]
    page = 65536 if page == 1 else page
    pages = struct.unpack_from(">I", head, 28)[0]
    if pages and size < page * pages:
        return f"is damaged: truncated to {size:,} bytes of the {page * pages:,} its header declares"
    return "is damaged (its pages do not read back as SQLite wrote them: flipped bytes?)"


def translate(path: Path, exc: sqlite3.Error) -> Exception:
    """The error to raise instead of SQLite's ``exc`` about the store ``path``."""
    code = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
    text = str(exc)
    if code == _FULL or "disk is full" in text:
        return StoreFull(f"{path}: the disk is full ({text})")
    if code in (_CORRUPT, _NOTADB) or any(w in text for w in ("malformed", "not a database", "decode to UTF-8")):
        return UsageError(f"{path}: not (or no longer) an mpc-rr results store: the file "
                          f"{diagnose(path)} [{text}]")  # fmt: skip
    if code == _READONLY or "readonly" in text:
        return UsageError(f"{path}: cannot write the results store (read-only: {text}); "
                          "`mpc-rr results` and `mpc-rr report` can still read it")  # fmt: skip
    if code in (_CANTOPEN, _IOERR):
        return UsageError(f"{path}: cannot open or read the results store ({text})")
    return exc


class _Cursor(sqlite3.Cursor):
    """Raises :func:`translate` d errors, also while rows are fetched."""

    _path: Path

    def execute(self, sql: str, parameters: Any = (), /) -> _Cursor:
        try:
            return super().execute(sql, parameters)  # type: ignore[return-value]
        except sqlite3.Error as exc:
            raise translate(self._path, exc) from None

    def executescript(self, script: str, /) -> _Cursor:
        try:
            return super().executescript(script)  # type: ignore[return-value]
        except sqlite3.Error as exc:
            raise translate(self._path, exc) from None

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.Error as exc:
            raise translate(self._path, exc) from None

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.Error as exc:
            raise translate(self._path, exc) from None

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except sqlite3.Error as exc:
            raise translate(self._path, exc) from None


class _Connection(sqlite3.Connection):
    _path: Path

    def _cursor(self) -> _Cursor:
        cur = self.cursor(_Cursor)
        cur._path = self._path
        return cur

    def execute(self, sql: str, parameters: Any = (), /) -> _Cursor:
        return self._cursor().execute(sql, parameters)

    def executescript(self, script: str, /) -> _Cursor:
        return self._cursor().executescript(script)


def connect(path: Path, *, read_only: bool = False) -> sqlite3.Connection:
    """Open the store file; ``read_only``: write nothing, not even SQLite's side files
    when the file or its folder is read-only (``immutable=1``)."""
    if read_only:
        writable = os.access(path, os.W_OK) and os.access(path.parent or Path("."), os.W_OK)
        uri = f"file:{quote(str(path.resolve()))}?" + ("mode=ro" if writable else "immutable=1")
        db = sqlite3.connect(uri, uri=True, timeout=60.0, isolation_level=None, factory=_Connection)
    else:
        db = sqlite3.connect(path, timeout=60.0, isolation_level=None, factory=_Connection)
    assert isinstance(db, _Connection)
    db._path = path
    return db
