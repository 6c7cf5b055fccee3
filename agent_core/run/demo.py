"""Scripted demo scenarios for presenters: engine behaviour shown on purpose, in a few seconds.

Each scenario replays fixed model turns with :class:`ScriptedProvider` against the real built-in
tools and dispatcher, so what the audience sees — a transient failure retried, a fallback taken,
a duplicate refused, malformed arguments corrected, context blocks trimmed — is the engine's
real behaviour, not a mock-up. ``search_web`` fails exactly when the scenario says (a planned
random source drives the tool's own failure rate), retry waits are tiny and seeded, and every
record is marked ``scripted: true``.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_core.providers.scripted import ScriptedProvider
from agent_core.run.prepare import PreparedRun, prepare_run, run_settings
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry

DEMO_RETRY_DELAYS: tuple[float, ...] = (0.2, 0.4)
"""Base waits of the demo's retries: long enough to see, short enough for a live demo."""
PRESENTER_PACE_S = 1.2
"""Seconds a step of a demo takes at presenter pace: the audience can follow the run unfold."""
PRESENTER_RETRY_FACTORS: tuple[float, ...] = (1.5, 3.0)
"""At presenter pace, the retries' base waits are these multiples of the pace (1.8 s and 3.6 s at
1.2 s a step): real waits, long enough to be seen (the jitter draws each from 0 to its base)."""
DEMO_SEED = 7
"""Seed of the jitter, so a demo waits the same every time."""
_FAIL, _PASS = 0.0, 0.99
_FAILURE_RATE = 0.5


class PlannedRandom(random.Random):
    """A random source whose ``random()`` follows a plan: ``True`` = fail this search_web call.

    ``search_web`` fails when ``random() < failure_rate``; with the demo's rate of 0.5 a planned
    ``True`` gives 0.0 (fail) and ``False`` gives 0.99 (succeed). After the plan: success.
    """

    def __init__(self, plan: Sequence[bool]) -> None:
        super().__init__(DEMO_SEED)
        self._plan = list(plan)
        self._lock = threading.Lock()

    def random(self) -> float:
        with self._lock:
            fail = self._plan.pop(0) if self._plan else False
        return _FAIL if fail else _PASS


@dataclass(frozen=True)
class DemoScenario:
    """A scripted run: the goal, the model's turns, and the settings that make the point."""

    id: str
    title: str
    goal: str
    shows: tuple[str, ...]
    """What the audience should notice, in plain words (one line each)."""
    turns: tuple[dict[str, Any], ...]
    search_web_failures: tuple[bool, ...] = ()
    """Outcome plan of search_web invocations, in order (``True`` = a transient failure)."""
    max_context_blocks: int = 8
    max_steps: int = 10
    retry_delays: tuple[float, ...] | None = None
    """Base retry waits; None uses :data:`DEMO_RETRY_DELAYS` (read when the demo starts)."""
    tools: tuple[str, ...] = field(default=())
    """Tools to enable (empty: all built-in tools)."""
    answer_check: str | None = None
    """``ANSWER_CHECK`` for this scenario (None: the configured one)."""
    made_up: tuple[str, ...] = ()
    """Figures the final answer states on purpose with no tool result behind them."""


def _call(name: str, arguments: Any, call_id: str) -> dict[str, Any]:
    return {"name": name, "arguments": arguments, "call_id": call_id}


# With DEMO_RETRY_DELAYS of two entries, a tool gets 3 attempts before its fallback.
_ATTEMPTS = len(DEMO_RETRY_DELAYS) + 1

TOUR = DemoScenario(
    id="tour",
    title="Full tour: retry, fallback, duplicate, malformed arguments, trimming",
    goal="[Scripted demo] Search the web for the Streamlit docs and a Python tutorial, then compute (24*7)+100.",
    shows=(
        "Step 1 — search_web fails once (a temporary error) and succeeds on the retry.",
        "Step 2 — search_web keeps failing, so its fallback search_cached answers instead.",
        "Step 3 — the model repeats step 1's exact call: refused as a duplicate.",
        "Step 4 — the model sends broken JSON to the calculator: an error it can read.",
        "Step 5 — the model corrects the arguments and the calculator answers 268.",
        "From step 3 on, only the 2 most recent context blocks are sent; older ones are trimmed.",
    ),
    turns=(
        {
            "text": "I'll search the web first.",
            "tool_calls": [_call("search_web", {"query": "streamlit documentation"}, "demo_1")],
        },
        {"text": "Now the tutorial.", "tool_calls": [_call("search_web", {"query": "python tutorial"}, "demo_2")]},
        {
            "text": "Let me search that again.",
            "tool_calls": [_call("search_web", {"query": "streamlit documentation"}, "demo_3")],
        },
        {"text": "Computing the total.", "tool_calls": [_call("calculator", '{"expression": "(24*7)+100"', "demo_4")]},
        {"text": "Fixing the arguments.", "tool_calls": [_call("calculator", {"expression": "(24*7)+100"}, "demo_5")]},
        {
            "text": "Done. The web search found the Streamlit documentation (after one retry), the "
            "Python tutorial came from the cached search (the live search kept failing), and "
            "(24*7)+100 = 268."
        },
    ),
    search_web_failures=(True, False) + (True,) * _ATTEMPTS,
    max_context_blocks=2,
)

