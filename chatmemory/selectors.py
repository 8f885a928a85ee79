"""Reads of chat memory: the trader's facts (always owner-scoped)."""

from __future__ import annotations

from django.db.models import Count, F, Q, QuerySet
from django.shortcuts import get_object_or_404

from chatmemory.facts import FACT_REF_CHARS, FACTS_IN_PROMPT, FactLine, fact_similarity, is_near_duplicate
from chatmemory.models import FactConfidence, UserFact

# The prompt's order: most recently referenced first, never referenced last, newer first among
# equals (facts injected together share one timestamp), id as the final tie-break.
PROMPT_ORDER = (F("last_referenced_at").desc(nulls_last=True), "-created_at", "-id")


def fact_list(*, user, archived: bool | None = False, topic: str | None = None) -> QuerySet[UserFact]:
    facts = UserFact.objects.owned_by(user)
    if archived is not None:
        facts = facts.filter(archived_at__isnull=not archived)
    if topic:
        facts = facts.filter(topic=topic)
    return facts.order_by(*PROMPT_ORDER)


def fact_get(*, user, fact_id) -> UserFact:
    return get_object_or_404(UserFact.objects.owned_by(user), pk=fact_id)


def fact_topics(*, user) -> list[str]:
    return list(
        UserFact.objects.owned_by(user)
        .exclude(topic__isnull=True)
        .order_by("topic")
        .values_list("topic", flat=True)
        .distinct()
    )


def facts_for_prompt(*, user, limit: int = FACTS_IN_PROMPT) -> list[UserFact]:
    """The top `limit` active facts for the chat system prompt (one indexed read)."""
    return list(
        UserFact.objects.owned_by(user)
        .filter(archived_at__isnull=True)
        .order_by(*PROMPT_ORDER)
        .only("id", "fact", "topic", "confidence", "last_referenced_at", "created_at")[:limit]
    )


def facts_like(*, user, text: str) -> list[UserFact]:
    """The trader's active facts that (nearly) repeat `text` (facts.is_near_duplicate), most alike first."""
    active = UserFact.objects.owned_by(user).filter(archived_at__isnull=True).only("id", "fact", "topic")
    alike = [fact for fact in active if is_near_duplicate(fact.fact, text)]
    return sorted(alike, key=lambda fact: -fact_similarity(fact.fact, text))


def fact_lines(facts: list[UserFact]) -> list[FactLine]:
    return [
        FactLine(f.fact, f.topic, f.confidence == FactConfidence.INFERRED, f.pk.hex[:FACT_REF_CHARS]) for f in facts
    ]


def fact_by_ref(*, user, ref: str) -> UserFact | None:
    """A fact by its full id or the 8-hex-digit reference shown in the prompt; None when there is no
    such fact among the trader's (or the short reference is ambiguous)."""
    facts = UserFact.objects.owned_by(user)
    cleaned = ref.strip().lower().replace("-", "")
    if len(cleaned) == 32:
        return facts.filter(pk=cleaned).first() if _is_hex(cleaned) else None
    if len(cleaned) != FACT_REF_CHARS or not _is_hex(cleaned):
        return None
    low = f"{cleaned}-0000-0000-0000-000000000000"
    high = f"{cleaned}-ffff-ffff-ffff-ffffffffffff"
    matches = list(facts.filter(pk__gte=low, pk__lte=high)[:2])
    return matches[0] if len(matches) == 1 else None


def _is_hex(text: str) -> bool:
    return all(ch in "0123456789abcdef" for ch in text)


# -- added for the /profile/facts/ page (chatmemory/views.py) --------------------------------------------------


def fact_counts(*, user) -> dict[str, int]:
    """How many active and archived facts the trader has (one aggregate query)."""
    counts = UserFact.objects.owned_by(user).aggregate(
        active=Count("pk", filter=Q(archived_at__isnull=True)),
        archived=Count("pk", filter=Q(archived_at__isnull=False)),
    )
    return {"active": counts["active"], "archived": counts["archived"]}
