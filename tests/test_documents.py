"""Your documents: PDF pages and DOCX sections indexed and cited, the index persistent and
incremental, and every bad input refused with a plain message that changes nothing."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry
from agent_core.tools.docsearch import near_spellings
from agent_core.tools.documents.parse import DocumentError
from agent_core.tools.documents.workspace import Limits, Workspace, default_index_path
from agent_core.tools.files import make_file_tools
from tests.document_kit import encrypted_pdf, make_docx, make_pdf, zip_bomb_docx

ROOT = Path(__file__).resolve().parent.parent

REPORT = [
    "Annual report 2025\nThis report covers the year of the Harbour Bakery.",
    "Revenue\nRevenue grew 12% to $4.2 million in 2025, led by wholesale bread.",
    "Staff\nWe employ 41 people in 3 shops. Staff turnover fell to 9%.",
]
HANDBOOK = [
    ("Annual leave", ["Staff get 25 days of annual leave a year.", "Up to 5 days carry over."]),
    ("Expenses", ["Meals on business trips are paid up to $30 a day."]),
]


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path / "workspace", tmp_path / "index" / "documents.sqlite")


def state(ws: Workspace) -> tuple[list[str], dict[str, int]]:
    """What must not change when an add is refused: the files and the index's rows."""
    return sorted(os.listdir(ws.root)) if ws.root.exists() else [], ws.index.counts()


# --------------------------------------------------------------------------- reading and citing


def test_a_pdf_is_searchable_by_page_and_read_by_page(ws: Workspace) -> None:
    added = ws.add("annual_report.pdf", make_pdf(REPORT))
    assert (added.status, added.parts, added.note) == ("added", 3, "")
    hit = ws.search("how much did revenue grow", 3)[0].as_json()
    assert hit == {"file": "annual_report.pdf", "page": 2, "snippet": hit["snippet"]}
    assert "12%" in hit["snippet"] and len(hit["snippet"]) <= 300
    read_file, search = make_file_tools(ws.root, ws)
    assert read_file("annual_report.pdf", page=3).startswith("[annual_report.pdf, p. 3]\nStaff")
    assert "[annual_report.pdf, p. 1]" in read_file("annual_report.pdf")
    with pytest.raises(ValueError, match="no page 9"):
        read_file("annual_report.pdf", page=9)
    hits = json.loads(search("staff turnover"))
    assert hits[0]["page"] == 3 and set(hits[0]) == {"file", "page", "snippet"}


def test_a_docx_is_searchable_by_heading_and_its_tables_are_queryable(ws: Workspace) -> None:
    ws.add("handbook.docx", make_docx(HANDBOOK, [[["item", "limit"], ["meal", "30"], ["taxi", "45"]]]))
    hit = ws.search("how many days of annual leave", 1)[0].as_json()
    assert (hit["file"], hit["section"]) == ("handbook.docx", "Annual leave") and "25 days" in hit["snippet"]
    read_file, _ = make_file_tools(ws.root, ws)
    assert read_file("handbook.docx").startswith("# Annual leave")
    assert [t.name for t in ws.tables()] == ["handbook.docx table 1"]


def test_korean_pages_keep_the_korean_tokenisation(ws: Workspace) -> None:
    ws.add("보고서.pdf", make_pdf(["연간 보고서\n올해 매출은 12% 증가했습니다.", "직원\n직원 수는 41명입니다."]))
    hits = ws.search("매출이 얼마나 증가했나요", 2)
    assert (hits[0].file, hits[0].page) == ("보고서.pdf", 1) and "12%" in hits[0].snippet


def test_a_scanned_pdf_says_it_has_no_text(ws: Workspace) -> None:
    added = ws.add("scan.pdf", make_pdf(["", ""]))
    assert "no text found — this looks like a scan" in added.message
    read_file, _ = make_file_tools(ws.root, ws)
    with pytest.raises(ValueError, match="no text to read"):
        read_file("scan.pdf")


def test_csv_rows_are_searchable_and_cited_by_rows(ws: Workspace) -> None:
    ws.add("stock.csv", b"sku,name,stock\nA1,Watering can,4\nA2,Trowel,25\n")
    hit = ws.search("watering can", 1)[0].as_json()
    assert hit["section"] == "rows 1–2" and hit["snippet"].startswith("sku: A1, name: Watering can, stock: 4")


