"""Does an answer say that what was asked for was not found? In English and Korean.

The evals' ``answer_not_found`` check, and the *Not found* outcome of a run
(:mod:`agent_core.records.outcome`). A hand-written ``answer_regex`` per goal missed correct answers
("요청하신 정보는 문서에서 확인할 수 없습니다" for a phone number no document has): the phrasings
live here once, for every goal that expects (or must not give) a "not found".

What counts: a statement that something could not be found, determined or provided, or that the
information is not there (not mentioned, not listed, no information). A bare negation does not
("shipping is not free", "배송비가 없습니다": a fact, not a missing one).
"""

from __future__ import annotations

import re
import unicodedata

_ENGLISH = re.compile(
    r"\b(?:not|cannot|can't|could not|couldn't) (?:be |been )?(?:found|available|mentioned|specified|listed|included|stated|provided|given|known|determined"
    r"|documented|recorded|in (?:the|our|any) (?:documents?|notes|files?|records|workspace|tool results))\b"
    r"|\bunavailable\b"
    r"|\bno (?:[\w-]+ ){0,2}(?:information|info|mention|results?|data|details|records?|documents?|entry|entries)\b"
    r"|\b(?:couldn't|could not|can't|cannot|can not|unable to|wasn't able to|was not able to|am not able to"
    r"|I'm not able to|failed to) (?:find|locate|determine|provide|answer|see|get|retrieve|confirm|tell)\b"
    r"|\b(?:don't|do not|doesn't|does not|didn't|did not) (?:have|say|mention|specify|contain|include|provide"
    r"|state|list|show|find|know)\b"
    r"|\b(?:isn't|is not|aren't|are not|wasn't|was not) (?:mentioned|specified|listed|stated|available|included"
    r"|provided|given|known|found|documented)\b"
    r"|\bnothing (?:was |is )?(?:found|mentioned|about)\b|\bfound nothing\b|\bno such\b"
    r"|\b(?:information|info|data|details?|figures?) (?:is|are|was|were) missing\b",
    re.IGNORECASE,
)
_KOREAN = re.compile(
    # could not find / confirm / know / answer / provide
    r"(?:찾|확인|알|답변|답|제공|파악|안내)[가-힣]{0,2}\s?수\s?(?:가\s?)?없"
    r"|(?:찾|확인하|알|파악하|발견하)지\s?(?:못|않)"
    # the information / mention / record … is not there
    r"|(?:정보|내용|자료|기록|데이터|언급|결과|문서|번호|안내)[^.。!?]{0,20}없"
    # not written / stated / included in …
    r"|(?:나와|나타나|기재되어|기재돼|명시되어|명시돼|언급되어|언급돼|포함되어|포함돼|적혀|쓰여|기록되어|기록돼|나와\s?있)\s?있지\s?않"
    r"|(?:기재|명시|언급|포함|기록|확인)(?:되지|하지|되어\s?있지|돼\s?있지)\s?않"
    r"|모르겠|모릅니다|알려져\s?있지\s?않"
)


def says_not_found(answer: str) -> bool:
    """Whether ``answer`` says (in English or Korean) that what was asked for was not found."""
    text = unicodedata.normalize("NFKC", answer or "").replace("’", "'")
    return bool(_ENGLISH.search(text) or _KOREAN.search(text))
