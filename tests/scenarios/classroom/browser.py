"""Helpers of the browser tests: a real ``mpc-rr classroom serve`` process and headless Chromium
(Debian's ``chromium`` + ``chromium-driver``, driven by selenium)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium")
DRIVER = shutil.which("chromedriver")

needs_chromium = pytest.mark.skipif(
    not (CHROMIUM and DRIVER) and not os.environ.get("CI"),
    reason="headless chromium + chromium-driver are not installed (.ci/run installs them)",
)  # in CI a missing browser is a failure, not a skip


@dataclass
class Server:
    """A ``classroom serve`` for a test: its port, teacher URL and log (the room's event lines)."""

    port: int
    teacher: str
    stderr_lines: list[str]
    _wait: Any

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def outcome(self, timeout: float = 60) -> dict[str, Any]:
        out: dict[str, Any] = self._wait(timeout)
        return out


@contextmanager
def classroom_process(*args: str) -> Iterator[Server]:
    """``mpc-rr classroom serve --once --json --port 0 ARGS`` as its own process, killed on exit."""
    cmd = [sys.executable, "-c", "from scenarios.cli import main; raise SystemExit(main())",
           "classroom", "serve", "--once", "--json", "--port", "0", "--host", "127.0.0.1", *args]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    port, teacher = 0, ""
    assert proc.stderr is not None
    deadline = time.monotonic() + 60
    while not teacher and time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line.rstrip())
        if m := re.search(r"join at http://127\.0\.0\.1:(\d+)/", line):
            port = int(m.group(1))
        if m := re.search(r"(http://\S+/teacher\?key=\S+)", line):
            teacher = m.group(1)
    if not teacher:
        proc.kill()
        raise RuntimeError("classroom serve did not start:\n" + "\n".join(lines) + proc.stderr.read())

    def wait(timeout: float) -> dict[str, Any]:
        out, err = proc.communicate(timeout=timeout)
        lines.extend(err.splitlines())
        return dict(json.loads(out))

    try:
        yield Server(port, teacher, lines, wait)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@contextmanager
def classroom(protocol: str, *, options: tuple[str, ...] = ("Yes", "No"), p: float = 0.5,
              drop_bot: str | None = None, **opts: Any) -> Iterator[Server]:  # fmt: skip
    """The same server (:func:`scenarios.classroom.serve.serve`, what the command runs) in a
    thread of this process with ``once=True``: no interpreter start per test."""
    import io
    import threading

    import trio

    from scenarios.classroom.live import Lesson
    from scenarios.classroom.serve import ServeOptions, serve

    lesson = Lesson(protocol, options=options, p=p, drop_bot=drop_bot)
    config = ServeOptions(host="127.0.0.1", port=0, once=True, **opts)
    lines: list[str] = []
    info: dict[str, Any] = {}
    result: dict[str, Any] = {}
    ready = threading.Event()

    async def main() -> None:
        async def run(task_status: trio.TaskStatus[Any]) -> None:
            result["out"] = await serve(lesson, config, out=io.StringIO(), log=lines.append,
                                        task_status=task_status)  # fmt: skip

        with trio.CancelScope() as scope:
            info["cancel"], info["token"] = scope.cancel, trio.lowlevel.current_trio_token()
            async with trio.open_nursery() as nursery:
                info.update(await nursery.start(run))
                ready.set()
        ready.set()

    thread = threading.Thread(target=trio.run, args=(main,), daemon=True)
    thread.start()
    ready.wait(30)
    if "port" not in info:
        raise RuntimeError("classroom serve did not start")

    def wait(timeout: float) -> dict[str, Any]:
        thread.join(timeout)
        if thread.is_alive():
            raise TimeoutError("the round did not end")
        return dict(result["out"])

    try:
        yield Server(info["port"], info["teacher"], lines, wait)
    finally:
        if thread.is_alive():
            info["token"].run_sync_soon(info["cancel"])
            thread.join(10)


@contextmanager
def chromium(width: int = 1280, height: int = 900) -> Iterator[Any]:
    """One headless Chromium (several tabs: each tab is one student)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM or "chromium"
    profile = tempfile.mkdtemp(prefix="mpc-rr-chromium-")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--disable-background-timer-throttling",
                 "--disable-renderer-backgrounding", "--disable-backgrounding-occluded-windows",
                 f"--user-data-dir={profile}", f"--window-size={width},{height}"):  # fmt: skip
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER or "chromedriver"), options=opts)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def open_student(driver: Any, url: str, name: str, answer: int | None, *, new_tab: bool = True) -> str:
    """Open a student tab, join as ``name``, pick option ``answer`` (None: no answer yet)."""
    if new_tab:
        driver.switch_to.new_window("tab")
    driver.get(url)
    wait_js(driver, "return window.classroom && window.wire && window.wire.schema !== null")
    driver.find_element("id", "name").send_keys(name)
    driver.find_element("id", "go").click()
    if answer is not None:
        wait_js(driver, "return document.querySelectorAll('#options button').length > 0")
        driver.find_elements("css selector", "#options button")[answer].click()
    handle: str = driver.current_window_handle
    return handle


def wait_js(driver: Any, script: str, timeout: float = 20) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = driver.execute_script(script)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"browser never satisfied: {script}")
        time.sleep(0.05)


def close_tabs(driver: Any) -> None:
    """Close every tab but one (each test starts with a single blank tab)."""
    handles = driver.window_handles
    for h in handles[1:]:
        driver.switch_to.window(h)
        driver.close()
    driver.switch_to.window(handles[0])
    driver.get("about:blank")
