"""The lessons page (/skills/<id>/lessons/): history with diffs, A/B figures, the version filter.

Trades come from ticks posted through the real API; notes from reflection.services (a reflection
run with a tiny engine, then staff revise, promote and retire).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from decimal import Decimal

import pytest
from django.urls import reverse

from ledger.domain import hash_lessons_text
from ledger.models import Deployment
from ledger.services import materialize_if_behind
from memorysite.numbers import format_percent, format_point_change, format_signed_usd, format_usd
from reflection import services
from reflection.ab_stats import (
    MIN_TRADES_TO_TELL,
    TradeSample,
    mean_difference_interval,
    mean_interval,
    wilson_interval,
    win_rate_difference_interval,
)
from reflection.core import ReflectionResult
from tests.factories import DeploymentFactory, SkillFactory, SkillVersionFactory, UserFactory
from tests.ledger.test_trades_page import T0, executed, position, post_tick

HTMX = {"HX-Request": "true"}
EMPTY_STATE = (
    "No lessons yet — they appear after the agent's first reflection "
    "(every N closed trades or daily, per the skill version's settings)."
)
TEXT_A = "### Entry timing\n- BTC breakouts won 2/2 (+$15 total)\n### Sizing\n(no clear pattern yet)"
TEXT_B = (
    "### Entry timing\n- BTC breakouts won 2/2 (+$15 total)\n- <script>alert('x')</script> fades lose\n"
    "### Sizing\n- halve size on ETH"
)
TEXT_C = "### Regime fit\n- chop costs $2 per trade"
SCRIPT_ESCAPED = "- &lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; fades lose"
HASH_A, HASH_B, HASH_C = (hash_lessons_text(text) for text in (TEXT_A, TEXT_B, TEXT_C))


@dataclass
class FixedEngine:
    """A reflection engine that answers with a fixed text and records what it was asked."""

    text: str
    model: str = "test-reflector-1"
    inputs: list = field(default_factory=list)

    def reflect(self, inp):
        self.inputs.append(inp)
        return ReflectionResult(
            text=self.text, model_used=self.model, input_tokens=1200, output_tokens=300, cost_usd=Decimal("0.001234")
        )


def minutes(n: int) -> dt.datetime:
    return T0 + dt.timedelta(minutes=n)


def round_trips(api, deployment, start: int, trips: list[tuple[str, float, float, float]]) -> None:
    """Open every (symbol, size, entry, exit) long at `start`, close them all 5 minutes later."""
    opened = [position(symbol, size, entry) for symbol, size, entry, _ in trips]
    post_tick(api, deployment, start, opened, **executed("propose_order", "breakout"))
    marks = {symbol: exit_mark for symbol, _, _, exit_mark in trips}
    post_tick(api, deployment, start + 5, [], marks=marks, **executed("close_position", "done"))


def materialized(deployment) -> Deployment:
    deployment = Deployment.objects.get(pk=deployment.pk)
    materialize_if_behind(deployment)
    return Deployment.objects.get(pk=deployment.pk)


def reflect(deployment, text: str, at: int):
    note = services.reflection_run(deployment_id=materialized(deployment).pk, engine=FixedEngine(text), now=minutes(at))
    assert note is not None
    return note


def page_url(skill, **query) -> str:
    url = reverse("skill-lessons", args=[skill.pk])
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def note_block(content: str, note) -> str:
    match = re.search(rf'<li class="note note-\w+" id="note-{note.pk}">(.*?)</li>', content, re.S)
    assert match, f"note {note.pk} missing"
    return match.group(1)


def history_ids(content: str) -> list[str]:
    return re.findall(r'<li class="note note-\w+" id="note-([0-9a-f-]+)">', content)


def ab_row(content: str, row_id: str) -> dict:
    match = re.search(rf'<tr class="ab-\w+" id="ab-{row_id}">(.*?)</tr>', content, re.S)
    assert match, f"A/B row {row_id} missing"
    row = match.group(1)

    def cell(name: str) -> str:
        html = re.search(rf'<td class="num {name}">(.*?)</td>', row, re.S).group(1)
        html = re.sub(r'<span class="(ci|muted too-few)">.*?</span>', "", html)  # see ab_extras
        return re.sub(r"<[^>]+>", "", html).strip()

    return {"n": cell("ab-n"), "avg": cell("ab-avg"), "win": cell("ab-win")}


def ab_extras(content: str, row_id: str) -> dict:
    """A row's intervals, its "too few trades to tell" marks and its comparison with no lessons, as text."""
    row = re.search(rf'<tr class="ab-\w+" id="ab-{row_id}">(.*?)</tr>', content, re.S).group(1)

    def cell(name: str) -> str:
        found = re.search(rf'<td class="num {name}">(.*?)</td>', row, re.S)
        return " ".join(re.sub(r"<[^>]+>", "", found.group(1)).split()) if found else ""

    return {
        "ci": re.findall(r'<span class="ci">\[(.*?)\]</span>', row),
        "too_few": row.count("too few trades to tell"),
        "vs_avg": cell("ab-vs-avg"),
        "vs_win": cell("ab-vs-win"),
    }


