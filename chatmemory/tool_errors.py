"""The chat tools' refusals, apart from the tools: `chatmemory.tools` and the reads behind them
(`chatmemory.events`) both raise them, and the chat loop, REST and MCP catch them."""

from __future__ import annotations

NOT_FOUND = "no such {what} among yours"


class ToolNotFound(LookupError):
    pass


class ToolInputError(Exception):
    """Invalid tool input: `errors` maps each field to the rules it broke."""

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__("; ".join(f"{field}: {', '.join(messages)}" for field, messages in errors.items()))
        self.errors = errors


class ToolObjectNotFound(ToolInputError):
    """The input names an object the trader does not have (another trader's is the same): a 404 over REST."""

    def __init__(self, field: str, what: str):
        super().__init__({field: [NOT_FOUND.format(what=what)]})
