"""Research memory's vocabulary, the assessment parser and the hypothesis lifecycle (seed:
research-memory.md).

Pure: stdlib and ``memorysite.text`` only; no Django, no I/O, no clock.

Assessment (``parse_assessment``), the seed's format::

    ## Assessment
    ### Verdict
    strong_signal
    ### Observations
    - <observation>
    ### Hypotheses Generated
    - H: <text> | Status: untested
    ### Limitations
    - <limitation>
    ### Capability Requests
    - <request>

- CRLF/CR line ends; headings of any level ``#`` to ``######`` (``###Verdict`` without the space too
  when the name is known) or a whole-line bold ``**Verdict**``; names compared case-insensitively with
  whitespace collapsed and a trailing colon ignored; ``### Verdict: strong_signal`` carries its value.
  Aliases: Observation, Hypotheses, Hypothesis, New Hypotheses, Limitation, Capability Request.
  ``## Assessment`` and unknown headings carry nothing (an unknown heading ends the section before it).
- Items: bullets ``-``, ``*``, ``+``, ``•`` or ``1.``/``1)``; a non-bullet line right after an item
  continues it (markdown's lazy continuation), otherwise it is an item of its own. Item text is one line
  (control and line-separator characters become spaces, whitespace runs collapse). Code fences and
  thematic breaks are ignored. Placeholder items (the whole text one ``[...]``) and ``none``/``n/a``/
  ``na``/``nil``/``-`` items are dropped.
- Verdict: the first line of the Verdict section (lines of explanation under it are fine), an optional
  ``Verdict:`` prefix and surrounding ``*``/``_``/backticks/quotes ignored, case-insensitive,
  ``strong signal``/``strong-signal`` accepted, followed by nothing or by a separator (``—``, ``-``,
  ``:``, ``(``, ``.``, ``,``, ``;``) and free text (``strong_signal because …`` is refused).
  Missing (or only a placeholder) or anything else → ``AssessmentError(section="Verdict")``.
- Hypotheses: ``H: <text> | Status: <status>``; the ``H:`` prefix (also ``H1:``, ``H_001:``,
  ``Hypothesis:``) is optional, the status part is the last ``| Status: …`` and optional (absent, blank or
  a placeholder → ``untested``), one pair of quotes around the text is removed; an unknown status →
  ``AssessmentError(section="Hypotheses Generated")``. Repeats (same text, case-insensitive) keep the first.
- Other sections are optional (empty tuples); every item is kept in order, none merged or reworded.

Lifecycle (``hypothesis_status_after``): when an experiment that tests a hypothesis gets a verdict, the
hypothesis takes the status that verdict supports, whatever it was before (the newest test decides; the
tests themselves stay listed in ``tested_by``): strong_signal → validated, no_signal → refuted,
weak_signal → inconclusive, overfit → inconclusive (an overfit model says nothing either way).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memorysite.text import one_line

VERDICTS = ("strong_signal", "weak_signal", "no_signal", "overfit")
HYPOTHESIS_STATUSES = ("untested", "testing", "validated", "refuted", "inconclusive")
OPEN_STATUSES = ("untested", "testing")  # the hypotheses still to be tested
REQUEST_STATUSES = ("pending", "approved", "implemented", "rejected")
ELLIPSIS = "…"

SECTION_VERDICT = "Verdict"
SECTION_OBSERVATIONS = "Observations"
SECTION_HYPOTHESES = "Hypotheses Generated"
SECTION_LIMITATIONS = "Limitations"
SECTION_REQUESTS = "Capability Requests"
_SECTIONS = (SECTION_VERDICT, SECTION_OBSERVATIONS, SECTION_HYPOTHESES, SECTION_LIMITATIONS, SECTION_REQUESTS)
_SECTION_NAMES: dict[str, str | None] = {
    "assessment": None,
    "verdict": SECTION_VERDICT,
    "observations": SECTION_OBSERVATIONS,
    "observation": SECTION_OBSERVATIONS,
    "hypotheses generated": SECTION_HYPOTHESES,
    "hypotheses": SECTION_HYPOTHESES,
    "hypothesis": SECTION_HYPOTHESES,
    "new hypotheses": SECTION_HYPOTHESES,
    "limitations": SECTION_LIMITATIONS,
    "limitation": SECTION_LIMITATIONS,
    "capability requests": SECTION_REQUESTS,
    "capability request": SECTION_REQUESTS,
}
_HASH_HEADING = re.compile(r"#{1,6}(\s*)(.*?)(?:\s+#+)?")
_BOLD_HEADING = re.compile(r"\*\*([^*]+?)\*\*\s*(:?)\s*(.*)")
_BULLET = re.compile(r"(?:[-*+]\s+|•\s*|\d{1,3}[.)]\s+)(.*)")
_FENCE = re.compile(r"(?:```|~~~).*")
_THEMATIC_BREAK = re.compile(r"([-*_])(?:\s*\1){2,}")
_PLACEHOLDER = re.compile(r"\[[^\[\]]*\]")
_NONE_ITEMS = frozenset({"none", "n/a", "na", "nil", "-", "—", "–"})
_VERDICT = re.compile(r"(strong[ _-]?signal|weak[ _-]?signal|no[ _-]?signal|overfit)(?=$|\s*[-—–:(.,;!*`\"')\]])")
_VERDICT_PREFIX = re.compile(r"verdict\s*[:=—–-]\s*", re.IGNORECASE)
_HYPOTHESIS_PREFIX = re.compile(r"(?:h|hypothesis)\s*(?:[-_#]?\s*\d+)?\s*:\s*", re.IGNORECASE)
_HYPOTHESIS_STATUS = re.compile(r"(.*)\|\s*status\s*[:=]?\s*(.*)", re.IGNORECASE | re.DOTALL)
_QUOTES = {'"': '"', "“": "”", "'": "'", "‘": "’"}


class AssessmentError(ValueError):
    """An assessment the parser cannot use: ``section`` names the section, ``message`` the rule."""

    def __init__(self, section: str, message: str):
        super().__init__(f"{section}: {message}")
        self.section = section
        self.message = message


@dataclass(frozen=True)
class ParsedHypothesis:
    text: str
    status: str


@dataclass(frozen=True)
class ParsedAssessment:
    verdict: str
    observations: tuple[str, ...]
    hypotheses: tuple[ParsedHypothesis, ...]
    limitations: tuple[str, ...]
    capability_requests: tuple[str, ...]


def parse_assessment(markdown: str) -> ParsedAssessment:
    """The seed's structured assessment (see the module docstring); raises AssessmentError."""
    items: dict[str, list[list[str]]] = {section: [] for section in _SECTIONS}
    section: str | None = None
    item: list[str] | None = None
    for raw_line in markdown.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw_line.strip()
        heading = _heading(line)
        if heading is not None:
            section, rest = heading
            item = None
            if section is not None and rest:
                item = [rest]
                items[section].append(item)
            continue
        if not line or _FENCE.fullmatch(line) or _THEMATIC_BREAK.fullmatch(line):
            item = None
            continue
        if section is None:
            continue
        bullet = _BULLET.fullmatch(line)
        if bullet is not None:
            item = [bullet.group(1)]
            items[section].append(item)
        elif item is not None:
            item.append(line)
        else:
            item = [line]
            items[section].append(item)

    def texts(section: str, first_line_only: bool = False) -> list[str]:
        joined = (one_line(pieces[0] if first_line_only else " ".join(pieces)) for pieces in items[section])
        return [text for text in joined if text and not _is_placeholder(text) and not _is_none(text)]

    return ParsedAssessment(
        verdict=_parse_verdict(texts(SECTION_VERDICT, first_line_only=True)),
        observations=tuple(texts(SECTION_OBSERVATIONS)),
        hypotheses=_parse_hypotheses(texts(SECTION_HYPOTHESES)),
        limitations=tuple(texts(SECTION_LIMITATIONS)),
        capability_requests=tuple(texts(SECTION_REQUESTS)),
    )


