from django.conf import settings
from django.http import JsonResponse, UnreadablePostError

# SQLSTATE query_canceled: statement_timeout (DATABASE_STATEMENT_TIMEOUT_MS) ran out.
QUERY_CANCELED = "57014"


class ApiNotFoundMiddleware:
    """A 404 under /api/ or /mcp that is not JSON (a path nothing serves: Django's page, or with DEBUG
    its technical page) becomes the API's own `{"detail": "Not found."}`, which API clients parse."""

    prefixes = ("/api/", "/mcp")

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            response.status_code == 404
            and request.path.startswith(self.prefixes)
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            return JsonResponse({"detail": "Not found."}, status=404)  # memorysite.api.NOT_FOUND
        return response


class RequestBodyLimitMiddleware:
    """Refuse oversized bodies with 413, then read the whole body before anything else runs.

    Django's own DATA_UPLOAD_MAX_MEMORY_SIZE answers 400 and only once a view reads the body;
    runners need to tell "too big" from "malformed". Reading the body here, before the request's
    transaction begins (access.middleware), means no transaction ever waits on a client: one that
    stops sending is cut off by gunicorn (CLIENT_TIMEOUT_S, memorysite/serving.py) and gets a 408.
    """

    def __init__(self, get_response):
        self.get_response = get_response
        self.limit = settings.REQUEST_BODY_LIMIT_BYTES

    def __call__(self, request):
        declared = request.META.get("CONTENT_LENGTH") or "0"
        try:
            length = int(declared)
        except ValueError:
            return JsonResponse({"detail": "Content-Length: must be a non-negative integer"}, status=400)
        if length > self.limit:
            return JsonResponse(
                {"detail": f"request body: must be at most {self.limit} bytes, got {length}"},
                status=413,
            )
        try:
            request.body  # noqa: B018 (read and kept: views get it from memory)
        except UnreadablePostError as exc:
            if _caused_by_timeout(exc):
                detail = f"request body: not received within {settings.CLIENT_TIMEOUT_S} s"
                return JsonResponse({"detail": detail}, status=408)  # gunicorn then closes the connection
            return JsonResponse({"detail": "request body: could not be read"}, status=400)
        return self.get_response(request)


def _caused_by_timeout(exc: BaseException | None) -> bool:
    """Django wraps the stream's error (twice: read(), then body)."""
    while exc is not None:
        if isinstance(exc, TimeoutError):
            return True
        exc = exc.__cause__
    return False


class DatabaseTimeoutMiddleware:
    """A statement PostgreSQL cancelled for running too long is a 503 (the request's transaction is
    rolled back, as for any 4xx/5xx), not a 500: the client may retry."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if getattr(exception.__cause__, "sqlstate", None) != QUERY_CANCELED:
            return None
        detail = f"the database did not answer within {settings.DATABASE_STATEMENT_TIMEOUT_MS} ms; try again"
        return JsonResponse({"detail": detail}, status=503, headers={"Retry-After": "1"})
