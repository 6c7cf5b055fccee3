"""What a tool's data covers: the words its results can be about, for tools whose data is a fixed
body (the workspace's documents and tables, a simulated service's cities or pages).

A tool declares its :class:`Scope` itself (tool knowledge lives in the tool); a tool without one
(a calculator, an MCP tool, a real web search) can be about anything. The local provider leaves a
tool out of a step when its data holds none of the request's words
(:func:`agent_core.providers.local.steps.out_of_scope`): a 1.5B model asked about a Korean
apartment notice called ``get_weather(city="Seoul")`` first in 6 of 8 such runs.

Words are search tokens (:func:`~agent_core.tools.docsearch.tokenize`): stemmed English words
without stop words, Korean words and their two-letter pieces (a request's, only of its longer
words: :func:`request_words`). A request can only be judged in a
script the data is written in: a Korean question about English documents shares no word with them
and says nothing about whether they answer it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from agent_core.tools.docsearch import tokenize

Script = Literal["hangul", "latin", "other"]


def script(word: str) -> Script:
    """The script a search word is written in."""
    if any("\uac00" <= ch <= "\ud7a3" for ch in word):
        return "hangul"
    if any("a" <= ch <= "z" for ch in word):
        return "latin"
    return "other"


def scripts_of(text: str) -> set[Script]:
    """The scripts (Korean, Latin letters) ``text`` is written in."""
    found: set[Script] = set()
    if re.search("[\uac00-\ud7a3]", text):
        found.add("hangul")
    if re.search("[A-Za-z]", text):
        found.add("latin")
    return found


PIECES_FROM = 4
"""The shortest Korean word of a request whose two-letter pieces count: a compound ("헬스장이용료")
meets a document's "헬스장" through them, but the pieces of a short name are other words ("솔바람"
campsite gave "바람", wind, and kept the weather tool)."""


def request_words(text: str) -> set[str]:
    """The words of a request a scope is judged on: its search tokens but figures, single letters
    (every table holds some number, and "what's" leaves an "s") and the pieces of short Korean
    words (:data:`PIECES_FROM`)."""
    whole = set(tokenize(text, pieces=False))
    short = [w for w in whole if script(w) == "hangul" and len(w) < PIECES_FROM]
    not_words = {w[i : i + 2] for w in short for i in range(len(w) - 1)} - whole
    return {w for w in tokenize(text) if len(w) > 1 and any(ch.isalpha() for ch in w) and w not in not_words}


class Body(NamedTuple):
    """One body of a tool's data (a document, a table; the cities of a weather service in both
    their names) as a scope sees it for a request: which of its words it holds, and the scripts it
    is written in. Bodies of different tools with one ``name`` are the same data (a CSV file is
    searched by ``search_documents`` and queried by ``query_table``)."""

    name: str
    held: set[str]
    scripts: set[Script]

    def judges(self, words: Collection[str]) -> bool:
        """Whether one of ``words`` is in a script this body is written in (a Korean question says
        nothing about whether an English document answers it)."""
        return any(script(w) in self.scripts for w in words)


@dataclass
class Scope:
    """The words a tool's data holds, in one or more :class:`Body`.

    Either ``words`` (read when first needed: one body, or one per name when it gives a mapping)
    or ``bodies`` (asked for a request's words each time: data too big to hold as sets, such as
    the workspace's documents).
    """

    words: Callable[[], Iterable[str] | Mapping[str, Iterable[str]]] | None = None
    bodies: Callable[[Collection[str]], list[Body]] | None = None
    _vocabularies: dict[str, tuple[frozenset[str], frozenset[Script]]] | None = field(
        default=None, init=False, repr=False
    )

    def __deepcopy__(self, memo: dict[int, Any]) -> Scope:
        """Itself: a scope reads data that lives elsewhere (a workspace's index and its lock), and a
        copied request (a scripted demo keeps them) needs no copy of it."""
        return self

    def bodies_for(self, words: Collection[str]) -> list[Body]:
        """Each body of the data, as it meets ``words``."""
        if self.bodies is not None:
            return self.bodies(words)
        if self._vocabularies is None:
            given = self.words() if self.words is not None else ()
            named = given if isinstance(given, Mapping) else {"": given}
            self._vocabularies = {}
            for name, vocabulary in named.items():
                known = frozenset(vocabulary)
                self._vocabularies[name] = (known, frozenset(script(w) for w in known) - {"other"})
        return [Body(name, set(words) & known, set(scripts)) for name, (known, scripts) in self._vocabularies.items()]

    def covers(self, words: Collection[str]) -> bool:
        """Whether the data could be about a request with these words: a body holds one of them, or
        cannot judge them."""
        return any(body.held or not body.judges(words) for body in self.bodies_for(words))


def vocabulary(*texts: str) -> set[str]:
    """The search words of ``texts``."""
    return {w for text in texts for w in tokenize(text)}


def fixed_scope(*texts: str) -> Scope:
    """A scope of the words of ``texts`` (a simulated service's cities or pages)."""
    words = vocabulary(*texts)
    return Scope(words=lambda: words)
