"""The offline demo model never states a figure that no tool result (or the goal) supports."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from agent_core.checks.words import unsupported
from agent_core.providers import make_provider
from agent_core.run import demo
from agent_core.run.demo import EXAMPLE_GOALS
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry

REPO = Path(__file__).resolve().parent.parent

GOALS = (
    *EXAMPLE_GOALS,  # the Run page's examples
    # everyday questions about the sample workspace
    "What's the weather in Paris and London?",
    "도쿄와 오사카 날씨 비교해 줘",
    "What is the weather in New York in fahrenheit?",
    "What is 17% of 2,340?",
    "What is 3,000 * 1.1?",
    "계산해 줘: 1234 + 5678",
    "What is 2**0.5?",
    "What is 1/0?",
    "How much do 15 units cost?",
    "What is the unit price and the total for 12 units?",
    "Is shipping free for an order of 20 units?",
    "When is the next operations meeting? Read notes.txt",
    "What is the refund policy?",
    "환불 정책이 뭐야?",
    "배송비 정책 알려줘",
    "Read pricing.md",
    "Read refund_policy.md",
    "환불_안내.md 파일을 읽어 줘",
    "Count the words in notes.txt",
    "How many words are in refund_policy.md?",
    "Search the documents for discount",
    "Search the web for python tutorial",
    # what it cannot do: an honest answer, no invented figure
    "What's the weather on Mars?",
    "Read secret.txt",
    "Which is warmer, London or Seoul?",
    "What's 15% of $480?",
    "Tell me a joke",
    "help",
)


@pytest.fixture(scope="module")
def offline_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    base = tmp_path_factory.mktemp("offline-grounding")
    shutil.copytree(REPO / "agent_data" / "workspace", base / "workspace")
    return Settings(data_dir=base, retry_delays=(0.0,), search_web_failure_rate=0.0)


def test_offline_answers_are_grounded(offline_settings: Settings) -> None:
    made_up: dict[str, list[str]] = {}
    checked = 0
    for goal in GOALS:
        record = run_to_end(
            goal,
            provider=make_provider("offline", settings=offline_settings),
            registry=build_default_registry(offline_settings, rng=random.Random(3)),
            settings=offline_settings,
        )
        assert record["status"] == "completed", goal
        grounding = record["grounding"]
        checked += len(grounding["claims"])
        if missing := unsupported(grounding):
            made_up[goal] = [c["text"] for c in missing]
    assert made_up == {}
    assert checked >= 40  # the goals do state figures: the check had something to check


@pytest.mark.parametrize("scenario", [s.id for s in demo.SCENARIOS])
def test_demo_scenarios_are_grounded_or_show_the_check(scenario: str, offline_settings: Settings) -> None:
    record = demo.prepare(scenario, offline_settings).run_to_end()
    made_up = [c["text"] for c in unsupported(record["grounding"])]
    if expected := demo.get_scenario(scenario).made_up:
        assert made_up == list(expected)  # the scenario that shows the check, on purpose
    else:
        assert made_up == []
