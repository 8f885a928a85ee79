"""Model field validators shared by every app."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from memorysite.text import is_unsafe

NAME_CONTROL_CHARACTERS = "must be one line without control characters or bidirectional overrides"


def validate_one_line_name(value: str) -> None:
    """A name shown on one line (tokens, keys): no control, format or separator characters."""
    if any(is_unsafe(char) for char in value):
        raise ValidationError(NAME_CONTROL_CHARACTERS)


DOCUMENT_TEXT_NUL = (
    "must not contain NUL (\\u0000): document text is any UTF-8 text but NUL, which the database cannot store"
)


def validate_document_text(value: str) -> None:
    """A document's text (recall documents, journal entries, proposed edits): anything but NUL is data
    (bidi marks, zero-width characters, form feeds and other control characters included); what leaves
    the index is neutralised by memorysite.text.document_text_out. Invalid UTF-8 never gets this far: a
    request body is refused by memorysite.json_body, a file by recall_sync."""
    if "\x00" in value:
        raise ValidationError(DOCUMENT_TEXT_NUL)
