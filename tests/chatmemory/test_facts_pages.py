"""The trader's facts page (/profile/facts/) and the chat preview (/profile/chat-preview/), through the
Django test client: every write goes through chatmemory.services, errors stay inline, nothing leaks
between traders, and a preview never bumps last_referenced_at."""

from __future__ import annotations

import datetime as dt
import html
import re

import pytest
from django.urls import reverse

from chatmemory import services
from chatmemory.chat import chat_system
from chatmemory.facts import (
    BIDI_CHARACTERS,
    CONTROL_CHARACTERS,
    FACT_MAX_CHARS,
    FACT_TOO_LONG,
    FACT_TOO_SHORT,
    TOPIC_CHARACTERS,
)
from chatmemory.models import ArchivedReason, FactConfidence, FactSource, UserFact
from memorysite.text import estimate_tokens

HTMX = {"HX-Request": "true"}
FACTS_URL = "/profile/facts/"
PREVIEW_URL = "/profile/chat-preview/"
T0 = dt.datetime(2026, 6, 1, 9, 30, tzinfo=dt.UTC)


def htmx_on(url: str) -> dict[str, str]:
    """htmx headers for a request made from a page currently showing `url`."""
    return {**HTMX, "HX-Current-URL": f"http://testserver{url}"}


def make_fact(owner, text: str, *, topic=None, confidence=FactConfidence.ASSERTED, source=FactSource.CHAT, **extra):
    fact = services.fact_create(owner=owner, fact=text, source=source, topic=topic, confidence=confidence)
    if extra:
        UserFact.objects.filter(pk=fact.pk).update(**extra)
        fact.refresh_from_db()
    return fact


def fact_item(content: str, fact) -> str:
    """The HTML of one fact's row (an <li>) in a response."""
    match = re.search(rf'<li class="fact[^"]*" id="fact-{fact.pk}">(.*?)</li>', content, re.S)
    assert match, f"fact {fact.pk} is not on the page"
    return match.group(0)


def shown_fact_ids(content: str) -> list[str]:
    return re.findall(r'<li class="fact[^"]*" id="fact-([0-9a-f-]{36})">', content)


def text(response) -> str:
    return response.content.decode()


@pytest.fixture
def facts(owner):
    """Three active facts (two topics, one inferred) and one archived one."""
    risk = make_fact(owner, "I never take leverage above 5x.", topic="risk", last_referenced_at=T0)
    symbols = make_fact(
        owner,
        "Trades BTC and ETH only, no alts.",
        topic="symbols",
        confidence=FactConfidence.INFERRED,
        last_referenced_at=T0 - dt.timedelta(days=1),
    )
    plain = make_fact(owner, "Lives in Lisbon.", source=FactSource.PROFILE)
    old = make_fact(owner, "Used to scalp SOL perps.", topic="symbols")
    services.fact_archive(fact=old, reason=ArchivedReason.USER_CORRECTED, now=T0 + dt.timedelta(hours=2))
    return type("Facts", (), {"risk": risk, "symbols": symbols, "plain": plain, "old": old})


@pytest.fixture
def logged_in(client, owner):
    client.force_login(owner)
    return client


