"""The one-file web page export and importing it back."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import html5lib
import pytest

from agent_core.analysis.export_html import CSP, HIDDEN_OUTPUT, RECORD_ELEMENT_ID, export_html, exported_record
from agent_core.analysis.import_run import ImportProblem, import_bytes, import_file, read_import
from agent_core.cli.main import main
from agent_core.masking import mask
from agent_core.providers.scripted import ScriptedProvider
from agent_core.records.files import load_record
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings
from agent_core.tools.registry import ToolRegistry
from tests.explain_fixtures import Tools, answer, call
from tests.record_schema import assert_valid_record

NS = "{http://www.w3.org/1999/xhtml}"
SECRETS = ("sk-proj-SEEDEDsecret0123456789", "hunter2-SEEDED-password", "ghp_SEEDEDtoken0123456789abcdefXYZ")
URL_ATTRS = ("src", "href", "action", "formaction", "poster", "data", "srcset", "background", "xlink:href")


def hostile(port: int) -> list[str]:
    """Payloads that would reach the counting listener on ``port`` if anything ran or loaded."""
    base = f"http://127.0.0.1:{port}"
    return [
        f"<script>fetch('{base}/script')</script>",
        f"</script><script>new Image().src='{base}/close-script'</script>",
        f"<img src='{base}/img' onerror=\"fetch('{base}/onerror')\">",
        f"<iframe src='{base}/iframe'></iframe><meta http-equiv='refresh' content='0;url={base}/refresh'>",
        f"<style>body{{background:url({base}/css)}}</style><link rel=stylesheet href='{base}/link'>",
        f"![x]({base}/md-image) <a href='{base}/a'>link</a> <!-- \u2028 &lt;b&gt; <svg onload=\"fetch('{base}/svg')\">",
    ]


def _registry() -> ToolRegistry:
    reg = ToolRegistry()

    @reg.tool
    def lookup(topic: str, api_key: str = "") -> str:
        """Look a topic up."""
        return f"{topic}: " + ("lorem ipsum dolor sit amet " * 200)

    return reg


@pytest.fixture
def tour(settings: Settings) -> dict[str, Any]:
    """A real run with a retry, a fallback, a duplicate, a validation error and trimming."""
    turns = [
        call("web_search", {"query": "cats"}),
        call("web_search", {"query": "dogs"}),
        call("web_search", {"query": "cats"}),
        call("add", {"a": "x", "b": 1}),
        call("add", {"a": 2, "b": 3}),
        answer("Cats, dogs and 5."),
    ]
    tools = Tools(flaky_failures=5)  # cats: 4 failed attempts, then the fallback; dogs: 1 retry
    record = run_to_end(
        "Find cats and dogs, then add 2 and 3.",
        provider=ScriptedProvider(turns),
        registry=tools.registry,
        settings=settings.replace(max_context_blocks=2),
    )
    assert record["tool_calls"][0]["fallback"] and len(record["tool_calls"][1]["attempts"]) == 2
    return record


def _seed_secrets(record: dict[str, Any]) -> dict[str, Any]:
    """Secrets put into a record after the fact (as in a file from elsewhere): the export masks them."""
    seeded = copy.deepcopy(record)
    seeded["goal"] += f" my key is {SECRETS[0]}"
    seeded["tool_calls"][0]["arguments"] = {"query": "cats", "password": SECRETS[1]}
    seeded["tool_calls"][0]["output"] += f" token={SECRETS[2]}"
    seeded["history"].append({"role": "user", "content": f"Authorization: Bearer {SECRETS[2]}"})
    return seeded


def _tree(page: str) -> Any:
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=True).parse(page)


def test_page_parses_has_no_urls_and_no_secrets(tour: dict[str, Any]) -> None:
    page = export_html(_seed_secrets(tour))
    tree = _tree(page)  # strict: any parse error raises
    for element in tree.iter():
        for name, value in element.attrib.items():
            if name.lower() in URL_ATTRS:
                assert not re.search(r"(?i)(https?:|//|data:|javascript:)", value), (name, value)
                assert value.startswith("#"), value
    styles = " ".join(e.text or "" for e in tree.iter(f"{NS}style"))
    assert "url(" not in styles and "@import" not in styles
    assert not re.search(r"(?i)(src|href)\s*=\s*[\"']?https?://", page)
    assert not re.search(r"(?i)url\(\s*[\"']?https?://", page)
    for secret in SECRETS:
        assert secret not in page
    csp = [m.get("content") for m in tree.iter(f"{NS}meta") if m.get("http-equiv") == "Content-Security-Policy"]
    assert csp == [CSP] and "default-src 'none'" in CSP and "connect-src 'none'" in CSP
    # Every step and tool call is on the page, each step with an anchor the summary links to.
    ids = {e.get("id") for e in tree.iter() if e.get("id")}
    assert {f"step-{s['index']}" for s in tour["steps"]} <= ids
    links = {e.get("href") for e in tree.iter(f"{NS}a")}
    assert links and all(link[1:] in ids for link in links)
    text = "".join(tree.itertext())
    assert "hiccuped and we tried again" in text and "fallback: cached_search" in text
    assert "What the model saw at each step" in text and "trimmed" in text
    assert "Play" in text


def test_import_of_export_is_the_masked_record(tour: dict[str, Any], settings: Settings, tmp_path: Path) -> None:
    seeded = _seed_secrets(tour)
    seeded["status_shown"] = "completed"
    page = export_html(seeded)
    record, kind = read_import(page.encode("utf-8"), "run.html")
    expected = mask({k: v for k, v in seeded.items() if k != "status_shown"})
    assert kind == "html" and record == expected
    other = tmp_path / "other" / "runs"
    saved, path = import_bytes(page.encode("utf-8"), "run.html", other)
    assert saved["imported_from"] == "html"
    assert {k: v for k, v in load_record(path).items() if k != "imported_from"} == expected
    assert_valid_record(load_record(path))
    # Again: refused, nothing changed.
    before = path.read_bytes()
    with pytest.raises(ImportProblem, match="already saved"):
        import_bytes(page.encode("utf-8"), "run.html", other)
    assert path.read_bytes() == before
    # A record's JSON file imports too.
    json_file = tmp_path / "rec.json"
    json_file.write_text(json.dumps(seeded))
    saved, _ = import_file(json_file, tmp_path / "third")
    assert saved["imported_from"] == "json" and SECRETS[0] not in json.dumps(saved)


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "empty"),
        (b"<html><body>hello</body></html>", "holds no run"),
        (b'{"hello": 1}', "not a run record"),
        (b"\xff\xfe{", "not valid JSON"),
        (
            f'<script type="application/json" id="{RECORD_ELEMENT_ID}">{{"schema_version": 1}}</script>'.encode(),
            "not a run record",
        ),
    ],
)
def test_bad_imports_say_why(data: bytes, message: str, tmp_path: Path) -> None:
    with pytest.raises(ImportProblem, match=message):
        import_bytes(data, "file", tmp_path / "runs")
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())


def test_hide_outputs(tour: dict[str, Any]) -> None:
    page = export_html(tour, hide_outputs=True)
    record, _ = read_import(page.encode(), "x.html")
    assert all(c["output"] == HIDDEN_OUTPUT for c in record["tool_calls"])
    assert "results for cats" not in page and "cached results" not in page
    assert exported_record(tour)["tool_calls"][0]["output"] != HIDDEN_OUTPUT


def test_fifty_steps_under_two_megabytes(settings: Settings) -> None:
    turns = [call("lookup", {"topic": f"topic {i}"}) for i in range(49)] + [answer("done")]
    record = run_to_end(
        "Look up 49 topics.",
        provider=ScriptedProvider(turns),
        registry=_registry(),
        settings=settings.replace(max_steps=50),
    )
    assert len(record["steps"]) == 50 and record["status"] == "completed"
    assert min(len(c["output"]) for c in record["tool_calls"]) >= 4000  # each output at the default cap
    page = export_html(record)
    size = len(page.encode("utf-8"))
    assert size < 2 * 2**20, size
    _tree(page)


def test_cli_export_and_import(
    tour: dict[str, Any],
    settings: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("AGENT_DATA_DIR", str(settings.data_dir))
    out = tmp_path / "run.html"
    assert main(["export", tour["run_id"], "--html", str(out)]) == 0
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert main(["export", "no-such-run", "--html", str(out)]) == 2
    assert main(["export", tour["run_id"]]) == 2
    assert main(["export", tour["run_id"], "--html", str(tmp_path / "missing" / "x.html")]) == 1
    other = tmp_path / "other"
    monkeypatch.setenv("AGENT_DATA_DIR", str(other))
    capsys.readouterr()
    assert main(["import", str(out)]) == 0
    assert capsys.readouterr().out.strip() == tour["run_id"]
    assert load_record(other / "runs" / f"{tour['run_id']}.json")["imported_from"] == "html"
    assert main(["import", str(out)]) == 2
    assert main(["import", str(tmp_path / "nothing.html")]) == 2


def injection_record(record: dict[str, Any], port: int) -> dict[str, Any]:
    """``record`` with hostile text in every field a person sees."""
    bad = hostile(port)
    out = copy.deepcopy(record)
    out["goal"] = " ".join(bad)
    out["answer"] = bad[1] + bad[0]
    out["model"] = bad[2]
    for n, step in enumerate(out["steps"]):
        step["text"] = bad[n % len(bad)]
    for n, c in enumerate(out["tool_calls"]):
        c["tool"] = bad[(n + 1) % len(bad)][:60]
        c["arguments"] = {"q": bad[n % len(bad)], bad[3][:20]: bad[4]}
        c["output"] = bad[(n + 2) % len(bad)]
        c["error_category"] = bad[5][:40] if not c["success"] else c["error_category"]
    out["error"] = {"type": bad[0], "message": bad[1]}
    return out


def test_injection_page_is_inert_in_markup(tour: dict[str, Any]) -> None:
    page = export_html(injection_record(tour, 9))
    tree = _tree(page)
    scripts = list(tree.iter(f"{NS}script"))
    assert [s.get("type") for s in scripts] == ["application/json", None]
    for tag in ("img", "iframe", "link", "svg", "object", "embed", "base", "form", "input"):
        assert not list(tree.iter(f"{NS}{tag}")), tag
    assert len(list(tree.iter(f"{NS}style"))) == 1
    assert all(m.get("http-equiv") in (None, "Content-Security-Policy") for m in tree.iter(f"{NS}meta"))
    assert all(not any(k.startswith("on") for k in e.attrib) for e in tree.iter())
    record, _ = read_import(page.encode(), "x.html")
    assert record["answer"] == injection_record(tour, 9)["answer"]