def _heading(line: str) -> tuple[str | None, str] | None:
    """(section or None for a heading that carries nothing, the rest of the line) or None for no heading."""
    match = _HASH_HEADING.fullmatch(line)
    if match is not None:
        known, section, rest = _section_of(match.group(2))
        if known or match.group(1):
            return section, rest
        return None
    match = _BOLD_HEADING.fullmatch(line)  # **Verdict**, **Verdict:** x, **Verdict**: x; not **Hypothesis** is …
    if match is not None:
        name, colon, rest = match.groups()
        known, section, inline = _section_of(name)
        if known and (not rest or colon or name.rstrip().endswith(":")):
            return section, rest.strip() or inline
    return None


def _section_of(text: str) -> tuple[bool, str | None, str]:
    for name, rest in ((text, ""), text.split(":", 1) if ":" in text else (text, "")):
        key = " ".join(re.sub(r"^\d+[.)]\s*", "", name.strip().strip("*_`").strip()).split()).lower().rstrip(":")
        if key in _SECTION_NAMES:
            return True, _SECTION_NAMES[key], rest.strip()
    return False, None, ""


def _is_placeholder(text: str) -> bool:
    return _PLACEHOLDER.fullmatch(text) is not None


def _is_none(text: str) -> bool:
    return text.strip(" .()*_`").casefold() in _NONE_ITEMS


