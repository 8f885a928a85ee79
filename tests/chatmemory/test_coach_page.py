"""The coach chat page (/profile/chat/): the conversation with compact tool calls, the facts each answer
was given, the modes; through the real SDK over real HTTP to the local stub Messages API."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from chatmemory import services, views
from chatmemory.models import UserFact
from tests.anthropic_stub import AnthropicStub, text_message, tool_use_message
from tests.dbroles import owner_connection
from tests.factories import DeploymentFactory

URL = reverse("coach-chat")
HTMX = {"HX-Request": "true"}


@pytest.fixture
def stub(settings, monkeypatch):
    settings.ANTHROPIC_API_KEY = "sk-test"
    settings.CHAT_MODEL = "claude-sonnet-5"
    with AnthropicStub() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)  # read by the SDK itself
        yield server


@pytest.fixture
def no_key(settings):
    settings.ANTHROPIC_API_KEY = ""


@pytest.fixture
def trader(client, owner):
    client.force_login(owner)
    return client


def fact(owner, text: str, topic: str = "risk", confidence: str = "asserted") -> UserFact:
    return services.fact_create(owner=owner, fact=text, topic=topic, source="profile", confidence=confidence)


def text_of(content: str, element_id: str) -> str:
    match = re.search(rf'id="{element_id}"[^>]*>(.*?)</(?:p|div|ul|ol|textarea)>', content, re.S)
    assert match, f"#{element_id} missing"
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", match.group(1))).strip()


class TestWithoutAKey:
    def test_it_says_plainly_that_the_coach_is_off_and_disables_the_form(self, trader, no_key):
        response = trader.get(URL)
        assert response.status_code == 200
        content = response.content.decode()
        assert "The coach is off on this server:" in content
        assert "<code>ANTHROPIC_API_KEY</code> is set" in content
        assert re.search(r'<button type="submit" id="chat-send" disabled>', content)
        assert re.search(r'<textarea id="chat-message"[^>]* disabled>', content)

    def test_a_message_sent_anyway_is_kept_and_answered_with_the_notice(self, trader, no_key):
        response = trader.post(URL, {"message": "How did BTC do?", "mode": "coach"})
        assert response.status_code == 503
        content = response.content.decode()
        assert "The coach is off on this server:" in content
        assert ">How did BTC do?</textarea>" in content
        partial = trader.post(URL, {"message": "How did BTC do?", "mode": "coach"}, headers=HTMX)
        assert partial.status_code == 200
        assert "<html" not in partial.content.decode()
        assert "The coach is off on this server:" in partial.content.decode()


class TestConversation:
    def test_a_turn_shows_the_reply_the_tool_calls_and_the_injected_facts(self, trader, owner, stub):
        kept = fact(owner, "Never above 3x leverage.")
        stub.respond(
            tool_use_message(("toolu_1", "remember", {"fact": "Trades BTC and ETH only.", "topic": "symbols"})),
            text_message("Noted: BTC and ETH only. Your 3x cap stands."),
        )
        response = trader.post(URL, {"message": "I only trade BTC and ETH.", "mode": "coach"})
        assert response.status_code == 302
        assert response["Location"] == URL
        content = trader.get(URL).content.decode()
        log = re.search(r'<ol class="chat-log" id="chat-log">(.*?)</ol>', content, re.S).group(1)
        assert log.index("I only trade BTC and ETH.") < log.index("Noted: BTC and ETH only.")
        assert "<code>remember</code>" in log
        assert "Trades BTC and ETH only." in log  # the tool's input, compact
        assert '<span class="pos">ok</span>' in log
        assert "1 fact in its prompt · claude-sonnet-5" in log
        panel = re.search(r'<aside class="coach-facts".*?</aside>', content, re.S).group(0)
        assert "Facts in the last answer" in panel and "1 injected" in panel
        assert f'id="injected-{kept.pk.hex[:8]}"' in panel
        assert "Never above 3x leverage." in panel
        assert "Trades BTC and ETH only." not in panel  # remembered during the turn: not in its prompt
        assert UserFact.objects.filter(owner=owner, fact="Trades BTC and ETH only.").exists()
        assert stub.requests[0]["body"]["messages"] == [{"role": "user", "content": "I only trade BTC and ETH."}]

    def test_the_next_turn_sends_the_whole_conversation_in_the_chosen_mode(self, trader, stub):
        stub.respond(text_message("First answer."), text_message("Second answer."))
        trader.post(URL, {"message": "First question", "mode": "coach"})
        trader.post(URL, {"message": "Second question", "mode": "ops"})
        assert stub.requests[1]["body"]["messages"] == [
            {"role": "user", "content": "First question"},
            {"role": "assistant", "content": "First answer."},
            {"role": "user", "content": "Second question"},
        ]
        system = "\n\n".join(block["text"] for block in stub.requests[1]["body"]["system"])
        assert "Mode: ops." in system
        content = trader.get(URL).content.decode()
        assert content.count('class="chat-msg chat-') == 4

    def test_an_htmx_turn_answers_the_body_with_an_empty_box_and_the_mode_kept(self, trader, stub):
        stub.respond(text_message("Hello."))
        response = trader.post(URL, {"message": "Hi", "mode": "authoring"}, headers=HTMX)
        assert response.status_code == 200
        content = response.content.decode()
        assert "<html" not in content
        assert "Hello." in content
        assert re.search(r'<textarea id="chat-message"[^>]*></textarea>', content)
        assert re.search(r'value="authoring" checked', content)

    def test_a_failed_tool_call_is_shown_as_failed(self, trader, other, stub):
        foreign = DeploymentFactory(skill_version__skill__owner=other)
        stub.respond(
            tool_use_message(("toolu_1", "get_my_deployments", {"deployment_id": foreign.pk})),
            text_message("I could not find that deployment."),
        )
        trader.post(URL, {"message": "How is deployment 9 doing?", "mode": "ops"})
        content = trader.get(URL).content.decode()
        assert '<span class="neg">failed</span>' in content
        assert "Someone" not in content

    def test_each_mode_is_explained_in_one_line(self, trader, stub):
        content = trader.get(URL).content.decode()
        for mode, help_text in views.MODE_HELP.items():
            assert f'value="{mode}"' in content
            assert help_text in content
        assert re.search(r'value="coach" checked', content)

    def test_before_any_turn_the_panel_shows_the_facts_the_next_answer_gets(self, trader, owner, stub):
        fact(owner, "Prefers swing trades over scalping.", topic="style", confidence="inferred")
        content = trader.get(URL).content.decode()
        assert "Facts for the next answer" in content
        assert "Prefers swing trades over scalping." in content
        assert '<span class="tag inferred">inferred</span>' in content
        assert stub.requests == []

    def test_a_new_conversation_drops_the_old_one(self, trader, stub):
        stub.respond(text_message("Answer."))
        trader.post(URL, {"message": "Question", "mode": "coach"})
        assert trader.post(reverse("coach-chat-clear")).status_code == 302
        assert "No messages yet." in trader.get(URL).content.decode()

    def test_the_conversation_is_the_sessions_own(self, client, owner, other, stub):
        stub.respond(text_message("Private answer."))
        client.force_login(owner)
        client.post(URL, {"message": "Private question", "mode": "coach"})
        client.force_login(other)
        assert "Private" not in client.get(URL).content.decode()

    def test_it_keeps_the_last_messages_only(self, trader, stub, monkeypatch):
        monkeypatch.setattr(views, "CHAT_KEPT_MESSAGES", 4)
        stub.respond(text_message("A1"), text_message("A2"), text_message("A3"))
        for n in (1, 2, 3):
            trader.post(URL, {"message": f"Q{n}", "mode": "coach"})
        content = trader.get(URL).content.decode()
        assert content.count('class="chat-msg chat-') == 4
        assert ">Q1<" not in content and ">Q3<" in content


class TestBadInput:
    @pytest.mark.parametrize(
        ("body", "field", "rule"),
        [
            ({"message": "   ", "mode": "coach"}, "chat-message-errors", "Write a message for the coach."),
            ({"message": "x" * 20_001, "mode": "coach"}, "chat-message-errors", "At most 20,000 characters"),
            ({"message": "Hi", "mode": "chaos"}, "chat-mode-errors", "Pick one of the modes: authoring, coach, ops."),
        ],
    )
    def test_it_is_400_naming_the_field_and_keeping_the_input(self, trader, stub, body, field, rule):
        response = trader.post(URL, body)
        assert response.status_code == 400
        content = response.content.decode()
        assert text_of(content, field).startswith(rule)
        if body["message"].strip():
            assert f">{body['message']}</textarea>" in content
        assert stub.requests == []

    def test_to_htmx_the_errors_come_in_the_body(self, trader, stub):
        response = trader.post(URL, {"message": "", "mode": "ops"}, headers=HTMX)
        assert response.status_code == 200
        content = response.content.decode()
        assert "<html" not in content
        assert text_of(content, "chat-message-errors") == "Write a message for the coach."
        assert re.search(r'value="ops" checked', content)

    def test_the_model_unreachable_keeps_the_message_and_the_conversation(self, trader, stub):
        stub.respond((500, {"type": "error", "error": {"type": "api_error", "message": "down"}}))
        response = trader.post(URL, {"message": "Still there?", "mode": "coach"})
        assert response.status_code == 502
        content = response.content.decode()
        assert text_of(content, "chat-error").startswith("The coach could not answer: the model could not be reached")
        assert ">Still there?</textarea>" in content
        assert "No messages yet." in content


def test_anonymous_is_sent_to_log_in(client, db):
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.django_db(transaction=True)
def test_a_turn_holds_no_transaction_while_it_waits_on_the_model(client, owner, stub, settings):
    fact(owner, "Trades BTC only.")
    states = []

    def look(_request):
        with owner_connection() as db:
            rows = db.execute(
                "SELECT state FROM pg_stat_activity WHERE datname = current_database() AND usename = %s",
                [settings.DATABASE_APP_ROLE],
            ).fetchall()
            states.append(sorted(state or "" for (state,) in rows))

    stub.on_request = look
    stub.respond(
        tool_use_message(("toolu_1", "remember", {"fact": "Never above 3x leverage.", "topic": "risk"})),
        text_message("Noted."),
    )
    client.force_login(owner)
    assert client.post(URL, {"message": "Remember my 3x cap.", "mode": "coach"}).status_code == 302
    assert len(states) == 2
    assert all("idle in transaction" not in seen for seen in states), states