RETRY_FALLBACK = DemoScenario(
    id="retry_fallback",
    title="Retry, then fallback",
    goal="[Scripted demo] Search the web for Streamlit and for exponential backoff.",
    shows=(
        "search_web fails twice with a temporary error, then succeeds on the third attempt.",
        "The next search fails every attempt; the engine falls back to search_cached.",
        "Each attempt and its wait is listed under the tool call.",
    ),
    turns=(
        {"tool_calls": [_call("search_web", {"query": "streamlit documentation"}, "demo_1")]},
        {"tool_calls": [_call("search_web", {"query": "exponential backoff jitter"}, "demo_2")]},
        {"text": "Both searches returned results; the second came from the cache after the live search failed."},
    ),
    search_web_failures=(True, True, False) + (True,) * _ATTEMPTS,
)

DUPLICATE = DemoScenario(
    id="duplicate",
    title="Duplicate call refused",
    goal="[Scripted demo] 단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.",
    shows=(
        "The model looks up the unit price, then asks for the very same lookup again.",
        "The second call is refused as a duplicate, with a message asking for another approach.",
        "The model uses the earlier result and finishes with the calculator.",
    ),
    turns=(
        {"tool_calls": [_call("lookup", {"topic": "단가"}, "demo_1")]},
        {"tool_calls": [_call("lookup", {"topic": "단가"}, "demo_2")]},
        {"tool_calls": [_call("calculator", {"expression": "24 * 7"}, "demo_3")]},
        {"text": "제품 7개의 총 가격은 $168입니다 (단가 $24 × 7)."},
    ),
)

MALFORMED = DemoScenario(
    id="malformed",
    title="Malformed arguments corrected",
    goal="[Scripted demo] What's the weather in Seoul in fahrenheit?",
    shows=(
        "The model's first arguments are not valid JSON: the tool is not run, the model gets an ERROR.",
        "Its second try uses a unit the tool does not accept: a validation error names the problem.",
        "The third try is valid and the tool answers.",
    ),
    turns=(
        {"tool_calls": [_call("get_weather", "{'city': 'Seoul', unit: fahrenheit}", "demo_1")]},
        {"tool_calls": [_call("get_weather", {"city": "Seoul", "unit": "kelvin"}, "demo_2")]},
        {"tool_calls": [_call("get_weather", {"city": "Seoul", "unit": "fahrenheit"}, "demo_3")]},
        {"text": "It is 71.6°F and sunny in Seoul (simulated weather data)."},
    ),
)

TRIMMING = DemoScenario(
    id="trimming",
    title="Context blocks trimmed",
    goal="[Scripted demo] Gather facts step by step: price, refund policy, shipping, a total, a word count.",
    shows=(
        "The context-block limit is 2: each step the model sees the goal and only the 2 newest blocks.",
        "Five tool steps make five blocks; the ledger in History shows which were sent or trimmed.",
    ),
    turns=(
        {"tool_calls": [_call("lookup", {"topic": "unit price"}, "demo_1")]},
        {"tool_calls": [_call("lookup", {"topic": "refund policy"}, "demo_2")]},
        {"tool_calls": [_call("lookup", {"topic": "shipping"}, "demo_3")]},
        {"tool_calls": [_call("calculator", {"expression": "24 * 7"}, "demo_4")]},
        {"tool_calls": [_call("word_count", {"text": "the quick brown fox jumps over the lazy dog"}, "demo_5")]},
        {"text": "Collected five facts; by the end only the last two blocks were still being sent."},
    ),
    max_context_blocks=2,
)

_PARIS = _call("get_weather", {"city": "Paris"}, "demo_1")

MADE_UP = DemoScenario(
    id="made_up",
    title="A made-up number is flagged",
    goal="[Scripted demo] What's the weather in Paris?",
    shows=(
        "get_weather says 19 °C in Paris; the model answers 20 °C anyway.",
        "The answer check finds no tool result that says 20 °C and flags the answer with a warning.",
    ),
    turns=({"tool_calls": [_PARIS]}, {"text": "The weather in Paris is currently 20 °C with light rain."}),
    answer_check="flag",
    made_up=("20 °C",),
)

