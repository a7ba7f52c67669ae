"""A lecture-hall live class: real Chromium pages plus the library's bots, from the last join to
the total on the teacher's page.

One ``classroom serve`` (in this process, on a thread) per protocol; one headless Chromium
whose tabs are the teacher's page and ``--pages`` students (each page runs the protocol with
WebCrypto); the rest of the class are the server's bots.  For each class size, each run: the
last student's tab joins and answers (the round starts on that join), and the time is taken
from that click to the moment the total reached the teacher's page (``window.teacher.resultAt``,
same machine clock).  Prints the median over ``--runs`` with the server's own round time, the
CPU seconds of this process (the server and the selenium client: what the round costs one core
when the machine is idle) and of the browser, the frames relayed, the teacher page's element count
and the load average.

    python -m benchmarks.classroom_scale [--pages 30] [--sizes 30,100,200] [--runs 3]

Needs ``chromium`` and ``chromedriver`` on the PATH (Debian: chromium, chromium-driver).
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import trio

from scenarios.classroom import LIVE_PROTOCOLS

SUM_PROTOCOLS = LIVE_PROTOCOLS[:2]  # the full mesh and SecAgg+ (the RR survey sums nothing)


@contextmanager
def chromium() -> Iterator[Any]:
    """One headless Chromium; every tab is a page (background tabs are not throttled)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    profile = tempfile.mkdtemp(prefix="mpc-rr-bench-chromium-")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync",
                 "--disable-background-networking", "--disable-component-update", "--disable-dev-shm-usage",
                 "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                 "--disable-backgrounding-occluded-windows", f"--user-data-dir={profile}",
                 "--window-size=1280,900"):  # fmt: skip
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "chromedriver"), options=opts)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _tree_cpu(root: int) -> float:
    """CPU seconds (user + system) of ``root`` and its descendants (Linux /proc; 0 elsewhere)."""
    stats: dict[int, tuple[int, float]] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[int(entry)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))
    inside, total, grew = {root}, 0.0, True
    while grew:
        grew = False
        for pid, (ppid, _) in stats.items():
            if ppid in inside and pid not in inside:
                inside.add(pid)
                grew = True
    for pid in inside:
        total += stats.get(pid, (0, 0.0))[1]
    return total


def _wait(driver: Any, script: str, *args: Any, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := driver.execute_script(script, *args)):
        if time.monotonic() > deadline:
            raise TimeoutError(f"the page never satisfied: {script}")
        time.sleep(0.02)
    return value


def _join(driver: Any, url: str, name: str, answer: int) -> str:
    driver.switch_to.new_window("tab")
    driver.get(url)
    _wait(driver, "return window.classroom && window.wire && window.wire.schema !== null")
    driver.find_element("id", "name").send_keys(name)
    driver.find_element("id", "go").click()
    _wait(driver, "return document.querySelectorAll('#options button').length > 0")
    driver.find_elements("css selector", "#options button")[answer].click()
    return str(driver.current_window_handle)


class _Class:
    """A ``classroom serve`` on a thread; :meth:`call` runs a function in its trio loop."""

    def __init__(self, protocol: str, max_students: int) -> None:
        from scenarios.classroom.live import Lesson
        from scenarios.classroom.serve import ServeOptions, serve

        self.info: dict[str, Any] = {}
        ready = threading.Event()
        lesson = Lesson(protocol, options=("A", "B", "C"))
        opts = ServeOptions(host="127.0.0.1", port=0, max_students=max_students, step_timeout=30.0)

        async def main() -> None:
            async with trio.open_nursery() as nursery:
                self.info.update(await nursery.start(lambda task_status: serve(
                    lesson, opts, out=io.StringIO(), task_status=task_status)))  # fmt: skip
                self.info["token"], self.info["cancel"] = trio.lowlevel.current_trio_token(), nursery.cancel_scope.cancel
                ready.set()

        self.thread = threading.Thread(target=trio.run, args=(main,), daemon=True)
        self.thread.start()
        if not ready.wait(30):
            raise RuntimeError("classroom serve did not start")
        self.room = self.info["room"]
        self.url = f"http://127.0.0.1:{self.info['port']}/"

    def call(self, fn: Any) -> None:
        self.info["token"].run_sync_soon(fn)

    def close(self) -> None:
        self.call(self.info["cancel"])
        self.thread.join(10)


