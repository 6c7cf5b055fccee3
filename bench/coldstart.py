"""Cold start of the local model: how long a new user waits for the first answer.

Prints, for the seed goal on the ``local`` provider:

- ``cli``: a new ``python -m agent_core run`` process, with the prompt cache absent (the
  ``agent_data/cache/`` folder removed first) and then present, wall clock to the answer;
- ``browser``: a fresh Streamlit server, the first Run clicked in headless Chromium as soon as the
  page shows, measured from the click to the answer on the page's own clock (the click event to
  the first frame that shows the outcome: :data:`PAGE_CLOCK`), and from the server's start;
- ``steps``: the median step over an everyday eval (a spread of goals from
  ``evals/everyday.yaml``) in one process, all steps and the generated ones (planned calls cost
  no model time), with the pass count so a speed-up that loses answers shows;
- ``profile``: the same goals in this process, each generated step taken apart: prompt tokens
  reused from the cache and computed, generated tokens, their times, and the grammar's share
  (a few steps generated again without the grammar, from the cached prompt);
- the peak RSS of each process, and the load average (``uptime``) next to every figure: the
  machine is shared, and on 2 cores a load of 4 doubles every time here.

It prints figures; it is not a timed test. Each part ends with one ``BENCH_COLDSTART`` JSON line.

    python bench/coldstart.py                 # all parts
    python bench/coldstart.py cli --repeats 2
    python bench/coldstart.py browser
    python bench/coldstart.py steps --goals 10
    python bench/coldstart.py profile --goals 6
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LAST_CPU_S = [0.0]
SEED_GOAL = "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요."
PAGE_CLOCK = """() => {
  const now = () => performance.timeOrigin + performance.now();
  window.__bench = {click: null, outcome: null};
  document.addEventListener("click", () => { window.__bench.click ??= now(); }, true);
  new MutationObserver((_, observer) => {
    if (document.body.innerText.includes("Outcome:")) {
      observer.disconnect();
      requestAnimationFrame(() => { window.__bench.outcome = now(); });
    }
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""
"""Installed in the page before the click: the page's own clock at the Run click and at the first
frame that shows the outcome, what a person sees. Playwright's wait for the text polls, and
noticed it up to ~1 s late in one run here."""


def load() -> str:
    """The 1/5/15-minute load averages, as ``uptime`` prints them."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


def bench_env(data: Path) -> dict[str, str]:
    """The environment of a measured process: ``data`` as its data folder and a request timeout
    long enough that a loaded machine measures a slow answer instead of a failed one."""
    return {"REQUEST_TIMEOUT": "900", **os.environ, "AGENT_DATA_DIR": str(data)}


def fresh_data_dir() -> Path:
    root = Path(tempfile.mkdtemp(prefix="coldstart-bench-")) / "agent_data"
    shutil.copytree(ROOT / "agent_data" / "workspace", root / "workspace")
    (root / "runs").mkdir()
    return root


def timed_process(args: list[str], env: dict[str, str]) -> tuple[float, int, str, int]:
    """Run ``args``; ``(wall s, peak RSS MB, stdout, exit code)``; its CPU seconds (user + system,
    all threads: far less sensitive to the machine's load than the wall clock) in ``LAST_CPU_S``."""
    started = time.perf_counter()
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    out = proc.stdout.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    LAST_CPU_S[0] = round(usage.ru_utime + usage.ru_stime, 1)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, round(usage.ru_maxrss / 1024), out, proc.returncode


def emit(part: str, **figures: Any) -> None:
    print("BENCH_COLDSTART " + json.dumps({"part": part, **figures}, ensure_ascii=False), flush=True)


def bench_cli(repeats: int) -> None:
    data = fresh_data_dir()
    env = bench_env(data)
    cmd = [sys.executable, "-m", "agent_core", "run", SEED_GOAL, "--provider", "local", "--json"]
    rows = []
    for label in ["cache absent"] + ["cache present"] * repeats:
        if label == "cache absent":
            shutil.rmtree(data / "cache", ignore_errors=True)
        before = load()
        wall, rss, out, code = timed_process(cmd, env)
        try:
            record = json.loads(out)
        except ValueError:
            record = {}
        answer = (record.get("answer") or "").replace("\n", " ")
        meta = record.get("provider_meta") or {}
        row = {
            "case": label,
            "wall_s": round(wall, 1),
            "cpu_s": LAST_CPU_S[0],
            "peak_rss_mb": rss,
            "exit": code,
            "load_ms": meta.get("load_ms"),
            "warm_ms": meta.get("warm_ms"),
            "prompt_cache": meta.get("prompt_cache"),
            "answer": answer[:60],
            "load_before": before,
            "load_after": load(),
        }
        rows.append(row)
        print(
            f"cli, {label}: {wall:.1f} s to the answer ({LAST_CPU_S[0]:.1f} CPU s), peak RSS {rss} MB, exit {code}; "
            f"load {meta.get('load_ms')} ms, warm {meta.get('warm_ms')} ms, cache {meta.get('prompt_cache')}; "
            f"{answer[:50]!r}  [{before} → {load()}]",
            flush=True,
        )
    emit("cli", rows=rows)


def bench_browser(timeout_s: float) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from browser_kit import browser_page, chromium, streamlit_app, wait_idle

    data = fresh_data_dir()
    # The prompt cache of this data folder: built by one CLI run first, as a user who ran the
    # app once before has it.
    env = bench_env(data)
    warm = [sys.executable, "-m", "agent_core", "run", "hello", "--provider", "local", "-q"]
    with_cache = os.environ.get("COLDSTART_BROWSER_CACHE", "1") != "0"
    if with_cache:
        timed_process(warm, env)
    before = load()
    started = time.perf_counter()
    with streamlit_app(data, bench_env(data)) as app, chromium() as browser, browser_page(browser) as page:
        page.goto(app.url + "/")
        page.get_by_label("Goal", exact=True).wait_for(timeout=60_000)
        shown = time.perf_counter() - started
        area = page.get_by_label("Goal", exact=True)
        area.fill(SEED_GOAL)
        area.press("Control+Enter")
        wait_idle(page)
        page.evaluate(PAGE_CLOCK)
        clicked = time.perf_counter()
        page.locator(".st-key-run_start button").click()
        page.get_by_text("Outcome:").first.wait_for(timeout=timeout_s * 1000)
        answered = time.perf_counter()
        page.wait_for_function("window.__bench.outcome !== null", timeout=5_000)
        clock = page.evaluate("window.__bench")
        outcome = page.get_by_text("Outcome:").first.inner_text()
        records = [json.loads(p.read_text(encoding="utf-8")) for p in (data / "runs").glob("*.json")]
        seed = [r for r in records if r.get("goal") == SEED_GOAL]
        answer = (seed[0].get("answer") or "") if seed else ""
        # The model's share of the wait: the same step takes ~50 % longer here than on the CLI,
        # where no browser shares the cores.
        model_s = sum(step.get("model_duration_ms") or 0 for step in seed[0].get("steps", [])) / 1000 if seed else 0.0
        rss = _streamlit_peak_rss(app.url)
    click_s = (clock["outcome"] - clock["click"]) / 1000  # the page's clock: click event → frame shown
    noticed_s = answered - clicked  # Playwright's: before its click → its wait noticed the text
    total_s = answered - started
    print(
        f"browser, cache {'present' if with_cache else 'absent'}: first Run click → answer shown {click_s:.2f} s "
        f"(of which the model {model_s:.1f} s; Playwright noticed it {noticed_s:.2f} s after its click; page "
        f"shown {shown:.1f} s after the server start, answer {total_s:.1f} s after it); "
        f"{outcome!r} {answer[:50]!r}; peak RSS {rss} MB  [{before} → {load()}]",
        flush=True,
    )
    emit(
        "browser",
        click_to_answer_s=round(click_s, 2),
        playwright_click_to_answer_s=round(noticed_s, 2),
        model_s=round(model_s, 1),
        page_shown_s=round(shown, 1),
        start_to_answer_s=round(total_s, 1),
        cache=with_cache,
        answer=answer[:60],
        peak_rss_mb=rss,
        load_before=before,
        load_after=load(),
    )


def _streamlit_peak_rss(url: str) -> int | None:
    """Peak RSS (MB) of the streamlit process serving ``url`` (found by its port), or None."""
    port = url.rsplit(":", 1)[1]
    for status in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            cmdline = status.read_bytes().split(b"\0")
        except OSError:
            continue
        if b"streamlit" in b" ".join(cmdline) and port.encode() in cmdline:
            for line in (status.parent / "status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024)
    return None


def bench_steps(goals: int) -> None:
    import yaml

    everyday = yaml.safe_load((ROOT / "evals" / "everyday.yaml").read_text(encoding="utf-8"))
    every = everyday["goals"]
    stride = max(1, len(every) // max(1, goals))
    subset = {**everyday, "name": "everyday-bench", "goals": every[::stride][:goals]}
    data = fresh_data_dir()
    goal_file = data.parent / "everyday-bench.yaml"
    goal_file.write_text(yaml.safe_dump(subset, allow_unicode=True, sort_keys=False), encoding="utf-8")
    env = bench_env(data)
    before = load()
    cmd = [sys.executable, "-m", "agent_core", "eval", str(goal_file), "--provider", "local", "--json", "-q"]
    wall, rss, out, code = timed_process(cmd, env)
    records = [json.loads(p.read_text(encoding="utf-8")) for p in (data / "runs").glob("*.json")]
    steps = [s for r in records for s in r.get("steps") or []]
    all_ms = [s.get("model_duration_ms") or 0.0 for s in steps]
    generated = [s.get("model_duration_ms") or 0.0 for s in steps if (s.get("usage") or {}).get("total_tokens")]
    loads = sum(1 for r in records if (r.get("provider_meta") or {}).get("loaded_now"))
    prompt_n = [
        (item.get("timings") or {}).get("prompt_n", 0)
        for r in records
        for b in r.get("context_blocks") or []
        for item in b.get("raw") or []
        if item.get("timings")
    ]
    try:
        passed = _pass_count(json.loads(out))
    except ValueError:
        passed = "?"
    median_all = statistics.median(all_ms) / 1000 if all_ms else None
    median_gen = statistics.median(generated) / 1000 if generated else None
    print(
        f"steps over {len(records)} everyday goals in one process ({wall:.0f} s): median step "
        f"{median_all or 0:.2f} s (all {len(all_ms)}), {median_gen or 0:.2f} s (the {len(generated)} generated); "
        f"model loads {loads}; median uncached prompt tokens {statistics.median(prompt_n) if prompt_n else 0}; "
        f"passed {passed}; peak RSS {rss} MB; exit {code}  [{before} → {load()}]",
        flush=True,
    )
    emit(
        "steps",
        goals=len(records),
        median_step_s=median_all and round(median_all, 2),
        median_generated_step_s=median_gen and round(median_gen, 2),
        model_loads=loads,
        passed=passed,
        wall_s=round(wall),
        peak_rss_mb=rss,
        load_before=before,
        load_after=load(),
    )


def _pass_count(result: Any) -> str:
    """``passed/total`` over the eval's cells (one per goal and model)."""
    cells = result.get("cells") or []
    return f"{sum(c.get('passed', 0) for c in cells)}/{sum(c.get('total', 0) for c in cells)}"


def bench_profile(goals: int, grammar_checks: int = 3) -> None:
    sys.path.insert(0, str(ROOT))
    import yaml

    from agent_core.providers import local
    from agent_core.providers.local.engine import current as current_engine
    from agent_core.run.loop import run_to_end
    from agent_core.settings import Settings
    from agent_core.tools.builtins import build_default_registry

    data = fresh_data_dir()
    settings = Settings.from_env({**os.environ, "AGENT_DATA_DIR": str(data)}).replace(request_timeout=600.0)
    every = yaml.safe_load((ROOT / "evals" / "everyday.yaml").read_text(encoding="utf-8"))["goals"]
    chosen = every[:: max(1, len(every) // max(1, goals))][:goals]
    rows: list[dict[str, Any]] = []
    real = local.LocalProvider._generate

    def recording(self: Any, turn: Any, body: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        content, final, elapsed = real(self, turn, body, *args, **kwargs)
        kind = "answer" if '"answer"' in body["grammar"] else "call"
        rows.append({"kind": kind, "ms": elapsed, "body": body, **(final.get("timings") or {})})
        return content, final, elapsed

    local.LocalProvider._generate = recording  # type: ignore[method-assign]
    provider = local.create(model=None, base_url=None, settings=settings)
    before = load()
    for goal in chosen:
        run_to_end(goal["goal"], provider=provider, registry=build_default_registry(settings), settings=settings)
    engine = current_engine()
    assert engine is not None, "the local model was not loaded"
    overhead = []
    for row in [r for r in rows if r.get("predicted_n", 0) >= 8][:grammar_checks]:
        free = {k: v for k, v in row["body"].items() if k not in ("grammar", "stream", "return_progress")}
        free["max_tokens"] = row["predicted_n"]
        with engine.busy:
            reply = engine.server.handle_chat_completions(free)
        timings = reply.get("timings") or {}
        if timings.get("predicted_n"):
            with_grammar = row["predicted_ms"] / row["predicted_n"]
            without = timings["predicted_ms"] / timings["predicted_n"]
            overhead.append((with_grammar, without))
    for kind in ("call", "answer"):
        mine = [r for r in rows if r["kind"] == kind]
        if not mine:
            continue

        def med(key: str, rows: list[dict[str, Any]] = mine) -> float:
            return statistics.median(r.get(key, 0) for r in rows)

        print(
            f"profile, {len(mine)} {kind} steps (medians): {med('ms') / 1000:.2f} s; prompt {med('cache_n'):.0f} "
            f"tokens from the cache + {med('prompt_n'):.0f} computed ({med('prompt_ms') / 1000:.2f} s); "
            f"{med('predicted_n'):.0f} generated ({med('predicted_ms') / 1000:.2f} s)",
            flush=True,
        )
    if overhead:
        g = statistics.median(o[0] for o in overhead)
        f = statistics.median(o[1] for o in overhead)
        print(f"profile, grammar: {g:.0f} ms per generated token with it, {f:.0f} without ({len(overhead)} steps)")
    print(f"  [{before} → {load()}]", flush=True)
    emit(
        "profile",
        steps=[{k: v for k, v in r.items() if k != "body"} for r in rows],
        grammar_ms_per_token=[list(o) for o in overhead],
        load_before=before,
        load_after=load(),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("parts", nargs="*", choices=["cli", "browser", "steps", "profile"], default=[])
    parser.add_argument("--repeats", type=int, default=1, help="CLI runs with the cache present")
    parser.add_argument("--goals", type=int, default=10, help="everyday goals for the median step")
    parser.add_argument("--timeout", type=float, default=300, help="seconds the browser waits for the answer")
    args = parser.parse_args()
    parts = args.parts or ["cli", "browser", "steps"]
    print(f"bench/coldstart.py on {os.cpu_count()} cores, {load()}", flush=True)
    if "cli" in parts:
        bench_cli(args.repeats)
    if "browser" in parts:
        bench_browser(args.timeout)
    if "steps" in parts:
        bench_steps(args.goals)
    if "profile" in parts:
        bench_profile(args.goals)


if __name__ == "__main__":
    main()