class TestAccess:
    @pytest.mark.parametrize("url", [FACTS_URL, PREVIEW_URL])
    def test_an_anonymous_visitor_is_sent_to_the_login_page(self, client, db, url):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"] == f"{reverse('login')}?next={url}"

    def test_an_anonymous_htmx_request_gets_hx_redirect_back_to_the_page(self, client, db):
        response = client.get(FACTS_URL, headers=htmx_on(FACTS_URL))
        assert response["HX-Redirect"] == f"{reverse('login')}?next={FACTS_URL.replace('/', '%2F')}"

    def test_an_anonymous_write_is_refused_and_changes_nothing(self, client, facts):
        response = client.post(reverse("profile-fact-archive", args=[facts.risk.pk]))
        assert response.status_code == 302
        facts.risk.refresh_from_db()
        assert facts.risk.archived_at is None

    @pytest.mark.parametrize(
        ("name", "method", "archived"),
        [
            ("profile-fact", "get", False),
            ("profile-fact-edit", "get", False),
            ("profile-fact-edit", "post", False),
            ("profile-fact-promote", "post", False),
            ("profile-fact-demote", "post", False),
            ("profile-fact-archive", "post", False),
            ("profile-fact-unarchive", "post", True),
            ("profile-fact-delete", "post", True),
        ],
    )
    def test_another_traders_fact_is_a_404_and_stays_as_it_was(self, client, other, facts, name, method, archived):
        fact = facts.old if archived else facts.symbols
        before = UserFact.objects.values().get(pk=fact.pk)
        client.force_login(other)
        url = reverse(name, args=[fact.pk])
        data = {"fact": "Hijacked fact text", "topic": "x"} if method == "post" else None
        assert getattr(client, method)(url, data).status_code == 404
        assert getattr(client, method)(url, data, headers=htmx_on(FACTS_URL)).status_code == 404
        assert UserFact.objects.values().get(pk=fact.pk) == before

    def test_a_fact_that_does_not_exist_is_a_404(self, logged_in):
        missing = "00000000-0000-0000-0000-000000000000"
        assert logged_in.post(reverse("profile-fact-archive", args=[missing])).status_code == 404

    def test_writes_are_posts_only(self, logged_in, facts):
        assert logged_in.get(reverse("profile-fact-archive", args=[facts.risk.pk])).status_code == 405
        assert logged_in.get(reverse("profile-fact-add")).status_code == 405

    def test_the_nav_links_both_pages_for_a_logged_in_trader(self, logged_in):
        content = text(logged_in.get(reverse("home")))
        assert f'<a href="{FACTS_URL}">Facts</a>' in content
        assert f'<a href="{PREVIEW_URL}">Chat preview</a>' in content


