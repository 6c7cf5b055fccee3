"""Ranked search over text documents: sections, an English/Korean tokenizer and BM25.

Documents are split into sections (Markdown headings, or blank-line paragraphs for plain text).
Tokens: English words (lower-cased, stop words dropped, plurals and -ing/-ed folded) and, for
Korean, each word with common particles stripped plus its character bigrams, so "환불은" and
"환불정책" both meet "환불". A text with an e-mail address also has the tokens "email", "mail" and
"이메일", and one with a phone number "phone" and "전화" ("Who do I email?" finds "Write to
support@example.com"). Sections are scored with BM25; words in the section's heading or the
document's title count :data:`TITLE_WEIGHT` times.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from agent_core.text.contacts import EMAIL, PHONE, is_phone

K1 = 1.5
B = 0.75
TITLE_WEIGHT = 2.0
MAX_SECTION_CHARS = 2_000
SNIPPET_CHARS = 240
MAX_SENTENCE_CHARS = 480
"""A snippet's best sentence (a wide table's row) is kept whole up to this length."""

_TOKEN = re.compile(r"[a-z0-9]+|[\uac00-\ud7a3]+|[^\W\d_]+")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_SENTENCE_END = re.compile(r"(?<=[.!?。;])\s+")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)]|>)\s+")
_TABLE_RULE = re.compile(r"^\|?[\s:|-]+\|?$")
_RULE_LINE = re.compile(r"^\s*([=\-*_~#+])\1{2,}\s*$")
"""A line of one repeated mark ("=====") that a plain-text file draws above or below a heading."""
_MARKUP = re.compile(r"^(?:[-*+]|\d+[.)]|>)\s+|\*\*|__|`")
_STOPWORDS = frozenset(
    "a an and are as at be been but by can could did do does for from had has have how i if in "
    "into is it its me my of on or our should so than that the their them then there these they "
    "this to us was we were what when where which who why will with would you your "
    "many much".split()
)
# Longest first, so "에서는" is stripped before "는".
_PARTICLES = sorted(
    "은 는 이 가 을 를 에 의 로 와 과 도 만 으로 에서 에게 까지 부터 보다 처럼 이나 하고 이랑 "
    "에서는 으로는 에게서 까지는 부터는 이라도 에는 와는 과는 으로도 에서도".split(),
    key=len,
    reverse=True,
)


def _stem(word: str) -> str:
    """Light English folding: plurals, -ing and -ed (``shipping`` → ``ship``)."""
    if word.isdigit() or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "ls":
                stem = stem[:-1]  # shipp → ship
            return stem
    if word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _strip_particle(word: str) -> str:
    for particle in _PARTICLES:
        if word.endswith(particle) and len(word) - len(particle) >= 2:
            return word[: -len(particle)]
    return word


def tokenize(text: str) -> list[str]:
    """Search tokens of ``text`` (English words and Korean words + character bigrams)."""
    out: list[str] = []
    for raw in _TOKEN.findall(unicodedata.normalize("NFKC", text).lower()):
        if "\uac00" <= raw[0] <= "\ud7a3":
            word = _strip_particle(raw)
            out.append(word)
            if len(word) > 2:
                out.extend(word[i : i + 2] for i in range(len(word) - 1))
        elif raw.isascii():
            if raw not in _STOPWORDS:
                out.append(_stem(raw))
        else:
            out.append(raw)
    # What an address or a number is for: nobody asks for "support@example.com" by its words.
    if "@" in text and EMAIL.search(text):
        out += ["email", "mail", "이메일"]
    if any(is_phone(m.group(0)) for m in PHONE.finditer(text)):
        out += ["phone", "전화"]
    return out


NEAR_MIN_CHARS = 6
"""Shortest search word looked up by a near spelling when no document has it: shorter words are
one letter from too many others ("stick", "stock")."""
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def near_spellings(term: str) -> set[str]:
    """The spellings one edit from a search word (a letter dropped, added, changed, or two next to
    each other swapped), for an English word of :data:`NEAR_MIN_CHARS` letters or more; none for
    others. A search looks them up only for a word no document has: "lasagna" finds "lasagne",
    "colour" finds "color"."""
    if len(term) < NEAR_MIN_CHARS or not (term.isascii() and term.isalpha()):
        return set()
    splits = [(term[:i], term[i:]) for i in range(len(term) + 1)]
    edits = {a + b[1:] for a, b in splits if b}
    edits |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    edits |= {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
    edits |= {a + c + b for a, b in splits for c in _LETTERS}
    return edits - {term}


@dataclass(frozen=True)
class Section:
    """A searchable piece of a document: a Markdown section or a plain-text paragraph."""

    document: str
    title: str
    text: str
    doc_title: str
    parent: str = ""
    """The headings above the section's own: a plain-text "3. TREATMENT FEES" above its "3.2 Hygiene"
    paragraph, a Markdown "## Carpets" above "### Stairs". Their words rank like the title's; a
    hit still cites the section by its own title."""
    piece: int = 0
    """Which heading's section or paragraph of the document it is: the chunks of a long one share it."""

    @property
    def headings(self) -> str:
        """Its title and its parents' headings, each once."""
        return _once(self.title, *self.parent.split("\n"))

    @property
    def title_words(self) -> str:
        """Every heading that counts for the section's ranking: its title, its parents', the document's."""
        return _once(self.title, *self.parent.split("\n"), self.doc_title)


