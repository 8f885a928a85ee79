"""`manage.py mcp --token TOKEN`: serve the trader's memory over MCP on stdin/stdout.

For desktop clients that spawn a process. The token (an account token, or a runner token `rt_…`
that reaches only its deployment's context) is authenticated once, at start; every call then runs
in its own transaction in that trader's scope (never elevated: a plain BaseCommand, not a
MaintenanceCommand). stdout carries the protocol only; logs go to stderr.
"""

from __future__ import annotations

import os

import anyio
from django.core.management.base import BaseCommand, CommandError
from mcp.server.stdio import stdio_server
from rest_framework import exceptions

from mcpserver.auth import authenticate_token
from mcpserver.server import principal_var, server

TOKEN_ENV = "MEMORY_MCP_TOKEN"  # noqa: S105 (a variable name, not a secret)


class Command(BaseCommand):
    help = f"Serve your trading memory as an MCP server over stdio (token from --token or ${TOKEN_ENV})."

    def add_arguments(self, parser):
        parser.add_argument("--token", help=f"account token or runner token (rt_…); default: ${TOKEN_ENV}")

    def handle(self, *args, **options):
        token = options.get("token") or os.environ.get(TOKEN_ENV, "")
        if not token:
            raise CommandError(f"token: pass --token or set {TOKEN_ENV}")
        try:
            principal = authenticate_token(token)
        except exceptions.APIException as exc:
            raise CommandError(f"token: {exc.detail}") from exc
        anyio.run(serve_stdio, principal)


async def serve_stdio(principal) -> None:
    principal_var.set(principal)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
