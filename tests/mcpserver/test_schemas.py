"""Every MCP tool's input schema is the one of the REST surface it shares (one implementation, two transports)."""

from __future__ import annotations

import asyncio

import pytest
from mcp.shared.memory import create_connected_server_and_client_session

from chatmemory import tools as chat_tools
from mcpserver import tools
from mcpserver.management.commands.mcp import Command
from mcpserver.server import principal_var, server
from memorysite.commands import MaintenanceCommand


def listed_tools(principal) -> dict:
    async def main():
        principal_var.set(principal)
        async with create_connected_server_and_client_session(server) as session:
            return {tool.name: tool for tool in (await session.list_tools()).tools}

    return asyncio.run(main())


def resolve(node, components):
    if isinstance(node, dict):
        if "$ref" in node:
            return resolve(components[node["$ref"].split("/")[-1]], components)
        return {key: resolve(value, components) for key, value in node.items()}
    if isinstance(node, list):
        return [resolve(item, components) for item in node]
    return node


def rest_input_schema(document: dict, path: str, method: str) -> dict:
    """What a client of the REST operation sends, from the served OpenAPI document: its JSON body, or
    its path and query parameters as one object."""
    components = document["components"]["schemas"]
    operation = document["paths"][path][method]
    if "requestBody" in operation:
        return resolve(operation["requestBody"]["content"]["application/json"]["schema"], components)
    properties = {
        p["name"]: {
            **resolve(p["schema"], components),
            **({"description": p["description"]} if "description" in p else {}),
        }
        for p in operation["parameters"]
    }
    required = [p["name"] for p in operation["parameters"] if p.get("required")]
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


@pytest.fixture
def listed(owner):
    return listed_tools(tools.Principal(user=owner))


def test_the_chat_tools_have_the_chat_registrys_schemas_and_descriptions(listed, owner_api):
    served = {tool["name"]: tool for tool in owner_api.get("/api/v1/chat/tools/").json()["tools"]}
    assert set(chat_tools.TOOLS) <= set(listed)
    for name, tool in chat_tools.TOOLS.items():
        assert listed[name].inputSchema == tool.input_schema == served[name]["input_schema"], name
        assert listed[name].description == tool.description == served[name]["description"]


def test_the_other_tools_take_their_rest_operations_input(listed, owner_api):
    document = owner_api.get("/api/schema/", {"format": "json"}).json()
    assert set(listed) == set(chat_tools.TOOLS) | set(tools.REST_OPERATIONS)
    for name, (path, method) in tools.REST_OPERATIONS.items():
        assert listed[name].inputSchema == rest_input_schema(document, path, method), name
        assert listed[name].inputSchema["type"] == "object"
        assert document["paths"][path][method]["summary"] in listed[name].description


def test_a_runner_token_lists_only_the_context_tool(owner):
    from ledger.services import runner_token_create
    from tests.factories import DeploymentFactory

    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    token, _key = runner_token_create(deployment=deployment, name="runner")
    listed = listed_tools(tools.Principal.of(owner, token))
    assert list(listed) == ["get_trading_context"]


def test_a_call_off_the_requests_thread_is_refused(owner):
    """Over HTTP a call must run on its request's thread, inside its scoped transaction."""
    principal = tools.Principal(user=owner, request_thread=-1)
    with pytest.raises(RuntimeError, match="request's thread"):
        tools.call_tool(principal, "get_my_deployments", {})


def test_the_stdio_command_is_not_elevated():
    assert not issubclass(Command, MaintenanceCommand)
