"""A realistic corpus of run records for the scale benchmarks.

Templates come from the real loop (:func:`agent_core.run.loop.run_to_end`) driven by a
:class:`ScriptedProvider` with random scripts over a set of instant benchmark tools (some fail
transiently, some take a fallback, some get malformed or duplicate calls, some runs hit the step
limit or a model error). Clones then vary the run id, dates (spread over months), provider,
model, goal, durations and token counts, so every file is a real-format record.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import random
import secrets
import sys
import time
import uuid
import zlib
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent_core.errors import ProviderError, TransientToolError  # noqa: E402
from agent_core.providers.scripted import ScriptedProvider  # noqa: E402
from agent_core.run.loop import run_to_end  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from agent_core.tools.registry import ToolRegistry  # noqa: E402

PROVIDERS = [
    ("offline", "offline-rules-1", 0.30),
    ("local", "qwen2.5-coder-1.5b-instruct-q4_k_m", 0.15),
    ("openai", "gpt-4.1-mini", 0.25),
    ("openai", "gpt-5-mini", 0.05),
    ("anthropic", "claude-sonnet-4-5", 0.15),
    ("openai-chat", "llama3.1:8b", 0.10),
]
GOALS = [
    "What is 17% of 2,340 plus the shipping fee?",
    "단가와 환불 정책을 알려줘",
    "Search the documents for the refund policy and summarise it",
    "What's the weather in Seoul in fahrenheit?",
    "Read notes/report.md and count its words",
    "Find recent news about battery recycling and compare with our cached results",
    "배송 기간은 얼마나 걸려?",
    "Compute (1200 * 1.1) ** 2 / 7 and explain each step",
    "Look up the price list and compute the total for 3 units",
    "Summarise every document mentioning 'warranty'",
]
_WORDS = (
    "agent tool call context block retry fallback duplicate token model step record run history "
    "analyst policy refund shipping price weather document search result summary value total "
    "환불 배송 단가 정책 결과 문서 검색"
).split()


def _text(rng: random.Random, chars: int) -> str:
    out: list[str] = []
    size = 0
    while size < chars:
        word = rng.choice(_WORDS)
        out.append(word)
        size += len(word) + 1
    return " ".join(out)


def bench_registry(rng: random.Random) -> ToolRegistry:
    """Instant tools with realistic outputs and failure modes."""
    reg = ToolRegistry()

    @reg.tool
    def calculator(expression: str) -> str:
        """Evaluate arithmetic."""
        return str(round(rng.uniform(1, 10_000), 3))

    @reg.tool
    def lookup(topic: str) -> str:
        """Internal facts."""
        if rng.random() < 0.08:
            raise ValueError(f"unknown topic {topic!r}; known: price, refund policy, shipping")
        return _text(rng, rng.randint(80, 600))

    @reg.tool
    def read_file(path: str, max_chars: int = 4000) -> str:
        """Read a workspace file."""
        if rng.random() < 0.1:
            raise FileNotFoundError(f"{path} is not in the workspace")
        return _text(rng, min(max_chars, rng.randint(300, 6000)))

    @reg.tool
    def word_count(text: str) -> dict[str, int]:
        """Count words."""
        return {"words": len(text.split()), "chars": len(text)}

    @reg.tool
    def search_documents(query: str, limit: int = 5) -> list[dict[str, Any]]:
        """Ranked search over documents."""
        return [
            {"doc": f"docs/{rng.choice(_WORDS)}.md", "score": round(rng.random(), 3), "snippet": _text(rng, 200)}
            for _ in range(rng.randint(1, limit))
        ]

    @reg.tool
    def get_weather(city: str, unit: str = "celsius") -> dict[str, Any]:
        """Simulated weather."""
        return {"city": city, "unit": unit, "temp": rng.randint(-10, 35), "sky": rng.choice(["sun", "rain"])}

    @reg.tool
    def search_cached(query: str) -> str:
        """Cached search."""
        return _text(rng, rng.randint(200, 1500))

    @reg.tool(fallback="search_cached")
    def search_web(query: str) -> str:
        """Simulated web search, fails transiently."""
        if rng.random() < 0.35:
            raise TransientToolError("upstream search timed out (simulated)")
        return _text(rng, rng.randint(500, 3000))

    return reg


def _args(rng: random.Random, tool: str) -> dict[str, Any] | str:
    if rng.random() < 0.04:
        return '{"expression": 1+'  # malformed JSON
    q = _text(rng, rng.randint(10, 40))
    return {
        "calculator": {"expression": f"{rng.randint(1, 999)} * {rng.randint(1, 99)} / 7"},
        "lookup": {"topic": rng.choice(["price", "refund policy", "shipping", "배송", "warranty"])},
        "read_file": {"path": rng.choice(["notes/report.md", "policy.txt", "missing.md"])},
        "word_count": {"text": q},
        "search_documents": {"query": q, "limit": rng.randint(1, 6)},
        "get_weather": {"city": rng.choice(["Seoul", "Paris", "Lima"]), "unit": rng.choice(["celsius", "fahrenheit"])},
        "search_web": {"query": q},
        "search_cached": {"query": q},
    }.get(tool, {"query": q})


def _script(rng: random.Random, tools: list[str], max_steps: int) -> list[Any]:
    turns: list[Any] = []
    ending = rng.random()
    n_steps = min(max_steps - 1, max(1, int(rng.expovariate(1 / 3.0)) + 1))
    if 0.04 <= ending < 0.10:
        n_steps = max_steps  # no answer: the run ends with status max_steps
    last_call: dict[str, Any] | None = None
    for step in range(1, n_steps + 1):
        if rng.random() < 0.05:
            turns.append(ProviderError("rate limited (simulated)", provider="bench", transient=True, status=429))
        calls = []
        for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
            if last_call is not None and rng.random() < 0.06:
                calls.append(dict(last_call))  # duplicate
                continue
            name = rng.choice(tools + ["unknown_tool"] * (1 if rng.random() < 0.03 else 0))
            last_call = {"name": name, "arguments": _args(rng, name)}
            calls.append(last_call)
        usage = {"input_tokens": rng.randint(300, 4000) * step, "output_tokens": rng.randint(20, 400)}
        usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
        turns.append({"text": _text(rng, rng.randint(0, 200)), "tool_calls": calls, "usage": usage})
    if ending < 0.04:
        turns.append(
            ProviderError("invalid api key (simulated)", provider="bench", status=401, error_type="AuthenticationError")
        )
    elif ending >= 0.10:
        turns.append(
            {
                "text": _text(rng, rng.randint(60, 900)),
                "usage": {"input_tokens": 900, "output_tokens": 120, "total_tokens": 1020},
            }
        )
    return turns


def make_templates(count: int, work_dir: Path, *, seed: int = 7) -> list[dict[str, Any]]:
    """Run the real loop ``count`` times with random scripts; return the saved records."""
    logging.getLogger("agent_core").setLevel(logging.ERROR)
    rng = random.Random(seed)
    registry = bench_registry(rng)
    tools = registry.names()
    templates = []
    for n in range(count):
        max_steps = rng.choice([4, 6, 10, 10, 10])
        settings = Settings(
            data_dir=work_dir,
            retry_delays=(0.0, 0.0),
            max_steps=max_steps,
            max_context_blocks=rng.choice([3, 8]),
            max_tool_output_chars=4000,
        )
        script = _script(rng, tools, max_steps)
        provider = ScriptedProvider(script)
        record = run_to_end(
            GOALS[n % len(GOALS)],
            provider=provider,
            registry=registry,
            settings=settings,
            sleep=lambda s: None,
            rng=rng,
        )
        templates.append(record)
    return templates


def _uuid7_at(ms: int) -> str:
    rand = int.from_bytes(secrets.token_bytes(10), "big")
    value = (
        (ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | ((rand >> 68) & 0xFFF) << 64 | 0b10 << 62 | rand & ((1 << 62) - 1)
    )
    return str(uuid.UUID(int=value))


def _iso(dt: datetime) -> str:
    return dt.isoformat(timespec="milliseconds")


def clone(
    template: dict[str, Any] | str, rng: random.Random, start: datetime, *, status: str | None = None
) -> dict[str, Any]:
    """A varied copy of ``template`` (a record, or its JSON text: quicker to copy) started at ``start``."""
    rec = json.loads(template) if isinstance(template, str) else copy.deepcopy(template)
    provider, model, _ = rng.choices(PROVIDERS, weights=[p[2] for p in PROVIDERS])[0]
    scale = rng.lognormvariate(0, 0.8) * (8 if provider == "local" else 1)
    rec["run_id"] = _uuid7_at(int(start.timestamp() * 1000))
    rec["provider"], rec["model"] = provider, model
    rec["provider_label"] = provider
    goal = rng.choice(GOALS)
    rec["goal"] = goal if rng.random() < 0.7 else f"{goal} ({rng.choice(_WORDS)} {rng.randint(1, 999)})"
    if rec.get("history"):
        rec["history"][1]["content"] = rec["goal"]
    # Steps one after another (a model call, then its tool calls), all times consistent.
    calls_of: dict[Any, list[dict[str, Any]]] = {}
    for call in rec["tool_calls"]:
        call["duration_ms"] = round(call["duration_ms"] + rng.lognormvariate(3, 1.2), 3)
        calls_of.setdefault(call.get("step"), []).append(call)
    at = 0.0
    for step in rec["steps"]:
        began, model_ms = at, rng.uniform(200, 4000) * scale
        step["started_at"] = _iso(start + timedelta(milliseconds=began))
        step["model_duration_ms"] = round(model_ms, 3)
        at += model_ms
        for call in calls_of.get(step.get("index"), []):
            call["started_at"] = _iso(start + timedelta(milliseconds=at))
            at += call["duration_ms"]
        step["duration_ms"] = round(at - began, 3)
    duration = at + 1.0
    rec["duration_ms"] = round(duration, 3)
    rec["started_at"] = _iso(start)
    end = start + timedelta(milliseconds=duration)
    rec["updated_at"] = _iso(end)
    rec["finished_at"] = _iso(end)
    usage = rec.get("usage") or {}
    if provider in ("offline", "local"):
        rec["cost_usd"] = 0.0
    else:
        rec["cost_usd"] = round((usage.get("input_tokens", 0) * 0.4 + usage.get("output_tokens", 0) * 1.6) / 1e6, 6)
    if status:
        rec["status"] = status
        if status == "cancelled":
            rec["error"] = {"type": "Cancelled", "message": "The run was stopped by the user."}
        if status == "running":  # left behind by a dead process
            rec["finished_at"] = None
            rec["duration_ms"] = None
            rec["owner"] = {"pid": 2**22 + rng.randint(1, 1000), "host": os.uname().nodename}
    return rec


def write_record(record: dict[str, Any], runs_dir: Path) -> Path:
    """Write one record the way :func:`agent_core.records.files.save_record` encodes it."""
    path = runs_dir / f"{record['run_id']}.json"
    path.write_bytes(json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8"))
    return path


def build_corpus(
    runs_dir: Path, n: int, *, templates: int = 300, seed: int = 11, bad_files: bool = True
) -> dict[str, Any]:
    """Write ``n`` records (plus a few broken files) into ``runs_dir``; return a description."""
    runs_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    scratch = runs_dir.parent / "_templates"
    tpl = make_templates(templates, scratch, seed=seed)
    t_tpl = time.perf_counter() - t0
    rng = random.Random(seed)
    now = datetime.now(timezone.utc)
    span = timedelta(days=180).total_seconds()
    sizes = []
    for _ in range(n):
        start = now - timedelta(seconds=rng.uniform(0, span))
        r = rng.random()
        status = "cancelled" if r < 0.02 else "running" if r < 0.025 else None
        sizes.append(write_record(clone(rng.choice(tpl), rng, start, status=status), runs_dir).stat().st_size)
    if bad_files:
        (runs_dir / "broken-truncated.json").write_bytes(json.dumps(tpl[0]).encode()[:500])
        (runs_dir / "empty.json").write_bytes(b"")
        (runs_dir / "foreign.json").write_text('{"hello": "world"}')
        (runs_dir / "folder.json").mkdir(exist_ok=True)
    for p in scratch.rglob("*.json"):
        p.unlink()
    sizes.sort()
    return {
        "runs": n,
        "templates": templates,
        "template_s": round(t_tpl, 2),
        "write_s": round(time.perf_counter() - t0 - t_tpl, 2),
        "bytes_total": sum(sizes),
        "size_p10": sizes[len(sizes) // 10] if sizes else 0,
        "size_p50": sizes[len(sizes) // 2] if sizes else 0,
        "size_p90": sizes[len(sizes) * 9 // 10] if sizes else 0,
        "size_max": sizes[-1] if sizes else 0,
    }


USERS = ["ana", "bo", "chen.li", "dara@example.com", None]
"""Who ran a team-store run (``user``); None: a record from before the field."""
HOSTILE_GOALS = [
    "Price of O'Brien's order; DROP TABLE runs; --",
    "100% of the _total_ (not 10_0%)",
    'Path C:\\temp\\new "quoted" \\\\share',
    "' OR '1'='1",
]


def team_record(template: dict[str, Any] | str, rng: random.Random, start: datetime) -> dict[str, Any]:
    """A :func:`clone` varied the way a team's shared history is: who ran it, every answer-check
    verdict, scripted demos, a few runs left running or cancelled, hostile goals, and tool calls
    with retries, fallbacks (worked or not), timeouts, transient errors and missing durations,
    chosen by the model, by the workbench, or by someone an older record does not name."""
    r = rng.random()
    status = "cancelled" if r < 0.03 else "running" if r < 0.05 else None
    rec = clone(template, rng, start, status=status)
    user = rng.choice(USERS)
    if user is not None:
        rec["user"] = user
    verdict = rng.choice(["grounded", "partly", "ungrounded", "no_claims", None, "weird"])
    if verdict is None:
        rec.pop("grounding", None)
    else:
        rec["grounding"] = {"status": verdict, "tools_used": [], "claims": []}
    rec["scripted"] = rng.random() < 0.1
    if rng.random() < 0.04:
        rec["goal"] = rng.choice(HOSTILE_GOALS)
    for call in rec["tool_calls"]:
        roll = rng.random()
        if roll < 0.08:
            call["attempts"] = [{"attempt": n + 1} for n in range(rng.randint(2, 3))]
        elif roll < 0.12:
            ok = rng.random() < 0.6
            call["success"] = ok
            call["error_category"] = None if ok else "transient"
            call["fallback"] = {"tool": "search_cached", "success": ok}
        elif roll < 0.14:
            call["success"], call["error_category"] = False, "timeout"
        elif roll < 0.16:
            call["success"], call["error_category"] = False, "transient"
        elif roll < 0.17:
            call["duration_ms"] = None
        who = int(roll * 1000) % 10  # (from the same draw: the records of a seed stay as they were)
        call.pop("harness_rule", None)
        if who < 6:
            call["origin"] = "model"
        elif who < 8:
            call["origin"], call["harness_rule"] = "harness", "a rule of the workbench"
        else:
            call.pop("origin", None)
    # Where some runs came from (History's Source filter): from the run id, not the seed's draws,
    # so the records of a seed stay as they were otherwise.
    where = zlib.crc32(str(rec.get("run_id")).encode()) % 20
    if where == 0:
        rec["eval_id"] = "eval-" + str(rec.get("run_id"))[-6:]
    elif where == 1:
        rec["arena_id"] = "arena-" + str(rec.get("run_id"))[-6:]
    elif where == 2:
        rec["replay_of"] = str(rec.get("run_id"))
    return rec


def team_records(n: int, *, templates: int = 40, seed: int = 5, work_dir: Path | None = None) -> list[dict[str, Any]]:
    """``n`` :func:`team_record` s started over the last 90 days, each at a different millisecond."""
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        tpl = make_templates(templates, work_dir or Path(scratch), seed=seed)
    rng = random.Random(seed)
    now = datetime.now(timezone.utc).replace(microsecond=0)
    seconds = rng.sample(range(1, 90 * 86400), n)
    return [
        team_record(rng.choice(tpl), rng, now - timedelta(seconds=s, milliseconds=rng.randint(0, 999))) for s in seconds
    ]