def test_a_tables_column_names_count_once_however_many_rows_name_them(ws: Workspace) -> None:
    """Each row of a table names its columns; counted once a row, "cost" in three columns of a
    bills table outranked the price list a question was about ("hygienist teeth cleaning cost")."""
    bills = "month,electricity_cost_gbp,gas_cost_gbp,water_cost_gbp\n" + "".join(
        f"2023-{m:02d},{90 + m}.50,{150 + m}.25,{20 + m}.10\n" for m in range(1, 13)
    )
    ws.add("bills.csv", bills.encode())
    prices = "# Treatment prices\n\nHygienist appointment, 30 minutes: £62.\nAll-ceramic crown: £610.\n"
    ws.add("dental.md", prices.encode())
    ws.add("notes.md", b"# Notes\n\nKeep receipts for a year.\n")
    hits = ws.search("hygienist teeth cleaning cost", 2)
    assert [h.file for h in hits] == ["dental.md", "bills.csv"]
    assert ws.search("gas cost in march", 1)[0].file == "bills.csv"  # still found by its columns


def test_a_word_no_document_has_is_looked_up_by_its_near_spellings(ws: Workspace) -> None:
    """The model wrote "lasagna" for the recipe's "lasagne"; a word some document has is matched
    only as it is, and short words get no near spellings ("stick" is one letter from "stock")."""
    ws.add("recipes.txt", b"VEGETABLE LASAGNE\nOven: 190 C.\n\nPANCAKES\nServes 4. Stock: 2 eggs.\n")
    (hit,) = ws.search("temperature of lasagna", 1)
    assert hit.section == "VEGETABLE LASAGNE" and "190 C" in hit.snippet
    assert ws.search("hiking stick", 3) == []
    assert near_spellings("lasagna") >= {"lasagne", "lasagn", "alsagna"} and "lasagna" not in near_spellings("lasagna")
    assert near_spellings("stick") == set() and near_spellings("렌틸수프요") == set()


def test_a_plain_text_heading_between_rule_lines_titles_its_section(ws: Workspace) -> None:
    """ "=====" above and below a heading made the rule line the section's title, and the heading's
    words lost the title's weight."""
    ws.add("recipes.txt", b"====\n1. BANANA PANCAKES\n====\nServes 4.\n\n====\n2. LENTIL SOUP\n====\nServes 6.\n")
    assert [h.section for h in ws.search("lentil soup", 3)] == ["2. LENTIL SOUP"]


POLICIES = """PRACTICE POLICIES


1. OPENING HOURS

1.1 Monday      08:30 - 17:30
    Tuesday     08:30 - 19:30

1.2 We are closed on bank holidays.


2. TREATMENT FEES

2.1 Hygiene
    Hygienist appointment, 30 minutes      £62
    Hygienist appointment, 45 minutes      £85

The standard after-school session runs from 15:15 to 17:00 and costs 9.50
pounds per session.
"""


def test_a_plain_text_heading_of_its_own_line_heads_the_paragraphs_under_it(ws: Workspace) -> None:
    """ "1. OPENING HOURS" alone on its line was a hit of its own with nothing under it (a search for
    opening hours showed the heading and no hours); it now heads the paragraphs that follow, until
    the next heading, and a paragraph with no title of its own is cited by it."""
    ws.add("policies.txt", POLICIES.encode())
    hits = ws.search("opening hours", 3)
    assert all(h.snippet.strip() != "1. OPENING HOURS" for h in hits)
    assert "19:30" in hits[0].snippet + hits[1].snippet
    assert {h.section for h in hits[:2]} == {"1. OPENING HOURS"}  # a table's first row is no title
    assert any("Monday" in h.snippet for h in hits)  # two paragraphs under one heading: two hits
    (fees,) = ws.search("treatment fees hygienist", 1)  # the sub-section ranks by its parent's words
    assert fees.section == "2.1 Hygiene" and "£62" in fees.snippet


