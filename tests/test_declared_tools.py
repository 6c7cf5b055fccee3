"""Tools declared without code: mock and http tools through the dispatcher, ten SSRF probes refused,
the petstore OpenAPI import, and the YAML round trip through the Tools page's form."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent_core.providers.scripted import ScriptedProvider
from agent_core.run.approval import FixedApprover
from agent_core.run.dispatcher import Dispatcher
from agent_core.run.prepare import prepare_run
from agent_core.settings import Settings
from agent_core.tools import declared, declared_form, openapi
from agent_core.tools.builtins import BUILTIN_TOOL_NAMES, build_default_registry
from agent_core.tools.http_guard import Refused, check_url, fetch
from tests.mcp_kit import answering
from tests.record_schema import assert_valid_record

ROOT = Path(__file__).resolve().parents[1]
PETSTORE = Path(__file__).resolve().parent / "fixtures" / "petstore.yaml"

MOCK = """name: check_stock
description: How many units of an item are in stock, by its code.
kind: mock
parameters:
  type: object
  properties:
    sku:
      type: string
      description: The item code, e.g. A-100
  required:
  - sku
result: '{{sku}}: 12 units in stock'
"""


def _settings(tmp_path: Path, **more: Any) -> Settings:
    (tmp_path / "workspace" / "tools").mkdir(parents=True, exist_ok=True)
    return Settings(data_dir=tmp_path, retry_delays=(0.0,), **more)


def _write(settings: Settings, name: str, text: str) -> Path:
    path = settings.declared_tools_dir / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_mock_tool_runs_like_a_built_in_and_is_recorded_as_declared(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    _write(settings, "stock.yaml", MOCK)
    turns = [{"tool_calls": [{"name": "check_stock", "arguments": {"sku": "A-100"}}]}, {"text": "12 units."}]
    record = prepare_run("Stock of A-100?", settings=settings, provider=ScriptedProvider(turns)).run_to_end()
    assert_valid_record(record)
    call = record["tool_calls"][0]
    assert call["output"] == "A-100: 12 units in stock"
    assert call["tool_source"] == "declared" and call["server"] == "stock.yaml"
    assert call["annotations"] == {"readOnlyHint": True, "openWorldHint": False}
    refused = Dispatcher(build_default_registry(settings), settings).call_direct("check_stock", {"sku": 5})
    assert "sku: expected string, got integer" in refused["output"]


def test_declarations_that_cannot_work_say_what_to_fix(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    _write(settings, "a.yaml", MOCK.replace("{{sku}}", "{{code}}"))
    _write(settings, "b.yaml", MOCK.replace("check_stock", "calculator"))
    _write(settings, "c.yaml", "name: x\ndescription: y\nkind: http\nurl: https://{{host}}/a\n")
    _write(
        settings,
        "d.yaml",
        "name: y\ndescription: y\nkind: http\nurl: https://api.example.com/a\nheaders: {Authorization: Bearer abc123}\n",
    )
    _write(settings, "e.yaml", "name: [unclosed\n")
    tools, problems = declared.load_all(settings, builtin_names=BUILTIN_TOOL_NAMES)
    assert tools == []
    joined = "\n".join(problems)
    assert "{{code}} is not one of its parameters" in joined
    assert "a built-in tool has this name" in joined
    assert "the host of url must be written out" in joined
    assert "name it by its .env variable" in joined
    assert "e.yaml is not readable YAML" in joined


def test_an_http_tool_calls_an_allowed_host_with_a_secret_from_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STOCK_API_TOKEN", "stock-secret-token-987654321")
    with answering(200) as base:
        settings = _settings(tmp_path, http_tool_hosts=("127.0.0.1",), http_tool_allow_loopback=True)
        spec = {
            "name": "stock_api",
            "description": "Stock from the API.",
            "kind": "http",
            "url": base + "/stock/{{sku}}",
            "headers": {"Authorization": "Bearer ${STOCK_API_TOKEN}"},
            "query": {"warehouse": "{{warehouse}}"},
            "result_path": "data.items[0].name",
            "parameters": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "warehouse": {"type": "string"}},
                "required": ["sku"],
            },
        }
        declared.save_tool(settings, spec)
        turns = [
            {
                "tool_calls": [
                    {"name": "stock_api", "arguments": {"sku": "A 100/../x", "token": "stock-secret-token-987654321"}}
                ]
            },
            {"text": "done"},
        ]
        record = prepare_run(  # (a tool that says nothing asks first: approved here, as by --approve all)
            "stock?", settings=settings, provider=ScriptedProvider(turns), approver=FixedApprover("all")
        ).run_to_end()
    text = json.dumps(record)
    assert "stock-secret-token-987654321" not in text
    call = record["tool_calls"][0]
    assert "unexpected" not in call["output"]  # additional arguments are allowed by this schema
    assert call["output"] == "A-100", call


SSRF_PROBES = [
    ("http://169.254.169.254/latest/meta-data/", "link-local"),
    ("http://10.0.0.5/admin", "private network"),
    ("http://127.0.0.1:8080/", "loopback"),
    ("file:///etc/passwd", "only http and https"),
    ("http://[::1]/", "loopback"),
    ("http://0.0.0.0/", "not a real destination"),
    ("http://192.168.1.1/", "private network"),
    ("http://[::ffff:10.1.2.3]/", "private network"),
    ("http://2130706433/", "unusual form"),
    ("https://evil.example.net/", "not among the hosts"),
    ("gopher://api.example.com/", "only http and https"),
    ("http://user:pw@api.example.com/", "user names and passwords"),
    ("http://localhost/", "loopback"),
]


@pytest.mark.parametrize(("url", "why"), SSRF_PROBES)
def test_ssrf_probes_are_refused(url: str, why: str) -> None:
    settings = Settings(
        http_tool_hosts=(
            "169.254.169.254",
            "10.0.0.5",
            "127.0.0.1",
            "::1",
            "0.0.0.0",
            "192.168.1.1",
            "::ffff:10.1.2.3",
            "2130706433",
            "api.example.com",
            "localhost",
        )
    )
    with pytest.raises(Refused, match=why):
        check_url(url, settings, resolver=lambda host, port: ["127.0.0.1"])


def test_a_redirect_to_a_private_address_is_refused(tmp_path: Path) -> None:
    settings = Settings(http_tool_hosts=("127.0.0.1", "10.1.2.3"), http_tool_allow_loopback=True)
    with answering(302, location="http://10.1.2.3/secret") as base:
        with pytest.raises(Refused, match="10.1.2.3 is a private network address"):
            fetch("GET", base + "/start", settings)
    with answering(302, location="http://169.254.169.254/latest/") as base:
        with pytest.raises(Refused, match="not among the hosts"):
            fetch("GET", base + "/start", settings)


def test_a_host_that_resolves_to_a_private_address_is_refused_and_a_public_one_is_pinned() -> None:
    settings = Settings(http_tool_hosts=("*.example.com",))
    with pytest.raises(Refused, match="10.9.8.7 is a private network address"):
        check_url("https://api.example.com/x", settings, resolver=lambda host, port: ["93.184.215.14", "10.9.8.7"])
    target = check_url("https://api.example.com:8443/x?q=1", settings, resolver=lambda host, port: ["93.184.215.14"])
    assert target.connect_url == "https://93.184.215.14:8443/x?q=1" and target.host == "api.example.com"
    with pytest.raises(Refused, match="not among the hosts"):
        check_url("https://example.com/", settings, resolver=lambda host, port: ["93.184.215.14"])


def test_the_petstore_openapi_example_imports_with_the_right_schemas() -> None:
    doc = yaml.safe_load(PETSTORE.read_text(encoding="utf-8"))
    assert [op.name for op in openapi.operations(doc)] == ["listPets", "createPets", "showPetById"]
    specs = {s["name"]: s for s in openapi.to_tools(doc)}
    assert specs["listPets"] == {
        "name": "listPets",
        "description": "List all pets",
        "kind": "http",
        "method": "GET",
        "url": "http://petstore.swagger.io/v1/pets",
        "parameters": {
            "type": "object",
            "properties": {
                "limit": {
                    "type": "integer",
                    "maximum": 100,
                    "format": "int32",
                    "description": "How many items to return at one time (max 100)",
                }
            },
        },
        "query": {"limit": "{{limit}}"},
    }
    assert specs["showPetById"]["url"] == "http://petstore.swagger.io/v1/pets/{{petId}}"
    assert specs["showPetById"]["parameters"] == {
        "type": "object",
        "properties": {"petId": {"type": "string", "description": "The id of the pet to retrieve"}},
        "required": ["petId"],
    }
    assert specs["createPets"]["method"] == "POST"
    assert specs["createPets"]["parameters"] == {
        "type": "object",
        "properties": {
            "id": {"type": "integer", "format": "int64"},
            "name": {"type": "string"},
            "tag": {"type": "string"},
        },
        "required": ["id", "name"],
    }
    assert specs["createPets"]["body"] == {"id": "{{id}}", "name": "{{name}}", "tag": "{{tag}}"}
    assert declared.fill_data(specs["createPets"]["body"], {"id": 7, "name": "Rex"}) == {"id": 7, "name": "Rex"}
    with pytest.raises(ValueError, match="No operation named deletePet"):
        openapi.to_tools(doc, ["deletePet"])


def test_the_cli_imports_openapi_operations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    from agent_core.cli.main import main

    monkeypatch.setenv("AGENT_DATA_DIR", str(tmp_path))
    assert main(["tools", "import", str(PETSTORE), "--operations", "listPets,showPetById"]) == 0
    written = tmp_path / "workspace" / "tools" / "petstore.yaml"
    assert [s["name"] for s in declared.load_file(written)] == ["listPets", "showPetById"]
    assert main(["tools", "list", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    listed = {r["name"]: r for r in rows}
    assert listed["showPetById"]["source"] == "declared" and listed["showPetById"]["server"] == "petstore.yaml"
    assert listed["calculator"]["source"] == "builtin" and listed["calculator"]["enabled"] is True


def test_yaml_round_trips_through_the_form_unchanged(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    doc = yaml.safe_load(PETSTORE.read_text(encoding="utf-8"))
    texts = [
        MOCK,
        declared.dump(openapi.to_tools(doc, ["listPets"])),
        declared.dump(openapi.to_tools(doc, ["createPets"])),
    ]
    extra = MOCK.replace("kind: mock\n", "kind: mock\ntimeout: 5\nannotations:\n  title: Stock\n")
    for text in [*texts, extra]:
        spec = yaml.safe_load(text)
        again = declared_form.from_fields(spec, declared_form.to_fields(spec))
        assert again == spec
        assert list(again) == list(spec)
        assert declared.dump([again]) == text
    path = _write(settings, "stock.yaml", MOCK)
    declared.save_tool(settings, yaml.safe_load(MOCK), file=path)
    assert path.read_text(encoding="utf-8") == MOCK
    edited = declared_form.from_fields(
        yaml.safe_load(MOCK), {**declared_form.to_fields(yaml.safe_load(MOCK)), "result": "{{sku}}: none"}
    )
    assert edited["result"] == "{{sku}}: none" and list(edited) == list(yaml.safe_load(MOCK))


def test_no_code_path_evaluates_text() -> None:
    """No eval, exec or compile call anywhere in the engine, the pages or their helpers."""
    found = []
    for path in [*ROOT.glob("agent_core/**/*.py"), *ROOT.glob("ui/*.py"), *ROOT.glob("pages/*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("eval", "exec", "compile")
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.func.id}")
    assert not found, found
    spec = yaml.safe_load(MOCK)
    spec["result"] = "{{sku}} {{__import__('os').system('id')}}"  # not a placeholder: stays text
    tool = declared.make_tool(declared.Declared(declared.check_spec(spec), Path("x.yaml")), Settings())
    assert tool.func(sku="A") == "A {{__import__('os').system('id')}}"
    assert declared.fill("{{sku}}", {"sku": "{{__class__}}"}) == "{{__class__}}"
