"""The offline planner's plans, one per kind of goal: from the goal and the visible tool results,
the next tool calls or the final answer (see :mod:`agent_core.providers.offline`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent_core.context import ContextBlock, canonical_json
from agent_core.errors import ERROR_PREFIX
from agent_core.providers.base import ModelRequest
from agent_core.providers.offline.rules import (
    COMPARE,
    TOPICS,
    Intent,
    extract_money,
    fmt_number,
    is_korean,
    parse_json,
    parse_number,
    plain_number,
    search_hits,
    shorten,
)
from agent_core.providers.offline.verdicts import expected as expected_verdict

MAX_PLAN_STEPS = 12
"""After this many steps the planner answers with what it has instead of calling more tools."""


@dataclass(frozen=True)
class _Done:
    """A visible tool call with its output."""

    name: str
    args: dict[str, Any]
    output: str
    is_error: bool
    raw: list[dict[str, Any]]
    """The raw items of the block that made the call (our own ``offline_plan`` notes)."""

    @property
    def ok(self) -> bool:
        return not self.is_error and not self.output.lstrip().startswith(ERROR_PREFIX.strip())

    def note(self, key: str) -> Any:
        """A value the planner left in this block's ``offline_plan`` item."""
        return next((i.get(key) for i in self.raw if i.get("type") == "offline_plan"), None)


@dataclass
class _Decision:
    """Either tool calls to make next, or (no calls) the final answer."""

    rule: str
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    text: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


Call = tuple[str, dict[str, Any]]


_canonical = canonical_json