def chart_data(content: str) -> dict:
    match = re.search(r'<script id="lessons-chart-data" type="application/json">(.*?)</script>', content, re.S)
    assert match
    return json.loads(match.group(1))


@dataclass
class Lessons:
    skill: object
    d1: Deployment
    d2: Deployment
    d3: Deployment
    staff: object
    a1: object  # d1's reflection run, then superseded by b1
    b1: object  # staff edit of a1 (adds a <script> line), promoted, then retired
    promoted: object  # skill-scoped copy of b1, v1
    c3: object  # d3's reflection run, v2


@pytest.fixture
def skill(owner):
    return SkillFactory(owner=owner, name="Breakout BTC")


@pytest.fixture
def lessons(owner, owner_api, skill) -> Lessons:
    """Skill v1 with deployments d1, d2 and v2 with d3 (reflection cadence off: runs are explicit).

    closed trades          lessons active at entry
    d1 BTC +10, ETH −5     none
    d1 BTC +4, ETH +6      A (d1's reflection run)
    d1 BTC −3              B (staff edit of A)
    d2 BTC +1              B (promoted to the v1 skill scope; d2 has no note of its own)
    d3 ETH −2              none; then d3's reflection run writes C, which has no trades yet
    """
    staff = UserFactory(username="staff", is_staff=True)
    v1 = SkillVersionFactory(skill=skill, version=1, reflection_cadence="off")
    v2 = SkillVersionFactory(skill=skill, version=2, reflection_cadence="off")
    d1 = DeploymentFactory(skill_version=v1)
    d2 = DeploymentFactory(skill_version=v1)
    d3 = DeploymentFactory(skill_version=v2)

    round_trips(owner_api, d1, 0, [("BTC", 1, 100, 110), ("ETH", 1, 100, 95)])
    a1 = reflect(d1, TEXT_A, at=6)
    round_trips(owner_api, d1, 10, [("BTC", 1, 100, 104), ("ETH", 2, 50, 53)])
    b1 = services.note_revise(note=a1, lessons_text=TEXT_B, by=staff, now=minutes(16))
    round_trips(owner_api, d1, 20, [("BTC", 1, 100, 97)])
    promoted = services.note_promote(note=b1, by=staff, now=minutes(26))
    round_trips(owner_api, d2, 30, [("BTC", 1, 100, 101)])
    services.note_retire(note=b1, by=staff, now=minutes(40))
    round_trips(owner_api, d3, 0, [("ETH", 1, 100, 98)])
    c3 = reflect(d3, TEXT_C, at=50)
    materialized(d2)
    for note in (a1, b1, promoted, c3):
        note.refresh_from_db()
    return Lessons(skill, d1, d2, d3, staff, a1, b1, promoted, c3)