def _parse_verdict(candidates: list[str]) -> str:
    allowed = ", ".join(VERDICTS)
    if not candidates:
        raise AssessmentError(SECTION_VERDICT, f"missing: write one of {allowed} under ### Verdict")
    prefix = _VERDICT_PREFIX.match(candidates[0])
    text = candidates[0][prefix.end() :] if prefix else candidates[0]
    core = text.strip().lstrip("*_`\"'").strip().lower()
    match = _VERDICT.match(core.rstrip("*_`\"' ")) or _VERDICT.match(core)
    if match is None:
        shown = candidates[0] if len(candidates[0]) <= 80 else candidates[0][:79] + ELLIPSIS
        raise AssessmentError(SECTION_VERDICT, f"{shown!r} is not a verdict: must be one of {allowed}")
    word = re.sub(r"[ _-]", "", match.group(1))
    return {"strongsignal": "strong_signal", "weaksignal": "weak_signal", "nosignal": "no_signal"}.get(word, word)


def _parse_hypotheses(texts: list[str]) -> tuple[ParsedHypothesis, ...]:
    parsed: list[ParsedHypothesis] = []
    seen: set[str] = set()
    for item in texts:
        text, status_text = item, ""
        match = _HYPOTHESIS_STATUS.fullmatch(item)
        if match is not None:
            text, status_text = match.group(1), match.group(2)
        text = text.strip()
        prefix = _HYPOTHESIS_PREFIX.match(text)
        text = _unquote(text[prefix.end() :].strip() if prefix else text)
        if not text or _is_placeholder(text) or _is_none(text):
            continue
        status = _parse_status(status_text, text)
        key = text.casefold()
        if key not in seen:
            seen.add(key)
            parsed.append(ParsedHypothesis(text=text, status=status))
    return tuple(parsed)


def _unquote(text: str) -> str:
    if len(text) >= 2 and _QUOTES.get(text[0]) == text[-1]:
        return text[1:-1].strip()
    return text


def _parse_status(raw: str, text: str) -> str:
    raw = raw.strip()
    if not raw or _is_placeholder(raw):
        return "untested"
    status = raw.strip("*_`\"'. ").lower()
    if status not in HYPOTHESIS_STATUSES:
        shown = text if len(text) <= 60 else text[:59] + ELLIPSIS
        raise AssessmentError(
            SECTION_HYPOTHESES,
            f"unknown status {raw!r} for hypothesis {shown!r}: must be one of {', '.join(HYPOTHESIS_STATUSES)}",
        )
    return status


# -- hypothesis lifecycle ------------------------------------------------------------------------------------------

_STATUS_AFTER_VERDICT = {
    "strong_signal": "validated",
    "no_signal": "refuted",
    "weak_signal": "inconclusive",
    "overfit": "inconclusive",
}


def hypothesis_status_after(current: str, verdict: str) -> str:
    """The status of a hypothesis once an experiment that tests it gets ``verdict``: the newest test decides
    (strong_signal → validated, no_signal → refuted, weak_signal and overfit → inconclusive), whatever
    ``current`` was. ValueError for a status or verdict outside the known ones."""
    if current not in HYPOTHESIS_STATUSES:
        raise ValueError(f"unknown hypothesis status {current!r}: must be one of {', '.join(HYPOTHESIS_STATUSES)}")
    if verdict not in VERDICTS:
        raise ValueError(f"unknown verdict {verdict!r}: must be one of {', '.join(VERDICTS)}")
    return _STATUS_AFTER_VERDICT[verdict]