def _arguments(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        value = parse_json(value)
    return value if isinstance(value, dict) else {}


def _visible_calls(blocks: list[ContextBlock]) -> list[_Done]:
    done: list[_Done] = []
    for block in blocks:
        outputs = {o.call_id: o for o in block.outputs}
        for call in block.tool_calls:
            out = outputs.get(call.call_id)
            if out is not None:
                done.append(_Done(call.name, _arguments(call.arguments), out.output, out.is_error, block.raw))
    return done


class _Ctx:
    """What one planning step knows: goal, language, enabled tools, visible results."""

    def __init__(self, request: ModelRequest) -> None:
        self.goal = request.goal
        self.ko = is_korean(request.goal)
        self.tools = [t.name for t in request.tools]
        self.done = _visible_calls(request.blocks)

    def t(self, ko: str, en: str) -> str:
        """The message in the goal's language."""
        return ko if self.ko else en

    def find(self, name: str, args: dict[str, Any]) -> _Done | None:
        """The latest visible call of ``name`` with exactly these arguments."""
        key = _canonical(args)
        return next((d for d in reversed(self.done) if d.name == name and _canonical(d.args) == key), None)

    def latest(self, name: str) -> _Done | None:
        """The latest visible call of ``name``."""
        return next((d for d in reversed(self.done) if d.name == name), None)

    def missing(self, *names: str) -> _Decision | None:
        """A final answer naming the needed tools that are not enabled, or None."""
        absent = [n for n in names if n not in self.tools]
        if not absent:
            return None
        listed = ", ".join(f"`{n}`" for n in absent)
        return _Decision(
            "needed tool disabled",
            text=self.t(
                f"이 목표에는 {listed} 도구가 필요하지만 이번 실행에서 꺼져 있습니다. "
                "도구 목록에서 켜고 다시 실행해 주세요.",
                f"This goal needs the {listed} tool, which is not enabled for this run. "
                "Enable it in the tool list and run again.",
            ),
        )

    def chain(self, attempts: list[Call], accept: Callable[[_Done], bool] = lambda d: True) -> tuple[str, Any]:
        """Where a chain of alternative calls stands: ``("done", _Done)``, ``("next", call)``,
        ``("failed", _Done)`` or ``("unavailable", first_call)``. The latest visible attempt
        decides, so trimmed history cannot send the planner back to the start."""
        usable: list[Call] = []
        for a in attempts:
            if a[0] in self.tools and all(_canonical(a) != _canonical(u) for u in usable):
                usable.append(a)
        if not usable:
            return "unavailable", attempts[0] if attempts else None
        for i in range(len(usable) - 1, -1, -1):
            d = self.find(*usable[i])
            if d is None:
                continue
            if d.ok and accept(d):
                return "done", d
            return ("next", usable[i + 1]) if i + 1 < len(usable) else ("failed", d)
        return "next", usable[0]

    def error_answer(self, d: _Done, what: str = "") -> _Decision:
        """An honest final answer about a failed tool call."""
        out = shorten(d.output, 240)
        return _Decision(
            f"{d.name} failed → honest answer",
            text=self.t(
                f"`{d.name}` 도구가 실패해서 {what or '답'}을(를) 확인하지 못했습니다: {out}",
                f"I could not get {what or 'an answer'}: the `{d.name}` tool failed: {out}",
            ),
        )


def _fact(output: str) -> str:
    data = parse_json(output)
    if isinstance(data, dict):
        for key in ("fact", "answer", "value", "text", "content", "result"):
            if isinstance(data.get(key), str):
                return data[key]
    return shorten(output, 400)


# ---------------------------------------------------------------- plans, one per intent


def _find_price(d: _Done) -> float | None:
    if d.name == "search_documents":
        for hit in search_hits(d.output):
            if re.search(r"단가|unit\s*price|per unit|개당|each", hit, re.I) and extract_money(hit):
                return extract_money(hit)
    money = extract_money(d.output)
    if money is None and d.name == "lookup":
        numbers = re.findall(r"\d+(?:\.\d+)?", d.output)
        return float(numbers[0]) if len(numbers) == 1 else None
    return money


def _plan_price(ctx: _Ctx, intent: Intent) -> _Decision:
    qty = float(intent.args["quantity"])
    calc = ctx.latest("calculator")
    if calc is not None:
        m = re.fullmatch(
            rf"\s*(\d+(?:\.\d+)?)\s*\*\s*{re.escape(plain_number(qty))}\s*",
            str(calc.args.get("expression", "")),
        )
        if m:
            if not calc.ok:
                return ctx.error_answer(calc, ctx.t("총 가격", "the total"))
            total = parse_number(calc.output)
            cur = calc.note("currency") or ""
            price, n = fmt_number(float(m.group(1))), fmt_number(qty)
            shown = f"{cur}{fmt_number(total)}" if total is not None else shorten(calc.output)
            unit = intent.args["unit_word"]
            text = ctx.t(
                f"제품 {n}개의 총 가격은 {shown}입니다 (단가 {cur}{price} × {n}).",
                f"The total for {n} {unit} is {shown} (unit price {cur}{price} × {n}).",
            )
            if intent.args.get("shipping") and total is not None:
                state, x = ctx.chain([("lookup", {"topic": TOPICS[2].name(ctx.ko)})])
                if state == "next":
                    return _Decision("price_total: look up the free-shipping rule", [x])
                if state == "done":
                    text += _shipping_verdict(ctx, total, _fact(x.output))
            return _Decision("price_total: answer from calculator", text=text)
    if missing := ctx.missing("lookup", "calculator"):
        return missing
    topic = TOPICS[0]
    attempts: list[Call] = [
        ("lookup", {"topic": topic.name(ctx.ko)}),
        ("lookup", {"topic": topic.name(not ctx.ko)}),
        ("search_documents", {"query": topic.name(ctx.ko)}),
    ]
    state, x = ctx.chain(attempts, accept=lambda d: _find_price(d) is not None)
    if state == "done":
        unit_price = _find_price(x)
        assert unit_price is not None
        cur = "$" if re.search(r"\$|달러|dollar|usd", x.output, re.I) else ""
        return _Decision(
            "price_total: multiply the unit price by the quantity",
            [("calculator", {"expression": f"{plain_number(unit_price)} * {plain_number(qty)}"})],
            extra={"unit_price": unit_price, "currency": cur, "price_source": x.name},
        )
    if state == "next":
        return _Decision(f"price_total: find the unit price with {x[0]}", [x])
    if x.ok:  # the last source answered but had no price in it
        return _Decision(
            "price_total: no price found → honest answer",
            text=ctx.t(
                f"단가를 찾지 못했습니다. `{x.name}` 결과: {shorten(x.output, 240)}",
                f"I could not find the unit price. `{x.name}` returned: {shorten(x.output, 240)}",
            ),
        )
    return ctx.error_answer(x, ctx.t("단가", "the unit price"))


def _plan_calculate(ctx: _Ctx, intent: Intent) -> _Decision:
    expr = intent.args["expression"]
    state, x = ctx.chain([("calculator", {"expression": expr})])
    if state == "unavailable":
        return ctx.missing("calculator") or _Decision("unreachable")
    if state == "next":
        return _Decision("calculate: evaluate the expression", [x])
    if state == "failed":
        return ctx.error_answer(x, ctx.t(f"{expr}의 값", f"the value of {expr}"))
    value = parse_number(x.output)
    shown = fmt_number(value) if value is not None else shorten(x.output)
    return _Decision(
        "calculate: answer from calculator", text=ctx.t(f"계산 결과: {expr} = {shown}", f"{expr} = {shown}")
    )


def _weather_line(ctx: _Ctx, city: str, output: str) -> str:
    data = parse_json(output)
    if not isinstance(data, dict):
        return f"{city}: {shorten(output, 200)}"
    temp = next((data[k] for k in ("temperature", "temp") if k in data), None)
    unit = str(data.get("unit", ""))
    sym = "°F" if unit.lower().startswith("f") else "°C" if unit else ""
    cond = next((data[k] for k in ("condition", "conditions", "description", "weather") if data.get(k)), "")
    parts = [f"{fmt_number(float(temp))}{sym}" if isinstance(temp, (int, float)) else str(temp or "")]
    if cond:
        parts.append(str(cond))
    if data.get("humidity") is not None:
        parts.append(ctx.t(f"습도 {data['humidity']}%", f"humidity {data['humidity']}%"))
    return f"{data.get('city', city)}: {', '.join(p for p in parts if p)}"


def _plan_weather(ctx: _Ctx, intent: Intent) -> _Decision:
    cities, unit = intent.args["cities"], intent.args["unit"]
    if not cities:
        return _Decision(
            "weather: no city named → ask",
            text=ctx.t(
                '어느 도시의 날씨를 알려드릴까요? 예: "서울 날씨 알려줘"',
                'Which city? For example: "What\'s the weather in Seoul?"',
            ),
        )
    if missing := ctx.missing("get_weather"):
        return missing
    calls: list[Call] = []
    lines: list[str] = []
    got = 0
    temps: list[tuple[str, float]] = []
    for city in cities:
        attempts: list[Call] = [("get_weather", {"city": city.name, "unit": unit})]
        if city.alias:
            attempts.append(("get_weather", {"city": city.alias, "unit": unit}))
        state, x = ctx.chain(attempts)
        if state == "next":
            calls.append(x)
        elif state == "done":
            got += 1
            lines.append(_weather_line(ctx, city.name, x.output))
            data = parse_json(x.output)
            if isinstance(data, dict) and isinstance(data.get("temperature"), (int, float)):
                temps.append((str(data.get("city", city.name)), float(data["temperature"])))
        else:
            lines.append(
                ctx.t(
                    f"{city.name}: 날씨를 가져오지 못했습니다 ({shorten(x.output, 160)})",
                    f"{city.name}: no weather data ({shorten(x.output, 160)})",
                )
            )
    if calls:
        return _Decision("weather: get_weather for each city", calls)
    head = (
        ctx.t("날씨 (get_weather 결과, 시뮬레이션 데이터):", "Weather (from get_weather, simulated data):")
        if got
        else ""
    )
    rain = _rain(ctx)
    if len(lines) == 1:
        return _Decision(
            "weather: answer from get_weather" + (", rain decides" if rain else ""),
            text=rain + f"{head} {lines[0]}".strip(),
        )
    verdict = rain or (_warmer(ctx, temps) if len(temps) >= 2 and COMPARE.search(ctx.goal) else "")
    return _Decision(
        "weather: answer from get_weather" + (", compared" if verdict else ""),
        text=verdict + (head + "\n" if head else "") + "\n".join(f"- {line}" for line in lines),
    )


def _rain(ctx: _Ctx) -> str:
    """ "Yes, it is raining …" / "No, it is not raining." for an umbrella or rain question the
    weather results decide (:func:`agent_core.providers.offline.verdicts.expected`), else ""."""
    calls = [{"tool": d.name, "arguments": d.args, "output": d.output, "success": d.ok} for d in ctx.done]
    verdict = expected_verdict(ctx.goal, calls)
    if verdict is None or verdict.topic != "rain":
        return ""
    word = verdict.word(ctx.ko)
    if verdict.raining:
        return word + ctx.t("비가 오니 우산을 챙기세요.\n", "it is raining, so take an umbrella.\n")
    return word + ctx.t("비 소식은 없습니다.\n", "it is not raining.\n")


def _warmer(ctx: _Ctx, temps: list[tuple[str, float]]) -> str:
    """ "Seoul is the warmest." (or the coldest, when the goal asks which is colder), from the
    temperatures get_weather returned; no figure of its own."""
    colder = bool(re.search(r"colder|cooler|coldest|더 (?:추|춥|시원)", ctx.goal, re.I))
    pick = min(temps, key=lambda t: t[1]) if colder else max(temps, key=lambda t: t[1])
    if sum(1 for _, t in temps if t == pick[1]) > 1:
        return ctx.t("기온이 같습니다.\n", "They are equally warm.\n")
    if colder:
        return ctx.t(f"{pick[0]}이(가) 더 시원합니다.\n", f"{pick[0]} is colder.\n")
    return ctx.t(f"{pick[0]}이(가) 더 따뜻합니다.\n", f"{pick[0]} is warmer.\n")


def _plan_word_count(ctx: _Ctx, intent: Intent) -> _Decision:
    text, path = intent.args["text"], intent.args["path"]
    if not text and not path:
        return _Decision(
            "word_count: no text → ask",
            text=ctx.t(
                '어떤 글의 단어를 셀까요? 따옴표로 감싸 주세요. 예: "the quick brown fox"의 단어 수를 세어줘',
                'Which text? Put it in quotes, e.g. Count the words in "the quick brown fox".',
            ),
        )
    if missing := ctx.missing("word_count", *(["read_file"] if path else [])):
        return missing
    wc = ctx.latest("word_count")
    if wc is not None and (path or wc.args.get("text") == text):
        if not wc.ok:
            return ctx.error_answer(wc, ctx.t("단어 수", "the word count"))
        n = parse_number(wc.output)
        shown = fmt_number(n) if n is not None else shorten(wc.output)
        cut = "[TRUNCATED]" in str(wc.args.get("text", ""))
        note = (
            ctx.t(
                " (파일이 길어 잘린 앞부분만 셌습니다)",
                " (the file was truncated; only its start was counted)",
            )
            if cut
            else ""
        )
        subject = path or f'"{shorten(text, 60)}"'
        return _Decision(
            "word_count: answer from word_count",
            text=ctx.t(f"{subject}의 단어 수는 {shown}개입니다{note}.", f"{subject} has {shown} words{note}."),
        )
    if text:
        return _Decision("word_count: count the quoted text", [("word_count", {"text": text})])
    state, x = ctx.chain([("read_file", {"path": path})])
    if state == "next":
        return _Decision("word_count: read the file first", [x])
    if state == "failed":
        return ctx.error_answer(x, ctx.t(f"{path}의 내용", f"the contents of {path}"))
    return _Decision("word_count: count the file's words", [("word_count", {"text": x.output})])


def _plan_read_file(ctx: _Ctx, intent: Intent) -> _Decision:
    path = intent.args["path"]
    if missing := ctx.missing("read_file"):
        return missing
    state, x = ctx.chain([("read_file", {"path": path})])
    if state == "next":
        return _Decision("read_file: read the file", [x])
    if state == "failed":
        return ctx.error_answer(x, ctx.t(f"{path}의 내용", f"the contents of {path}"))
    lines = [ln.rstrip() for ln in x.output.splitlines() if ln.strip()]
    headings = [ln.lstrip("# ").strip() for ln in lines if ln.startswith("#")]
    extract: list[str] = []
    size = 0
    for ln in lines:
        if size > 500 or len(extract) >= 6:
            break
        extract.append(f"> {shorten(ln, 200)}")
        size += len(ln)
    summary = re.search(r"summar|요약|정리", ctx.goal, re.I)
    # No line or character counts here: a figure no tool returned would be an unsupported claim.
    text = ctx.t(f"{path}의 앞부분입니다:", f"{path} begins:")
    text += "\n\n" + "\n".join(extract)
    if len(headings) > 1:
        text += "\n\n" + ctx.t("제목: ", "Sections: ") + "; ".join(headings[:8])
    if summary:
        text += "\n\n" + ctx.t(
            "(규칙 기반 데모라서 요약 대신 원문 일부를 보여 드립니다.)",
            "(I'm a rule-based demo, so this is an extract, not a written summary.)",
        )
    if "[TRUNCATED]" in x.output:
        text += "\n" + ctx.t("(파일이 길어 앞부분만 읽었습니다.)", "(The file is long; only its start was read.)")
    return _Decision("read_file: answer with an extract", text=text)


_NO_HITS = re.compile(r"no (?:results|documents|matches)|nothing found|검색 결과가 없|찾지 못", re.I)


def _answer_hits(ctx: _Ctx, d: _Done, query: str, prefix: str = "") -> _Decision:
    hits = [] if _NO_HITS.search(d.output) else search_hits(d.output)
    if not hits:
        return _Decision(
            f"{d.name}: no results",
            text=prefix + ctx.t(f"'{query}'에 대한 검색 결과가 없습니다.", f"No results for '{query}'."),
        )
    if d.name != "search_cached" and re.match(r"\[fallback:", d.output):
        head = ctx.t(
            f"'{query}' 검색 결과 ({d.name} 실패 → 대체 도구의 캐시된 결과):",
            f"Results for '{query}' ({d.name} failed; cached results from its fallback):",
        )
    else:
        head = ctx.t(f"'{query}' 검색 결과 ({d.name}):", f"Results for '{query}' (from {d.name}):")
    body = "\n".join(f"{i}. {shorten(h, 220)}" for i, h in enumerate(hits[:5], 1))
    return _Decision(f"{d.name}: list the results", text=f"{prefix}{head}\n{body}")


def _plan_search_documents(ctx: _Ctx, intent: Intent) -> _Decision:
    query = intent.args["query"]
    if not query:
        return _Decision(
            "search_documents: no query → ask",
            text=ctx.t(
                "무엇을 찾을까요? 예: 문서에서 환불 찾아줘",
                "What should I search for? e.g. Search the documents for refund",
            ),
        )
    state, x = ctx.chain([("search_documents", {"query": query})])
    if state == "unavailable":
        return ctx.missing("search_documents") or _Decision("unreachable")
    if state == "next":
        return _Decision("search_documents: search the workspace", [x])
    if state == "failed":
        return ctx.error_answer(x, ctx.t("검색 결과", "search results"))
    return _answer_hits(ctx, x, query)


def _plan_search_web(ctx: _Ctx, intent: Intent) -> _Decision:
    query = intent.args["query"]
    if not query:
        return _Decision(
            "search_web: no query → ask",
            text=ctx.t("무엇을 웹에서 검색할까요?", "What should I search the web for?"),
        )
    tool = "search_web" if "search_web" in ctx.tools or "search_cached" not in ctx.tools else "search_cached"
    state, x = ctx.chain([(tool, {"query": query})])
    if state == "unavailable":
        return ctx.missing("search_web") or _Decision("unreachable")
    if state == "next":
        return _Decision(f"search_web: call {tool}", [x])
    if state == "failed":
        return ctx.error_answer(x, ctx.t("웹 검색 결과", "web search results"))
    return _answer_hits(ctx, x, query)


def _shipping_verdict(ctx: _Ctx, amount: float, fact: str) -> str:
    threshold = extract_money(fact)
    if threshold is None or not re.search(r"free|무료", fact, re.I):
        return ""
    a, t = fmt_number(amount), fmt_number(threshold)
    if amount >= threshold:
        return ctx.t(
            f" ${a} 주문은 기준 금액 ${t} 이상이므로 무료 배송 대상입니다.",
            f" A ${a} order is at or above the ${t} threshold, so shipping is free.",
        )
    return ctx.t(
        f" ${a} 주문은 기준 금액 ${t} 미만이라 무료 배송 조건에 해당하지 않습니다.",
        f" A ${a} order is below the ${t} threshold, so the free-shipping rule does not apply.",
    )


def _plan_lookup(ctx: _Ctx, intent: Intent) -> _Decision:
    if missing := ctx.missing("lookup"):
        return missing
    calls: list[Call] = []
    lines: list[str] = []
    found = 0
    for topic in intent.args["topics"]:
        name = topic.name(ctx.ko)
        attempts: list[Call] = [
            ("lookup", {"topic": name}),
            ("lookup", {"topic": topic.name(not ctx.ko)}),
            ("search_documents", {"query": name}),
        ]
        state, x = ctx.chain(attempts)
        if state == "next":
            calls.append(x)
        elif state == "failed":
            lines.append(
                ctx.t(
                    f"{name}: 정보를 찾지 못했습니다 ({shorten(x.output, 160)})",
                    f"{name}: not found ({shorten(x.output, 160)})",
                )
            )
        elif x.name == "search_documents":
            lines.append(
                _answer_hits(
                    ctx, x, name, ctx.t("(lookup 실패 → 문서 검색) ", "(lookup failed → document search) ")
                ).text
            )
        else:
            fact = _fact(x.output)
            said = fact.lower().startswith(name.lower()) or fact.lower().startswith(topic.en)
            line = fact if said else ctx.t(f"{name}: {fact}", f"{name[:1].upper() + name[1:]}: {fact}")
            if topic.key == "shipping" and intent.args.get("amount") is not None:
                line += _shipping_verdict(ctx, float(intent.args["amount"]), fact)
            lines.append(line)
            found += 1
    if calls:
        return _Decision("lookup: look up each topic", calls)
    head = ctx.t("lookup 결과:", "From lookup:") if found else ""
    if len(lines) == 1:
        return _Decision("lookup: answer quoting the fact", text=f"{head} {lines[0]}".strip())
    return _Decision(
        "lookup: answer quoting the facts",
        text=(head + "\n" if head else "") + "\n".join(f"- {ln}" for ln in lines),
    )


_EXAMPLES_KO = (
    "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.",
    "(24*7)+100은?",
    "환불 정책 알려줘",
    "서울 날씨 알려줘",
    '"the quick brown fox"의 단어 수를 세어줘',
    "notes.txt 읽어줘",
    "문서에서 환불 찾아줘",
    "웹에서 streamlit 검색해줘",
)
_EXAMPLES_EN = (
    "Look up the unit price and compute the total for 12 units",
    "What is (24*7)+100?",
    "What is the refund policy?",
    "What's the weather in Seoul in fahrenheit?",
    'Count the words in "the quick brown fox"',
    "Read notes.txt and summarize",
    "Search the documents for refund",
    "Search the web for streamlit",
)


def _plan_help(ctx: _Ctx, intent: Intent) -> _Decision:
    greet = intent.kind == "greeting"
    first = ctx.t(
        "안녕하세요! " if greet else "이 목표에 맞는 규칙을 찾지 못했습니다. ",
        "Hello! " if greet else "I couldn't match this goal to one of my rules. ",
    )
    about = ctx.t(
        "저는 오프라인 데모 모델입니다 — LLM이 아니라 규칙 기반 플래너라서, 간단한 규칙으로 도구를 고르고 "
        "도구 결과만으로 답합니다. 이런 목표를 해 보세요:",
        "I'm the offline demo model — a rule-based planner, not an LLM: I pick tools by simple "
        "rules and answer only from their outputs. Try goals like:",
    )
    # Code spans: the examples are things to type, not facts (the answer check skips code).
    examples = "\n".join(f"- `{e}`" for e in (_EXAMPLES_KO if ctx.ko else _EXAMPLES_EN))
    tools = ctx.t("사용 가능한 도구: ", "Enabled tools: ") + (", ".join(ctx.tools) or "-")
    return _Decision(f"{intent.kind}: answer without tools", text=f"{first}{about}\n{examples}\n\n{tools}")


_PLANS: dict[str, Callable[[_Ctx, Intent], _Decision]] = {
    "price_total": _plan_price,
    "calculate": _plan_calculate,
    "weather": _plan_weather,
    "word_count": _plan_word_count,
    "read_file": _plan_read_file,
    "search_documents": _plan_search_documents,
    "search_web": _plan_search_web,
    "lookup": _plan_lookup,
    "greeting": _plan_help,
    "help": _plan_help,
}