class TestAccess:
    def test_it_sends_an_anonymous_visitor_to_the_login_page(self, client, skill):
        url = page_url(skill)
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"] == f"{reverse('login')}?next={url}"

    def test_an_htmx_request_after_the_session_expired_redirects_the_whole_page_to_login(self, client, skill):
        url = page_url(skill)
        response = client.get(f"{url}?version=1", headers={**HTMX, "HX-Current-URL": f"http://testserver{url}"})
        assert response.status_code == 200
        assert response["HX-Redirect"] == f"/accounts/login/?next=%2Fskills%2F{skill.pk}%2Flessons%2F"

    def test_it_404s_for_the_other_trader(self, client, other, lessons):
        client.force_login(other)
        assert client.get(page_url(lessons.skill)).status_code == 404
        assert client.get(page_url(lessons.skill, version=1), headers=HTMX).status_code == 404

    def test_it_404s_for_a_skill_that_does_not_exist(self, client, owner):
        client.force_login(owner)
        assert client.get(reverse("skill-lessons", args=[999_999])).status_code == 404


class TestHistory:
    def test_it_lists_every_note_of_the_skill_newest_first(self, client, owner, lessons):
        client.force_login(owner)
        response = client.get(page_url(lessons.skill))
        assert response.status_code == 200
        content = response.content.decode()
        assert "<html" in content
        assert "Breakout BTC" in content
        expected = [lessons.c3, lessons.promoted, lessons.b1, lessons.a1]
        assert history_ids(content) == [str(note.pk) for note in expected]
        assert "4 notes, active first, then newest first" in content

    def test_each_note_shows_its_provenance(self, client, owner, lessons):
        client.force_login(owner)
        content = client.get(page_url(lessons.skill)).content.decode()

        a1 = note_block(content, lessons.a1)
        assert '<span class="tag note-status-superseded">superseded</span>' in a1
        assert f'<a href="{reverse("deployment-trades", args=[lessons.d1.pk])}">deployment #{lessons.d1.pk}</a>' in a1
        assert "reflection run" in a1
        assert f'datetime="{minutes(6).isoformat()}">2026-06-04 10:06 UTC</time>' in a1
        assert "2026-06-04 10:00 → 2026-06-04 10:05" in a1  # the window: first entry → last exit
        assert re.search(r"<dt>Trades considered</dt><dd>2</dd>", a1)
        assert "<dd>test-reflector-1</dd>" in a1
        assert "$0.001234" in a1
        assert "1200 in / 300 out tokens" in a1
        assert HASH_A in a1
        assert "Author" not in a1

        b1 = note_block(content, lessons.b1)
        assert '<span class="tag note-status-retired">retired</span>' in b1
        assert "staff edit" in b1
        assert '<dd class="author">staff</dd>' in b1
        assert "<dt>Cost</dt><dd>—</dd>" in b1  # a staff edit costs nothing recorded

        promoted = note_block(content, lessons.promoted)
        assert '<span class="tag note-status-active">active</span>' in promoted
        assert '<span class="tag scope-skill">skill scope</span> · v1' in promoted
        assert "promoted to skill scope" in promoted
        assert "deployments/" not in promoted

        c3 = note_block(content, lessons.c3)
        assert f"deployment #{lessons.d3.pk}</a> · v2" in c3
        assert '<span class="tag note-status-active">active</span>' in c3

    def test_it_escapes_the_lessons_text(self, client, owner, lessons):
        client.force_login(owner)
        content = client.get(page_url(lessons.skill)).content.decode()
        assert "<script>alert" not in content
        b1 = note_block(content, lessons.b1)
        escaped = TEXT_B.replace("- <script>alert('x')</script> fades lose", SCRIPT_ESCAPED)
        assert f'<pre class="lessons">{escaped}</pre>' in b1
        assert f"<ins>{SCRIPT_ESCAPED}</ins>" in b1

    def test_each_note_shows_the_diff_against_the_revision_it_replaced(self, client, owner, lessons):
        client.force_login(owner)
        content = client.get(page_url(lessons.skill)).content.decode()
        b1 = note_block(content, lessons.b1)
        assert f'Changes since <a href="#note-{lessons.a1.pk}"><code>{HASH_A}</code></a>' in b1
        diff = re.search(r'<div class="diff"[^>]*>(.*?)</div>', b1, re.S).group(1)
        assert re.findall(r"<(ins|del|span)>(.*?)</\1>", diff) == [
            ("span", "### Entry timing"),
            ("span", "- BTC breakouts won 2/2 (+$15 total)"),
            ("ins", SCRIPT_ESCAPED),
            ("span", "### Sizing"),
            ("del", "(no clear pattern yet)"),
            ("ins", "- halve size on ETH"),
        ]
        assert "+2 −1 lines" in b1

    def test_the_first_note_of_each_scope_is_the_first_revision(self, client, owner, lessons):
        client.force_login(owner)
        content = client.get(page_url(lessons.skill)).content.decode()
        # a1 opens d1's scope, the promoted copy the v1 skill scope (whatever it was copied from), c3 d3's.
        for note in (lessons.a1, lessons.promoted, lessons.c3):
            block = note_block(content, note)
            assert "first revision" in block
            assert 'class="diff"' not in block
        assert "first revision" not in note_block(content, lessons.b1)
        assert (
            f'promoted from <a href="#note-{lessons.b1.pk}"><code>{HASH_B}</code></a> (deployment #{lessons.d1.pk})'
            in note_block(content, lessons.promoted)
        )

    def test_a_revision_with_the_same_text_says_so(self, client, owner, lessons):
        again = services.note_promote(note=lessons.b1, by=lessons.staff, now=minutes(60))  # same text, skill scope
        client.force_login(owner)
        block = note_block(client.get(page_url(lessons.skill)).content.decode(), again)
        assert f'Changes since <a href="#note-{lessons.promoted.pk}">' in block
        assert "Same text as the revision it replaced." in block
        assert "+0 −0 lines" in block

    def test_it_shows_the_empty_state_with_each_versions_cadence(self, client, owner, skill):
        SkillVersionFactory(skill=skill, version=1, reflection_cadence="per_n_trades", reflection_every_n_trades=5)
        SkillVersionFactory(skill=skill, version=2, reflection_cadence="daily")
        client.force_login(owner)
        content = client.get(page_url(skill)).content.decode()
        assert EMPTY_STATE in content
        assert "<li>v2: daily</li>" in content
        assert "<li>v1: every 5 closed trades</li>" in content
        assert 'id="lessons-history"' not in content
        assert ab_row(content, "no-lessons") == {"n": "0", "avg": "no trades yet", "win": "—"}
        assert chart_data(content) == {"revisions": [{"label": "no lessons", "n": 0, "avg": None, "kind": "none"}]}

    def test_a_version_without_notes_shows_the_empty_state(self, client, owner, lessons):
        SkillVersionFactory(skill=lessons.skill, version=3, reflection_cadence="off")
        client.force_login(owner)
        content = client.get(page_url(lessons.skill, version=3)).content.decode()
        assert EMPTY_STATE in content
        assert "<li>v3: reflection off</li>" in content
        assert "<li>v1" not in content


