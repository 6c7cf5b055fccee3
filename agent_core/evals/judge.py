"""A model as judge, for answers no fixed check can read.

Any provider and model can judge: it gets the rubric and the answer and replies PASS or FAIL,
``samples`` times per answer. The verdict is the majority; when the samples disagree it is
labelled *uncertain* (a tie counts neither way), and the share of samples that went against the
majority is the judge's disagreement. Verdicts are cached on disk by (judge model, rubric,
answer), so a second identical eval pays nothing for the judge.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
from pathlib import Path
from typing import Any, TypedDict

from agent_core.errors import ProviderError
from agent_core.providers.base import ModelRequest, Provider

log = logging.getLogger("agent_core.evals.judge")

JUDGE_INSTRUCTIONS = """You grade one answer of an AI assistant against a rubric.
Read the rubric and the answer. Reply with one word on the first line: PASS if the answer
meets the rubric, FAIL if it does not. You may add one short reason on the next line.""".strip()

_VERDICT = re.compile(r"\b(PASS|FAIL)\b", re.IGNORECASE)
MAX_ANSWER_CHARS = 8000


class JudgeOutcome(TypedDict):
    verdict: bool | None
    """The majority; None for a tie or when no sample could be read."""
    samples: int
    votes: list[bool | None]
    disagreeing: float
    """Samples against the majority (half of them on a tie)."""
    uncertain: bool
    cached: bool
    judge: str


def parse_verdict(text: str) -> bool | None:
    """PASS → True, FAIL → False, anything else → None (the first of the two words counts)."""
    match = _VERDICT.search(text or "")
    return None if match is None else match.group(1).upper() == "PASS"


class Judge:
    """One judge (a provider object and its model) with its verdict cache."""

    def __init__(self, provider: Provider, cache_path: Path | None = None, *, timeout: float = 60.0) -> None:
        self.provider = provider
        self.name = f"{provider.id}/{provider.model}"
        self.cache_path = cache_path
        self.timeout = timeout
        self.calls = 0
        """Model calls made (a cache hit makes none)."""
        self._lock = threading.Lock()
        self._cache: dict[str, list[bool | None]] = self._read_cache()

    def _read_cache(self) -> dict[str, list[bool | None]]:
        if self.cache_path is None or not self.cache_path.is_file():
            return {}
        try:
            data = json.loads(self.cache_path.read_text(encoding="utf-8"))
            return {str(k): list(v) for k, v in data.items()} if isinstance(data, dict) else {}
        except (OSError, ValueError) as exc:
            log.warning("judge cache %s unreadable (%s); starting a new one", self.cache_path, exc)
            return {}

    def _write_cache(self) -> None:
        if self.cache_path is None:
            return
        try:
            self.cache_path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.cache_path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_text(json.dumps(self._cache, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, self.cache_path)
        except OSError as exc:  # the cache is a saving, never a failure
            log.warning("judge cache not saved: %s", exc)

    def key(self, rubric: str, answer: str) -> str:
        raw = json.dumps([self.name, rubric, answer], ensure_ascii=False)
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()

    def _ask(self, rubric: str, answer: str) -> bool | None:
        prompt = f"Rubric:\n{rubric}\n\nAnswer to grade:\n{answer[:MAX_ANSWER_CHARS]}\n\nReply PASS or FAIL."
        request = ModelRequest(
            instructions=JUDGE_INSTRUCTIONS, goal=prompt, blocks=[], tools=[], step=1, timeout=self.timeout
        )
        self.calls += 1
        try:
            response = self.provider.complete(request)
        except ProviderError as exc:
            log.warning("judge %s failed: %s", self.name, exc.message)
            return None
        return parse_verdict(response.text)

    def judge(self, rubric: str, answer: str, samples: int) -> JudgeOutcome:
        key = self.key(rubric, answer)
        with self._lock:
            votes = self._cache.get(key)
            cached = votes is not None and len(votes) >= samples
            if not cached:
                votes = [self._ask(rubric, answer) for _ in range(samples)]
                if any(v is not None for v in votes):
                    self._cache[key] = votes
                    self._write_cache()
        assert votes is not None
        votes = votes[:samples]
        yes = sum(1 for v in votes if v is True)
        no = sum(1 for v in votes if v is False)
        verdict = None if yes == no else yes > no
        disagreeing = min(yes, no) if verdict is not None else yes / 2 + no / 2
        return {
            "verdict": verdict,
            "samples": yes + no,
            "votes": votes,
            "disagreeing": float(disagreeing),
            "uncertain": yes > 0 and no > 0,
            "cached": cached,
            "judge": self.name,
        }


def judge_payload(outcome: JudgeOutcome) -> dict[str, Any]:
    """What a run row keeps of its judge outcome."""
    return dict(outcome)
