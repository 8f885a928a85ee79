"""Model field validators shared by every app."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from memorysite.text import is_unsafe

NAME_CONTROL_CHARACTERS = "must be one line without control characters or bidirectional overrides"


def validate_one_line_name(value: str) -> None:
    """A name shown on one line (tokens, keys): no control, format or separator characters."""
    if any(is_unsafe(char) for char in value):
        raise ValidationError(NAME_CONTROL_CHARACTERS)
