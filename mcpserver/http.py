"""POST /mcp/: the MCP server over streamable HTTP, served by the Django app (gunicorn WSGI in production).

The view is a DRF view authenticated like the API (`Authorization: Token …`, account or runner
token; the settings' classes, so the request's transaction is scoped to the trader); no credentials,
an unknown or revoked token → 401 before anything MCP runs. The SDK's streamable-HTTP transport, in
stateless JSON-response mode (a fresh transport per request, no session, one JSON answer), handles
the request as an ASGI app driven by asgiref's `async_to_sync` from this thread: tool calls hop back
onto this thread (`sync_to_async(thread_sensitive=True)`), so they use this request's connection and
transaction (mcpserver.tools checks it).

Only POST is served. GET would open the optional server-to-client event stream, which a stateless
server has nothing to send on: the SDK held it open for ever, pinning a thread and the request's
transaction. GET and DELETE (no session to end) are 405 with `Allow`, as the MCP spec allows. A POST is
answered within MCP_REQUEST_TIMEOUT_S or given up with a 503.
"""

from __future__ import annotations

import threading

import anyio
from asgiref.sync import async_to_sync
from django.conf import settings
from django.http import HttpResponse, JsonResponse
from drf_spectacular.utils import extend_schema
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.types import PARSE_ERROR
from rest_framework import exceptions
from rest_framework.permissions import IsAuthenticated
from rest_framework.views import APIView

from mcpserver.server import principal_var, server
from mcpserver.tools import Principal
from memorysite.api import validation_body
from memorysite.json_body import parse_json


def asgi_scope(request) -> dict:
    """The ASGI HTTP scope of a Django request (what the SDK's transport reads: method, path, headers)."""
    headers = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in request.headers.items()]
    port = request.get_port()
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.path.encode(),
        "root_path": "",
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1"),
        "headers": headers,
        "client": (request.META.get("REMOTE_ADDR", ""), 0),
        "server": (request.get_host().rsplit(":", 1)[0], int(port) if str(port).isdigit() else 80),
    }


async def _serve(principal: Principal, scope: dict, body: bytes) -> tuple[int, list, bytes]:
    principal_var.set(principal)
    sent = {"status": 500, "headers": [], "body": []}
    delivered = False

    answered = anyio.Event()

    async def receive() -> dict:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await answered.wait()  # the client stays connected until the answer is written
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        if message["type"] == "http.response.start":
            sent["status"], sent["headers"] = message["status"], message.get("headers", [])
        elif message["type"] == "http.response.body":
            sent["body"].append(message.get("body", b""))
            if not message.get("more_body", False):
                answered.set()

    # Stateless: one manager (and one transport) per request; run() may be entered once per manager.
    manager = StreamableHTTPSessionManager(app=server, json_response=True, stateless=True)
    with anyio.fail_after(settings.MCP_REQUEST_TIMEOUT_S):
        async with manager.run():
            await manager.handle_request(scope, receive, send)
    return sent["status"], sent["headers"], b"".join(sent["body"])


class McpView(APIView):
    """The MCP endpoint. Not an /api/v1/ view: no Idempotency-Key (JSON-RPC has its own ids), not in the
    OpenAPI schema; authentication as the API's, permission: authenticated (runner tokens are confined
    per tool in mcpserver.tools)."""

    permission_classes = [IsAuthenticated]
    parser_classes: list = []  # the SDK reads the raw body

    @extend_schema(exclude=True)
    def post(self, request):
        # The API's JSON rules first: the SDK's json.loads has no depth limit (a deep body was a 500).
        try:
            parse_json(request._request.body)
        except (exceptions.ParseError, exceptions.ValidationError) as exc:
            detail = exc.detail if isinstance(exc, exceptions.ParseError) else validation_body(exc.detail)["detail"]
            error = {"code": PARSE_ERROR, "message": f"Parse error: {detail}"}
            return JsonResponse({"jsonrpc": "2.0", "id": "server-error", "error": error}, status=400)
        principal = Principal.of(request.user, request.auth, request_thread=threading.get_ident())
        try:
            status, headers, body = async_to_sync(_serve)(
                principal, asgi_scope(request._request), request._request.body
            )
        except TimeoutError:
            detail = f"the MCP request did not finish within {settings.MCP_REQUEST_TIMEOUT_S} s"
            return JsonResponse({"detail": detail}, status=503)
        response = HttpResponse(body, status=status)
        for name, value in headers:
            key = name.decode("latin-1")
            if key.lower() != "content-length":
                response[key] = value.decode("latin-1")
        return response
