"""Writes of chat memory: the trader's facts. Each validates, then writes in one statement."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from chatmemory.facts import FactError, clean_fact, clean_topic
from chatmemory.models import ArchivedReason, FactConfidence, UserFact

NOT_ARCHIVED = "this fact is not archived"
ALREADY_ARCHIVED = "this fact is already archived"


def _clean(**fields) -> dict:
    cleaned: dict[str, str | None] = {}
    try:
        if "fact" in fields:
            cleaned["fact"] = clean_fact(fields["fact"])
        if "topic" in fields:
            cleaned["topic"] = clean_topic(fields["topic"])
    except FactError as exc:
        raise ValidationError({exc.field: [exc.message]}) from exc
    return cleaned


def fact_create(
    *, owner, fact: str, source: str, topic: str | None = None, confidence: str = FactConfidence.INFERRED
) -> UserFact:
    row = UserFact(owner=owner, source=source, confidence=confidence, **_clean(fact=fact, topic=topic))
    row.full_clean(exclude=["owner", "skill"])
    row.save(force_insert=True)
    return row


def fact_update(fact: UserFact, /, **changes) -> UserFact:
    """Edit text (`fact=`), topic or confidence in place (the trader owns the wording)."""
    unknown = set(changes) - {"fact", "topic", "confidence"}
    if unknown:
        raise TypeError(f"unknown fact fields: {sorted(unknown)}")
    cleaned = _clean(**{k: v for k, v in changes.items() if k in {"fact", "topic"}})
    if "confidence" in changes:
        cleaned["confidence"] = changes["confidence"]
    for name, value in cleaned.items():
        setattr(fact, name, value)
    fact.full_clean(exclude=["owner", "skill"])
    fact.save(update_fields=[*cleaned, "updated_at"])
    return fact


def fact_archive(
    *, fact: UserFact, reason: str = ArchivedReason.USER_DELETED, now: dt.datetime | None = None
) -> UserFact:
    if fact.archived_at is not None:
        raise ValidationError({"fact_id": [ALREADY_ARCHIVED]})
    if reason not in ArchivedReason.values:
        raise ValidationError({"reason": [f"must be one of {', '.join(ArchivedReason.values)}"]})
    fact.archived_at, fact.archived_reason = now or timezone.now(), reason
    fact.save(update_fields=["archived_at", "archived_reason", "updated_at"])
    return fact


def fact_unarchive(*, fact: UserFact) -> UserFact:
    if fact.archived_at is None:
        raise ValidationError({"fact_id": [NOT_ARCHIVED]})
    fact.archived_at, fact.archived_reason = None, None
    fact.save(update_fields=["archived_at", "archived_reason", "updated_at"])
    return fact


def fact_delete(*, fact: UserFact) -> None:
    """Hard delete ("forget me"): the row is gone, not archived."""
    fact.delete()


@transaction.atomic
def facts_touch(*, fact_ids: Iterable, at: dt.datetime) -> int:
    """Bump last_referenced_at for exactly the facts injected into a real chat turn."""
    ids = list(fact_ids)
    if not ids:
        return 0
    return UserFact.objects.filter(pk__in=ids).update(last_referenced_at=at)
