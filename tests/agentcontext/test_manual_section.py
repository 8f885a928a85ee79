"""The manual at run start: `## From your manual and playbooks` in the per-tick context, on the real database.

Ticks go through the tick API and the context is read through the context API (the runner's path); documents are
indexed by recall's own service; the sim's context is built from a SimLedger fed the same ticks.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from access import scope
from agentcontext.manual import MANUAL_HEADER, ManualSettings
from agentcontext.selectors import context_for_inputs, manual_section, manual_settings
from ledger.models import Deployment
from ledger.sim import SimLedger
from memorysite.text import estimate_tokens
from recall import bm25
from recall import services as recall_services
from recall.embeddings import get_embedder
from recall.models import Chunk
from tests.factories import DeploymentFactory

T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)

MANUAL = """# Trading manual

## Position caps
When the engine rejects with R3_POSITION_CAP, do not resubmit the same size:
halve it, or close the weakest position first.

## Entries
Only buy a breakout above the prior swing high when volume confirms it.
Wait for the funding rate to be neutral before going long.

## Weekends
Flatten everything before the Sunday open.
"""
PLAYBOOK = """# Position cap rejections

R3_POSITION_CAP means the deployment already holds its maximum.
Close the weakest position before the next propose_order.
"""
RUNBOOK = """# Exchange outage

