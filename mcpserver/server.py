"""The MCP server definition (the official SDK's low-level `Server`), shared by both transports.

The SDK speaks the protocol; each handler hands the work to mcpserver.tools on a Django thread
(`sync_to_async(thread_sensitive=True)`): over HTTP that is the request's own thread, whose
transaction is already scoped to the trader (asgiref's `async_to_sync` in mcpserver.http runs the
SDK's loop beside it and sends thread-sensitive calls back to it); over stdio, one thread for the
whole process, each call in its own `owner_scope` transaction.

Who is calling travels in a context variable set by the transport before the SDK runs.
"""

from __future__ import annotations

import json
from contextvars import ContextVar

import mcp.types as types
from asgiref.sync import sync_to_async
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.shared.exceptions import McpError

from mcpserver import tools

NAME = "trading-memory"
INSTRUCTIONS = (
    "A trader's trading memory: performance of skills and deployments, upcoming market events, durable facts "
    "about the trader (remember/forget), the per-tick trading context of a deployment, search over the trader's "
    "documents with citations, research experiments (check before designing, record after) and analyst memory."
)
RESOURCE_ERROR = -32002  # the MCP specification's "resource not found"

principal_var: ContextVar[tools.Principal] = ContextVar("mcp_principal")


def current_principal() -> tools.Principal:
    try:
        return principal_var.get()
    except LookupError:
        raise RuntimeError("no MCP principal: the transport must authenticate before serving") from None


async def _sync(function, *args):
    return await sync_to_async(function, thread_sensitive=True)(*args)


def _text(body: dict) -> str:
    return json.dumps(body, ensure_ascii=False)


def build_server() -> Server:
    server = Server(NAME, instructions=INSTRUCTIONS)

    def tool_definitions(principal: tools.Principal) -> list[types.Tool]:
        return [
            types.Tool(name=tool.name, description=tools.tool_description(tool), inputSchema=tool.input_schema())
            for tool in tools.visible_tools(principal)
        ]

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return await _sync(tool_definitions, current_principal())

    # Input is validated by the tool's own serializer (REST's), so errors read as REST's.
    @server.call_tool(validate_input=False)
    async def call_tool(name: str, arguments: dict) -> types.CallToolResult:
        outcome = await _sync(tools.call_tool, current_principal(), name, arguments)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=_text(outcome.body))],
            structuredContent=None if outcome.is_error else outcome.body,
            isError=outcome.is_error,
        )

    @server.list_resources()
    async def list_resources() -> list[types.Resource]:
        principal = current_principal()
        resources = []
        if not principal.is_runner:
            resources.append(
                types.Resource(
                    uri=tools.FACTS_URI,
                    name="facts",
                    description="What the coach knows about you: your top 10 active facts, as its prompt has them.",
                    mimeType="text/markdown",
                )
            )
        for deployment_id, label in await _sync(tools.listed_deployments, principal):
            resources.append(
                types.Resource(
                    uri=tools.CONTEXT_URI.format(deployment_id=deployment_id),
                    name=f"deployment-{deployment_id}-context",
                    description=label,
                    mimeType="text/markdown",
                )
            )
        return resources

    @server.list_resource_templates()
    async def list_resource_templates() -> list[types.ResourceTemplate]:
        return [
            types.ResourceTemplate(
                uriTemplate=tools.CONTEXT_URI,
                name="deployment-context",
                description="A deployment's memory context for its agent's next tick (the context endpoint's text).",
                mimeType="text/markdown",
            )
        ]

    @server.read_resource()
    async def read_resource(uri) -> list[ReadResourceContents]:
        outcome = await _sync(tools.read_resource, current_principal(), str(uri))
        if outcome.is_error:
            code = RESOURCE_ERROR if outcome.status == 404 else types.INVALID_PARAMS
            raise McpError(types.ErrorData(code=code, message=outcome.body["detail"], data=outcome.body))
        degraded = outcome.body.get("degraded")  # a context's sections whose reads failed (agentcontext.degrade)
        meta = {"degraded": degraded} if degraded else None
        return [ReadResourceContents(content=outcome.body["text"], mime_type="text/markdown", meta=meta)]

    return server


server = build_server()
