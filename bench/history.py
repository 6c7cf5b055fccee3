"""Scale benchmark: the History and Tool-stats pages over a large run history.

Writes N realistic run records (real loop + clones, see ``bench/corpus.py``) into a data folder,
then measures, each in a fresh process:

- the floor: read and ``json.loads`` every file (what any reader must at least do once);
- per page (History, Tool stats), through ``app.py`` with ``streamlit.testing.v1.AppTest``:
  the first render with no index (cold), a warm rerun, the rerun after one new run is saved, and
  the first render in a new process once the index exists; plus the peak RSS of that process.

Prints a table and one JSON line of the figures (``BENCH_HISTORY {...}``).

    python bench/history.py                    # 10,000 runs in a temporary folder
    python bench/history.py --runs 100000 --out /tmp/h100k --keep
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

PAGES = {"history": ("pages/history.py", "history"), "tool_stats": ("pages/tool_stats.py", "tool_stats")}
TARGETS = {
    "first_render_x_floor": 1.5,
    "warm_rerun_s": 0.3,
    "after_new_run_s": 0.5,
    "restart_render_x_floor": 0.5,
    "peak_rss_mb": 1024,
}


# -- child processes ------------------------------------------------------------------------
def _rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def child_floor(data_dir: Path) -> dict[str, Any]:
    """Read and json.loads every *.json file of the runs folder."""
    runs_dir = data_dir / "runs"
    t0 = time.perf_counter()
    n = bad = 0
    for entry in os.scandir(runs_dir):
        if not entry.name.endswith(".json"):
            continue
        try:
            with open(entry.path, "rb") as handle:
                json.loads(handle.read())
            n += 1
        except (OSError, ValueError):
            bad += 1
    return {"floor_s": time.perf_counter() - t0, "files": n, "unreadable": bad, "rss_mb": _rss_mb()}


def _new_run(data_dir: Path) -> Path:
    """Save one more run through the real loop (scripted provider, instant tools)."""
    import random

    from corpus import bench_registry

    from agent_core.providers.scripted import ScriptedProvider
    from agent_core.run.loop import run_to_end
    from agent_core.settings import Settings

    rng = random.Random(5)
    provider = ScriptedProvider(
        [
            {"text": "", "tool_calls": [{"name": "calculator", "arguments": {"expression": "2+2"}}]},
            {"text": "The answer is 4."},
        ]
    )
    record = run_to_end(
        "What is 2+2? (bench: one new run)",
        provider=provider,
        registry=bench_registry(rng),
        settings=Settings(data_dir=data_dir, retry_delays=(0.0,)),
        rng=rng,
    )
    return data_dir / "runs" / f"{record['run_id']}.json"


def child_page(data_dir: Path, page: str) -> dict[str, Any]:
    """First render, warm reruns, rerun after a new run, for one page in this fresh process.

    The app is started first on an empty data folder (imports of streamlit, pandas and
    the pages: a fixed cost a running server has already paid), then a new session opens the
    page on ``data_dir``: that first render is what an analyst waits for.
    """
    os.chdir(ROOT)
    t0 = time.perf_counter()
    from streamlit.testing.v1 import AppTest
    from streamlit.util import calc_hash

    out: dict[str, Any] = {"page": page, "import_s": time.perf_counter() - t0}
    path, url_path = PAGES[page]

    def session(folder: Path, started: AppTest | None = None) -> AppTest:
        os.environ["AGENT_DATA_DIR"] = str(folder)
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
        # Open the page directly on the first run (as a browser opening its URL does).
        at._page_hash = calc_hash(url_path)  # noqa: SLF001 - AppTest offers switch_page only after a run
        if started is not None:
            # Every AppTest scans the installed packages for custom components on its first run
            # (~0.25 s); a server does that once at start-up, not per browser session.
            at._bidi_component_manager = started._bidi_component_manager  # noqa: SLF001
        return at

    # The empty folder stays until the child ends: with LOCAL_PRELOAD=1 the app's first run starts
    # loading the local model on its settings (as a server does at start), and that load must go on
    # through the renders measured below (a deleted folder ended it at once).
    empty_dir = tempfile.TemporaryDirectory()
    empty = empty_dir.name
    from agent_core.providers.local import preload
    from agent_core.settings import Settings

    os.environ["AGENT_DATA_DIR"] = empty
    # As `streamlit run serve.py` does at the server's start (LOCAL_PRELOAD=0 and a machine without
    # the local model: nothing). An AppTest opening a page directly runs that page alone, not app.py,
    # so the app's own start of the load never ran here.
    preload.start_if_default(Settings.from_env(), os.environ)
    t0 = time.perf_counter()
    first = session(Path(empty))
    first.run()
    out["app_start_s"] = time.perf_counter() - t0
    at = session(data_dir, first)

    def render(label: str) -> None:
        t = time.perf_counter()
        at.run()
        out[label] = time.perf_counter() - t
        if at.exception:
            raise RuntimeError(f"{page} raised: {at.exception[0].message}")

    render("first_s")
    titles = [t.value for t in at.title]
    if not any(("History" if page == "history" else "Tool stats") in str(v) for v in titles):
        raise RuntimeError(f"expected the {page} page, got titles {titles}")
    out["rss_after_first_mb"] = _rss_mb()
    render("warm_s")
    render("warm2_s")
    new = _new_run(data_dir)
    try:
        render("after_new_run_s")
        if page == "history":
            caption = " ".join(str(c.value) for c in at.caption)
            out["shown"] = caption[caption.find("of ") :].split(" runs")[0] if "of " in caption else caption[:80]
            out["table_rows"] = len(at.dataframe[-1].value) if at.dataframe else 0
        render("warm_after_new_s")
    finally:
        new.unlink(missing_ok=True)
    out["peak_rss_mb"] = _rss_mb()
    state = preload.current()
    out["preload"] = (
        "off"
        if state is None
        else "running"
        if state.running
        else f"failed: {state.error[:80]}"
        if state.error
        else f"done in {state.elapsed_s():.1f} s"
    )
    empty_dir.cleanup()
    return out


def _run_child(*args: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("CHILD "):
            return json.loads(line[6:])
    raise RuntimeError(f"child {args} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")


# -- the benchmark ----------------------------------------------------------------------------
def _corpus(data_dir: Path, runs: int) -> dict[str, Any]:
    marker = data_dir / "bench_corpus.json"
    if marker.exists():
        info = json.loads(marker.read_text())
        if info.get("runs") == runs:
            info["reused"] = True
            return info
    from corpus import build_corpus

    shutil.rmtree(data_dir / "runs", ignore_errors=True)
    shutil.rmtree(data_dir / "index", ignore_errors=True)
    info = build_corpus(data_dir / "runs", runs, templates=min(300, max(20, runs // 30)))
    marker.write_text(json.dumps(info))
    return info


def _drop_index(data_dir: Path) -> None:
    shutil.rmtree(data_dir / "index", ignore_errors=True)


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 3) if values else float("nan")


def bench(data_dir: Path, runs: int, repeat: int) -> dict[str, Any]:
    """Generate (or reuse) the corpus and measure every figure ``repeat`` times."""
    info = _corpus(data_dir, runs)
    load_start = os.getloadavg()[0]
    rounds: list[dict[str, Any]] = []
    floors: list[float] = []
    files: dict[str, int] = {}

    def floor_now() -> float:
        result = _run_child("floor", str(data_dir))
        floors.append(result["floor_s"])
        files["n"] = result["files"]
        return result["floor_s"]

    for _ in range(repeat):
        # The machine's load drifts: every render is compared with the floors measured just
        # before and just after it.
        r: dict[str, Any] = {}
        before = floor_now()
        for page in PAGES:
            for kind in ("cold", "indexed"):
                if kind == "cold":
                    _drop_index(data_dir)
                result = _run_child("page", str(data_dir), page)
                after = floor_now()
                result["floor_s"] = (before + after) / 2
                r[f"{page}_{kind}"] = result
                before = after
        rounds.append(r)
    floor = _median(floors)
    figures: dict[str, Any] = {
        "runs": runs,
        "files": files["n"],
        "bytes_total": info.get("bytes_total"),
        "size_p50": info.get("size_p50"),
        "size_p90": info.get("size_p90"),
        "size_max": info.get("size_max"),
        "repeat": repeat,
        "floor_s": floor,
        "floor_all_s": [round(f, 3) for f in floors],
        "import_streamlit_s": _median([x["history_cold"]["import_s"] for x in rounds]),
        "app_start_s": _median([x[k]["app_start_s"] for x in rounds for k in x]),
        "load_average": [round(load_start, 2), round(os.getloadavg()[0], 2)],
        "cpus": os.cpu_count(),
    }
    for page in PAGES:
        cold = [x[f"{page}_cold"] for x in rounds]
        hot = [x[f"{page}_indexed"] for x in rounds]
        ratios = [c["first_s"] / c["floor_s"] for c in cold]
        restart = [h["first_s"] / h["floor_s"] for h in hot]
        figures[page] = {
            "first_render_s": _median([c["first_s"] for c in cold]),
            "first_render_x_floor": _median(ratios),
            "warm_rerun_s": _median([h["warm_s"] for h in hot + cold] + [h["warm2_s"] for h in hot + cold]),
            "after_new_run_s": _median([h["after_new_run_s"] for h in hot + cold]),
            "restart_render_s": _median([h["first_s"] for h in hot]),
            "restart_render_x_floor": _median(restart),
            "peak_rss_mb": max(h["peak_rss_mb"] for h in hot + cold),
            "all": {"cold": cold, "indexed": hot},
        }
    return figures


def report(figures: dict[str, Any]) -> str:
    """The table printed for people."""
    lines = [
        f"runs: {figures['runs']:,}  files: {figures['files']:,}  total {figures['bytes_total'] / 1e6:,.1f} MB  "
        f"(p50 {figures['size_p50'] / 1024:.1f} KB, p90 {figures['size_p90'] / 1024:.1f} KB, "
        f"max {figures['size_max'] / 1024:.1f} KB)  rounds: {figures['repeat']}",
        f"floor (read + json.loads of every file): median {figures['floor_s']:.3f} s   "
        f"(all: {', '.join(f'{f:.2f}' for f in figures['floor_all_s'])}; each render is compared with "
        "the floors measured just before and after it)",
        f"not counted below: streamlit import {figures['import_streamlit_s']:.2f} s, then the app's first run on "
        f"an empty folder (imports of pandas and the pages) {figures['app_start_s']:.2f} s; "
        f"{figures['cpus']} CPUs, 1-min load average {figures['load_average'][0]} → {figures['load_average'][1]}",
        "",
        f"{'figure':<34}{'History':>12}{'Tool stats':>12}{'target':>14}",
    ]

    def row(label: str, key: str, target: str, fmt: str = "{:.3f}") -> None:
        values = [fmt.format(figures[p][key]) for p in PAGES]
        lines.append(f"{label:<34}{values[0]:>12}{values[1]:>12}{target:>14}")

    row("first render, cold (s)", "first_render_s", "")
    row("  × floor", "first_render_x_floor", "≤ 1.5 ×", "{:.2f} ×")
    row("warm rerun (s)", "warm_rerun_s", "≤ 0.3 s")
    row("rerun after one new run (s)", "after_new_run_s", "≤ 0.5 s")
    row("first render, new process (s)", "restart_render_s", "")
    row("  × floor", "restart_render_x_floor", "≤ 0.5 ×", "{:.2f} ×")
    row("peak RSS (MB)", "peak_rss_mb", "≤ 1024 MB", "{:.0f}")
    verdicts = []
    for page in PAGES:
        for key, limit in TARGETS.items():
            ok = figures[page][key] <= limit
            verdicts.append(f"{page}.{key} {'ok' if ok else 'MISSED'}")
    lines += ["", "; ".join(verdicts)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10_000, help="records to generate (default 10,000)")
    parser.add_argument("--out", type=Path, help="data folder to use (reused when it holds a corpus of --runs)")
    parser.add_argument("--keep", action="store_true", help="keep the data folder afterwards")
    parser.add_argument("--repeat", type=int, default=1, help="measure every figure this many times (median)")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        kind, data_dir, *rest = args.child
        result = child_floor(Path(data_dir)) if kind == "floor" else child_page(Path(data_dir), rest[0])
        print("CHILD " + json.dumps(result))
        return 0
    data_dir = args.out or Path(tempfile.mkdtemp(prefix="bench-history-"))
    created = not data_dir.exists() or not any(data_dir.iterdir())
    data_dir.mkdir(parents=True, exist_ok=True)
    try:
        figures = bench(data_dir.resolve(), args.runs, max(1, args.repeat))
        print(report(figures))
        compact = {k: v for k, v in figures.items()}
        for page in PAGES:
            compact[page] = {k: v for k, v in figures[page].items() if k != "all"}
        print("BENCH_HISTORY " + json.dumps(compact))
        (data_dir / "bench_result.json").write_text(json.dumps(figures, indent=1))
    finally:
        if not args.keep:
            if created:
                shutil.rmtree(data_dir, ignore_errors=True)
            else:
                for name in ("runs", "index", "_templates", "bench_corpus.json", "bench_result.json"):
                    target = data_dir / name
                    shutil.rmtree(target, ignore_errors=True) if target.is_dir() else target.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
