from django.apps import AppConfig


class McpServerConfig(AppConfig):
    """The trader's memory as an MCP server (issue 10): stdio (`manage.py mcp`) and streamable HTTP (`/mcp/`)."""

    name = "mcpserver"
    verbose_name = "MCP server"