class TestList:
    def test_it_explains_the_page_and_lists_the_active_facts_with_their_details(self, logged_in, facts, other):
        make_fact(other, "Someone else's secret fact")
        response = logged_in.get(FACTS_URL)
        assert response.status_code == 200
        content = text(response)
        assert "remembers silently" in content
        assert "review, edit and delete" in content
        assert "10 most recently referenced active facts" in content
        assert shown_fact_ids(content) == [str(facts.risk.pk), str(facts.symbols.pk), str(facts.plain.pk)]
        assert "secret fact" not in content
        assert "Used to scalp SOL perps." not in content

        risk = fact_item(content, facts.risk)
        assert "I never take leverage above 5x." in risk
        assert '<span class="tag topic" title="topic">risk</span>' in risk
        assert "source: chat" in risk
        assert ">asserted</span>" in risk
        assert "2026-06-01 09:30 UTC" in risk  # last referenced
        created = UserFact.objects.get(pk=facts.risk.pk).created_at.astimezone(dt.UTC)
        assert created.strftime("%Y-%m-%d %H:%M UTC") in risk
        assert "Demote to inferred" in risk
        assert "Promote to asserted" not in risk

        symbols = fact_item(content, facts.symbols)
        assert ">inferred</span>" in symbols
        assert "Promote to asserted" in symbols
        plain = fact_item(content, facts.plain)
        assert "source: profile" in plain
        assert '<dd class="last-referenced">never</dd>' in plain
        assert 'class="tag topic"' not in plain
        assert 'id="fact-counts">3 active · 1 archived<' in content
        assert 'id="fact-add"' in content

    def test_it_marks_the_ten_most_recently_referenced_active_facts_as_in_the_prompt(self, logged_in, owner):
        made = [
            make_fact(owner, f"Fact number {i:02d}", last_referenced_at=T0 - dt.timedelta(hours=i)) for i in range(12)
        ]
        content = text(logged_in.get(FACTS_URL))
        in_prompt = [fact for fact in made if "in prompt</span>" in fact_item(content, fact)]
        assert in_prompt == made[:10]
        assert in_prompt == [UserFact.objects.get(pk=pk) for pk in chat_system(user=owner, mode="coach").fact_ids]

    def test_the_archived_toggle_shows_the_archived_facts_with_their_reason_instead(self, logged_in, facts):
        response = logged_in.get(FACTS_URL, {"archived": "1"})
        content = text(response)
        assert shown_fact_ids(content) == [str(facts.old.pk)]
        old = fact_item(content, facts.old)
        assert "corrected by you" in old
        assert "2026-06-01 11:30 UTC" in old  # archived at
        assert "Un-archive" in old
        assert "Delete for good" in old
        assert 'hx-confirm="Delete this fact for good? It cannot be restored."' in old
        assert "Archive</button>" not in old
        assert "in prompt</span>" not in old
        assert 'id="fact-add"' not in content  # facts are added to the active list
        assert re.search(r'id="filter-archived" name="archived" value="1" checked', content)

    def test_an_htmx_toggle_answers_the_body_only_and_pushes_the_canonical_url(self, logged_in, facts):
        response = logged_in.get(FACTS_URL, {"archived": "1", "topic": ""}, headers=HTMX)
        content = text(response)
        assert "<html" not in content
        assert response["HX-Push-Url"] == f"{FACTS_URL}?archived=1"
        assert shown_fact_ids(content) == [str(facts.old.pk)]
        assert "Vary" in response and "HX-Request" in response["Vary"]

    def test_the_topic_filter_lists_the_traders_topics_and_filters_by_one(self, logged_in, facts):
        content = text(logged_in.get(FACTS_URL))
        options = re.search(r'<select id="filter-topic" name="topic">(.*?)</select>', content, re.S).group(1)
        assert re.findall(r'<option value="([^"]*)"', options) == ["", "risk", "symbols"]

        response = logged_in.get(FACTS_URL, {"topic": "symbols"}, headers=HTMX)
        assert shown_fact_ids(text(response)) == [str(facts.symbols.pk)]
        assert response["HX-Push-Url"] == f"{FACTS_URL}?topic=symbols"
        content = text(logged_in.get(FACTS_URL, {"topic": "symbols", "archived": "1"}))
        assert shown_fact_ids(content) == [str(facts.old.pk)]
        assert '<option value="symbols" selected>' in content

    def test_a_topic_that_is_not_the_traders_means_all_topics(self, logged_in, facts, other):
        make_fact(other, "Other trader's fact", topic="secret")
        response = logged_in.get(FACTS_URL, {"topic": "secret"}, headers=HTMX)
        assert len(shown_fact_ids(text(response))) == 3
        assert response["HX-Push-Url"] == FACTS_URL

    def test_an_empty_list_says_how_facts_arrive(self, logged_in):
        content = text(logged_in.get(FACTS_URL))
        assert 'id="facts-empty"' in content
        assert "doesn" in content and "know anything about you yet" in content

    def test_fact_text_is_escaped(self, logged_in, owner):
        make_fact(owner, "<script>alert(1)</script> is not a plan")
        content = text(logged_in.get(FACTS_URL))
        assert "<script>alert(1)</script>" not in content
        assert "&lt;script&gt;alert(1)&lt;/script&gt; is not a plan" in content

    @pytest.mark.parametrize("count", [5, 60])
    def test_the_page_reads_a_fixed_number_of_queries(self, logged_in, owner, count, django_assert_max_num_queries):
        UserFact.objects.bulk_create(
            UserFact(
                owner=owner,
                fact=f"Bulk fact {i}",
                topic=f"t{i % 7}",
                source=FactSource.CHAT,
                confidence=FactConfidence.INFERRED,
                last_referenced_at=T0 - dt.timedelta(minutes=i) if i % 2 else None,
            )
            for i in range(count)
        )
        with django_assert_max_num_queries(6):
            response = logged_in.get(FACTS_URL)
        assert len(shown_fact_ids(text(response))) == count
        with django_assert_max_num_queries(6):
            logged_in.get(FACTS_URL, {"topic": "t1"}, headers=HTMX)
        with django_assert_max_num_queries(3):
            logged_in.get(PREVIEW_URL)