class TestABFigures:
    def test_it_groups_closed_trades_by_the_lessons_active_at_entry(self, client, owner, lessons):
        client.force_login(owner)
        content = client.get(page_url(lessons.skill)).content.decode()
        assert ab_row(content, HASH_A) == {"n": "2", "avg": "$5.00", "win": "100%"}
        assert ab_row(content, HASH_B) == {"n": "2", "avg": "\u2212$1.00", "win": "50%"}  # d1 −3, d2 +1
        assert ab_row(content, HASH_C) == {"n": "0", "avg": "no trades yet", "win": "—"}
        assert ab_row(content, "no-lessons") == {"n": "3", "avg": "$1.00", "win": "33.3%"}  # +10, −5, −2
        row_b = re.search(rf'id="ab-{HASH_B}">(.*?)</tr>', content, re.S).group(1)
        assert f'href="#note-{lessons.b1.pk}"' in row_b  # the revision's first note
        assert re.findall(r'class="tag note-status-(\w+)"', row_b) == ["active", "retired"]
        assert "2026-06-04 10:16" in row_b
        order = re.findall(r'<tr class="ab-\w+" id="ab-([\w-]+)">', content)
        assert order == [HASH_A, HASH_B, HASH_C, "no-lessons"]

    def test_it_says_too_few_trades_to_tell_below_the_minimum_sample(self, client, owner, lessons):
        client.force_login(owner)
        content = client.get(page_url(lessons.skill)).content.decode()
        assert ab_extras(content, HASH_A) == {
            "ci": [],
            "too_few": 3,  # its own figures, and both comparisons
            "vs_avg": "+$4.00 too few trades to tell",  # $5.00 against $1.00
            "vs_win": "+66.7 pp too few trades to tell",  # a bare +66.7 would read as an effect
        }
        assert ab_extras(content, HASH_C)["vs_avg"] == "too few trades to tell"  # no trades to compare
        assert ab_extras(content, HASH_C)["vs_win"] == "too few trades to tell"
        assert ab_extras(content, "no-lessons")["too_few"] == 1
        assert f"Fewer than {MIN_TRADES_TO_TELL} closed trades in a group is too few to tell." in content

    def test_it_shows_95_percent_intervals_from_the_minimum_sample_on(self, client, owner, owner_api):
        deployment = DeploymentFactory(skill_version__skill__owner=owner)
        n = MIN_TRADES_TO_TELL
        before = [("BTC", 1, 100, 100 + (i % 5) - 2.5) for i in range(n)]  # -2.5 .. +1.5, mean -0.5
        after = [("BTC", 1, 100, 100 + (i % 4)) for i in range(n)]  # 0 .. +3, mean +1.5
        for i, trip in enumerate(before):
            round_trips(owner_api, deployment, 10 * i, [trip])
        note = reflect(deployment, TEXT_A, at=10 * n)
        for i, trip in enumerate(after):
            round_trips(owner_api, deployment, 10 * (n + 1 + i), [trip])
        client.force_login(owner)
        content = client.get(page_url(deployment.skill_version.skill)).content.decode()
        with_lessons = TradeSample.of([exit_mark - entry for _, _, entry, exit_mark in after])
        without = TradeSample.of([exit_mark - entry for _, _, entry, exit_mark in before])
        avg, win = mean_interval(with_lessons), wilson_interval(with_lessons.wins, with_lessons.n)
        diff = mean_difference_interval(with_lessons, without)
        rate = win_rate_difference_interval(with_lessons, without)
        assert ab_row(content, note.content_hash) == {"n": str(n), "avg": "$1.50", "win": "75%"}
        assert ab_extras(content, note.content_hash) == {
            "ci": [
                f"{format_usd(avg.low)}, {format_usd(avg.high)}",
                f"{format_percent(win.low)}, {format_percent(win.high)}",
                f"{format_signed_usd(diff.low)}, {format_signed_usd(diff.high)}",
                f"{format_point_change(rate.low)}, {format_point_change(rate.high)}",
            ],
            "too_few": 0,
            "vs_avg": f"+$2.00 [{format_signed_usd(diff.low)}, {format_signed_usd(diff.high)}] higher",
            "vs_win": f"+35 pp [{format_point_change(rate.low)}, {format_point_change(rate.high)}]",
        }
        bars = chart_data(content)["revisions"]
        assert bars[0] == {"label": "Revision 1", "n": n, "avg": 1.5, "kind": "revision"} | {
            "low": pytest.approx(avg.low),
            "high": pytest.approx(avg.high),
        }

    def test_it_catches_the_ledger_up_before_counting(self, client, owner, owner_api, lessons):
        round_trips(owner_api, lessons.d2, 40, [("BTC", 1, 100, 103)])  # still under B, not materialized
        assert Deployment.objects.get(pk=lessons.d2.pk).materialized_through < minutes(45)
        client.force_login(owner)
        content = client.get(page_url(lessons.skill)).content.decode()
        assert ab_row(content, HASH_B) == {"n": "3", "avg": "$0.33", "win": "66.7%"}  # −3, +1, +3

    def test_it_feeds_the_chart_from_a_data_island(self, client, owner, lessons):
        client.force_login(owner)
        data = chart_data(client.get(page_url(lessons.skill)).content.decode())
        assert data == {
            "revisions": [
                {"label": "Revision 1", "n": 2, "avg": 5.0, "kind": "revision"},
                {"label": "Revision 2", "n": 2, "avg": -1.0, "kind": "revision"},
                {"label": "Revision 3", "n": 0, "avg": None, "kind": "revision"},
                {"label": "no lessons", "n": 3, "avg": 1.0, "kind": "none"},
            ]
        }
        content = client.get(page_url(lessons.skill)).content.decode()
        assert 'data-chart="revision-bars" data-chart-source="lessons-chart-data" data-chart-key="revisions"' in content