def test_wrapped_prose_is_not_split_into_a_title_and_a_fragment() -> None:
    """A hard-wrapped sentence's first line was taken for the paragraph's title: the hit showed
    "pounds per session." under a section named after the rest of the sentence."""
    from agent_core.tools.docsearch import split_sections

    sections = {s.text.splitlines()[0]: s for s in split_sections("handbook.txt", POLICIES)}
    prose = next(s for first, s in sections.items() if first.startswith("The standard after-school"))
    assert "9.50\npounds per session." in prose.text and prose.title == "2.1 Hygiene"  # under 2.1 still
    hours = sections["1.1 Monday      08:30 - 17:30"]
    assert (hours.title, hours.parent) == ("1. OPENING HOURS", "1. OPENING HOURS")
    assert not any(s.text.strip() in ("1. OPENING HOURS", "2. TREATMENT FEES") for s in sections.values())
    markdown = "# Prices\n\n## Carpets\n\n### Stairs\n\nUp to 14 steps: £38\n"
    (stairs,) = split_sections("prices.md", markdown)
    assert (stairs.title, stairs.parent) == ("Stairs", "Carpets") and "Carpets" in stairs.title_words
    nested = split_sections("n.txt", "1. FEES\n\n1.1 HYGIENE\n\nA visit is £62.\n")[0]
    assert (nested.title, nested.parent) == ("1.1 HYGIENE", "1. FEES\n1.1 HYGIENE")
    assert nested.title_words.splitlines() == ["1.1 HYGIENE", "1. FEES", "n"]  # each heading counted once
    # A heading ends the sections of its depth whatever follows it (after review: "4. OTHER",
    # followed by another heading, and "4. PARKING" over its first paragraph, left "3.1 X" heading
    # what came after them).
    later = split_sections("t.txt", "3. FEES\n\n3.1 X\n\nOne.\n\n4. OTHER\n\n5. MORE\n\nTwo.\n")
    assert [(x.title, x.parent) for x in later][1:] == [("t", ""), ("5. MORE", "5. MORE")]
    parking = "3. FEES\n\n3.1 X\n\nOne.\n\n4. PARKING\nParking is free.\n\nBlue badges park in front.\n"
    assert [(x.title, x.parent) for x in split_sections("t.txt", parking)][1:] == [
        ("4. PARKING", ""),
        ("4. PARKING", "4. PARKING"),
    ]


def test_a_heading_in_a_json_value_or_a_pdf_page_still_ranks(ws: Workspace) -> None:
    """After review: a JSON value's heading paragraph heads its text and is no part of its own, and
    its words were lost from the index; a PDF page's parts count each heading once."""
    from agent_core.tools.documents.parse import _pdf

    ws.add("faq.json", b'{"policy": "REFUNDS\\n\\nYou can return items within 30 days."}')
    (hit,) = ws.search("refunds", 1)
    assert hit.file == "faq.json" and "30 days" in hit.snippet
    (part,) = _pdf("x.pdf", ["3. FEES\n\n3.1 Checkup\n\nA checkup costs 30 pounds."]).parts
    assert part.title.splitlines() == ["3.1 Checkup", "3. FEES"]


# --------------------------------------------------------------------------- the index


def test_the_index_survives_a_restart_and_adding_twice_adds_nothing(tmp_path: Path, ws: Workspace) -> None:
    ws.add("annual_report.pdf", make_pdf(REPORT))
    ws.add("handbook.docx", make_docx(HANDBOOK))
    before = ws.index.counts()
    again = Workspace(ws.root, ws.index.path)  # a new process: the same folder and index file
    assert again.sync() == []  # nothing read again
    assert again.search("revenue", 1)[0].page == 2
    assert again.add("annual_report.pdf", make_pdf(REPORT)).status == "unchanged"
    assert again.index.counts() == before


def test_the_index_follows_files_changed_on_disk(ws: Workspace) -> None:
    ws.add("notes.md", b"# Plums\n\nplums are purple\n")
    (ws.root / "more.txt").write_text("Bananas\nbananas are yellow\n", encoding="utf-8")  # copied in by hand
    assert ws.search("bananas", 1)[0].file == "more.txt"
    (ws.root / "more.txt").unlink()
    assert ws.search("bananas", 1) == []
    assert ws.sync() == []