class TestAdd:
    def test_it_adds_a_profile_fact_asserted_by_default_and_shows_it(self, logged_in, owner, facts):
        response = logged_in.post(
            reverse("profile-fact-add"),
            {"fact": "  Wants 2x in six months.  ", "topic": "  Goal ", "confidence": "asserted"},
            headers=htmx_on(FACTS_URL),
        )
        assert response.status_code == 200
        fact = UserFact.objects.get(fact="Wants 2x in six months.")
        assert (fact.owner, fact.source, fact.confidence, fact.topic) == (owner, "profile", "asserted", "goal")
        content = text(response)
        assert response["HX-Retarget"] == "#facts-body"
        assert "Fact added." in content
        assert str(fact.pk) in shown_fact_ids(content)
        assert '<option value="goal">' in content  # the topic filter knows the new topic
        assert 'name="fact" rows="2"' in content and "Wants 2x" not in re.search(
            r'<textarea id="add-fact".*?</textarea>', content, re.S
        ).group(0)  # the form is empty again

    def test_the_confidence_defaults_to_asserted_and_can_be_inferred(self, logged_in):
        content = text(logged_in.get(FACTS_URL))
        assert '<option value="asserted" selected>' in content
        logged_in.post(reverse("profile-fact-add"), {"fact": "Maybe likes breakouts", "confidence": "inferred"})
        fact = UserFact.objects.get(fact="Maybe likes breakouts")
        assert (fact.confidence, fact.topic, fact.source) == ("inferred", None, "profile")

    def test_without_htmx_it_redirects_back_to_the_page(self, logged_in):
        response = logged_in.post(
            reverse("profile-fact-add"), {"fact": "Risk 1% per trade", "confidence": "asserted"}, headers={}
        )
        assert response.status_code == 303
        assert response["Location"] == FACTS_URL
        assert UserFact.objects.filter(fact="Risk 1% per trade").exists()

    def test_adding_keeps_the_topic_filter_only_when_the_new_fact_has_that_topic(self, logged_in, facts):
        on_risk = htmx_on(f"{FACTS_URL}?topic=risk")
        response = logged_in.post(
            reverse("profile-fact-add"),
            {"fact": "Max 3 positions", "topic": "risk", "confidence": "asserted"},
            headers=on_risk,
        )
        assert response["HX-Replace-Url"] == f"{FACTS_URL}?topic=risk"
        response = logged_in.post(
            reverse("profile-fact-add"),
            {"fact": "Trades mornings", "topic": "session", "confidence": "asserted"},
            headers=on_risk,
        )
        assert response["HX-Replace-Url"] == FACTS_URL
        assert "Trades mornings" in text(response)

    @pytest.mark.parametrize(
        ("fact", "topic", "field", "message"),
        [
            ("abc", "", "fact", FACT_TOO_SHORT),
            ("   ab   ", "", "fact", FACT_TOO_SHORT),
            ("x" * 501, "", "fact", FACT_TOO_LONG),
            ("line one\nline two", "", "fact", CONTROL_CHARACTERS),
            ("rings a \x07 bell", "", "fact", CONTROL_CHARACTERS),
            ("Buy \u202eevery dip", "", "fact", BIDI_CHARACTERS),
            ("zero\u200bwidth joiner", "", "fact", BIDI_CHARACTERS),
            ("A fine fact", "risk!", "topic", TOPIC_CHARACTERS),
            ("A fine fact", "ri\u202esk", "topic", BIDI_CHARACTERS),
        ],
    )
    def test_invalid_input_shows_inline_and_writes_nothing(self, logged_in, facts, fact, topic, field, message):
        before = UserFact.objects.count()
        response = logged_in.post(
            reverse("profile-fact-add"),
            {"fact": fact, "topic": topic, "confidence": "asserted"},
            headers=htmx_on(FACTS_URL),
        )
        assert response.status_code == 200
        assert response["HX-Retarget"] == "#fact-add"
        assert response["HX-Reswap"] == "outerHTML"
        content = text(response)
        assert content.strip().startswith('<section id="fact-add"')
        assert f'id="add-{field}-errors">{html.escape(message)}</p>' in content
        assert 'aria-invalid="true"' in content
        assert UserFact.objects.count() == before

    def test_invalid_input_keeps_what_was_typed(self, logged_in):
        response = logged_in.post(
            reverse("profile-fact-add"), {"fact": "abc", "topic": "risk", "confidence": "inferred"}, headers=HTMX
        )
        content = text(response)
        assert '<textarea id="add-fact" name="fact" rows="2"' in content and ">abc</textarea>" in content
        assert 'value="risk"' in content
        assert '<option value="inferred" selected>' in content

    def test_without_htmx_errors_render_the_page_with_the_form(self, logged_in, facts):
        response = logged_in.post(reverse("profile-fact-add"), {"fact": "x" * 501, "confidence": "asserted"})
        assert response.status_code == 200
        content = text(response)
        assert "<html" in content
        assert FACT_TOO_LONG in content
        assert len(shown_fact_ids(content)) == 3


