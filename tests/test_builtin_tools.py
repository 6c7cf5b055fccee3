"""Built-in tools: calculator bounds and percent, workspace confinement, ranked search, lookup
over the workspace's facts.md (matched loosely), simulated weather and the flaky search_web, and
the default registry."""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import random
import re
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.errors import ToolValidationError, TransientToolError
from agent_core.settings import Settings
from agent_core.tools import BUILTIN_TOOL_NAMES, ToolRegistry, build_default_registry
from agent_core.tools.calculator import calculate
from agent_core.tools.docsearch import tokenize
from agent_core.tools.files import MAX_FILE_BYTES, WorkspaceSearch, make_file_tools
from agent_core.tools.knowledge import (
    FACTS_FILE,
    MAX_FACTS_BYTES,
    Fact,
    make_lookup,
    parse_facts,
    read_facts,
    word_count,
)
from agent_core.tools.simulated import get_weather, make_search_tools

REPO = Path(__file__).resolve().parents[1]
SAMPLE_WORKSPACE = REPO / "agent_data" / "workspace"
_sample_lookup = make_lookup(SAMPLE_WORKSPACE)
assert _sample_lookup is not None, "the sample workspace ships facts.md"
lookup = _sample_lookup
"""``lookup`` over the sample workspace's facts.md (the seed's facts)."""


# --------------------------------------------------------------------------- calculator


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("24 * 7", "168"),
        ("(24*7)+100", "268"),
        ("7 × 24", "168"),
        ("84 ÷ 4", "21"),
        ("1,000 + 2,500", "3500"),
        ("2,500,000 / 2", "1250000"),
        ("0.1 + 0.2", "0.3"),
        ("6 / 3", "2"),
        ("7 / 2", "3.5"),
        ("2 ** 10", "1024"),
        ("-3 + +5", "2"),
        ("- (2 - 5)", "3"),
        ("17 % 5", "2"),
        ("2 ** -2", "0.25"),
        ("2 ** 0.5", "1.41421356237"),
        ("24*7 =", "168"),
        ("10 ** 100", "1" + "0" * 100),
        ("1e3 * 2", "2000"),
        ("-" * 150 + "1", "1"),
    ],
)
def test_calculator_evaluates(expression: str, expected: str) -> None:
    assert calculate(expression) == expected


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("15% * 240", "36"),
        ("15% of 240", "36"),
        ("15 % of 240", "36"),
        ("240 * 15%", "36"),
        ("12.5% * 80", "10"),
        ("2,340 * 17%", "397.8"),
        ("(15% + 5%) * 100", "20"),
        ("50%", "0.5"),
        # Between two numbers, % is still the remainder.
        ("17 % 5", "2"),
        ("17 %5", "2"),
        ("17% 5", "2"),
        ("17 % (5)", "2"),
        ("5 % 3 * 2", "4"),
    ],
)
def test_calculator_reads_a_percent_sign_after_a_number_as_percent(expression: str, expected: str) -> None:
    assert calculate(expression) == expected


def test_the_calculator_says_how_it_reads_percent(data_dir: Path) -> None:
    tool = build_default_registry(Settings(data_dir=data_dir)).get("calculator")
    assert tool is not None
    described = tool.parameters["properties"]["expression"]["description"]
    assert "'15% * 240' is 36" in described and "'17 % 5' is 2" in described
    assert tool.func("15% * 240") == "36"


def test_calculator_never_calls_eval(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*_: object, **__: object) -> None:
        raise AssertionError("eval must not be used")

    monkeypatch.setattr(builtins, "eval", boom)
    assert calculate("(24*7)+100") == "268"


REFUSALS = [
    ("x" * 300_000, "too long"),
    ("(" * 1000 + "1" + ")" * 1000, "nested too deeply"),
    ("9**9**9**9", "exponent"),
    ("2 ** 100000", "exponent"),
    ("10 ** 5000", "digits"),
    ("10**999 * 10**999", "digits"),
    ("9" * 2000, "too many digits"),
    ("+".join(["1"] * 5000), "too many operators"),
    ("-" * 5000 + "1", "too many operators"),
    ("1 / 0", "division by zero"),
    ("5 % 0", "division by zero"),
    ("0 ** -1", "undefined"),
    ("1e400", "too large"),
    ("1e308 * 10", "too large"),
    ("10**900 / 3", "too large"),
    ("(-8) ** 0.5", "not a real number"),
    ("__import__('os').system('ls')", "only numbers"),
    ("abs(-1)", "function calls"),
    ("x + 1", "names"),
    ("lambda: 1", "lambda"),
    ("(1).real", "attributes"),
    ("[1, 2][0]", "only numbers"),
    ("1 < 2", "comparisons"),
    ("True + 1", "True"),
    ("1j * 2", "imaginary"),
    ("'a' * 3", "only numbers"),
    ("2 ^ 10", r"\*\*"),
    ("7 // 2", "//"),
    ("(1, 2)", "comma"),
    ("1,0000", "comma"),
    ("١٢٣ + 1", "ASCII"),
    ("１２ * 2", "ASCII"),
    ("", "empty"),
    ("   ", "empty"),
    ("2 3", "could not read"),
    ("(1 + 2", "could not read"),
    ("1\x00", "unsupported character"),
]


@pytest.mark.parametrize(("expression", "message"), REFUSALS, ids=[m for _, m in REFUSALS])
def test_calculator_refuses_quickly_with_a_clear_message(expression: str, message: str) -> None:
    start = time.perf_counter()
    with pytest.raises(ValueError, match=message):
        calculate(expression)
    assert time.perf_counter() - start < 1.0