def _once(*headings: str) -> str:
    """The non-empty ``headings``, each once, one a line."""
    return "\n".join(dict.fromkeys(h for h in headings if h))


def _chunks(text: str) -> list[str]:
    """``text`` cut at paragraph boundaries into pieces of about :data:`MAX_SECTION_CHARS`."""
    pieces: list[str] = []
    current = ""
    for para in re.split(r"\n\s*\n", text):
        if current and len(current) + len(para) > MAX_SECTION_CHARS:
            pieces.append(current)
            current = ""
        current = f"{current}\n\n{para}" if current else para
    if current.strip():
        pieces.append(current)
    return pieces


_NUMBER = re.compile(r"^(\d+(?:\.\d+)+|\d+(?=[.)]))[.)]?\s+\S")
"""A clause's number: "3. ", "4) ", "3.2 " (not "2024 was …" nor "10 Downing Street")."""
MAX_HEADING_CHARS = 60


def _clause_depth(line: str) -> int | None:
    """How deep a line's clause number is ("3." 1, "3.2" 2), or None for a line with none."""
    number = _NUMBER.match(line.strip())
    return number.group(1).count(".") + 1 if number else None


def _heading_level(line: str) -> int | None:
    """How deep a one-line plain-text paragraph heads what follows it ("3. TREATMENT FEES": 1,
    "3.2 Hygiene": 2, "OPENING HOURS": 1), or None for a line that is no heading: a long one, a
    sentence (it ends in punctuation), or one neither numbered nor in capitals."""
    line = line.strip()
    letters = [c for c in line if c.isalpha()]
    if not letters or len(line) > MAX_HEADING_CHARS or line[-1] in ".,;:!?" or line[0] in "-*+>":
        return None  # no words, a sentence, or a bullet
    number = _clause_depth(line)
    if number is not None:
        return number
    capitals = len(letters) >= 3 and not any(c.islower() for c in letters) and any(c.isupper() for c in letters)
    return 1 if capitals else None


def _markdown_sections(text: str) -> tuple[str, list[tuple[str, str, str]]]:
    """A Markdown text's ``(title, parents, body)`` pieces and its title (its one ``#`` heading)."""
    doc_title, title, parents = "", "", ""
    stack: list[tuple[int, str]] = []
    lines: list[str] = []
    raw: list[tuple[str, str, str]] = []
    for line in text.splitlines():
        match = _HEADING.match(line)
        if not match:
            lines.append(line)
            continue
        raw.append((title, parents, "\n".join(lines)))
        level, title, lines = len(match.group(1)), match.group(2), []
        doc_title = doc_title or (title if level == 1 else "")
        stack = [(lv, t) for lv, t in stack if lv < level]
        parents = "\n".join(t for lv, t in stack if lv > 1)
        stack.append((level, title))
    raw.append((title, parents, "\n".join(lines)))
    return doc_title, raw