ANSWER_CHECK_RETRY = DemoScenario(
    id="answer_check_retry",
    title="A made-up number is sent back (answer check: retry)",
    goal="[Scripted demo] What's the weather in Paris?",
    shows=(
        "The model answers 20 °C although get_weather said 19 °C.",
        "With the answer check on retry, the engine sends the answer back with a corrective turn.",
        "The model answers again, from the tool result: 19 °C.",
    ),
    turns=(
        {"tool_calls": [_PARIS]},
        {"text": "The weather in Paris is currently 20 °C with light rain."},
        {"text": "The weather in Paris is 19 °C with light rain (from get_weather)."},
    ),
    answer_check="retry",
)

WRONG_COMPARISON = DemoScenario(
    id="wrong_comparison",
    title="A comparison the wrong way round is sent back (answer check: retry)",
    goal="[Scripted demo] Which is warmer today, London or Tokyo?",
    shows=(
        "get_weather gives London 15 °C and Tokyo 25 °C; the model answers that London is warmer.",
        "No figure in that answer is made up, but the answer check recomputes the comparison from "
        "the results, so the answer goes back with a corrective turn.",
        "The model answers again, the right way round.",
    ),
    turns=(
        {"tool_calls": [_call("get_weather", {"city": "London"}, "demo_1")]},
        {"tool_calls": [_call("get_weather", {"city": "Tokyo"}, "demo_2")]},
        {"text": "London is warmer than Tokyo today."},
        {"text": "Tokyo is warmer than London today: 25 °C against 15 °C (from get_weather)."},
    ),
    answer_check="retry",
)

SCENARIOS: tuple[DemoScenario, ...] = (
    TOUR,
    RETRY_FALLBACK,
    DUPLICATE,
    MALFORMED,
    TRIMMING,
    MADE_UP,
    ANSWER_CHECK_RETRY,
    WRONG_COMPARISON,
)


def get_scenario(scenario_id: str) -> DemoScenario:
    """The scenario with this id; KeyError listing the known ids otherwise."""
    for scenario in SCENARIOS:
        if scenario.id == scenario_id:
            return scenario
    raise KeyError(f"unknown demo scenario {scenario_id!r}; known: {', '.join(s.id for s in SCENARIOS)}")


def prepare(scenario: DemoScenario | str, settings: Settings, *, pace_s: float = 0.0) -> PreparedRun:
    """A fresh provider, registry and settings for one run of ``scenario``.

    ``settings`` supplies the data folder; the scenario fixes the limits, the retry waits and
    search_web's failures. ``pace_s`` > 0 is a presenter's pace: each model turn takes that many
    seconds and the retry waits grow to :data:`PRESENTER_RETRY_FACTORS` times it (0: as fast as
    the engine goes).
    """
    if isinstance(scenario, str):
        scenario = get_scenario(scenario)
    if pace_s < 0:
        raise ValueError(f"the demo's pace must be 0 or more seconds a step (it is {pace_s:g})")
    delays = scenario.retry_delays if scenario.retry_delays is not None else DEMO_RETRY_DELAYS
    if pace_s:
        factors = PRESENTER_RETRY_FACTORS
        delays = tuple(round(pace_s * factors[min(i, len(factors) - 1)], 3) for i in range(len(delays)))
    demo_settings = run_settings(
        settings,
        {
            "max_context_blocks": scenario.max_context_blocks,
            "max_steps": max(scenario.max_steps, len(scenario.turns)),
            "retry_delays": delays,
            "search_web_failure_rate": _FAILURE_RATE,
            "answer_check": scenario.answer_check,
        },
    )
    return prepare_run(
        scenario.goal,
        settings=demo_settings,
        tools=scenario.tools or None,
        provider=ScriptedProvider([dict(t) for t in scenario.turns], turn_delay_s=pace_s, origin="harness"),
        registry=build_default_registry(demo_settings, rng=PlannedRandom(scenario.search_web_failures), external=False),
        scripted=True,
        rng=random.Random(DEMO_SEED),
    )


EXAMPLE_GOALS = (
    "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.",
    "What is (24*7)+100?",
    "What's the weather in Seoul in fahrenheit?",
    "서울 날씨 알려줘",
    "Search the documents for the refund policy",
    "Read notes.txt and summarize it",
    'Count the words in "the quick brown fox jumps over the lazy dog"',
    "Search the web for streamlit",
    "hello",
)
"""The Run page's example goals, in Korean and English (the tests run them too)."""
