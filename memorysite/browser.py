"""What every response to a browser carries: the security headers, and invisible text made visible.

- ``Content-Security-Policy`` (settings.CONTENT_SECURITY_POLICY): scripts and styles from our own
  origin only, no inline script or handler attribute (``hx-on``), nothing framed, no plugins; and
  ``Permissions-Policy`` (settings.PERMISSIONS_POLICY): no camera, microphone, location, payment...
  A response that sets its own header keeps it.
- Invisible characters (memorysite.text) in an HTML page are shown as visible marks (``[U+200B]``),
  whatever template or admin view put them there: one place, so no template can forget. The marks
  are plain ASCII without HTML's special characters, so they are safe in text and attributes alike.
  Rows keep the characters as written; a form that shows such a value shows the mark.
"""

from __future__ import annotations

from django.conf import settings

from memorysite.text import has_invisible, mark_invisible


class SecurityHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.headers = {
            "Content-Security-Policy": settings.CONTENT_SECURITY_POLICY,
            "Permissions-Policy": settings.PERMISSIONS_POLICY,
        }

    def __call__(self, request):
        response = self.get_response(request)
        for name, value in self.headers.items():
            response.headers.setdefault(name, value)
        return response


class InvisibleTextMarkMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.streaming or not response.get("Content-Type", "").startswith("text/html"):
            return response
        charset = response.charset or "utf-8"
        try:
            page = response.content.decode(charset)
        except (LookupError, UnicodeDecodeError):
            return response
        if has_invisible(page):
            response.content = mark_invisible(page).encode(charset)
            if response.has_header("Content-Length"):
                response.headers["Content-Length"] = str(len(response.content))
        return response