def _plain_sections(text: str) -> list[tuple[str, str, str]]:
    """A plain text's ``(title, parents, body)`` paragraphs: a paragraph's short first line titles it,
    and a one-line heading paragraph (:func:`_heading_level`) heads the paragraphs after it instead
    of being a hit of its own (a search showed "OPENING HOURS" and nothing under it). One followed
    by a heading as deep as itself, or by nothing, stays a paragraph: it heads nothing."""
    paragraphs = []
    for para in re.split(r"\n\s*\n", text):
        lines = [line for line in para.strip().splitlines() if not _RULE_LINE.match(line)]
        if lines:
            paragraphs.append((para, lines))
    firsts = [_heading_level(lines[0]) for _, lines in paragraphs]
    levels = [level if len(lines) == 1 else None for level, (_, lines) in zip(firsts, paragraphs, strict=True)]
    raw: list[tuple[str, str, str]] = []
    stack: list[tuple[int, str]] = []
    for i, (para, lines) in enumerate(paragraphs):
        level = firsts[i]
        depth = level or _clause_depth(lines[0])  # "3.8 Fees are …" too
        if depth is not None:  # a heading or a clause ends the sections of its depth and deeper
            stack = [(lv, t) for lv, t in stack if lv < depth]
        after = levels[i + 1] if i + 1 < len(paragraphs) else 0
        alone = levels[i]  # the heading of a one-line paragraph
        if alone is not None and (after is None or after > alone):  # it heads a body or a deeper heading
            stack.append((alone, lines[0].strip()))
            continue
        parents = "\n".join(t for _, t in stack)
        if len(lines) > 1 and _titles(lines[0], lines[1]) and 0 not in _aligned_tables(lines):
            raw.append((lines[0].strip(), parents, "\n".join(lines[1:])))
            if level is not None:  # "4. PARKING" over its first paragraph heads the next ones too
                stack.append((level, lines[0].strip()))
        else:  # cited by the heading it is under
            raw.append((stack[-1][1] if stack else "", parents, para))
    return raw


def _titles(first: str, second: str) -> bool:
    """Whether a paragraph's first line is its title ("3.2 Hygiene") rather than the start of
    wrapped prose ("… runs from 15:15 to 17:00 and costs 9.50" / "pounds per session.") or a
    table's first row: short, one cell, not a sentence's end or middle, and the next line does not
    go on in lower case."""
    first, second = first.strip(), second.strip()
    return (
        len(first) <= MAX_HEADING_CHARS
        and len(_COLUMN_GAP.split(first)) == 1  # "1.1 Monday      08:30 - 17:30" is a table's row
        and first[-1:] not in (".", ",", ";", "!", "?")
        and not (second[:1].isalpha() and second[:1].islower())
    )


def split_sections(document: str, text: str) -> list[Section]:
    """Sections of one document; ``document`` is its name (Markdown when it ends in .md)."""
    stem = document.rsplit("/", 1)[-1].rsplit(".", 1)[0].replace("_", " ")
    if document.lower().endswith((".md", ".markdown")):
        doc_title, raw = _markdown_sections(text)
        doc_title = doc_title or stem
    else:
        doc_title, raw = stem, _plain_sections(text)
    sections = []
    for piece, (title, parents, body) in enumerate(raw):
        if not body.strip():
            continue
        for chunk in _chunks(body.strip()):
            sections.append(Section(document, title or doc_title, chunk.strip(), doc_title, parents, piece))
    return sections


@dataclass(frozen=True)
class Hit:
    """One search result."""

    document: str
    section: str
    score: float
    snippet: str