class TestNearDuplicates:
    def add(self, client, fact: str, **extra):
        form = {"fact": fact, "topic": "risk", "confidence": "asserted", **extra}
        return client.post(reverse("profile-fact-add"), form, headers=htmx_on(FACTS_URL))

    @pytest.mark.parametrize("fact", ["i never take leverage above 5X", "I never take leverage above 10x."])
    def test_a_near_repeat_warns_keeps_the_input_and_offers_to_edit_the_one_there(self, logged_in, facts, fact):
        response = self.add(logged_in, fact)
        assert response.status_code == 200
        assert response["HX-Retarget"] == "#fact-add"  # only the form answers
        content = text(response)
        assert "You already have a fact like this." in content
        assert f'href="{reverse("profile-fact-edit", args=[facts.risk.pk])}"' in content
        assert f">{html.escape(fact)}</textarea>" in content  # the input is kept
        assert 'value="risk"' in content
        assert 'name="add_anyway" value="1"' in content
        assert UserFact.objects.filter(archived_at__isnull=True).count() == 3  # nothing written

    def test_add_anyway_adds_it(self, logged_in, facts):
        response = self.add(logged_in, "I never take leverage above 10x.", add_anyway="1")
        assert "Fact added." in text(response)
        assert UserFact.objects.filter(fact="I never take leverage above 10x.").exists()

    def test_an_archived_fact_or_another_traders_does_not_count(self, logged_in, owner, other, facts):
        make_fact(other, "Max risk per trade is 1% of equity")
        assert "Fact added." in text(self.add(logged_in, "Used to scalp SOL perps!"))  # like an archived one
        assert "Fact added." in text(self.add(logged_in, "Max risk per trade is 1% of equity"))

    def test_a_different_fact_is_added_without_a_warning(self, logged_in, facts):
        response = self.add(logged_in, "I trade from Lisbon, Portugal, on weekdays")
        assert "Fact added." in text(response)
        assert "like this" not in text(response)

    def test_without_htmx_the_page_shows_the_warning(self, logged_in, facts):
        response = logged_in.post(
            reverse("profile-fact-add"), {"fact": "Lives in Lisbon", "confidence": "asserted"}, headers={}
        )
        assert response.status_code == 200
        content = text(response)
        assert "You already have a fact like this." in content and 'id="fact-add-alike"' in content
        assert not UserFact.objects.filter(fact="Lives in Lisbon").exists()

    def test_the_rules_come_before_the_warning(self, logged_in, facts):
        response = self.add(logged_in, "I never take leverage above 5x." + "!" * 500)
        assert FACT_TOO_LONG in text(response)


class TestCharacterCounter:
    def test_the_add_and_edit_forms_carry_a_counter_of_the_models_maximum(self, logged_in, facts):
        page = text(logged_in.get(FACTS_URL))
        assert f'data-count-for="add-fact" data-max-chars="{FACT_MAX_CHARS}"' in page
        assert "js/char-count.js" in page
        edit = text(logged_in.get(reverse("profile-fact-edit", args=[facts.risk.pk]), headers=HTMX))
        assert f'data-count-for="edit-fact-{facts.risk.pk}" data-max-chars="{FACT_MAX_CHARS}"' in edit
        assert UserFact._meta.get_field("fact").max_length == FACT_MAX_CHARS