If the exchange API disconnects, flatten BTC and ETH and wait for the all-clear.
"""
SOUL = "# Soul\nI trade BTC long breakouts above the prior swing high with patience. R3_POSITION_CAP.\n"
JOURNAL = "# 2026-06-03\nBTC long breakout rejected: R3_POSITION_CAP again.\n"

BUY_ETH = {"kind": "propose_order", "symbol": "ETH", "reason": "breakout above prior swing high"}
REJECTED = {"kind": "rejected", "rule": "R3_POSITION_CAP"}
BTC_LONG = [{"symbol": "BTC", "side": "long", "size": 0.01, "mark_price": 65_200}]

# The query is "R3_POSITION_CAP propose_order ETH breakout above prior swing high BTC long": SOUL.md and the
# journal match it too but are not the manual's or staff's; the small manual is one chunk (lines 1-12).
EXPECTED = (
    "## From your manual and playbooks\n"
    "- [staff] playbooks/position-cap.md:1-4 — # Position cap rejections R3_POSITION_CAP means the deployment"
    " already holds its maximum. Close the weakest position before the next propose_order.\n"
    "- [yours] TRADING_MANUAL.md:1-12 — # Trading manual ## Position caps When the engine rejects with"
    " R3_POSITION_CAP, do not resubmit the same size: halve it, or close the weakest position first. ## Entries"
    " Only buy a breakout above the prior swing high when volume confirms it. Wait for the funding rate to be"
    " neutral before going long. ## Weekends…\n"
    "- [staff] runbooks/exchange-outage.md:1-3 — # Exchange outage If the exchange API disconnects, flatten BTC and"
    " ETH and wait for the all-clear."
)


def index(owner, path, content, *, source="workspace", deployment=None):
    return recall_services.document_upsert(
        owner=owner, path=path, content=content, source=source, deployment=deployment, queue_embedding=False
    )


@pytest.fixture
def documents(owner):
    index(owner, "TRADING_MANUAL.md", MANUAL)
    index(owner, "SOUL.md", SOUL)
    index(owner, "journal/2026-06-03.md", JOURNAL, source="journal")
    index(None, "playbooks/position-cap.md", PLAYBOOK, source="playbook")
    index(None, "runbooks/exchange-outage.md", RUNBOOK, source="runbook")


@pytest.fixture
def deployment(owner):
    return DeploymentFactory(skill_version__skill__owner=owner)


def tick_body(minutes: int, positions=(), **extra) -> dict:
    return {"equity_usd": 10_000, "positions": list(positions), **extra}


def post(api, deployment, minutes: int, body: dict) -> str:
    at = (T0 + dt.timedelta(minutes=minutes)).isoformat()
    response = api.post(f"/api/v1/deployments/{deployment.pk}/ticks/", {"tick_at": at, **body}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["snapshot_id"]


def context(api, deployment) -> dict:
    response = api.get(f"/api/v1/deployments/{deployment.pk}/context/")
    assert response.status_code == 200, response.json()
    return response.json()


def situation(api, deployment) -> list[tuple[int, dict, str]]:
    """A rejected ETH breakout while long BTC; returns the ticks as posted (for the sim)."""
    ticks = [
        (0, tick_body(0, BTC_LONG, proposed_action=BUY_ETH, engine={"kind": "executed"})),
        (5, tick_body(5, BTC_LONG, proposed_action=BUY_ETH, engine=REJECTED)),
    ]
    return [(minutes, body, post(api, deployment, minutes, body)) for minutes, body in ticks]


def test_it_shows_the_manual_and_the_playbooks_for_the_situation_byte_for_byte(owner_api, deployment, documents):
    situation(owner_api, deployment)
    body = context(owner_api, deployment)
    assert body["sections"]["manual"] == EXPECTED
    assert body["text"].endswith("\n\n" + EXPECTED)  # the last section of the block
    assert body["token_estimate"]["per_section"]["manual"] == estimate_tokens(EXPECTED) <= 400


# -- identical for the same tick and index state ---------------------------------------------------------------


def test_it_is_the_same_text_every_time_and_whatever_the_embedding_worker_has_done(owner_api, deployment, documents):
    situation(owner_api, deployment)
    pending = context(owner_api, deployment)
    assert Chunk.objects.filter(embedding__isnull=True).exists()
    assert context(owner_api, deployment) == pending
    recall_services.embed_pending(embedder=get_embedder())
    assert not Chunk.objects.filter(embedding__isnull=True).exists()
    assert context(owner_api, deployment) == pending  # the section reads no embedding


def test_the_sim_gets_the_same_section_and_block_for_the_same_ticks(owner_api, owner, deployment, documents):
    sim = SimLedger()
    deployment = Deployment.objects.select_related("skill_version").get(pk=deployment.pk)
    version = deployment.skill_version
    for minutes, body, snapshot_id in situation(owner_api, deployment):
        sim.record_tick(snapshot_id=snapshot_id, tick_at=T0 + dt.timedelta(minutes=minutes), payload=body)
    live = context(owner_api, deployment)
    with scope.owner_scope(owner):
        simulated = context_for_inputs(
            sim.context_inputs(recent_k=version.recent_trades_k),
            user=owner,
            deployment_id=deployment.pk,
            recent_trades_k=version.recent_trades_k,
            memory_enabled=version.memory_enabled,
            manual=manual_settings(version),
        )
    assert simulated.sections["manual"] == live["sections"]["manual"] == EXPECTED
    assert simulated.sections == live["sections"]  # similar situations: none live either (no worker ran)
    assert simulated.text == live["text"]
    assert simulated.token_estimate == live["token_estimate"]


# -- null --------------------------------------------------------------------------------------------------------


def test_it_is_null_when_nothing_is_relevant(owner_api, deployment, documents):
    post(owner_api, deployment, 0, tick_body(0, engine={"kind": "rejected", "rule": "R9_UNHEARD_OF"}))
    body = context(owner_api, deployment)
    assert body["sections"]["manual"] is None
    assert body["token_estimate"]["per_section"]["manual"] == 0
    assert MANUAL_HEADER not in body["text"]


def test_it_is_null_before_the_first_tick(owner_api, deployment, documents):
    assert context(owner_api, deployment)["sections"]["manual"] is None


def test_it_is_null_without_documents(owner_api, deployment):
    situation(owner_api, deployment)
    assert context(owner_api, deployment)["sections"]["manual"] is None


def test_it_is_null_when_the_skill_version_turns_it_off(owner_api, owner, documents):
    deployment = DeploymentFactory(skill_version__skill__owner=owner, skill_version__manual_enabled=False)
    situation(owner_api, deployment)
    body = context(owner_api, deployment)
    assert body["sections"]["manual"] is None
    assert body["sections"]["last_decision"] is not None


def test_it_is_null_when_only_other_files_match(owner_api, owner, deployment):
    index(owner, "SOUL.md", SOUL)
    index(owner, "journal/2026-06-03.md", JOURNAL, source="journal")
    situation(owner_api, deployment)
    assert context(owner_api, deployment)["sections"]["manual"] is None


# -- k and the cap ------------------------------------------------------------------------------------------------


def test_it_shows_at_most_k_chunks(owner_api, owner, documents):
    deployment = DeploymentFactory(skill_version__skill__owner=owner, skill_version__manual_k=1)
    situation(owner_api, deployment)
    assert context(owner_api, deployment)["sections"]["manual"] == "\n".join(EXPECTED.split("\n")[:2])


@pytest.mark.parametrize("cap", [50, 80, 120])
def test_it_stays_within_the_token_cap(owner_api, owner, documents, cap):
    deployment = DeploymentFactory(skill_version__skill__owner=owner, skill_version__manual_token_cap=cap)
    situation(owner_api, deployment)
    body = context(owner_api, deployment)
    section = body["sections"]["manual"]
    assert section.startswith(MANUAL_HEADER + "\n- [staff] playbooks/position-cap.md:1-4 — # Position cap")
    assert body["token_estimate"]["per_section"]["manual"] == estimate_tokens(section) <= cap
    assert section.endswith("…")


# -- whose documents --------------------------------------------------------------------------------------------


def test_another_traders_manual_never_appears(owner_api, other_api, owner, other, deployment, documents):
    index(other, "TRADING_MANUAL.md", "# Theirs\nzebracorn: R3_POSITION_CAP means buy more BTC long breakouts.\n")
    theirs = DeploymentFactory(skill_version__skill__owner=other)
    situation(owner_api, deployment)
    situation(other_api, theirs)
    assert context(owner_api, deployment)["sections"]["manual"] == EXPECTED
    assert "zebracorn" in context(other_api, theirs)["sections"]["manual"]  # it does match the situation


def test_another_deployments_manual_never_appears(owner_api, owner):
    first, second = (DeploymentFactory(skill_version__skill__owner=owner) for _ in range(2))
    index(owner, "TRADING_MANUAL.md", "# First\naardvark: R3_POSITION_CAP, halve the size.\n", deployment=first)
    index(owner, "TRADING_MANUAL.md", "# Second\nzebracorn: R3_POSITION_CAP, double it.\n", deployment=second)
    situation(owner_api, first)
    situation(owner_api, second)
    assert context(owner_api, first)["sections"]["manual"] == (
        f"{MANUAL_HEADER}\n- [yours] TRADING_MANUAL.md:1-2 — # First aardvark: R3_POSITION_CAP, halve the size."
    )
    assert "aardvark" not in context(owner_api, second)["sections"]["manual"]


def sim_inputs(ticks) -> object:
    sim = SimLedger()
    for n, (minutes, body) in enumerate(ticks):
        sim.record_tick(snapshot_id=str(n), tick_at=T0 + dt.timedelta(minutes=minutes), payload=body)
    return sim.context_inputs(recent_k=1)


def rows(section: str | None) -> list[str]:
    return section.split("\n")[1:] if section else []


def test_the_relevance_floor_is_the_callers_to_raise(owner, deployment, documents):
    inputs = sim_inputs([(5, tick_body(5, BTC_LONG, proposed_action=BUY_ETH, engine=REJECTED))])
    settings = ManualSettings(enabled=True, k=10, token_cap=2000)
    with scope.owner_scope(owner):
        shown = {
            floor: rows(
                manual_section(
                    user=owner, deployment_id=deployment.pk, inputs=inputs, settings=settings, min_score=floor
                )
            )
            for floor in (0.0, 0.2, 0.6, 1.0)
        }
        default = rows(manual_section(user=owner, deployment_id=deployment.pk, inputs=inputs, settings=settings))
    assert default == shown[0.2] == rows(EXPECTED)
    # A higher floor keeps a prefix of the rows a lower one keeps (the ranking is the same; the floor cuts its tail).
    for lower, higher in [(0.0, 0.2), (0.2, 0.6), (0.6, 1.0)]:
        assert shown[higher] == shown[lower][: len(shown[higher])]
    assert len(shown[0.6]) < len(shown[0.2])


def test_the_context_reads_a_bounded_number_of_queries(owner_api, deployment, documents, django_assert_max_num_queries):
    situation(owner_api, deployment)
    context(owner_api, deployment)  # materialized
    # 12 without the section; its search: the owner, term statistics, keyword candidates, their rows
    with django_assert_max_num_queries(16):
        context(owner_api, deployment)


def test_notes_that_outrank_the_manual_do_not_crowd_it_out(owner_api, owner, deployment):
    index(owner, "TRADING_MANUAL.md", MANUAL)
    for n in range(30):  # short notes holding every word of the situation: each outranks the manual
        index(
            owner,
            f"notes/{n:02}.md",
            f"# Note {n}\nR3_POSITION_CAP propose_order ETH breakout above prior swing high.\n",
        )
    for n in range(150):  # a journal about other things: the situation's words are rare among the trader's chunks
        index(owner, f"journal/{n:03}.md", f"# Day {n}\nQuiet session number {n}, nothing traded.\n", source="journal")
    situation(owner_api, deployment)
    section = context(owner_api, deployment)["sections"]["manual"]
    assert section == "\n".join([MANUAL_HEADER, EXPECTED.split("\n")[2]])


def test_notes_past_recalls_rescoring_depth_do_not_crowd_out_the_manual_and_one_search_finds_it(
    owner_api, owner, deployment
):
    """More notes than the keyword side scores exactly (bm25.RESCORE_TOP), each of them a better candidate than
    the manual (a higher idf sum, and newer): were other workspace files dropped after the search, no page of it
    would hold the manual. The section searches once, for what it may show."""
    index(
        owner, "TRADING_MANUAL.md", "# Trading manual\n\n## Quokka narwhal\nA quokka narwhal setup: halve the size.\n"
    )
    for n in range(bm25.RESCORE_TOP + 10):  # half hold quokka and axolotl, half narwhal and okapi: each term rarer
        words = "quokka axolotl" if n % 2 else "narwhal okapi"  # than the manual's other one, so a note's sum wins
        index(owner, f"notes/{n:03}.md", f"# Note {n}\n{words}\n")
    proposal = {"kind": "propose_order", "symbol": "ETH", "reason": "quokka narwhal axolotl okapi"}
    post(owner_api, deployment, 0, tick_body(0, proposed_action=proposal, engine={"kind": "executed"}))
    context(owner_api, deployment)  # materialized
    with CaptureQueriesContext(connection) as captured:
        section = context(owner_api, deployment)["sections"]["manual"]
    assert section == (
        f"{MANUAL_HEADER}\n- [yours] TRADING_MANUAL.md:1-4 — # Trading manual ## Quokka narwhal A quokka narwhal"
        " setup: halve the size."
    )
    statements = [query["sql"] for query in captured.captured_queries]
    assert sum("recall_keyword_candidates" in sql for sql in statements) == 1
    assert sum("recall_lexeme_stats" in sql for sql in statements) == 1


@pytest.mark.parametrize(
    ("source", "path", "shown"),
    [
        ("workspace", "TRADING_MANUAL.md", True),
        ("workspace", "agents/btc/trading_manual.MD", True),
        ("workspace", "SOUL.md", False),
        ("workspace", "notes/TRADING_MANUAL.md.bak", False),
        ("workspace", "notes/MY_TRADING_MANUAL.md", False),
        ("workspace", "TRADING_MANUAL_md", False),
        ("playbook", "playbooks/funding.md", True),
        ("runbook", "runbooks/outage.md", True),
        ("journal", "TRADING_MANUAL.md", False),
        ("backtest", "backtests/x.md", False),
    ],
)
def test_of_the_traders_files_only_the_manual_and_playbooks_and_runbooks_are_shown(
    owner, deployment, source, path, shown
):
    index(owner, path, "# Notes\nR3_POSITION_CAP: halve the size.\n", source=source)
    inputs = sim_inputs([(5, tick_body(5, BTC_LONG, proposed_action=BUY_ETH, engine=REJECTED))])
    with scope.owner_scope(owner):
        section = manual_section(
            user=owner,
            deployment_id=deployment.pk,
            inputs=inputs,
            settings=ManualSettings(enabled=True, k=5, token_cap=400),
        )
    assert rows(section) == ([f"- [yours] {path}:1-2 — # Notes R3_POSITION_CAP: halve the size."] if shown else [])


def test_another_traders_or_deployments_manual_never_shows_however_well_it_matches(owner, other):
    first, second = (DeploymentFactory(skill_version__skill__owner=owner) for _ in range(2))
    words = "R3_POSITION_CAP propose_order ETH breakout above prior swing high BTC long"
    index(owner, "TRADING_MANUAL.md", f"# First\naardvark: {words}.\n", deployment=first)
    index(owner, "agents/TRADING_MANUAL.md", f"# Second\nzebracorn: {words}.\n", deployment=second)
    index(other, "TRADING_MANUAL.md", f"# Theirs\nokapi: {words}.\n")
    index(owner, "SOUL.md", f"# Soul\nquokka: {words}.\n")
    inputs = sim_inputs([(5, tick_body(5, BTC_LONG, proposed_action=BUY_ETH, engine=REJECTED))])
    settings = ManualSettings(enabled=True, k=10, token_cap=2000)
    shown = {}
    for user, deployment in ((owner, first), (owner, second), (other, None)):
        with scope.owner_scope(user):
            section = manual_section(
                user=user, deployment_id=deployment and deployment.pk, inputs=inputs, settings=settings, min_score=0.0
            )
        shown[deployment.pk if deployment else None] = [row.split(" — ")[1].split(":")[0] for row in rows(section)]
    assert shown == {first.pk: ["# First aardvark"], second.pk: ["# Second zebracorn"], None: ["# Theirs okapi"]}