@dataclass
class BM25Index:
    """BM25 over sections, with heading/title words weighted up. Build once, query many times."""

    sections: list[Section]
    _tf: list[dict[str, float]] = field(default_factory=list, repr=False)
    _len: list[float] = field(default_factory=list, repr=False)
    _df: Counter[str] = field(default_factory=Counter, repr=False)

    def __post_init__(self) -> None:
        for section in self.sections:
            tf: dict[str, float] = dict(Counter(tokenize(section.text)))
            title_tokens = tokenize(section.title_words)
            for token in title_tokens:
                tf[token] = tf.get(token, 0.0) + TITLE_WEIGHT
            self._tf.append(tf)
            self._len.append(sum(tf.values()))
            self._df.update(tf.keys())
        self._avg = (sum(self._len) / len(self._len)) if self._len else 1.0

    @classmethod
    def from_documents(cls, documents: Iterable[tuple[str, str]]) -> BM25Index:
        """Index ``(name, text)`` pairs."""
        return cls([s for name, text in documents for s in split_sections(name, text)])

    def search(self, query: str, limit: int = 3) -> list[Hit]:
        """The best ``limit`` sections for ``query`` (only those that match at all)."""
        terms = list(dict.fromkeys(tokenize(query)))
        n = len(self.sections)
        scored: list[tuple[float, int]] = []
        for i, tf in enumerate(self._tf):
            score = 0.0
            norm = K1 * (1 - B + B * self._len[i] / (self._avg or 1.0))
            for term in terms:
                freq = tf.get(term, 0)
                if freq:
                    idf = math.log(1 + (n - self._df[term] + 0.5) / (self._df[term] + 0.5))
                    score += idf * freq * (K1 + 1) / (freq + norm)
            if score > 0:
                scored.append((score, i))
        scored.sort(key=lambda pair: (-pair[0], pair[1]))
        hits = []
        for score, i in scored[:limit]:
            section = self.sections[i]
            hits.append(Hit(section.document, section.title, round(score, 3), snippet_of(section.text, terms)))
        return hits


def _cells(row: str) -> list[str]:
    return [_MARKUP.sub("", c).strip() for c in row.strip().strip("|").split("|")]


def _row_sentence(cells: list[str], header: list[str] | None) -> str:
    """A table row as one sentence, each cell after its column's name when the table has a header
    ("Feature: Escape of water excess, Essentials: $750, Standard: $500;"): a row read alone
    (a search snippet, a line the model picks) still says which column each figure is in."""
    if not header:
        return ", ".join(cells) + ";"
    named = [f"{h}: {c}" if h and h != c else c for h, c in zip(header, cells, strict=False) if c]
    return ", ".join(named + [c for c in cells[len(header) :] if c]) + ";"


_COLUMN_GAP = re.compile(r"\s{2,}|\t|\s*\.{4,}\s*")
"""Between two cells of a plain-text table: a run of spaces, a tab, or dot leaders ("Manual, 10
hours ......... £400"; read as prose, four such rows ran into one line of four prices). Three dots
are an ellipsis, not a gap."""
_RULE_CELL = re.compile(r"^[-=_:+]{2,}$")
_FIGURE_CELL = re.compile(r"^[^\w\s]{0,2}\s?[\d.,]+\s?(?:%|[^\W\d_]{1,3})?$")
"""A cell that is only a figure ("$42", "1,200", "12%", "5 kg")."""
MIN_ALIGNED = 3
"""Lines (header included) a plain-text table needs before its lines are read as rows."""
MIN_ALIGNED_CELLS = 2
"""Cells each of its lines needs: a price list is two ("Hygienist appointment, 30 minutes    £62")."""


