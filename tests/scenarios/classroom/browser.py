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
    proc: subprocess.Popen[str]
    port: int
    teacher: str
    stderr_lines: list[str]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def outcome(self, timeout: float = 60) -> dict[str, Any]:
        out, err = self.proc.communicate(timeout=timeout)
        self.stderr_lines.extend(err.splitlines())
        return dict(json.loads(out))


@contextmanager
def classroom(*args: str) -> Iterator[Server]:
    """``mpc-rr classroom serve --once --json --port 0 ARGS`` on loopback, killed on exit."""
    cmd = [sys.executable, "-c", "from scenarios.cli import main; raise SystemExit(main())",
           "classroom", "serve", "--once", "--json", "--port", "0", "--host", "127.0.0.1", *args]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    port, teacher = 0, ""
    assert proc.stderr is not None
    deadline = time.monotonic() + 30
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
    server = Server(proc, port, teacher, lines)
    try:
        yield server
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


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