def bench_protocol(driver: Any, protocol: str, sizes: list[int], pages: int, runs: int, seed: int) -> list[dict[str, Any]]:
    """Median last-join-to-total per class size with ``min(pages, size)`` pages."""
    rng = np.random.default_rng(seed)
    room = _Class(protocol, max_students=pages + 2)
    rows = []
    try:
        driver.switch_to.window(driver.window_handles[0])
        driver.get(room.info["teacher"])
        teacher = driver.current_window_handle
        steady: list[str] = []  # the pages that stay joined; the last page joins anew each run
        t = time.perf_counter()
        for i in range(pages - 1):
            steady.append(_join(driver, room.url, f"s{i:03d}", int(rng.integers(3))))
        opened = time.perf_counter() - t
        prev = None
        for size in sorted(sizes, reverse=True):  # the largest first: smaller classes close tabs
            keep = min(pages, size) - 1
            while len(steady) > keep:
                driver.switch_to.window(steady.pop())
                driver.close()
            driver.switch_to.window(teacher)
            bots = size - keep - 1
            samples, server, frames, dom, cpu, browser_cpu = [], [], 0, 0, [], []
            for run in range(runs):
                _wait_for(lambda k=keep: len(room.room.connected()) == k)
                room.call(lambda b=bots, s=size: (setattr(room.room, "bots", b), setattr(room.room, "auto_start", s)))
                time.sleep(0.05)
                c0, b0 = time.process_time(), _tree_cpu(driver.service.process.pid)
                last = _join(driver, room.url, f"late{size}-{run}", int(rng.integers(3)))
                t_join = time.time()
                driver.switch_to.window(teacher)
                out, at = _wait(driver, "const r = window.teacher.result;"
                                " return r && r.run !== arguments[0] && [r, window.teacher.resultAt]", prev, timeout=120)
                prev = out["run"]
                if not out["ok"] or out["count"] != size:
                    raise RuntimeError(f"{protocol} at {size}: {out}")
                samples.append(at / 1000 - t_join)
                cpu.append(time.process_time() - c0)
                browser_cpu.append(_tree_cpu(driver.service.process.pid) - b0)
                server.append(out["seconds"])
                frames = driver.execute_script("return window.teacher.frames")
                dom = driver.execute_script("return document.getElementsByTagName('*').length")
                driver.switch_to.window(last)
                driver.close()
                driver.switch_to.window(teacher)
            rows.append({"protocol": protocol, "size": size, "pages": keep + 1, "bots": bots,
                         "join_to_total": statistics.median(samples), "max": max(samples),
                         "server": statistics.median(server), "frames": frames, "dom": dom,
                         "cpu": statistics.median(cpu), "browser_cpu": statistics.median(browser_cpu),
                         "load": os.getloadavg()[0], "open_pages_s": opened})  # fmt: skip
            print(_line(rows[-1]), flush=True)
        for h in steady:
            driver.switch_to.window(h)
            driver.close()
    finally:
        room.close()
    return rows


def _wait_for(cond: Any, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise TimeoutError("the room never reached the expected state")
        time.sleep(0.05)


def _line(r: dict[str, Any]) -> str:
    return (f"{r['protocol']:>10} {r['size']:>5} {r['pages']:>6} {r['bots']:>5} {r['join_to_total']:>9.2f} "
            f"{r['max']:>7.2f} {r['server']:>8.2f} {r['cpu']:>7.2f} {r['browser_cpu']:>7.2f} {r['frames']:>8} "
            f"{r['dom']:>6} {r['load']:>5.1f}")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=30, help="real Chromium pages (the rest of each class are bots)")
    ap.add_argument("--sizes", default="30,100,200", help="class sizes, comma-separated")
    ap.add_argument("--runs", type=int, default=3, help="runs per size (the median is printed)")
    ap.add_argument("--protocols", default=",".join(SUM_PROTOCOLS), help="which live protocols")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    protocols = [p for p in args.protocols.split(",") if p]
    unknown = [p for p in protocols if p not in SUM_PROTOCOLS]
    if unknown or args.pages < 1 or min(sizes) < 4:
        raise SystemExit(f"--protocols among {', '.join(SUM_PROTOCOLS)}, --pages >= 1, sizes >= 4 (got {args})")
    print(f"load average at start {os.getloadavg()[0]:.1f}; {os.cpu_count()} cores")
    print(f"{'protocol':>10} {'class':>5} {'pages':>6} {'bots':>5} {'join->tot':>9} {'max':>7} {'server':>8} "
          f"{'cpu':>7} {'browser':>7} {'frames':>8} {'dom':>6} {'load':>5}")  # fmt: skip
    with chromium() as driver:
        for protocol in protocols:
            rows = bench_protocol(driver, protocol, sizes, args.pages, args.runs, args.seed)
            print(f"  ({protocol}: opening {args.pages - 1} pages took {rows[0]['open_pages_s']:.1f} s)")


if __name__ == "__main__":
    main()