def _aligned_tables(lines: Sequence[str]) -> dict[int, tuple[list[str], list[str] | None]]:
    """The rows of plain-text tables, by line number: cells and their header (rule and header
    lines map to no cells: each row names its columns instead).

    A text file lines its columns up with runs of spaces; joined with its neighbours as prose, a
    row lost its columns ("Deposit Damage excess A Economy … $300 $1,200 B Compact …") and the
    model took one group's deposit for another's. A table here is :data:`MIN_ALIGNED` or more
    lines in a row that each split at runs of two or more spaces (or tabs) into the same number
    (:data:`MIN_ALIGNED_CELLS` or more) of cells, a rule of dashes under the first line aside, and not
    lines of sentences (most cells ending in ".", "!" or "?": prose with two spaces after each
    period). Its first line is the header when a rule follows it, or when it has fewer cells with
    a digit, or fewer cells that are only a figure, than the line below it ("Plan  2024 price")."""
    found: dict[int, tuple[list[str], list[str] | None]] = {}
    split = [_COLUMN_GAP.split(line.strip()) for line in lines]
    n = 0
    while n < len(lines):
        width = len(split[n])
        end, rule = n, None
        while end < len(lines) and not lines[end].strip().startswith("|"):
            if end == n + 1 and _RULE_LINE.match(lines[end]):  # one rule all across, under the header
                rule = end
            elif len(split[end]) != width:
                break
            end += 1
        table = [split[k] for k in range(n, end) if k != rule]
        cells = [c for row in table for c in row]
        start, n = n, max(end, n + 1)
        if width < MIN_ALIGNED_CELLS or len(table) < MIN_ALIGNED:
            continue
        if sum(c.endswith((".", "!", "?")) for c in cells) * 2 > len(cells):  # lines of sentences
            continue
        ruled = rule is not None or all(_RULE_CELL.match(c) for c in table[1])  # "-----  ----"
        digits = [sum(any(ch.isdigit() for ch in c) for c in row) for row in table[:2]]
        figures = [sum(bool(_FIGURE_CELL.match(c)) for c in row) for row in table[:2]]
        header = table[0] if ruled or digits[0] < digits[1] or figures[0] < figures[1] else None
        k = start
        for i, row in enumerate(table):
            k += k == rule
            skipped = (i == 0 and header is not None) or (i == 1 and ruled and rule is None)
            found[k] = ([], None) if skipped else (row, header)
            k += 1
        if rule is not None:
            found[rule] = ([], None)
    return found


def _sentences(text: str) -> list[str]:
    """Sentences of a section: wrapped lines joined, list items and table rows kept apart (a row
    with its table's column names), a plain-text table's rows too (:func:`_aligned_tables`)."""
    return _sentences_and_rows(text)[0]


def _sentences_and_rows(text: str) -> tuple[list[str], set[int]]:
    """:func:`_sentences`, and which of them are table rows."""
    blocks: list[list[str]] = []
    lines = text.splitlines()
    header: list[str] | None = None
    rows: set[int] = set()  # the blocks that are a table row: one sentence, whatever its periods
    leads: dict[int, str] = {}  # the list items' blocks: the sentence each goes on from, or ""
    aligned = _aligned_tables(lines)
    for n, line in enumerate(lines):
        stripped = line.strip()
        if n in aligned:
            cells, named = aligned[n]
            blocks.append([])
            if cells:
                rows.add(len(blocks))
                blocks.append([_row_sentence(cells, named)])
                blocks.append([])
            continue
        if not stripped.startswith("|"):
            header = None
        if not stripped or _HEADING.match(line) or _TABLE_RULE.match(stripped):
            blocks.append([])
            continue
        if stripped.startswith("|"):  # a table row: one sentence of its cells
            following = lines[n + 1].strip() if n + 1 < len(lines) else ""
            if following.startswith("|") and _TABLE_RULE.match(following) and "-" in following:
                header = _cells(stripped)  # the header row: named in each row below instead
                continue
            rows.add(len(blocks))
            blocks.append([_row_sentence(_cells(stripped), header)])
            blocks.append([])
            continue
        item = _ITEM.match(line)
        if item or not blocks:
            if item:
                leads[len(blocks)] = _lead_in(blocks, leads)
            blocks.append([])
        blocks[-1].append(_MARKUP.sub("", stripped).strip())
    sentences: list[str] = []
    table_rows: set[int] = set()
    for n, block in enumerate(blocks):
        joined = " ".join(part for part in block if part)
        if n in rows:
            table_rows.add(len(sentences))
            sentences.append(joined)
        else:
            split = [s for s in _SENTENCE_END.split(joined) if s]
            if split and leads.get(n):
                split[0] = f"{leads[n]} {split[0]}"
            sentences.extend(split)
    return sentences, table_rows