def test_a_search_reads_one_state_of_the_index_while_another_process_indexes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process (the CLI, another session) indexing a file again between a search's reads
    deleted the parts the search had found postings for, and the search raised TypeError."""
    from agent_core.tools.documents import index as index_module

    mine = Workspace(tmp_path / "workspace", tmp_path / "index.sqlite")
    other = Workspace(tmp_path / "workspace", tmp_path / "index.sqlite")
    mine.add("notes.md", b"# Plums\n\nplums are purple\n")
    postings_of = index_module._postings_of

    def and_meanwhile(*args: object, **kwargs: object) -> list[tuple[str, int, float, float]]:
        rows = postings_of(*args, **kwargs)  # type: ignore[arg-type]
        other.add("notes.md", b"# Plums\n\nplums are purple, and ripe in August\n", on_conflict="replace")
        return rows

    monkeypatch.setattr(index_module, "_postings_of", and_meanwhile)
    (hit,) = mine.index.search("plums", 1)
    assert hit.snippet == "plums are purple"  # the index as the search first read it
    monkeypatch.undo()
    assert "August" in mine.search("plums", 1)[0].snippet


def test_an_index_of_an_older_format_is_made_again_with_its_new_columns(tmp_path: Path) -> None:
    """A stored index of the previous format has no ``piece`` column: its tables are made again,
    not only emptied (emptied, every insert failed on the missing column)."""
    import sqlite3

    index = tmp_path / "index.sqlite"
    old = sqlite3.connect(index)
    old.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
        "CREATE TABLE parts (id INTEGER PRIMARY KEY, file TEXT, page INTEGER, section TEXT, text TEXT, length REAL);"
        "INSERT INTO meta VALUES ('format', '4');"
    )
    old.close()
    ws = Workspace(tmp_path / "ws", index)
    ws.add("a.md", b"# A\n\napples\n")
    assert ws.search("apples", 1)[0].file == "a.md"


def test_a_corrupt_index_file_is_set_aside_and_rebuilt(tmp_path: Path) -> None:
    index = tmp_path / "index.sqlite"
    index.write_bytes(b"this is not a database" * 100)
    ws = Workspace(tmp_path / "ws", index)
    ws.add("a.md", b"# A\n\napples\n")
    assert ws.search("apples", 1)[0].file == "a.md"
    assert list(tmp_path.glob("index.sqlite.corrupt-*"))


def test_a_folder_that_cannot_be_written_keeps_the_index_in_memory(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.md").write_text("# A\n\napples\n", encoding="utf-8")
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("x")
    ws = Workspace(tmp_path / "ws", blocked / "index.sqlite")
    assert ws.search("apples", 1)[0].file == "a.md"


def test_a_process_killed_mid_index_leaves_a_whole_index(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(12):
        (docs / f"report{i}.pdf").write_bytes(
            make_pdf([f"Page {p} of report {i}: sales {p * i} units." * 20 for p in range(12)])
        )
    data = tmp_path / "data"
    env = {**os.environ, "AGENT_DATA_DIR": str(data)}
    index = data / "index" / "documents.sqlite"
    for delay in (0.0, 0.4, 1.0):
        proc = subprocess.Popen(
            [sys.executable, "-m", "agent_core", "workspace", "add", "--replace", *map(str, sorted(docs.iterdir()))],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while not index.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)  # the add has started writing
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        conn = sqlite3.connect(index)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.close()
        ws = Workspace.for_settings(Settings(data_dir=data))  # the next start
        with ws.index.connect() as conn:
            files = {r[0] for r in conn.execute("SELECT name FROM files")}
            with_parts = {r[0] for r in conn.execute("SELECT DISTINCT file FROM parts")}
        assert with_parts <= files  # a file's rows are all there or none
        ws.sync()
        assert set(ws.index.files()) == set(ws.names())  # in step again after a restart
        assert not [
            p for p in ws.root.iterdir() if p.name.startswith(".adding-") and p.stat().st_mtime < time.time() - 3600
        ]


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("broken.pdf", make_pdf(REPORT)[:400], "not a readable PDF"),
        ("locked.pdf", encrypted_pdf(REPORT), "password-protected"),
        ("bomb.docx", zip_bomb_docx(), "zip bomb"),
        ("fake.docx", b"PK\x03\x04 not really a zip", "not a valid .docx"),
        ("tool.exe", b"MZ", "'.exe' files are not supported"),
        ("../escape.md", b"# x", "not a plain file name"),
        ("sub/dir.md", b"# x", "not a plain file name"),
        ("back\\slash.md", b"# x", "not a plain file name"),
        (".hidden.md", b"# x", "cannot be used as a file name"),
        ("latin1.txt", "café".encode("latin-1"), "not UTF-8"),
        ("bad.json", b"{not json", "not valid JSON"),
    ],
)
def test_bad_files_are_refused_plainly_and_change_nothing(ws: Workspace, name: str, data: bytes, message: str) -> None:
    ws.add("keep.md", b"# Keep\n\nthis stays\n")
    before = state(ws)
    with pytest.raises(DocumentError, match=message):
        ws.add(name, data)
    assert state(ws) == before
    assert ws.search("stays", 1)[0].file == "keep.md"


def test_size_page_and_time_caps(tmp_path: Path) -> None:
    small = Workspace(tmp_path / "a", tmp_path / "a.sqlite", Limits(max_bytes=1000, max_pages=2, parse_timeout=60))
    with pytest.raises(DocumentError, match=r"limit is 0 MB \(MAX_DOCUMENT_MB\)"):
        small.add("big.md", b"x" * 2000)
    with pytest.raises(DocumentError, match="has 3 pages; the limit is 2"):
        Workspace(tmp_path / "b", tmp_path / "b.sqlite", Limits(max_pages=2)).add("long.pdf", make_pdf(REPORT))
    slow = Workspace(tmp_path / "c", tmp_path / "c.sqlite", Limits(parse_timeout=0.01))
    with pytest.raises(DocumentError, match=r"took longer than 0.01 s \(DOCUMENT_PARSE_TIMEOUT\)"):
        slow.add("report.pdf", make_pdf(REPORT))
    assert [p.name for p in (tmp_path / "c").iterdir()] == []


def test_the_same_name_asks_replace_or_keep_both(ws: Workspace) -> None:
    ws.add("notes.md", b"# Notes\n\nfirst version\n")
    asked = ws.add("notes.md", b"# Notes\n\nsecond version\n")
    assert asked.status == "conflict" and "replace it, or keep both" in asked.message
    assert ws.search("second", 1) == []
    both = ws.add("notes.md", b"# Notes\n\nsecond version\n", on_conflict="keep_both")
    assert both.name == "notes (2).md" and ws.search("second", 1)[0].file == "notes (2).md"
    assert ws.add("notes.md", b"# Notes\n\nthird version\n", on_conflict="replace").status == "replaced"
    assert ws.search("third", 1)[0].file == "notes.md" and ws.search("first", 1) == []


def test_remove_refuses_paths_and_unknown_names(ws: Workspace) -> None:
    ws.add("a.md", b"# A\n\napples\n")
    for bad in ("../a.md", "/etc/passwd", "missing.md"):
        with pytest.raises(DocumentError):
            ws.remove(bad)
    ws.remove("a.md")
    assert ws.names() == [] and ws.index.counts()["parts"] == 0


# --------------------------------------------------------------------------- the tools


def test_query_table_is_built_from_the_workspace_tables(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    settings.workspace_dir.mkdir(parents=True)
    assert "query_table" not in build_default_registry(settings)  # no table, no tool
    (settings.workspace_dir / "stock.csv").write_text(
        "sku,name,category,stock,unit_price\nA1,Watering can,Tools,4,13.99\nA2,Trowel,Tools,25,6.50\n"
        "B1,Compost,Soil,8,7.25\nC1,Seed tray,Propagation,0,2.10\n",
        encoding="utf-8",
    )
    tool = build_default_registry(settings).get("query_table")
    assert tool is not None
    assert "stock.csv (sku, name, category, stock, unit_price)" in tool.description
    assert tool.parameters["properties"]["file"]["enum"] == ["stock.csv"]
    assert tool.parameters["properties"]["where"]["items"]["properties"]["op"]["enum"][-1] == "contains"
    q = tool.func
    fewer = q("stock.csv", where=[{"column": "stock", "op": "<", "value": 10}], aggregate="count")
    assert json.loads(fewer) == {"table": "stock.csv", "where": "stock < 10", "count": 3}
    assert json.loads(q("stock", aggregate="sum", column="Stock", group_by="category"))[-1] == {
        "category": "Tools",
        "sum of stock": 29,
    }
    assert json.loads(q("stock.csv", aggregate="mean", column="unit_price"))["mean of unit_price"] == 7.46
    rows = json.loads(q("stock.csv", where=[{"column": "name", "op": "contains", "value": "TRAY"}], columns=["sku"]))
    assert rows == [{"sku": "C1"}]
    with pytest.raises(ValueError, match="no column 'price'.*its columns: sku, name"):
        q("stock.csv", where=[{"column": "price", "op": ">", "value": 1}])
    with pytest.raises(ValueError, match="holds text"):
        q("stock.csv", aggregate="sum", column="name")
    with pytest.raises(ValueError, match="not a number"):
        q("stock.csv", where=[{"column": "stock", "op": "<", "value": "__import__('os')"}])
    with pytest.raises(ValueError, match="no table 'other.csv'; the tables are: stock.csv"):
        q("other.csv")


def test_query_table_forgives_what_a_small_model_writes(tmp_path: Path) -> None:
    """A value naming another column compares the two columns; "=" that no cell meets falls back to
    the cells holding the text, and says so; the one column named to show is the one to add up;
    a query that matches nothing shows what the filtered column holds."""
    settings = Settings(data_dir=tmp_path)
    settings.workspace_dir.mkdir(parents=True)
    (settings.workspace_dir / "stock.csv").write_text(
        "sku,name,category,stock,reorder_level\nA1,Watering can,Watering,4,6\nA2,Trowel,Tools,25,10\n"
        "B1,Hose,Watering,8,5\n",
        encoding="utf-8",
    )
    q = build_default_registry(settings).get("query_table").func  # type: ignore[union-attr]
    below = json.loads(
        q("stock.csv", where=[{"column": "stock", "op": "<", "value": "reorder_level"}], aggregate="count")
    )
    assert below == {"table": "stock.csv", "where": "stock < reorder_level (the column)", "count": 1}
    with pytest.raises(ValueError, match="not both numbers"):
        q("stock.csv", where=[{"column": "stock", "op": "<", "value": "name"}])
    water = json.loads(
        q("stock.csv", where=[{"column": "category", "op": "=", "value": "water"}], columns=["stock"], aggregate="sum")
    )
    assert water == {
        "table": "stock.csv",
        "where": "category contains water (no category is exactly that)",
        "sum of stock": 12,
        "rows": 2,
    }
    exact = json.loads(q("stock.csv", where=[{"column": "category", "op": "=", "value": "tools"}]))
    assert [r["sku"] for r in exact] == ["A2"]
    # A name in no row, even as a part, is no count of 0: the table does not hold it (asked about
    # another document's hut, the model answered from a count of 0 that the inventory has none).
    with pytest.raises(
        ValueError, match="no name in stock.csv holds 'Ashcombe Hut'; name holds: Watering can, Trowel, Hose"
    ):
        q("stock.csv", where=[{"column": "name", "op": "=", "value": "Ashcombe Hut"}])
    with pytest.raises(ValueError, match="no name in stock.csv holds 'hut'"):
        q("stock.csv", where=[{"column": "name", "op": "contains", "value": "hut"}])
    # Conditions that each hold but match no row together: a count of 0, with what the table holds
    none = json.loads(
        q(
            "stock.csv",
            where=[{"column": "name", "op": "=", "value": "Hose"}, {"column": "stock", "op": ">", "value": 50}],
        )
    )
    assert none["count"] == 0 and none["note"] == "no row matched; name holds: Watering can, Trowel, Hose"
    with pytest.raises(ValueError, match="sum needs a column"):
        q("stock.csv", columns=["stock", "sku"], aggregate="sum")


def test_the_index_lives_in_the_data_folder(tmp_path: Path) -> None:
    assert default_index_path(Settings(data_dir=tmp_path)) == tmp_path / "index" / "documents.sqlite"
    other = default_index_path(Settings(data_dir=tmp_path, workspace=tmp_path / "elsewhere"))
    assert other.parent == tmp_path / "index" and other.name.startswith("documents-")