class TestEdit:
    def test_the_edit_form_swaps_in_for_the_row_and_cancel_swaps_it_back(self, logged_in, facts):
        url = reverse("profile-fact-edit", args=[facts.risk.pk])
        response = logged_in.get(url, headers=htmx_on(FACTS_URL))
        content = text(response)
        assert response["HX-Retarget"] == f"#fact-{facts.risk.pk}"
        assert content.strip().startswith(f'<li class="fact fact-editing" id="fact-{facts.risk.pk}">')
        assert ">I never take leverage above 5x.</textarea>" in content
        assert 'value="risk"' in content

        response = logged_in.get(reverse("profile-fact", args=[facts.risk.pk]), headers=htmx_on(FACTS_URL))
        row = text(response)
        assert row.strip().startswith(f'<li class="fact fact-in-prompt" id="fact-{facts.risk.pk}">')
        assert "in prompt</span>" in row

    def test_saving_edits_the_text_and_topic_in_place(self, logged_in, facts):
        response = logged_in.post(
            reverse("profile-fact-edit", args=[facts.risk.pk]),
            {"fact": "I never take leverage above 3x.", "topic": "Risk Limits"},
            headers=htmx_on(FACTS_URL),
        )
        assert response.status_code == 200
        assert response["HX-Retarget"] == "#facts-body"
        fact = UserFact.objects.get(pk=facts.risk.pk)
        assert (fact.fact, fact.topic, fact.source, fact.confidence) == (
            "I never take leverage above 3x.",
            "risk limits",
            "chat",
            "asserted",
        )
        assert fact.last_referenced_at == T0  # editing is not referencing
        content = text(response)
        assert "Fact saved." in content
        assert "I never take leverage above 3x." in fact_item(content, fact)

    def test_clearing_the_topic_leaves_the_fact_without_one(self, logged_in, facts):
        logged_in.post(reverse("profile-fact-edit", args=[facts.risk.pk]), {"fact": facts.risk.fact, "topic": " "})
        assert UserFact.objects.get(pk=facts.risk.pk).topic is None

    @pytest.mark.parametrize(
        ("fact", "topic", "field", "message"),
        [
            ("no", "risk", "fact", FACT_TOO_SHORT),
            ("y" * 501, "risk", "fact", FACT_TOO_LONG),
            ("tab\there", "risk", "fact", CONTROL_CHARACTERS),
            ("sneaky \u202e override", "risk", "fact", BIDI_CHARACTERS),
            ("A fine fact", "no/slashes", "topic", TOPIC_CHARACTERS),
        ],
    )
    def test_invalid_edits_stay_inline_in_the_row_and_write_nothing(
        self, logged_in, facts, fact, topic, field, message
    ):
        before = UserFact.objects.values().get(pk=facts.risk.pk)
        response = logged_in.post(
            reverse("profile-fact-edit", args=[facts.risk.pk]),
            {"fact": fact, "topic": topic},
            headers=htmx_on(FACTS_URL),
        )
        assert response.status_code == 200
        assert response["HX-Retarget"] == f"#fact-{facts.risk.pk}"
        assert response["HX-Reswap"] == "outerHTML"
        content = text(response)
        assert f'id="edit-{field}-errors-{facts.risk.pk}">{html.escape(message)}</p>' in content
        assert UserFact.objects.values().get(pk=facts.risk.pk) == before

    def test_without_htmx_the_edit_form_is_a_page_and_saving_redirects(self, logged_in, facts):
        url = reverse("profile-fact-edit", args=[facts.plain.pk])
        content = text(logged_in.get(url))
        assert "<html" in content and "Edit fact" in content
        response = logged_in.post(url, {"fact": "Lives in Porto.", "topic": "home"})
        assert response.status_code == 303
        assert response["Location"] == FACTS_URL
        assert UserFact.objects.get(pk=facts.plain.pk).fact == "Lives in Porto."


