"""The manual at run start (seed hybrid-recall.md §0 "protocol recall", §2 "retrieval contract"): the
``## From your manual and playbooks`` section of the per-tick context, the pure part.

Pure: stdlib, ``ledger.domain``, ``ledger.memory_view``, ``ledger.risk_state`` and ``memorysite.text`` only.
``agentcontext.selectors.manual_section`` asks recall for the chunks (``recall.selectors.search``, keyword side
only, see there) and renders them here; live and sim pass the same ``ContextInputs``, so they get the same
text for the same tick and index state.

The query (``manual_query``) is a function of the tick alone, as ``ContextInputs`` carries it:

1. the last rejection code: the rule of the newest ``rejected`` engine verdict of the last hour
   (``risk_state.OUTCOME_WINDOW``, the window of the recent-activity section's rejection counts); none when that
   rule is blank;
2. the last proposal (the latest tick's ``proposed_action``): its kind, symbol and reason;
3. the open positions of the latest tick: ``symbol side`` each, by symbol then side, at most
   ``QUERY_MAX_POSITIONS``.

Each part passes the prompt-text rule (``one_line``); the words (whitespace-separated) are kept in that order,
a word already taken (case-insensitively) is dropped, and at most ``QUERY_MAX_WORDS`` are kept (recall reads at
most 32 terms of a query, so the rejection code and the proposal always count). No tick, or nothing of the
three: the query is ``""`` and the section is None without a search.

The section (``render_manual_section``)::

    ## From your manual and playbooks
    - [yours] TRADING_MANUAL.md:12-20 — Never add to a losing position. Cut at the stop, then…
    - [staff] playbooks/exchange-outage.md:1-9 — When the exchange API disconnects, flatten…

One row per chunk in recall's rank order: whose document it is (``[yours]``, or ``[staff]`` for a global
playbook or runbook: first on the row, so no path can pose as staff's), the citation ``path:startLine-endLine``
and the snippet. Path and snippet are document text leaving the index: ``memorysite.text.document_line`` (no
invisible character, no line break: a document line never becomes a ``## `` heading of the prompt); the snippet
is cut at a word boundary to ``ROW_TEXT_MAX_CHARS`` with ``…``. The section's ``estimate_tokens`` never exceeds
``token_cap``: rows are added in rank order while they fit; the first row that does not fit whole is cut to the
room left (when at least ``ROW_TEXT_MIN_CHARS`` of its text fit; then the section ends) or skipped (a later row
with a shorter citation may still fit). No row: None (the section is suppressed, like every empty section).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ledger.domain import ProposedAction
from ledger.memory_view import ContextInputs
from ledger.risk_state import OUTCOME_WINDOW
from memorysite.text import document_line, one_line

__all__ = [
    "MANUAL_FILE_NAME",
    "MANUAL_HEADER",
    "MANUAL_MIN_SCORE",
    "MANUAL_SOURCES",
    "QUERY_MAX_POSITIONS",
    "QUERY_MAX_WORDS",
    "ROW_TEXT_MAX_CHARS",
    "ROW_TEXT_MIN_CHARS",
    "ManualChunk",
    "ManualSettings",
    "last_rejection_code",
    "manual_query",
    "manual_query_for",
    "render_manual_section",
]

MANUAL_HEADER = "## From your manual and playbooks"
# Recall's document sources the section reads: the trader's manual is a workspace file (TRADING_MANUAL.md, any
# folder, any case: recall.models.MANUAL_PATH_REGEX), the staff's playbooks and runbooks have sources of their own.
# Of the workspace files recall reads the manual alone (recall.selectors.search's workspace_manual_only).
MANUAL_SOURCES = ("workspace", "playbook", "runbook")
# The relevance floor passed to recall's search as ``min_score`` (overridable per call). With the keyword side
# alone a score is the share of the query's information a chunk matches (its BM25 over that of an average chunk
# holding each of the query's indexed terms once, capped at 1: recall.fusion), so 0.2 drops chunks that share only
# a common word or two (a side, a symbol) with a situation that also names a rejection code or a setup. A query
# whose terms no chunk holds returns nothing at any floor. Recall's product-wide default (RECALL_MIN_SCORE, 0.15)
# is tuned for fused hybrid scores; this one stays explicit so the section does not move when that one does.
MANUAL_MIN_SCORE = 0.2
# recall.models.MANUAL_NAME: the manual is the workspace file of this name, in any folder and any case.
MANUAL_FILE_NAME = "TRADING_MANUAL.md"
QUERY_MAX_POSITIONS = 10
QUERY_MAX_WORDS = 32  # recall.fusion.MAX_QUERY_TERMS: recall reads no more
RULE_MAX_CHARS = 64  # the tick API's engine rule limit
ROW_TEXT_MAX_CHARS = 320  # ~80 tokens: the default cap of 400 holds the header and four full rows
ROW_TEXT_MIN_CHARS = 48  # a row cut to fit the cap keeps at least this much text, else it is left out

_ELLIPSIS = "…"
_SEPARATOR = " — "
_REJECTED = "rejected"


@dataclass(frozen=True)
class ManualSettings:
    """A skill version's settings of the section (ledger.models.SkillVersion.manual_*)."""

    enabled: bool
    k: int
    token_cap: int

    def __post_init__(self) -> None:
        if self.k < 1:
            raise ValueError("k must be at least 1")
        if self.token_cap < 1:
            raise ValueError("token_cap must be at least 1")


