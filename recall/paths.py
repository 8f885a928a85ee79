"""The rule every workspace path passes before recall stores it (the API's serializers, admin's form
and the services share it)."""

from __future__ import annotations

import posixpath

from django.core.exceptions import ValidationError

from recall.models import PATH_MAX


def clean_path(path: str) -> str:
    """A workspace-relative POSIX path: no leading slash, no '..', no empty segments, ≤ 500 chars.
    Raises ValidationError naming the rule."""
    if not isinstance(path, str) or not path.strip():
        raise ValidationError("must be a non-empty relative path")
    if len(path) > PATH_MAX:
        raise ValidationError(f"must be at most {PATH_MAX} characters")
    if "\\" in path or any(ord(ch) < 32 or ord(ch) == 127 for ch in path):
        raise ValidationError("must be a POSIX path without control characters or backslashes")
    if path.startswith("/"):
        raise ValidationError("must be relative to the workspace (no leading '/')")
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise ValidationError("must not contain empty, '.' or '..' segments")
    return posixpath.normpath(path)
