from django.conf import settings
from django.http import JsonResponse


class ApiNotFoundMiddleware:
    """A 404 under /api/ that is not JSON (a path nothing serves: Django's page, or with DEBUG its
    technical page) becomes the API's own `{"detail": "Not found."}`, which API clients parse."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            response.status_code == 404
            and request.path.startswith("/api/")
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            return JsonResponse({"detail": "Not found."}, status=404)  # memorysite.api.NOT_FOUND
        return response


class RequestBodyLimitMiddleware:
    """Refuse oversized bodies with 413 before anything reads them.

    Django's own DATA_UPLOAD_MAX_MEMORY_SIZE answers 400 and only once a view reads the body;
    runners need to tell "too big" from "malformed".
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
        return self.get_response(request)
