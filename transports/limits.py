"""Operating-system limits checked before a run starts, not discovered halfway through it.

Thousands of TCP parties in one process need two file descriptors each (the
client's socket and the hub's end of it).  Past ``RLIMIT_NOFILE`` the OS
refuses new sockets with "Too many open files" in the middle of a run;
:func:`ensure_fd_limit` checks the budget up front, raises the soft limit
when the hard limit allows it, and otherwise refuses with a
:class:`~mpc_rr.core.UsageError` that says what to do.
"""

from __future__ import annotations

import os

from mpc_rr.core import UsageError

try:
    import resource
except ImportError:  # not on POSIX: the OS has no such limit to check
    resource = None  # type: ignore[assignment]

__all__ = ["ensure_fd_limit", "open_fd_count"]


def open_fd_count() -> int:
    """Number of file descriptors this process has open now (0 if the OS does not say)."""
    for d in ("/proc/self/fd", "/dev/fd"):
        try:
            return len(os.listdir(d))
        except OSError:
            continue
    return 0


def ensure_fd_limit(needed: int, what: str, *, alternative: str = "run fewer parties per process") -> int | None:
    """Make sure this process can open ``needed`` more file descriptors.

    The descriptors already open are counted and added.  If the soft limit
    ``RLIMIT_NOFILE`` is too low but the hard limit allows enough, the soft
    limit is raised to what is needed.

    Parameters
    ----------
    needed:
        Descriptors the caller is about to open (sockets, files), including
        its own headroom.
    what:
        The operation, for the error message (e.g. ``"run_tcp with 10100
        parties in one process"``).
    alternative:
        What else the user can do, ending the error message.

    Returns
    -------
    The soft limit now in force, or ``None`` where the OS has no such limit.

    Raises
    ------
    UsageError
        ``needed`` is negative, or the hard limit is too low: the message
        states the limit, the number needed and how to raise it.
    """
    if isinstance(needed, bool) or not isinstance(needed, int) or needed < 0:
        raise UsageError(f"ensure_fd_limit: needed must be an int >= 0, got {needed!r}")
    if resource is None:
        return None
    total = open_fd_count() + needed
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= total:
        return soft
    if hard == resource.RLIM_INFINITY or hard >= total:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (total, hard))
            return total
        except (ValueError, OSError):
            pass  # e.g. above the kernel's nr_open: report as too low
    shown_hard = "unlimited" if hard == resource.RLIM_INFINITY else str(hard)
    raise UsageError(
        f"{what} needs about {total} open files ({needed} more than the "
        f"{total - needed} already open), but the open-file limit (RLIMIT_NOFILE) "
        f"is {soft} and cannot be raised past the hard limit {shown_hard}; raise it with "
        f"`ulimit -n {total}` in the shell that starts this (raising the hard limit "
        f"may need root: /etc/security/limits.conf or systemd's LimitNOFILE), "
        f"or {alternative}"
    )