MAX_LEAD_CHARS = 120
"""Longest sentence a list's items carry as their lead-in."""


def _lead_in(blocks: Sequence[Sequence[str]], leads: Mapping[int, str]) -> str:
    """The sentence a list item goes on from: the one just before the list when it ends in ":"
    ("If you cancel with less notice, or do not attend, we charge:"), carried by every item of the
    list, as a table's rows carry their column names. Alone, the item "hygienist appointments:
    £40" read as the price of a visit, not the charge for missing one."""
    if not blocks:
        return ""
    if (len(blocks) - 1) in leads:  # the item before in the same list
        return leads[len(blocks) - 1]
    joined = " ".join(part for part in blocks[-1] if part)
    last = _SENTENCE_END.split(joined)[-1].strip() if joined else ""
    return last if last.endswith(":") and len(last) <= MAX_LEAD_CHARS else ""


def snippet_of(text: str, terms: list[str]) -> str:
    """The sentences of ``text`` that share the most query terms, in the text's order, within
    :data:`SNIPPET_CHARS` (an omission between two is marked "…"); room left goes to the best
    one's neighbours.

    A table's rows are short "sentences": the rows that name what was asked come along even when
    they are far apart ("the Fjord XL or the Lift Pro" are two rows with others between them),
    where the best row's neighbours alone left the second one out.
    """
    sentences, rows = _sentences_and_rows(text)
    if not sentences:
        return ""
    wanted = set(terms)
    tokens = [set(tokenize(sentence)) for sentence in sentences]
    # A word every row has is a column's name: it tells no row from another ("deposit" in each),
    # so rows are told apart by their other words. Against a sentence of prose, a row still names
    # its columns: "Golden Retriever … Full Groom: £68" answers "golden retriever full groom" more
    # than "add £10 to the Full Groom price" does. Scores are (all words, words that tell apart).
    shared = set.intersection(*(tokens[i] for i in rows)) if len(rows) > 1 else set()
    scores = [
        (len(wanted & t), len(wanted & (t - shared)) if i in rows else len(wanted & t)) for i, t in enumerate(tokens)
    ]
    best = scores.index(max(scores))
    chosen = {best}
    size = len(sentences[best])
    # Rows that name their columns are long: the second row a comparison names needs more room
    # than :data:`SNIPPET_CHARS`, but only a row that names as much of the query as the best
    # ("minivan" and "economy"): a row sharing a lesser word ("chair" for "Atlas Ergonomic chair")
    # came along and the model took its price. Neighbours still come only within it.
    budget = MAX_SENTENCE_CHARS if best in rows else SNIPPET_CHARS

    def fits(i: int, room: int = SNIPPET_CHARS) -> bool:
        return size + len(sentences[i]) + 3 <= room

    for i in sorted(range(len(sentences)), key=lambda j: (-scores[j][0], -scores[j][1], j)):
        if scores[i][1] and i not in chosen and fits(i, budget if scores[i] == scores[best] else SNIPPET_CHARS):
            chosen.add(i)
            size += len(sentences[i]) + 3
    first = last = best
    grown = True  # then the best sentence's neighbours, alternately, while they fit
    while grown:
        grown = False
        for i in (first - 1, last + 1):
            if 0 <= i < len(sentences) and (i in chosen or fits(i)):
                if i not in chosen:
                    chosen.add(i)
                    size += len(sentences[i]) + 1
                first, last, grown = min(first, i), max(last, i), True
    order = sorted(chosen)
    text = " ".join(("… " if n and i != order[n - 1] + 1 else "") + sentences[i] for n, i in enumerate(order))
    limit = min(max(budget, len(sentences[best])), MAX_SENTENCE_CHARS)  # a long table row whole
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text