class TestConfidence:
    def test_promote_and_demote(self, logged_in, facts):
        response = logged_in.post(reverse("profile-fact-promote", args=[facts.symbols.pk]), headers=htmx_on(FACTS_URL))
        assert UserFact.objects.get(pk=facts.symbols.pk).confidence == "asserted"
        content = text(response)
        assert "Promoted to asserted." in content
        assert "Demote to inferred" in fact_item(content, facts.symbols)

        response = logged_in.post(reverse("profile-fact-demote", args=[facts.risk.pk]), headers=htmx_on(FACTS_URL))
        assert UserFact.objects.get(pk=facts.risk.pk).confidence == "inferred"
        assert "Promote to asserted" in fact_item(text(response), facts.risk)

    def test_the_prompt_marks_inferred_facts(self, logged_in, owner, facts):
        logged_in.post(reverse("profile-fact-demote", args=[facts.risk.pk]))
        assert (
            "- [risk] (inferred) I never take leverage above 5x."
            in chat_system(user=owner, mode="coach").segments.facts
        )


class TestArchive:
    def test_archive_moves_a_fact_to_the_archived_list_and_out_of_the_prompt(self, logged_in, owner, facts):
        response = logged_in.post(reverse("profile-fact-archive", args=[facts.risk.pk]), headers=htmx_on(FACTS_URL))
        fact = UserFact.objects.get(pk=facts.risk.pk)
        assert fact.archived_at is not None
        assert fact.archived_reason == ArchivedReason.USER_DELETED
        content = text(response)
        assert "Fact archived" in content
        assert str(fact.pk) not in shown_fact_ids(content)
        assert response["HX-Replace-Url"] == FACTS_URL
        assert fact.pk not in chat_system(user=owner, mode="coach").fact_ids

        archived = text(logged_in.get(FACTS_URL, {"archived": "1"}))
        assert '<span class="archived-reason">archived by you</span>' in fact_item(archived, fact)
        assert "deleted" not in fact_item(archived, fact)  # archived is not deleted: it can come back
        assert '<span class="archived-reason">archived: corrected by you</span>' in fact_item(archived, facts.old)

    def test_unarchive_brings_it_back_keeping_the_archived_view(self, logged_in, facts):
        response = logged_in.post(
            reverse("profile-fact-unarchive", args=[facts.old.pk]), headers=htmx_on(f"{FACTS_URL}?archived=1")
        )
        fact = UserFact.objects.get(pk=facts.old.pk)
        assert (fact.archived_at, fact.archived_reason) == (None, None)
        content = text(response)
        assert "Fact restored" in content
        assert shown_fact_ids(content) == []
        assert response["HX-Replace-Url"] == f"{FACTS_URL}?archived=1"
        assert str(fact.pk) in shown_fact_ids(text(logged_in.get(FACTS_URL)))

    def test_archiving_an_archived_fact_is_refused_with_the_reason(self, logged_in, facts):
        before = UserFact.objects.values().get(pk=facts.old.pk)
        response = logged_in.post(reverse("profile-fact-archive", args=[facts.old.pk]), headers=htmx_on(FACTS_URL))
        assert response.status_code == 200  # htmx swaps only 2xx: the current view, with the reason
        assert "this fact is already archived" in text(response)
        assert UserFact.objects.values().get(pk=facts.old.pk) == before
        assert logged_in.post(reverse("profile-fact-unarchive", args=[facts.risk.pk])).status_code == 409