@dataclass(frozen=True)
class ManualChunk:
    """One chunk recall returned: its citation, its snippet and whether it is a staff (global) document's."""

    path: str
    start_line: int
    end_line: int
    text: str
    staff: bool


def last_rejection_code(inputs: ContextInputs) -> str:
    """The rule of the newest ``rejected`` verdict within the last hour of the latest tick ("" when none or blank).

    Verdicts with the same ``tick_at`` keep the input order (the later one is newer), as the risk state does."""
    tick = inputs.last_tick
    if tick is None:
        return ""
    hour_start = tick.tick_at - OUTCOME_WINDOW
    code, newest = "", None
    for outcome in inputs.outcomes:
        if outcome.engine_kind != _REJECTED or not hour_start < outcome.tick_at <= tick.tick_at:
            continue
        if newest is None or outcome.tick_at >= newest:
            newest, code = outcome.tick_at, outcome.engine_rule
    return one_line(code)[:RULE_MAX_CHARS]


def manual_query(*, rejection_code: str, proposal: ProposedAction | None, positions: Sequence[tuple[str, str]]) -> str:
    """The search query for the situation (see the module docstring): rejection code, proposal (kind, symbol,
    reason), then ``symbol side`` per position, words deduplicated case-insensitively, at most QUERY_MAX_WORDS."""
    parts = [rejection_code]
    if proposal is not None:
        parts += [proposal.kind, proposal.symbol or "", proposal.reason]
    for symbol, side in sorted(positions)[:QUERY_MAX_POSITIONS]:
        parts += [symbol, side]
    words: list[str] = []
    seen: set[str] = set()
    for part in parts:
        for word in one_line(part).split():
            key = word.casefold()
            if key not in seen:
                seen.add(key)
                words.append(word)
    return " ".join(words[:QUERY_MAX_WORDS])


def manual_query_for(inputs: ContextInputs) -> str:
    """``manual_query`` of the latest tick in ``inputs`` ("" before the first tick)."""
    tick = inputs.last_tick
    if tick is None:
        return ""
    return manual_query(
        rejection_code=last_rejection_code(inputs),
        proposal=tick.proposed_action,
        positions=[(position.symbol, position.side) for position in tick.positions],
    )


def _cut_at_word(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters: cut at the last space in the second half, with ``…``."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip() + _ELLIPSIS


def render_manual_section(chunks: Sequence[ManualChunk], *, token_cap: int) -> str | None:
    """The section for these chunks (in rank order) within ``token_cap`` estimated tokens, or None (see the
    module docstring for the row format and how the cap is applied)."""
    if token_cap < 1:
        raise ValueError("token_cap must be at least 1")
    budget = 4 * token_cap  # estimate_tokens(text) <= token_cap exactly when len(text) <= 4 * token_cap
    rows: list[str] = []
    used = len(MANUAL_HEADER)
    for chunk in chunks:
        text = document_line(chunk.text)
        if not text:
            continue
        prefix = (
            f"- [{'staff' if chunk.staff else 'yours'}] {document_line(chunk.path)}"
            f":{chunk.start_line}-{chunk.end_line}{_SEPARATOR}"
        )
        row = prefix + _cut_at_word(text, ROW_TEXT_MAX_CHARS)
        if used + 1 + len(row) <= budget:
            rows.append(row)
            used += 1 + len(row)
            continue
        room = budget - used - 1 - len(prefix)
        if room >= ROW_TEXT_MIN_CHARS:
            rows.append(prefix + _cut_at_word(text, min(room, ROW_TEXT_MAX_CHARS)))
            break
    return "\n".join([MANUAL_HEADER, *rows]) if rows else None
