"""A run as one self-contained web page: readable anywhere, offline, and importable again.

The page holds the plain-language summary, the step timeline with every tool call (arguments,
result, attempts, fallback), the context-block ledger and a "Play" button that walks through
the steps at reading speed (for demos). Its CSS and JS are inline; a Content-Security-Policy
meta tag allows only those two (by hash) and forbids every network access, and the page names
no external URL of its own. Every text from the run is HTML-escaped, so a record full of
HTML/JS payloads renders as inert text.

The masked record is embedded as ``<script type="application/json" id=…>`` (with ``<``, ``>``
and ``&`` written as JSON escapes, so no text in it can close the element):
:mod:`agent_core.analysis.import_run` reads it back.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Mapping
from typing import Any

from agent_core.analysis.explain import explain
from agent_core.checks.words import summary as check_summary
from agent_core.masking import mask
from agent_core.records.decided import choice_words, constraint_words
from agent_core.records.outcome import WORDS
from agent_core.records.outcome import outcome as outcome_of
from agent_core.records.stats import approval_words

RECORD_ELEMENT_ID = "agent-workbench-record"
"""The id of the element holding the embedded record."""
HIDDEN_OUTPUT = "[tool output left out of this export]"
SHOWN_FIELDS_DROPPED = ("status_shown",)
"""Fields the app adds when it reads a record; not part of the record."""

_CSS = """
*{box-sizing:border-box}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2937;background:#f8fafc}
main{max-width:980px;margin:0 auto;padding:24px 16px 80px}
h1{font-size:1.5rem;margin:.2rem 0 .4rem}
h2{font-size:1.15rem;margin:1.6rem 0 .5rem;border-bottom:1px solid #e2e8f0;padding-bottom:.2rem}
.meta{color:#64748b;font-size:.85rem}
.box{background:#fff;border:1px solid #e2e8f0;border-radius:8px;padding:12px 14px;margin:.6rem 0}
.goal{white-space:pre-wrap;word-break:break-word}
.badge{display:inline-block;border-radius:6px;padding:0 6px;font-size:.8rem;margin-right:4px;background:#e2e8f0}
.ok{background:#dcfce7;color:#166534}.bad{background:#fee2e2;color:#991b1b}.warn{background:#fef3c7;color:#92400e}
.summary li{margin:.2rem 0}
.why{background:#fffbeb;border-color:#fcd34d}
pre{white-space:pre-wrap;word-break:break-word;background:#f1f5f9;border-radius:6px;padding:8px;margin:.3rem 0;
font:12.5px/1.4 ui-monospace,Menlo,Consolas,monospace;max-height:320px;overflow:auto}
.step{transition:box-shadow .3s,border-color .3s;scroll-margin-top:56px}
.step.playing{border-color:#6366f1;box-shadow:0 0 0 3px #c7d2fe}
.call{border-top:1px dashed #cbd5e1;padding-top:6px;margin-top:8px}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:10px}
@media (max-width:700px){.cols{grid-template-columns:1fr}}
table{border-collapse:collapse;font-size:.85rem;width:100%}
th,td{border:1px solid #e2e8f0;padding:3px 6px;text-align:left;vertical-align:top}
td.sent{background:#dcfce7;color:#166534}td.trimmed{background:#f1f5f9;color:#94a3b8;text-decoration:line-through}
.ledger{overflow-x:auto}
#player{position:sticky;top:0;background:#f8fafc;padding:6px 0;z-index:2;display:flex;gap:8px;align-items:center}
button{font:inherit;border:1px solid #94a3b8;background:#fff;border-radius:6px;padding:3px 12px;cursor:pointer}
a{color:#4338ca}
"""

_JS = """
(function(){
  var steps=[].slice.call(document.querySelectorAll('section.step'));
  var btn=document.getElementById('play');var stop=document.getElementById('stop');
  var note=document.getElementById('play-note');var timer=null;var at=0;
  function clear(){steps.forEach(function(s){s.classList.remove('playing')});}
  function words(el){return (el.textContent||'').split(/\\s+/).length;}
  function show(){
    clear();
    if(at>=steps.length){btn.textContent='Play';note.textContent='Done.';timer=null;at=0;return;}
    var s=steps[at];s.classList.add('playing');s.scrollIntoView({behavior:'smooth',block:'start'});
    note.textContent='Step '+(at+1)+' of '+steps.length;
    var ms=Math.min(12000,Math.max(1800,words(s)*240));
    at+=1;timer=setTimeout(show,ms);
  }
  btn.addEventListener('click',function(){
    if(timer){clearTimeout(timer);timer=null;btn.textContent='Play';note.textContent='Paused.';return;}
    btn.textContent='Pause';show();
  });
  stop.addEventListener('click',function(){if(timer){clearTimeout(timer);}timer=null;at=0;clear();
    btn.textContent='Play';note.textContent='';window.scrollTo(0,0);});
})();
"""


def _csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


CSP = (
    "default-src 'none'; "
    f"style-src {_csp_hash(_CSS)}; "
    f"script-src {_csp_hash(_JS)}; "
    "img-src 'none'; font-src 'none'; connect-src 'none'; media-src 'none'; object-src 'none'; "
    "frame-src 'none'; child-src 'none'; worker-src 'none'; manifest-src 'none'; "
    "form-action 'none'; base-uri 'none'"
)
"""Only this page's own style and script (by hash); no network of any kind."""


def _e(value: Any) -> str:
    """Run text (or any value) as escaped HTML text."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1, default=str)
    return html.escape(text, quote=True)


def _ms(value: Any) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value != value:
        return "—"
    return f"{value / 1000:.1f} s" if value >= 1000 else f"{value:.0f} ms"


def embed_json(value: Any) -> str:
    """``value`` as JSON safe inside a ``<script>`` element (no ``<``, ``>``, ``&`` or line separators)."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return (
        text.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def exported_record(record: Mapping[str, Any], *, hide_outputs: bool = False) -> dict[str, Any]:
    """The record as the page embeds it: masked, without app-only fields, outputs left out on request."""
    clean = mask({k: v for k, v in record.items() if k not in SHOWN_FIELDS_DROPPED})
    if hide_outputs:
        for call in clean.get("tool_calls") or []:
            if isinstance(call, dict) and "output" in call:
                call["output"] = HIDDEN_OUTPUT
        for block in clean.get("context_blocks") or []:
            for item in (block.get("items") or []) if isinstance(block, dict) else []:
                if isinstance(item, dict) and item.get("kind") == "tool_output":
                    item["output"] = HIDDEN_OUTPUT
        for message in clean.get("history") or []:
            if isinstance(message, dict) and message.get("role") == "tool":
                message["content"] = HIDDEN_OUTPUT
        # A line choice quotes the results: its lines go too (the pick and its probability stay).
        held = [s.get("constraint") for s in clean.get("steps") or [] if isinstance(s, dict)]
        choices = [c.get("line_choice") for c in held if isinstance(c, dict)]
        raws = [r for b in clean.get("context_blocks") or [] if isinstance(b, dict) for r in b.get("raw") or []]
        for choice in [*choices, *raws]:
            if isinstance(choice, dict) and isinstance(choice.get("lines"), list):
                choice["lines"] = [HIDDEN_OUTPUT] * len(choice["lines"])
                choice.pop("shown", None)
    return clean


def _summary(record: dict[str, Any]) -> str:
    result = explain(record)
    items = []
    for s in result.sentences:
        link = f' <a href="#step-{s.step}">step {s.step}</a>' if s.step is not None else ""
        items.append(f"<li>{_e(s.text)}{link}</li>")
    out = [f'<section class="box summary"><h2 id="summary">In plain words</h2><ul>{"".join(items)}</ul>']
    failure = result.failure
    if failure is not None:
        where = f' (<a href="#step-{failure.step}">step {failure.step}</a>)' if failure.step is not None else ""
        hints = "".join(f"<li>{_e(h)}</li>" for h in failure.hints)
        out.append(
            f'<div class="box why"><b>Why it did not finish:</b> {_e(failure.headline.rstrip("."))}{where}.'
            f"<br><b>What you can try</b><ul>{hints}</ul></div>"
        )
    if result.technical:
        out.append(
            f"<details><summary>Technical details</summary><pre>{_e(chr(10).join(result.technical))}</pre></details>"
        )
    out.append("</section>")
    return "".join(out)


def _attempts_table(tool: Any, attempts: Any) -> str:
    if not isinstance(attempts, list) or not attempts:
        return ""
    rows = "".join(
        f"<tr><td>{_e(tool)}</td><td>{_e(a.get('attempt'))}</td>"
        f"<td>{'ok' if a.get('success') else 'failed'}</td><td>{_e(a.get('error') or '')}</td>"
        f"<td>{_ms(a.get('duration_ms'))}</td><td>{_e(a.get('wait_s') if a.get('wait_s') else '')}</td></tr>"
        for a in attempts
        if isinstance(a, dict)
    )
    return rows


def _call(call: dict[str, Any], *, hide_outputs: bool) -> str:
    ok = bool(call.get("success"))
    badges = [f'<span class="badge {"ok" if ok else "bad"}">{"ok" if ok else "failed"}</span>']
    raw_attempts = call.get("attempts")
    attempts = raw_attempts if isinstance(raw_attempts, list) else []
    if len(attempts) > 1:
        badges.append(f'<span class="badge warn">{len(attempts)} attempts</span>')
    raw_fallback = call.get("fallback")
    fallback = raw_fallback if isinstance(raw_fallback, dict) else None
    if fallback:
        badges.append(f'<span class="badge warn">fallback: {_e(fallback.get("tool"))}</span>')
    if call.get("duplicate"):
        badges.append('<span class="badge bad">duplicate refused</span>')
    if call.get("truncated"):
        badges.append('<span class="badge">truncated</span>')
    if call.get("error_category") and not ok and not call.get("duplicate"):
        badges.append(f'<span class="badge bad">{_e(call.get("error_category"))}</span>')
    approval = call.get("approval") if isinstance(call.get("approval"), dict) else {}
    approved = ""
    if approval:
        badges.append(f'<span class="badge warn">approval: {_e(approval.get("decision"))}</span>')
        waited = f", after {_ms(approval.get('wait_ms'))} of waiting (not in the call's time)"
        asked = (
            f'<div class="meta">The model asked for: {_e(json.dumps(approval.get("original_arguments"), ensure_ascii=False))}</div>'
            if approval.get("decision") == "edited"
            else ""
        )
        approved = f'<div class="meta">Approval: {_e(approval_words(approval))}{waited}</div>{asked}'
    output = HIDDEN_OUTPUT if hide_outputs else call.get("output")
    table = _attempts_table(call.get("tool"), attempts)
    if fallback:
        table += _attempts_table(fallback.get("tool"), fallback.get("attempts"))
    attempts_html = (
        "<details><summary>Attempts</summary><table><tr><th>tool</th><th>#</th><th>outcome</th><th>error</th>"
        f"<th>time</th><th>waited (s)</th></tr>{table}</table></details>"
        if table and (len(attempts) > 1 or fallback or not ok)
        else ""
    )
    return (
        f'<div class="call"><b>Tool: {_e(call.get("tool"))}</b> · {_ms(call.get("duration_ms"))} {" ".join(badges)}'
        f'<div class="meta">{_e(choice_words(call))}</div>{approved}'
        f'<div class="cols"><div><span class="meta">Arguments</span><pre>{_e(call.get("arguments"))}</pre></div>'
        f'<div><span class="meta">{"Result" if ok else "Error"}</span><pre>{_e(output)}</pre></div></div>'
        f"{attempts_html}</div>"
    )


def _steps(record: dict[str, Any], *, hide_outputs: bool) -> str:
    calls = {c.get("call_id"): c for c in record.get("tool_calls") or [] if isinstance(c, dict)}
    out = []
    for n, step in enumerate(s for s in record.get("steps") or [] if isinstance(s, dict)):
        index = step.get("index") if isinstance(step.get("index"), int) else n + 1
        raw_usage = step.get("usage")
        usage = raw_usage if isinstance(raw_usage, dict) else {}
        attempts = [a for a in step.get("model_attempts") or [] if isinstance(a, dict)]
        failed = [a for a in attempts if not a.get("success")]
        made_in = _made_in(record)
        named = _blocks_named(step.get("blocks_sent"), made_in)
        sent = f"the goal and {named}" if named else "the goal only (no blocks yet)"  # as the Run page says
        trimmed = _blocks_named(step.get("blocks_trimmed"), made_in)
        parts = [
            f'<section class="box step" id="step-{_e(index)}"><b>Step {_e(index)}</b> '
            f'<span class="meta">· {_ms(step.get("duration_ms"))} · model {_ms(step.get("model_duration_ms"))} · '
            f"{_e(usage.get('total_tokens', 0))} tokens"
            f"{f' · {len(attempts)} model attempts' if len(attempts) > 1 else ''}</span>",
            f'<div class="meta">Context sent: {_e(sent)}{f" · trimmed: {_e(trimmed)}" if trimmed else ""}</div>',
        ]
        if isinstance(step.get("constraint"), dict):
            held = constraint_words(step["constraint"], answered=not step.get("tool_call_ids"))
            parts.append(f'<div class="meta">{_e(held)}</div>')
        for a in failed:
            parts.append(
                f'<div class="meta">Model attempt {_e(a.get("attempt"))} failed: {_e(a.get("error_type"))} — '
                f"{_e(a.get('message'))}</div>"
            )
        if step.get("text"):
            parts.append(f'<span class="meta">The model said</span><pre>{_e(step.get("text"))}</pre>')
        for call_id in step.get("tool_call_ids") or []:
            call = calls.get(call_id)
            if call is not None:
                parts.append(f'<div id="call-{_e(call_id)}">{_call(call, hide_outputs=hide_outputs)}</div>')
        parts.append("</section>")
        out.append("".join(parts))
    return "".join(out) or '<p class="meta">This run has no steps.</p>'


def _made_in(record: Mapping[str, Any]) -> dict[int, Any]:
    """Each context block's index → the step that made it."""
    return {
        b["index"]: b.get("step")
        for b in record.get("context_blocks") or []
        if isinstance(b, dict) and isinstance(b.get("index"), int)
    }


def _blocks_named(ids: Any, made_in: Mapping[int, Any]) -> str:
    """Blocks named by the step that made them, as the dashboard names them ("the blocks from
    steps 1, 2"), not by the engine's 0-based index."""
    ids = [i for i in ids or [] if isinstance(i, int)]
    if not ids:
        return ""
    steps = [str(made_in[i]) for i in ids if made_in.get(i) is not None]
    unknown = [f"block #{i}" for i in ids if made_in.get(i) is None]
    named = (
        [("the block from step " if len(steps) == 1 else "the blocks from steps ") + ", ".join(steps)] if steps else []
    )
    return ", ".join(named + unknown)


def _ledger(record: dict[str, Any]) -> str:
    blocks = [b for b in record.get("context_blocks") or [] if isinstance(b, dict)]
    steps = [s for s in record.get("steps") or [] if isinstance(s, dict)]
    if not blocks:
        return '<p class="meta">No context blocks: the model answered without calling tools.</p>'
    head = "".join(f"<th>step {_e(s.get('index'))}</th>" for s in steps)
    rows = []
    for block in blocks:
        tools = (
            ", ".join(
                str(i.get("tool"))
                for i in block.get("items") or []
                if isinstance(i, dict) and i.get("kind") == "tool_call"
            )
            or "text"
        )
        cells = []
        for s in steps:
            if block.get("index") in (s.get("blocks_sent") or []):
                cells.append('<td class="sent">sent</td>')
            elif block.get("index") in (s.get("blocks_trimmed") or []):
                cells.append('<td class="trimmed">trimmed</td>')
            else:
                cells.append("<td></td>")
        rows.append(f"<tr><td>from step {_e(block.get('step'))}</td><td>{_e(tools)}</td>{''.join(cells)}</tr>")
    return (
        '<p class="meta">What the model saw at each step: <b>sent</b> = shown to the model then; '
        "<s>trimmed</s> = left out to keep its input short. The goal is always sent.</p>"
        f'<div class="ledger"><table><tr><th>block</th><th>tool calls in it</th>{head}</tr>'
        f"{''.join(rows)}</table></div>"
    )


def _answer_check(record: dict[str, Any]) -> str:
    """The answer check's figures, each with where it was found: a document's file and page or
    section (linked to the tool call that read it), the goal, or nowhere."""
    grounding = record.get("grounding")
    claims = (
        [c for c in (grounding or {}).get("claims") or [] if isinstance(c, dict)] if isinstance(grounding, dict) else []
    )
    if not isinstance(grounding, dict):
        return ""
    line = f'<div class="box"><b>Answer check</b> · {_e(check_summary(grounding))}'
    if grounding.get("note"):
        line += f'<p class="meta">{_e(grounding.get("note"))}</p>'
    if not claims:
        return line + "</div>"
    items = []
    for claim in claims:
        source = claim.get("source") if isinstance(claim.get("source"), dict) else None
        if source is None:
            where = '<span class="badge bad">found in no tool result</span>'
        elif source.get("goal"):
            where = "from the goal"
        else:
            link = f'<a href="#call-{_e(source.get("call_id"))}">{_e(source.get("tool"))}</a>'
            where = f"{_e(source.get('cite'))} ({link})" if source.get("cite") else f"from {link}"
        items.append(f"<li><b>{_e(claim.get('text'))}</b> — {where}</li>")
    return f"{line}<ul>{''.join(items)}</ul></div>"


def export_html(record: Mapping[str, Any], *, hide_outputs: bool = False) -> str:
    """The run as one self-contained HTML page (see the module docstring)."""
    shown = str(record.get("status_shown") or record.get("status") or "")
    data = exported_record(record, hide_outputs=hide_outputs)
    view = {**data, "status_shown": shown} if shown else data
    raw_usage = data.get("usage")
    usage = raw_usage if isinstance(raw_usage, dict) else {}
    cost = data.get("cost_usd")
    cost_text = "unknown" if not isinstance(cost, (int, float)) else "free" if cost == 0 else f"${cost:.4f}"
    answer = data.get("answer")
    error = data.get("error") if isinstance(data.get("error"), dict) else None
    outcome = f"<p><b>Answer</b></p><pre>{_e(answer)}</pre>" if answer else ""
    if error and shown != "completed" and error.get("message"):
        outcome += f"<p><b>What the program said</b></p><pre>{_e(error.get('message'))}</pre>"
    hidden_note = '<p class="meta">Tool outputs were left out of this export.</p>' if hide_outputs else ""
    kind, why = outcome_of(view)  # the dashboard's word (Answered, Not found …), the saved status beside it
    icon, word = WORDS[kind]
    said = f"{icon} {word}"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Agent run · {_e(word)} · {_e(str(data.get("goal") or "")[:80])}</title>
<style>{_CSS}</style>
</head>
<body>
<main>
<p class="meta">Agent Workbench · exported run · works offline · import it back in History → “Import a run”</p>
<h1>Agent run <span class="badge {"ok" if kind == "answered" else "bad"}" title="saved status: {_e(shown)}">{_e(said)}</span></h1>
{f'<p class="meta">{_e(why)}</p>' if why else ""}
<div class="box"><span class="meta">Goal</span><div class="goal">{_e(data.get("goal"))}</div></div>
<p class="meta">Provider {_e(data.get("provider"))} · model {_e(data.get("model"))} · started {_e(data.get("started_at"))}
 · {len(data.get("steps") or [])} steps · {len(data.get("tool_calls") or [])} tool calls
 · {_e(usage.get("total_tokens", 0))} tokens · cost {_e(cost_text)} · took {_ms(data.get("duration_ms"))}
 · run id {_e(data.get("run_id"))}</p>
{hidden_note}
{_summary(view)}
<div class="box">{outcome or '<p class="meta">No answer.</p>'}</div>
{_answer_check(data)}
<h2 id="steps">Steps</h2>
<div id="player"><button id="play" type="button">Play</button><button id="stop" type="button">Stop</button>
<span id="play-note" class="meta">Play walks through the steps at reading speed.</span></div>
{_steps(data, hide_outputs=hide_outputs)}
<h2 id="ledger">Context blocks</h2>
{_ledger(data)}
</main>
<script type="application/json" id="{RECORD_ELEMENT_ID}">{embed_json(data)}</script>
<script>{_JS}</script>
</body>
</html>
"""
