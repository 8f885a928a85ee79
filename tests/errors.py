"""The API's error bodies in tests: every one carries the request's id (memorysite/logs.py)."""

from __future__ import annotations


def error_body(response) -> dict:
    """The JSON error body without its `request_id`, once that is checked to be the X-Request-ID header's."""
    body = dict(response.json())
    assert body.pop("request_id") == response.headers["X-Request-ID"], body
    return body
