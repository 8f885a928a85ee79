from django.conf import settings
from django.http import JsonResponse


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