ARITHMETIC_TEXT = st.text(alphabet="0123456789+-*/%().,^ eE×÷_x", max_size=120)


@settings(max_examples=300, deadline=1000)
@given(st.one_of(st.text(max_size=200), ARITHMETIC_TEXT))
def test_calculator_property_only_value_errors_and_fast(text: str) -> None:
    start = time.perf_counter()
    try:
        result = calculate(text)
    except ValueError:
        pass
    else:
        assert isinstance(result, str) and result
    assert time.perf_counter() - start < 1.0


@settings(max_examples=150, deadline=1000)
@given(st.integers(-(10**12), 10**12), st.integers(-(10**12), 10**12))
def test_calculator_property_matches_integer_arithmetic(a: int, b: int) -> None:
    assert calculate(f"{a} + {b}") == str(a + b)
    assert calculate(f"{a} * ({b})") == str(a * b)
    assert calculate(f"{a} - ({b})") == str(a - b)


# --------------------------------------------------------------------------- read_file


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """tmp_path/workspace with two files, and a secret file beside it (outside)."""
    root = Settings(data_dir=tmp_path).workspace_dir
    (root / "sub").mkdir(parents=True)
    (root / "hello.txt").write_text("hello workspace\n두 번째 줄\n", encoding="utf-8")
    (root / "sub" / "inner.md").write_text("# Inner\ninside text\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("TOP SECRET", encoding="utf-8")
    return root


def read(root: Path, path: str, max_chars: int = 2000) -> str:
    read_file, _ = make_file_tools(root)
    return read_file(path, max_chars)


def test_read_file_reads_inside_the_workspace(workspace: Path) -> None:
    assert read(workspace, "hello.txt") == "hello workspace\n두 번째 줄\n"
    assert read(workspace, "sub/inner.md").startswith("# Inner")
    assert read(workspace, "sub/../hello.txt").startswith("hello")
    assert read(workspace, "  hello.txt  ").startswith("hello")
    assert read(workspace, "agent_data/workspace/hello.txt").startswith("hello")
    assert read(workspace, "workspace/sub/inner.md").startswith("# Inner")


def test_read_file_truncates_to_max_chars_with_a_note(workspace: Path) -> None:
    out = read(workspace, "hello.txt", max_chars=5)
    assert out.startswith("hello\n")
    assert "first 5 of" in out and "max_chars" in out


@pytest.mark.parametrize(
    "path",
    [
        "../secret.txt",
        "sub/../../secret.txt",
        "..",
        "../workspace/../secret.txt",
        "workspace/../../secret.txt",
        "agent_data/workspace/../secret.txt",
    ],
)
def test_read_file_refuses_dotdot_escapes(workspace: Path, path: str) -> None:
    with pytest.raises(ValueError, match="outside the workspace"):
        read(workspace, path)


def test_read_file_refuses_absolute_paths(workspace: Path) -> None:
    for path in [
        str(workspace.parent / "secret.txt"),
        "/etc/passwd",
        "/proc/self/environ",
        str(workspace / "hello.txt"),
        "C:\\Windows\\win.ini",
        "\\etc\\passwd",
    ]:
        with pytest.raises(ValueError, match="absolute paths are not allowed"):
            read(workspace, path)


def test_read_file_refuses_symlinks_leading_out(workspace: Path) -> None:
    (workspace / "to_secret.txt").symlink_to(workspace.parent / "secret.txt")
    (workspace / "to_parent").symlink_to(workspace.parent, target_is_directory=True)
    (workspace / "environ").symlink_to("/proc/self/environ")
    (workspace / "zero").symlink_to("/dev/zero")
    for path in ["to_secret.txt", "to_parent/secret.txt", "environ", "zero"]:
        with pytest.raises(ValueError, match="outside the workspace"):
            read(workspace, path)


def test_read_file_follows_symlinks_that_stay_inside(workspace: Path) -> None:
    (workspace / "alias.txt").symlink_to(workspace / "hello.txt")
    assert read(workspace, "alias.txt").startswith("hello")


def test_read_file_symlink_loop_is_a_value_error(workspace: Path) -> None:
    (workspace / "loop_a").symlink_to(workspace / "loop_b")
    (workspace / "loop_b").symlink_to(workspace / "loop_a")
    with pytest.raises(ValueError):
        read(workspace, "loop_a")


def test_read_file_refuses_fifo_without_blocking(workspace: Path) -> None:
    os.mkfifo(workspace / "pipe")
    start = time.perf_counter()
    with pytest.raises(ValueError, match="not a regular file"):
        read(workspace, "pipe")
    assert time.perf_counter() - start < 1.0


def test_read_file_refuses_a_folder_and_lists_it(workspace: Path) -> None:
    with pytest.raises(ValueError, match=r"folder.*inner\.md"):
        read(workspace, "sub")


def test_read_file_refuses_binary_and_non_utf8(workspace: Path) -> None:
    (workspace / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (workspace / "latin1.txt").write_bytes("café".encode("latin-1"))
    with pytest.raises(ValueError, match="binary"):
        read(workspace, "image.png")
    with pytest.raises(ValueError, match="not UTF-8"):
        read(workspace, "latin1.txt")


def test_read_file_accepts_a_utf8_bom(workspace: Path) -> None:
    (workspace / "bom.txt").write_bytes("\ufeff안녕".encode())
    assert read(workspace, "bom.txt") == "안녕"


def test_read_file_refuses_a_huge_file_quickly(workspace: Path) -> None:
    with open(workspace / "huge.txt", "wb") as handle:
        handle.truncate(MAX_FILE_BYTES * 50)
    start = time.perf_counter()
    with pytest.raises(ValueError, match="too large"):
        read(workspace, "huge.txt")
    assert time.perf_counter() - start < 1.0


def test_read_file_not_found_lists_available_files(workspace: Path) -> None:
    with pytest.raises(ValueError, match=r"no file 'missing\.txt'.*hello\.txt.*sub/inner\.md"):
        read(workspace, "missing.txt")


def test_read_file_bad_paths(workspace: Path) -> None:
    with pytest.raises(ValueError, match="empty"):
        read(workspace, "  ")
    with pytest.raises(ValueError, match="NUL"):
        read(workspace, "hello.txt\x00.md")


def test_file_tools_are_bound_to_their_own_workspace(tmp_path: Path) -> None:
    registries = []
    for name in ("a", "b"):
        s = Settings(data_dir=tmp_path / name)
        s.workspace_dir.mkdir(parents=True)
        (s.workspace_dir / "only.txt").write_text(f"from {name}", encoding="utf-8")
        registries.append(build_default_registry(s))
    outputs = [r.get("read_file").func("only.txt") for r in registries]  # type: ignore[union-attr]
    assert outputs == ["from a", "from b"]


def test_search_documents_names_each_documents_language_when_there_are_several(tmp_path: Path) -> None:
    """The search matches words: a question in Korean searched in Korean found only the Korean
    document. With documents in two languages the description says which is which."""
    s = Settings(data_dir=tmp_path)
    s.workspace_dir.mkdir(parents=True)
    (s.workspace_dir / "policy.md").write_text("# Policy\nClaims must be reported within 30 days.\n", encoding="utf-8")
    (s.workspace_dir / "안내.md").write_text("# 안내\n회의실은 시간당 18,000원입니다.\n", encoding="utf-8")
    description = build_default_registry(s).get("search_documents").description  # type: ignore[union-attr]
    assert "in English: policy.md; in Korean: 안내.md" in description
    assert "write the query in the language of the document" in description
    (s.workspace_dir / "안내.md").unlink()
    one = build_default_registry(s).get("search_documents").description  # type: ignore[union-attr]
    assert "(policy.md)" in one and "language" not in one


# --------------------------------------------------------------------------- search_documents


FACTS_IN_SEARCH: tuple[pytest.MarkDecorator, ...] = ()
"""Was an xfail: search_documents indexed facts.md and ranked its "Also:" line first."""


def search(root: Path, query: str, limit: int = 3) -> list[dict[str, object]]:
    out = WorkspaceSearch(root).search(query, limit)
    assert not out.startswith("No results"), out
    return json.loads(out)


def test_search_ranks_the_refund_policy_first() -> None:
    hits = search(SAMPLE_WORKSPACE, "refund within how many days")
    assert hits[0]["file"] == "refund_policy.md"
    assert "30 days" in str(hits[0]["snippet"])
    assert set(hits[0]) == {"file", "section", "snippet"} and len(hits) == 3  # best first, no score


@pytest.mark.parametrize(
    ("query", "document", "snippet"),
    [
        pytest.param("환불은 며칠 이내에 가능한가요?", "환불_안내.md", "30일", marks=FACTS_IN_SEARCH),
        pytest.param("제품 단가", "환불_안내.md", "$24", marks=FACTS_IN_SEARCH),
        ("free shipping threshold", "shipping_policy.md", "$500"),
        pytest.param("volume discounts", "pricing.md", "Discount", marks=FACTS_IN_SEARCH),
        ("meeting action items", "notes.txt", "Minji"),
        # An address answers "email" (the sentence that has it is the snippet, not "the RA email")
        ("Who do I email to get a refund?", "refund_policy.md", "support@example.com"),
        ("환불 요청 이메일 주소", "환불_안내.md", "support@example.com"),
    ],
)
def test_search_finds_the_right_document(query: str, document: str, snippet: str) -> None:
    hits = search(SAMPLE_WORKSPACE, query)
    assert hits[0]["file"] == document
    assert snippet in str(hits[0]["snippet"])


def test_addresses_and_phone_numbers_are_searchable_by_what_they_are() -> None:
    from agent_core.tools.docsearch import tokenize

    assert {"email", "이메일"} <= set(tokenize("support@example.com으로 보내 주세요"))
    assert "phone" in tokenize("Call 02-123-4567.")
    assert "phone" not in tokenize("Parcels sent in 2024 2025 2026")  # numbers in a row


def test_search_limit_no_results_and_empty_query() -> None:
    searcher = WorkspaceSearch(SAMPLE_WORKSPACE)
    assert len(json.loads(searcher.search("refund", limit=1))) == 1
    assert searcher.search("xyzzy plugh").startswith("No results for 'xyzzy plugh'")
    assert "search again with those" in searcher.search("xyzzy plugh")  # a synonym may find it
    assert searcher.search("the of and").startswith("No results")
    with pytest.raises(ValueError, match="empty"):
        searcher.search("   ")
    with pytest.raises(ValueError, match="limit"):
        searcher.search("refund", limit=0)


def test_search_boosts_titles(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(
        "# Misc\n\nThe warranty is mentioned here among lots of other words about boxes, labels and parcels.\n"
    )
    (tmp_path / "b.md").write_text("# Warranty\n\nCovers two years from the purchase date.\n")
    assert search(tmp_path, "warranty")[0]["file"] == "b.md"


def test_search_index_is_cached_and_follows_file_changes(tmp_path: Path) -> None:
    searcher = WorkspaceSearch(tmp_path)
    (tmp_path / "one.md").write_text("# One\n\napples and pears\n")
    (tmp_path / "blob.txt").write_bytes(b"\x00\xff binary")  # skipped, not an error
    assert searcher.search("apples")  # indexed once; unchanged files are not read again
    assert searcher.workspace.sync() == []
    assert searcher.search("bananas").startswith("No results")
    (tmp_path / "two.txt").write_text("Fruit\nbananas are yellow\n")
    assert json.loads(searcher.search("bananas"))[0]["file"] == "two.txt"
    (tmp_path / "two.txt").unlink()
    assert searcher.search("bananas").startswith("No results")


def test_tokenizer_handles_english_and_korean() -> None:
    assert tokenize("Refunds") == ["refund"]
    assert tokenize("shipping shipped") == ["ship", "ship"]
    assert "환불" in tokenize("환불은")
    assert {"환불", "정책"} <= set(tokenize("환불정책을"))  # bigrams of a compound
    assert tokenize("단가") == ["단가"]  # a two-letter word keeps its last letter


@settings(max_examples=200, deadline=1000)
@given(st.text(max_size=200))
def test_tokenizer_and_lookup_never_crash(text: str) -> None:
    tokenize(text)
    with contextlib.suppress(ValueError):
        lookup(text)


# --------------------------------------------------------------------------- lookup / word_count


UNIT_PRICE = "Unit price: $24 per unit (단가: 개당 $24)"
REFUND = "Refund policy: refunds are accepted within 30 days of delivery (환불 정책: 배송 후 30일 이내 환불 가능)"
SHIPPING = "Shipping: free shipping on orders of $500 or more ($500 이상 구매 시 무료 배송)"
DISCOUNT = (
    "Volume discount on the whole order: 100 to 499 units 5% off ($22.80 per unit); 500 units or more "
    "10% off ($21.60 per unit); under 100 units no discount (할인)"
)
KNOWN = "known topics: unit price (단가), refund policy (환불 정책), shipping (배송), volume discount (할인)"


@pytest.mark.parametrize(
    ("topic", "answer"),
    [
        ("단가", UNIT_PRICE),
        ("제품 단가", UNIT_PRICE),
        ("단가는?", UNIT_PRICE),  # a Korean particle
        ("단가가 얼마예요", UNIT_PRICE),
        ("unit price", UNIT_PRICE),
        ("Unit Price", UNIT_PRICE),  # case
        ("UNIT PRICES", UNIT_PRICE),  # a plural
        ("product price", UNIT_PRICE),
        ("the unit price of the product", UNIT_PRICE),
        ("PRICE!!", UNIT_PRICE),
        ("how much does it cost", UNIT_PRICE),
        ("환불 정책", REFUND),
        ("환불정책", REFUND),  # Korean spacing
        ("환불정책을 알려줘", REFUND),
        ("Refunds?", REFUND),
        ("return policy", REFUND),
        ("money back?", REFUND),
        ("refnd policy", REFUND),  # a typo
        ("배송", SHIPPING),
        ("배송비는 얼마인가요", SHIPPING),
        ("shipping cost", SHIPPING),
        ("Delivery", SHIPPING),
        ("shiping", SHIPPING),  # a typo
        ("postage", SHIPPING),
        ("volume discounts", DISCOUNT),
        ("discont", DISCOUNT),  # a typo
        ("대량 할인은?", DISCOUNT),
        ("할인율이 어떻게 돼요", DISCOUNT),
    ],
)
def test_lookup_matches_loosely_in_both_languages(topic: str, answer: str) -> None:
    assert lookup(topic) == answer


def test_lookup_answers_several_topics_in_the_order_asked() -> None:
    assert lookup("price and shipping") == UNIT_PRICE + "\n" + SHIPPING
    assert lookup("배송이랑 단가") == SHIPPING + "\n" + UNIT_PRICE
    assert lookup("shipping cost") == SHIPPING  # "cost" (unit price) inside "shipping cost" is no second topic


@pytest.mark.parametrize("topic", ["weather", "policy", "unit", "free", "", "아틀란티스"])
def test_lookup_unknown_topic_lists_known_topics(topic: str) -> None:
    with pytest.raises(ValueError, match=re.escape(f"no internal fact about {topic.strip()!r}; {KNOWN}")):
        lookup(topic)


def test_lookup_is_described_with_the_topics_of_the_facts_file() -> None:
    assert lookup.__doc__ is not None
    assert lookup.__doc__.splitlines()[0] == f"Look up the internal facts (facts.md): {KNOWN[len('known topics: ') :]}."


def _workspace_with_facts(data_dir: Path, text: str | None) -> Settings:
    facts = data_dir / "workspace" / FACTS_FILE
    if text is None:
        facts.unlink()
    else:
        facts.write_text(text, encoding="utf-8")
    return Settings(data_dir=data_dir)


def test_editing_facts_md_changes_lookups_answer_and_description(data_dir: Path) -> None:
    """What a business knows lives in its workspace: the sample's facts are a file, not code."""
    sample = (data_dir / "workspace" / FACTS_FILE).read_text(encoding="utf-8")
    assert "$24 per unit" in sample
    before = build_default_registry(Settings(data_dir=data_dir)).get("lookup")
    assert before is not None and before.func("unit price") == UNIT_PRICE
    edited = sample.replace("$24 per unit (단가: 개당 $24)", "$30 per unit (단가: 개당 $30)")
    edited += (
        "\n## warranty / 보증\nAlso: guarantee, 품질 보증\nWarranty: two years from delivery (보증: 배송 후 2년)\n"
    )
    settings = _workspace_with_facts(data_dir, edited)
    after = build_default_registry(settings).get("lookup")
    assert after is not None
    assert after.func("unit price") == "Unit price: $30 per unit (단가: 개당 $30)"
    assert (
        after.func("Guarantee?") == after.func("보증 기간") == "Warranty: two years from delivery (보증: 배송 후 2년)"
    )
    assert (
        after.description
        == f"Look up the internal facts (facts.md): {KNOWN[len('known topics: ') :]}, warranty (보증)."
    )
    assert before.description == f"Look up the internal facts (facts.md): {KNOWN[len('known topics: ') :]}."
    with pytest.raises(ValueError, match=r"known topics: .*, warranty \(보증\)$"):
        after.func("weather")


def test_editing_facts_md_changes_the_seed_goals_total(data_dir: Path) -> None:
    from agent_core.providers.offline import create as create_offline
    from agent_core.run.loop import run_to_end

    goal = "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요."
    for price, total in (("$24", "168"), ("$30", "210")):
        facts = data_dir / "workspace" / FACTS_FILE
        facts.write_text(facts.read_text(encoding="utf-8").replace("$24", price), encoding="utf-8")
        settings = Settings(data_dir=data_dir, retry_delays=(0.0, 0.0, 0.0))
        record = run_to_end(
            goal,
            provider=create_offline(model=None, base_url=None, settings=settings),
            registry=build_default_registry(settings),
            settings=settings,
        )
        assert record["status"] == "completed" and total in record["answer"], record["answer"]
        assert [c["output"] for c in record["tool_calls"] if c["tool"] == "calculator"] == [total]


def test_no_facts_file_means_no_lookup_tool(data_dir: Path) -> None:
    settings = _workspace_with_facts(data_dir, None)
    registry = build_default_registry(settings)
    assert registry.names() == [n for n in BUILTIN_TOOL_NAMES if n not in ("lookup", "query_table")]
    assert make_lookup(settings.workspace_dir) is None
    assert make_lookup(_workspace_with_facts(data_dir, "# Nothing here yet\n").workspace_dir) is None  # no fact
    assert read_facts(data_dir / "nowhere") is None


def test_an_unreadable_or_huge_facts_file_is_no_facts(data_dir: Path) -> None:
    facts = data_dir / "workspace" / FACTS_FILE
    facts.write_bytes("## café\nNot UTF-8.\n".encode("latin-1"))
    assert read_facts(facts.parent) is None
    facts.write_text("## big\n" + "x" * MAX_FACTS_BYTES, encoding="utf-8")
    assert read_facts(facts.parent) is None and make_lookup(facts.parent) is None
    facts.unlink()
    facts.mkdir()  # a folder of that name
    assert read_facts(facts.parent) is None


def test_the_facts_file_format() -> None:
    text = """# Title and an introduction: not a fact

## opening hours / 영업 시간 ##
Also: hours,  open , 운영 시간
Open 9 to 6
on weekdays.

## empty heading

## office
The office is in Seoul.
"""
    assert parse_facts(text) == (
        Fact(("opening hours", "영업 시간"), ("hours", "open", "운영 시간"), "Open 9 to 6 on weekdays."),
        Fact(("office",), (), "The office is in Seoul."),
    )


def test_a_copied_sample_workspace_has_the_sample_facts(data_dir: Path) -> None:
    assert (data_dir / "workspace" / FACTS_FILE).read_bytes() == (SAMPLE_WORKSPACE / FACTS_FILE).read_bytes()
    copy = data_dir / "copy"
    shutil.copytree(SAMPLE_WORKSPACE, copy)
    copied = make_lookup(copy)
    assert copied is not None and copied("단가") == UNIT_PRICE


def test_word_count() -> None:
    assert word_count("the quick  brown\nfox jumps") == "5"
    assert word_count("안녕하세요 세계") == "2"
    assert word_count("   ") == "0"


# --------------------------------------------------------------------------- simulated tools


def test_weather_korean_and_english_names() -> None:
    assert get_weather("서울") == {
        "city": "서울",
        "temperature": 22,
        "unit": "celsius",
        "condition": "맑음",
    }
    assert get_weather("seoul") == {
        "city": "Seoul",
        "temperature": 22,
        "unit": "celsius",
        "condition": "sunny",
    }
    for name in ["SEOUL", " Seoul ", "Seoul, KR", "서울시"]:
        assert get_weather(name)["temperature"] == 22
    assert get_weather("  new   YORK ")["city"] == "New York"
    assert get_weather("뉴욕")["condition"] == "비"
    assert get_weather("부산")["city"] == "부산"


def test_weather_units() -> None:
    assert get_weather("Seoul", "fahrenheit")["temperature"] == 71.6
    assert get_weather("도쿄", unit="fahrenheit") == {
        "city": "도쿄",
        "temperature": 77.0,
        "unit": "fahrenheit",
        "condition": "흐림",
    }
    tool = build_default_registry(Settings()).get("get_weather")
    assert tool is not None
    assert tool.parameters["properties"]["unit"]["enum"] == ["celsius", "fahrenheit"]
    assert tool.parameters["required"] == ["city"]
    with pytest.raises(ToolValidationError, match="unit"):
        tool.validate({"city": "Seoul", "unit": "kelvin"})


@pytest.mark.parametrize("city", ["Atlantis", "아틀란티스", ""])
def test_weather_unknown_city_lists_known_cities(city: str) -> None:
    with pytest.raises(ValueError, match="known cities: Seoul/서울, Busan/부산"):
        get_weather(city)


def test_search_web_failure_rate_extremes() -> None:
    always, cached = make_search_tools(1.0, random.Random(1))
    never, _ = make_search_tools(0.0, random.Random(1))
    for _ in range(50):
        with pytest.raises(TransientToolError):
            always("python")
        assert never("python")["source"] == "web"
    assert cached("python")["source"] == "cache" and cached("python")["results"]


def test_the_simulated_web_says_plainly_when_no_page_matches() -> None:
    """It used to answer any query with a made-up "Search tips" page at search.example.com: the
    model searched the web again, or quoted the page ("the WiFi password is 'example'")."""
    search_web, search_cached = make_search_tools(0.0, random.Random(1))
    for found in (search_web("wifi password at the coworking space"), search_cached("student membership fee")):
        assert found["results"] == []
        assert found["note"].startswith("No page matches: this simulated web holds only a few demo pages")
        assert "does not search the user's documents" in found["note"]
    assert "note" not in search_web("python tutorial") and search_web("python tutorial")["results"]


def test_search_web_failure_rate_is_seeded_and_roughly_right() -> None:
    def outcomes(seed: int) -> list[bool]:
        search_web, _ = make_search_tools(0.3, random.Random(seed))
        results = []
        for _ in range(1000):
            try:
                search_web("python docs")
                results.append(True)
            except TransientToolError:
                results.append(False)
        return results

    first = outcomes(42)
    assert first == outcomes(42)
    assert 250 <= first.count(False) <= 350


def test_search_results_are_json() -> None:
    search_web, search_cached = make_search_tools(0.0, random.Random(0))
    result = search_web("python tutorial")
    assert result["results"][0]["title"].startswith("Python")
    json.dumps(result)
    json.dumps(search_cached("anything at all"))
    with pytest.raises(ValueError):
        make_search_tools(1.5)


# --------------------------------------------------------------------------- registry


def test_default_registry_has_the_builtin_tools(data_dir: Path) -> None:
    registry = build_default_registry(Settings(data_dir=data_dir, search_web_failure_rate=1.0), rng=random.Random(0))
    assert isinstance(registry, ToolRegistry)
    assert registry.names() == [n for n in BUILTIN_TOOL_NAMES if n != "query_table"]  # no table, no query_table
    assert list(BUILTIN_TOOL_NAMES) == [
        "calculator",
        "read_file",
        "lookup",
        "word_count",
        "search_documents",
        "get_weather",
        "search_web",
        "search_cached",
        "convert_measurement",
        "query_table",
    ]
    web = registry.get("search_web")
    assert web is not None and web.fallback == "search_cached"
    with pytest.raises(TransientToolError):
        web.func("x")
    lookup_tool = registry.get("lookup")
    assert lookup_tool is not None
    for topic in ["단가", "환불 정책", "배송", "unit price", "refund policy", "shipping"]:
        assert topic in lookup_tool.description
    for tool in registry:
        assert tool.description and tool.description[0].isupper()
        assert tool.parameters["additionalProperties"] is False
    json.dumps([registry.to_openai_responses(), registry.to_openai_chat(), registry.to_anthropic()])


def test_each_call_builds_a_new_registry(tmp_path: Path) -> None:
    first = build_default_registry(Settings(data_dir=tmp_path))
    second = build_default_registry(Settings(data_dir=tmp_path))
    assert first is not second
    assert first.get("read_file") is not second.get("read_file")

    def extra() -> str:
        """An extra tool."""
        return "x"

    first.tool(extra)  # adding to one leaves the other alone
    assert len(first) == len(second) + 1


def test_calculator_tool_through_the_registry() -> None:
    tool = build_default_registry(Settings()).get("calculator")
    assert tool is not None
    assert tool.func(**tool.validate({"expression": "(24*7)+100"})) == "268"
    assert list(tool.parameters["properties"]) == ["expression"]


def test_search_documents_names_the_files_it_searches(data_dir: Path) -> None:
    """The model reads which documents the workspace holds in the tool's own description (lookup's
    facts.md is not searched, so not named); a file added shows in the next run's registry."""
    config = Settings.from_env(dotenv=False).replace(data_dir=data_dir)
    described = build_default_registry(config).get("search_documents").description
    assert "pricing.md" in described and "refund_policy.md" in described and "facts.md" not in described
    (data_dir / "workspace" / "club_rules.md").write_text("# Rules\nMembers pay $45 a year.\n", encoding="utf-8")
    assert "club_rules.md" in build_default_registry(config).get("search_documents").description
    for name in list((data_dir / "workspace").iterdir()):
        if name.is_file():
            name.unlink()
    assert "(none yet)" in build_default_registry(config).get("search_documents").description
    assert "not the user's documents" in build_default_registry(config).get("search_web").description


def test_a_table_row_in_a_snippet_names_its_columns_and_stays_whole() -> None:
    """A row read alone says which column each figure is in ("Essentials: $750" rather than a bare
    "$750, $500, $300"), and a period inside a cell ("Max. load") does not cut the row in two."""
    from agent_core.tools.docsearch import BM25Index

    text = (
        "# Cover\n\n| Feature | Essentials | Standard | Premier |\n|---|---|---|---|\n"
        "| Standard excess | $500 | $300 | $150 |\n| Escape of water excess | $750 | $500 | $300 |\n\n"
        "# Chairs\n\n| Model | Max. load | Price |\n|---|---|---|\n| Sola | 120 kg | $259 |\n| Atlas | 150 kg | $449 |\n"
    )
    index = BM25Index.from_documents([("policy.md", text)])
    (water,) = index.search("escape of water excess", 1)
    assert "Feature: Escape of water excess, Essentials: $750, Standard: $500, Premier: $300;" in water.snippet
    assert "Feature: Feature" not in water.snippet and "| Feature |" not in water.snippet
    (atlas,) = index.search("atlas", 1)
    assert "Model: Atlas, Max. load: 150 kg, Price: $449;" in atlas.snippet
    # A table without a header row keeps its cells as they are.
    (bare,) = BM25Index.from_documents([("t.md", "| Sola | $259 |\n| Atlas | $449 |\n")]).search("atlas", 1)
    assert bare.snippet == "Sola, $259; Atlas, $449;"


def test_a_plain_text_table_reads_as_rows_that_name_their_columns() -> None:
    """A text file lines its columns up with spaces; joined as prose, a row lost its columns and
    the model took one group's deposit for another's. Its rows now read like a Markdown table's;
    prose with a double space after a period, and two aligned lines, stay prose."""
    from agent_core.tools.docsearch import BM25Index

    text = (
        "RATES\n\n"
        "  Group  Category (example)         Seats  Daily  Deposit  Excess\n"
        "  A      Small (Kia or similar)       4     $42    $300     $1,200\n"
        "  C      Large SUV (RAV4 or sim.)     5     $78    $500     $1,800\n\n"
        "Deposits are held on a card.  They are released in 10 days.\n\n"
        "Name  Room  Phone\nAnn   2.01  555-0101\n"
    )
    index = BM25Index.from_documents([("terms.txt", text)])
    (suv,) = index.search("suv deposit", 1)
    assert (
        "Group: C, Category (example): Large SUV (RAV4 or sim.), Seats: 5, Daily: $78, Deposit: $500, Excess: $1,800;"
        in suv.snippet
    )
    assert "Deposit Excess A" not in suv.snippet
    (held,) = index.search("deposits held card released", 1)
    assert "Deposits are held on a card." in held.snippet and ":" not in held.snippet
    (ann,) = index.search("ann phone", 1)
    assert "Room: 2.01" not in ann.snippet  # two lines are no table
    # A comparison names two wide rows: both come; a column's name that every row has ("deposit")
    # brings no other row.
    groups = (
        ("A", "Economy (Kia Picanto or similar)", 42),
        ("B", "Compact (Corolla or similar)", 55),
        ("C", "Intermediate SUV (RAV4 or similar)", 78),
        ("D", "Minivan, 7 seats (Sienna or s.)", 96),
    )
    table = "  Group  Category (example model)            Daily rate  Weekly rate (7 days)  Deposit  Damage excess\n"
    table += "".join(
        f"  {g}      {name:<34}  ${d:<9}  ${d * 6:<19,}  ${d * 10:,}   ${d * 25:,}\n" for g, name, d in groups
    )
    index = BM25Index.from_documents([("rates.txt", table)])
    (both,) = index.search("damage excess minivan economy", 1)
    assert "Economy (Kia Picanto or similar)" in both.snippet and "Minivan, 7 seats" in both.snippet
    assert "Compact" not in both.snippet
    (one,) = index.search("suv deposit", 1)
    assert "Intermediate SUV" in one.snippet and "Economy" not in one.snippet
    # A row naming less of the query than the best one gets no room beyond 240 characters: its
    # price was taken for the best row's.
    (suv,) = index.search("intermediate suv minivan", 1)
    assert "Intermediate SUV" in suv.snippet and "Minivan" not in suv.snippet
    # A rule of dashes under the header marks it, whatever the digits of the rows.
    ruled = (
        "  Plan        Price            Access\n  ----------  ---------------  -----------\n"
        "  Day pass    £22 per day      Mon-Fri\n  Hot desk    £210 per month   Mon-Sat 07:00-22:00\n"
    )
    (desk,) = BM25Index.from_documents([("tariff.txt", ruled)]).search("hot desk", 1)
    assert "Plan: Hot desk, Price: £210 per month, Access: Mon-Sat 07:00-22:00;" in desk.snippet
    assert "---" not in desk.snippet
    # A rule all across under the header, a header of years, and prose with two spaces after each
    # period (no table).
    from agent_core.tools.docsearch import _sentences

    across = "  Group  Category  Deposit\n  --------------------------\n  A  Economy  $300\n  B  Compact  $300\n"
    assert _sentences(across) == [
        "Group: A, Category: Economy, Deposit: $300;",
        "Group: B, Category: Compact, Deposit: $300;",
    ]
    years = "Plan    2024 price  2025 price\nBasic   $10         $12\nPlus    $20         $22\n"
    assert _sentences(years)[0] == "Plan: Basic, 2024 price: $10, 2025 price: $12;"
    prose = "One sentence here.  Another one.  A third.\n" * 3
    assert "One sentence here." in _sentences(prose) and not any(":" in x for x in _sentences(prose))
    # Without a header (the first line has as many cells with digits as the next), cells stay as
    # they are.
    (bare,) = BM25Index.from_documents([("t.txt", "A  $42  $300\nB  $55  $300\nC  $78  $500\n")]).search("c", 1)
    assert "C, $78, $500;" in bare.snippet
    # A price list of two columns is rows too: joined as prose, "… (scale and polish)     £62
    # Hygienist appointment, 45 minutes …" ran one item into the next.
    prices = (
        "3.2 Hygiene\n"
        "    Hygienist appointment, 30 minutes (scale and polish)     £62\n"
        "    Hygienist appointment, 45 minutes (scale and polish)     £85\n"
        "    Airflow stain removal, added to a hygiene visit          £25\n"
    )
    assert _sentences(prices)[1:] == [
        "Hygienist appointment, 30 minutes (scale and polish), £62;",
        "Hygienist appointment, 45 minutes (scale and polish), £85;",
        "Airflow stain removal, added to a hygiene visit, £25;",
    ]
    two = "Name:  Ann Lee\nRoom:  2.01\n"  # two lines are still no table
    assert _sentences(two) == ["Name:  Ann Lee Room:  2.01"]
    # Dot leaders part the columns too (read as prose, four rows ran into one line of four
    # prices); three dots are an ellipsis.
    leaders = "Manual, 10 hours ......... £400\nManual, 20 hours ......... £780\nAutomatic, 10 hours ...... £440\n"
    assert _sentences(leaders) == ["Manual, 10 hours, £400;", "Manual, 20 hours, £780;", "Automatic, 10 hours, £440;"]
    ellipsis = "Wait... then pay.\nSo... it is £5.\nAnd... done.\n"
    assert not any(x.endswith(";") for x in _sentences(ellipsis))


def test_a_list_item_carries_the_sentence_it_goes_on_from() -> None:
    """The item "hygienist appointments: £40" came alone into a snippet and read as the price of a
    visit; it is the charge for missing one, which the sentence before the list says. Items under
    a sentence ending in ":" carry it, as a table's rows carry their column names."""
    from agent_core.tools.docsearch import MAX_LEAD_CHARS, _sentences

    text = (
        "5.2 Please give 48 hours' notice to cancel.\n"
        "5.3 If you cancel with less notice, or do not attend, we charge:\n"
        "    - examination appointments: £25\n"
        "    - hygienist appointments: £40\n\n"
        "5.4 We send a text reminder 2 days before.\n"
    )
    lead = "5.3 If you cancel with less notice, or do not attend, we charge:"
    assert _sentences(text) == [
        "5.2 Please give 48 hours' notice to cancel.",
        lead,
        f"{lead} examination appointments: £25",
        f"{lead} hygienist appointments: £40",
        "5.4 We send a text reminder 2 days before.",
    ]
    plain = "Bring:\n- a towel\n- water\n\nThe walk is 5 km.\n- a list with no lead-in\n"
    assert _sentences(plain)[1:3] == ["Bring: a towel", "Bring: water"]
    assert "a list with no lead-in" in _sentences(plain)
    long_lead = "x" * MAX_LEAD_CHARS + ":\n- item one\n"
    assert _sentences(long_lead)[-1] == "item one"


def test_a_snippet_brings_every_row_the_query_names_even_far_apart() -> None:
    """Two rows a comparison names, with other rows between them, both reach the snippet (an
    omission is marked "…"); the best row's neighbours alone left the second one out."""
    from agent_core.tools.docsearch import SNIPPET_CHARS, snippet_of, tokenize

    rows = [("Lift Pro standing", 140), ("Birch Compact", 100), ("Oak Compact", 110), ("Walnut Corner", 180)]
    rows += [("Ash Corner", 170), ("Fjord XL", 160)]
    table = "| Model | Width | Price |\n|---|---|---|\n" + "".join(
        f"| {name} | {width} cm | ${width * 3} |\n" for name, width in rows
    )
    snippet = snippet_of(table, tokenize("Which is wider, the XL or the Lift Pro standing desk?"))
    assert "Model: Fjord XL, Width: 160 cm" in snippet
    assert "Model: Lift Pro standing, Width: 140 cm" in snippet
    assert "…" in snippet and len(snippet) <= SNIPPET_CHARS
    # In the text's order, whatever their scores.
    assert snippet.index("Lift Pro") < snippet.index("Fjord XL")


def test_a_row_that_names_the_item_and_its_column_beats_prose_that_names_only_the_column() -> None:
    """A word every row has (a column's name) tells no row from another, but against prose the row
    still names it: "golden retriever full groom" is answered by the Large row's "Full Groom: £68",
    not by "add £10 to the Full Groom price" (which has one more query word than the row's own)."""
    from agent_core.tools.docsearch import snippet_of, tokenize

    rows = [
        ("Toy", "Chihuahua, Pomeranian", 28, 38),
        ("Small", "Pug, Westie", 32, 45),
        ("Medium", "Cocker Spaniel", 38, 55),
    ]
    rows += [("Large", "Labrador, Golden Retriever", 48, 68), ("Giant", "Newfoundland, Great Dane", 65, 90)]
    text = (
        "A Full Groom is a bath, a blow-dry, a brush-out and a full haircut or hand-finish in the style you choose.\n\n"
        "| Size | Breeds | Bath | Full Groom |\n|---|---|---|---|\n"
        + "".join(f"| {size} | {breeds} | £{bath} | £{full} |\n" for size, breeds, bath, full in rows)
        + "\nDoodles of any size: add £10 to the Full Groom price for the extra drying and scissor work we do."
    )
    snippet = snippet_of(text, tokenize("golden retriever full groom price"))
    assert "Breeds: Labrador, Golden Retriever, Bath: £48, Full Groom: £68" in snippet
    assert "Pug" not in snippet