class TestDelete:
    def test_delete_for_good_removes_an_archived_fact(self, logged_in, facts):
        response = logged_in.post(
            reverse("profile-fact-delete", args=[facts.old.pk]), headers=htmx_on(f"{FACTS_URL}?archived=1")
        )
        assert not UserFact.objects.filter(pk=facts.old.pk).exists()
        content = text(response)
        assert "Fact deleted for good." in content
        assert 'id="facts-empty"' in content
        assert response["HX-Replace-Url"] == f"{FACTS_URL}?archived=1"

    def test_an_active_fact_can_be_deleted_for_good_too_after_a_confirm(self, logged_in, owner, facts):
        row = fact_item(text(logged_in.get(FACTS_URL)), facts.risk)
        assert 'hx-confirm="Delete this fact for good?' in row and 'class="danger">Delete for good<' in row
        response = logged_in.post(reverse("profile-fact-delete", args=[facts.risk.pk]), headers=htmx_on(FACTS_URL))
        assert response.status_code == 200
        assert "Fact deleted for good." in text(response)
        assert not UserFact.objects.filter(pk=facts.risk.pk).exists()
        assert facts.risk.pk not in chat_system(user=owner, mode="coach").fact_ids

    def test_another_traders_fact_is_a_404_and_stays(self, client, other, facts):
        client.force_login(other)
        assert client.post(reverse("profile-fact-delete", args=[facts.risk.pk])).status_code == 404
        assert UserFact.objects.filter(pk=facts.risk.pk).exists()

    def test_without_htmx_it_redirects_back_to_the_view_it_came_from(self, logged_in, facts):
        response = logged_in.post(
            reverse("profile-fact-delete", args=[facts.old.pk]),
            headers={"Referer": f"http://testserver{FACTS_URL}?archived=1&topic=symbols"},
        )
        assert response.status_code == 303
        assert response["Location"] == f"{FACTS_URL}?archived=1&topic=symbols"
        assert not UserFact.objects.filter(pk=facts.old.pk).exists()


class TestChatPreview:
    def test_it_shows_each_segment_the_joined_text_and_a_token_estimate(self, logged_in, owner, facts):
        response = logged_in.get(PREVIEW_URL)
        assert response.status_code == 200
        content = text(response)
        system = chat_system(user=owner, mode="coach")
        assert f'<pre class="prompt" id="system-text">{html.escape(system.segments.text)}</pre>' in content
        for name in ("persona", "tier", "facts", "mode", "trust"):
            assert f'id="segment-{name}"' in content
        assert "Suppressed" not in content
        assert "## What I know about you" in content
        assert f"- [risk] I never take leverage above 5x. (fact {facts.risk.pk.hex[:8]})" in content
        assert "Lives in Lisbon." in content
        assert "Used to scalp SOL perps." not in content  # archived
        assert f'id="preview-tokens">~{estimate_tokens(system.segments.text)}<' in content
        assert 'id="preview-fact-count">3<' in content
        assert "does not bump any fact" in content and "last referenced" in content
        assert '<option value="coach" selected>' in content

    def test_previewing_does_not_change_last_referenced_at(self, logged_in, facts):
        before = dict(UserFact.objects.values_list("pk", "last_referenced_at"))
        for mode in ("authoring", "coach", "ops"):
            logged_in.get(PREVIEW_URL, {"mode": mode})
            logged_in.get(PREVIEW_URL, {"mode": mode}, headers=HTMX)
        assert dict(UserFact.objects.values_list("pk", "last_referenced_at")) == before
        assert before[facts.plain.pk] is None

    def test_the_mode_selector_swaps_the_body_and_pushes_the_url(self, logged_in, owner, facts):
        response = logged_in.get(PREVIEW_URL, {"mode": "ops"}, headers=HTMX)
        content = text(response)
        assert "<html" not in content
        assert response["HX-Push-Url"] == f"{PREVIEW_URL}?mode=ops"
        assert "Mode: ops." in content
        assert "Mode: coach." not in content
        assert html.escape(chat_system(user=owner, mode="ops").segments.text) in content
        assert logged_in.get(PREVIEW_URL, {"mode": "coach"}, headers=HTMX)["HX-Push-Url"] == PREVIEW_URL

    def test_an_unknown_mode_is_the_default(self, logged_in, db):
        content = text(logged_in.get(PREVIEW_URL, {"mode": "<b>root</b>"}))
        assert "Mode: coach." in content
        assert "<b>root</b>" not in content

    def test_without_facts_the_facts_segment_is_suppressed(self, logged_in, db):
        content = text(logged_in.get(PREVIEW_URL))
        assert "## What I know about you" not in content
        assert "Suppressed: you have no active facts" in content
        assert 'id="preview-fact-count">0<' in content