class TestVersionFilter:
    def test_one_version_narrows_history_and_figures(self, client, owner, lessons):
        client.force_login(owner)
        content = client.get(page_url(lessons.skill, version=1)).content.decode()
        assert history_ids(content) == [str(n.pk) for n in (lessons.promoted, lessons.b1, lessons.a1)]
        assert ab_row(content, "no-lessons") == {"n": "2", "avg": "$2.50", "win": "50%"}
        assert f'id="ab-{HASH_C}"' not in content
        assert "+2 −1 lines" in note_block(content, lessons.b1)  # diffs survive the filter

        v2 = client.get(page_url(lessons.skill, version=2)).content.decode()
        assert history_ids(v2) == [str(lessons.c3.pk)]
        assert ab_row(v2, "no-lessons") == {"n": "1", "avg": "\u2212$2.00", "win": "0%"}
        assert [row["label"] for row in chart_data(v2)["revisions"]] == ["Revision 3", "no lessons"]

    def test_the_select_offers_the_skills_versions_and_marks_the_chosen_one(self, client, owner, lessons):
        client.force_login(owner)
        content = client.get(page_url(lessons.skill, version=1)).content.decode()
        select = re.search(r'<select id="filter-version" name="version">(.*?)</select>', content, re.S).group(1)
        assert re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)<', select) == [
            ("", "all versions"),
            ("2", "v2"),
            ("1", "v1"),
        ]
        assert '<option value="1" selected>' in select
        assert "selected" not in client.get(page_url(lessons.skill)).content.decode().split('value="2"')[1][:10]

    def test_the_form_asks_htmx_for_the_body_and_pushes_the_url(self, client, owner, lessons):
        client.force_login(owner)
        content = client.get(page_url(lessons.skill)).content.decode()
        form = re.search(r'<form id="lessons-filters"[^>]*>', content).group(0)
        assert f'hx-get="{page_url(lessons.skill)}"' in form
        assert 'hx-target="#lessons-body"' in form
        assert 'hx-push-url="true"' in form
        assert '<div id="lessons-body" class="lessons-body">' in content

    @pytest.mark.parametrize(("query", "pushed"), [({"version": 1}, {"version": 1}), ({"version": ""}, {})])
    def test_an_htmx_request_gets_the_body_and_the_canonical_url(self, client, owner, lessons, query, pushed):
        client.force_login(owner)
        response = client.get(page_url(lessons.skill, **query), headers=HTMX)
        assert response.status_code == 200
        content = response.content.decode()
        assert "<html" not in content
        assert "<h1>" not in content
        assert 'id="lessons-filters"' in content
        assert 'id="lessons-history"' in content
        assert 'id="lessons-chart-data"' in content
        assert response["HX-Push-Url"] == page_url(lessons.skill, **pushed)
        assert "HX-Request" in response["Vary"]

    def test_a_history_restore_request_gets_the_whole_page(self, client, owner, lessons):
        client.force_login(owner)
        headers = {**HTMX, "HX-History-Restore-Request": "true"}
        content = client.get(page_url(lessons.skill, version=2), headers=headers).content.decode()
        assert "<html" in content
        assert history_ids(content) == [str(lessons.c3.pk)]

    @pytest.mark.parametrize("value", ["abc", "3", "0", "-1", "1.5", "%3Cb%3E"])
    def test_an_invalid_version_is_a_400_naming_the_parameter(self, client, owner, lessons, value):
        client.force_login(owner)
        for headers in ({}, HTMX):
            response = client.get(page_url(lessons.skill, version=value), headers=headers)
            assert response.status_code == 400
            content = response.content.decode()
            assert "Invalid query parameter “version”" in content
            assert "Use one of 2, 1, or leave it empty for all versions." in content
            assert "<b>" not in content


class TestLinks:
    def test_the_home_page_links_each_skill_once(self, client, owner, lessons):
        other_skill = DeploymentFactory(skill_version__skill__owner=owner, skill_version__skill__name="Scalper")
        client.force_login(owner)
        content = client.get(reverse("home")).content.decode()
        links = re.findall(
            r'<a href="(/skills/\d+/lessons/)" aria-label="Lessons of skill ([^"]+)">Lessons</a>', content
        )
        assert links == [
            (page_url(lessons.skill), "Breakout BTC"),  # three deployments, one link
            (page_url(other_skill.skill_version.skill), "Scalper"),
        ]

    def test_the_journal_links_to_its_skills_lessons(self, client, owner, lessons):
        client.force_login(owner)
        content = client.get(reverse("deployment-trades", args=[lessons.d2.pk])).content.decode()
        assert f'<a href="{page_url(lessons.skill)}" id="skill-lessons-link">Lessons of Breakout BTC</a>' in content


class TestQueryCount:
    @pytest.mark.parametrize("rounds", [1, 4])
    def test_the_page_reads_a_bounded_number_of_queries(
        self, client, owner, owner_api, skill, django_assert_max_num_queries, rounds
    ):
        staff = UserFactory(username="staff", is_staff=True)
        version = SkillVersionFactory(skill=skill, version=1, reflection_cadence="off")
        deployments = [DeploymentFactory(skill_version=version) for _ in range(3)]
        for index, deployment in enumerate(deployments):
            for step in range(rounds):
                start = step * 10
                round_trips(owner_api, deployment, start, [("BTC", 1, 100, 100 + step + index)])
                note = reflect(deployment, f"### Sizing\n- step {step} of #{index}", at=start + 6)
                services.note_revise(
                    note=note, lessons_text=f"### Sizing\n- edited {step}", by=staff, now=minutes(start + 7)
                )
        services.note_promote(note=note, by=staff, now=minutes(100))
        client.force_login(owner)
        assert client.get(page_url(skill)).status_code == 200  # catches the ledger up first
        # session, user, skill, its versions, deployments behind, A/B trades, A/B notes, the trader's verdicts on
        # bullets, history (with authors); filtered to a version, the revision numbers of the whole skill too
        with django_assert_max_num_queries(9):
            response = client.get(page_url(skill))
        assert len(history_ids(response.content.decode())) == 3 * rounds * 2 + 1
        with django_assert_max_num_queries(10):
            assert client.get(page_url(skill, version=1), headers=HTMX).status_code == 200
