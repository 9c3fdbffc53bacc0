"""The MCP server: tools, a resource and a prompt over :class:`MemoryAccess`.

One :class:`mcp.server.MCPServer` serves both transports. What differs is
where the caller comes from: stdio has one fixed :class:`Caller` for the life
of the process; HTTP puts each request's caller (resolved from its
credentials before the SDK sees the request) into the ASGI scope. A tool that
finds no caller refuses to run: there is no unscoped fallback.

Descriptions are written for the model that calls the tools: when to store,
what to search, how to pass scope, and that results are compact JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from mcp_types import INVALID_PARAMS
from pydantic import BaseModel, ConfigDict, Field

from .. import __version__
from ..errors import MemoristError
from ..limits import MAX_MCP_PAGE_SIZE as MAX_PAGE_SIZE
from ..limits import MAX_MCP_TOP_K as MAX_TOP_K
from ..limits import MAX_PAGE, MAX_QUERY_CHARS
from ..operations import Caller
from .adapter import MemoryAccess
from .scope import CALLER_KEY, entity_args

CallerSource = Callable[[Context], Caller]

INSTRUCTIONS = """\
Memorist is your long-term memory: facts persist across conversations.
- Call search_memories at the start of a task, and whenever the user refers to something \
earlier ("as I said", their preferences, people, projects, plans), before answering.
- Call add_memory when the user states a lasting fact, preference, decision, plan or correction \
about themselves, their work or people they mention. Store the user's words or a short excerpt; \
memory extraction keeps the durable facts. Do not store greetings, chit-chat, secrets or \
passwords, or what you only guessed.
- When a remembered fact becomes wrong, update_memory (or delete_memory) it instead of adding a \
contradicting one.
The connection may be confined to one user or agent: omit user_id/agent_id to use it; \
naming another is refused. Results are compact JSON; ids are stable."""

UserId = Annotated[
    str | None,
    Field(
        default=None, min_length=1, max_length=255, description="Whose memory (a user). Omit to use this connection's."
    ),
]
AgentId = Annotated[
    str | None,
    Field(default=None, min_length=1, max_length=255, description="An agent's own memory, or the agent in a user's."),
]
RunId = Annotated[
    str | None,
    Field(default=None, min_length=1, max_length=255, description="One session/conversation; narrows to it."),
]
AppId = Annotated[str | None, Field(default=None, min_length=1, max_length=255, description="An application.")]
MemoryId = Annotated[str, Field(min_length=1, max_length=128, description="The memory's id, from a search or list.")]
AsOf = Annotated[
    str | None,
    Field(
        default=None,
        max_length=64,
        description="Answer as of this date-time (ISO 8601): memories observed by then, each version current then.",
    ),
]


class Turn(BaseModel):
    """One message of a conversation excerpt."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant"] = "user"
    content: Annotated[str, Field(min_length=1, max_length=20_000)]


_VALIDATION = re.compile(r"^Error executing tool (\S+): \d+ validation errors? for \S+\n")


def compact_validation(text: str) -> str | None:
    """The SDK's pydantic report of bad arguments as ``field: message`` lines (no URLs, no types).

    ``Error executing tool search_memories: 1 validation error for ...Arguments\ntop_k\n  Input
    should be ... [type=..., input_value=0, ...]\n    For further information visit ...``
    becomes ``search_memories: top_k: Input should be ...``: what a model needs to retry."""
    match = _VALIDATION.match(text)
    if match is None:
        return None
    problems, field_name = [], None
    for line in text[match.end() :].splitlines():
        if not line.strip() or line.lstrip().startswith("For further information"):
            continue
        if not line.startswith(" "):
            field_name = line.strip()
        elif field_name is not None:
            problems.append(f"{field_name}: {line.strip().split(' [type=')[0]}")
    return f"{match.group(1)}: " + "; ".join(problems) if problems else None


async def compact_errors(ctx: Any, call_next: Any) -> Any:
    """Server middleware: argument errors of ``tools/call`` reach the model in one short line."""
    result = await call_next(ctx)
    if ctx.method != "tools/call":
        return result
    if isinstance(result, dict) and result.get("isError") and result.get("content"):
        # The wire form (what the runner hands back on this SDK version).
        first = result["content"][0]
        if isinstance(first, dict) and (short := compact_validation(str(first.get("text", "")))):
            return {**result, "content": [{**first, "text": short}]}
    elif isinstance(result, CallToolResult) and result.is_error and result.content:
        first_block = result.content[0]
        if isinstance(first_block, TextContent) and (short := compact_validation(first_block.text)):
            return result.model_copy(update={"content": [TextContent(type="text", text=short)]})
    return result


@contextmanager
def tool_errors() -> Iterator[None]:
    """Domain errors (bad input, not found, out of scope) become tool errors the model can read."""
    try:
        yield
    except MemoristError as exc:
        raise ToolError(exc.message) from None


def build_server(access: MemoryAccess, caller_of: CallerSource) -> MCPServer:
    """An MCP server whose every tool runs as ``caller_of(ctx)``."""
    server: MCPServer = MCPServer("memorist", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    server.middleware.append(compact_errors)
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False)

    def caller(ctx: Context) -> Caller:
        try:
            return caller_of(ctx)
        except MemoristError as exc:
            raise ToolError(exc.message) from None

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
    def add_memory(
        ctx: Context,
        text: Annotated[
            str | None,
            Field(default=None, min_length=1, max_length=20_000, description="What the user said worth keeping."),
        ] = None,
        messages: Annotated[
            list[Turn] | None,
            Field(default=None, min_length=1, max_length=50, description="Or a conversation excerpt (role, content)."),
        ] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
        run_id: RunId = None,
        app_id: AppId = None,
        metadata: Annotated[
            dict[str, Any] | None, Field(default=None, description='Labels to filter on later, e.g. {"topic": "diet"}.')
        ] = None,
        timestamp: Annotated[
            str | None,
            Field(default=None, max_length=64, description="When it was said (ISO 8601), if not now."),
        ] = None,
        expiration_date: Annotated[
            str | None, Field(default=None, max_length=64, description="Forget after this date (YYYY-MM-DD).")
        ] = None,
        infer: Annotated[
            bool,
            Field(default=True, description="True: extract the durable facts. False: store the text verbatim."),
        ] = True,
    ) -> dict[str, Any]:
        """Remember lasting facts about the user (preferences, plans, people, decisions, corrections).

        Give `text` (the user's statement) or `messages` (a short excerpt). With
        infer=true the facts worth keeping are extracted and duplicates skipped;
        the answer lists what was stored. Do not store chit-chat or secrets."""
        if (text is None) == (messages is None):
            raise ToolError("text: give either text or messages (not both, not neither)")
        turns = [{"role": "user", "content": text}] if text is not None else [t.model_dump() for t in messages or []]
        with tool_errors():
            return access.add(
                caller(ctx),
                turns,
                entity_args(user_id=user_id, agent_id=agent_id, run_id=run_id, app_id=app_id),
                metadata=metadata,
                timestamp=timestamp,
                expiration_date=expiration_date,
                infer=infer,
            )

    @server.tool(annotations=read_only)
    def search_memories(
        ctx: Context,
        query: Annotated[
            str, Field(min_length=1, max_length=MAX_QUERY_CHARS, description="What to recall, in plain words.")
        ],
        user_id: UserId = None,
        agent_id: AgentId = None,
        run_id: RunId = None,
        app_id: AppId = None,
        filters: Annotated[
            dict[str, Any] | None,
            Field(
                default=None,
                description='Optional filter, e.g. {"metadata.topic": "diet"} or '
                '{"AND": [{"created_at": {"gte": "2026-01-01"}}, {"categories": {"contains": "food"}}]}.',
            ),
        ] = None,
        top_k: Annotated[int, Field(default=10, ge=1, le=MAX_TOP_K, description="How many results at most.")] = 10,
        threshold: Annotated[
            float, Field(default=0.1, ge=0.0, le=1.0, description="Minimum relevance score (0-1).")
        ] = 0.1,
        rerank: Annotated[bool, Field(default=False, description="Rerank the results (slower).")] = False,
        explain: Annotated[bool, Field(default=False, description="Include how each score was made.")] = False,
        latest_only: Annotated[
            bool, Field(default=False, description="Leave out facts a newer memory replaced (only what is current).")
        ] = False,
        as_of: AsOf = None,
        reference_date: Annotated[
            str | None,
            Field(
                default=None,
                max_length=64,
                description='Anchors relative time in the query ("last week") at this date (ISO 8601).',
            ),
        ] = None,
    ) -> dict[str, Any]:
        """Find remembered facts relevant to a question or topic (hybrid semantic + keyword + entity search).

        Use before answering anything that may depend on what the user told you
        earlier. Results are the best matches first, each with its id and score."""
        with tool_errors():
            return access.search(
                caller(ctx),
                query,
                entity_args(user_id=user_id, agent_id=agent_id, run_id=run_id, app_id=app_id),
                filters=filters,
                top_k=top_k,
                threshold=threshold,
                rerank=rerank,
                explain=explain,
                latest_only=latest_only,
                as_of=as_of,
                reference_date=reference_date,
            )

    @server.tool(annotations=read_only)
    def list_memories(
        ctx: Context,
        user_id: UserId = None,
        agent_id: AgentId = None,
        run_id: RunId = None,
        app_id: AppId = None,
        page: Annotated[int, Field(default=1, ge=1, le=MAX_PAGE)] = 1,
        page_size: Annotated[int, Field(default=20, ge=1, le=MAX_PAGE_SIZE)] = 20,
        latest_only: Annotated[
            bool, Field(default=False, description="Leave out facts a newer memory replaced (only what is current).")
        ] = False,
        as_of: AsOf = None,
    ) -> dict[str, Any]:
        """List memories newest first, one page at a time (to review everything; prefer search to find something)."""
        with tool_errors():
            return access.list(
                caller(ctx),
                entity_args(user_id=user_id, agent_id=agent_id, run_id=run_id, app_id=app_id),
                page=page,
                page_size=page_size,
                latest_only=latest_only,
                as_of=as_of,
            )

    @server.tool(annotations=read_only)
    def get_memory(ctx: Context, memory_id: MemoryId) -> dict[str, Any]:
        """Read one memory by id."""
        with tool_errors():
            return access.get(caller(ctx), memory_id)

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True))
    def update_memory(
        ctx: Context,
        memory_id: MemoryId,
        text: Annotated[
            str | None, Field(default=None, min_length=1, max_length=20_000, description="The corrected fact.")
        ] = None,
        metadata: Annotated[dict[str, Any] | None, Field(default=None, description="Replaces the metadata.")] = None,
        timestamp: Annotated[
            str | None, Field(default=None, max_length=64, description="When the fact was observed (ISO 8601).")
        ] = None,
    ) -> dict[str, Any]:
        """Correct a remembered fact that changed or was wrong (keeps its history)."""
        with tool_errors():
            return access.update(caller(ctx), memory_id, text=text, metadata=metadata, timestamp=timestamp)

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True))
    def delete_memory(
        ctx: Context,
        memory_id: MemoryId,
        delete_linked: Annotated[
            bool, Field(default=False, description="Also forget the older versions this memory replaced.")
        ] = False,
    ) -> dict[str, Any]:
        """Forget one memory, e.g. when the user asks you to or it is plainly wrong (its history is kept)."""
        with tool_errors():
            return access.delete(caller(ctx), memory_id, delete_linked=delete_linked)

    @server.tool(annotations=read_only)
    def memory_history(ctx: Context, memory_id: MemoryId) -> dict[str, Any]:
        """How one memory changed over time: added, updated (old and new text), deleted."""
        with tool_errors():
            return access.history(caller(ctx), memory_id)

    @server.tool(annotations=read_only)
    def list_entities(ctx: Context) -> dict[str, Any]:
        """Which users, agents, runs and apps have memories here, with counts."""
        with tool_errors():
            return access.entities(caller(ctx))

    @server.resource(
        "memorist://recent{?limit}",
        name="recent-memories",
        description="The newest memories of this connection's user or agent (JSON).",
        mime_type="application/json",
    )
    def recent(ctx: Context, limit: int = 20) -> str:
        try:
            page = access.list(caller_of(ctx), {}, page=1, page_size=max(1, min(int(limit), MAX_PAGE_SIZE)))
        except MemoristError as exc:
            raise ResourceError(exc.message) from None
        return json.dumps(page["results"], ensure_ascii=False)

    @server.prompt(
        name="recall",
        description="Start a reply with what is remembered about a topic (searches memory, injects the results).",
    )
    def recall(ctx: Context, topic: str) -> str:
        if len(topic) > MAX_QUERY_CHARS:  # refused before any work, and never echoed back
            message = f"topic: {len(topic)} characters; the limit is {MAX_QUERY_CHARS} (MAX_QUERY_CHARS)"
            raise MCPError(code=INVALID_PARAMS, message=message)
        try:
            found = access.search(
                caller_of(ctx), topic, {}, filters=None, top_k=10, threshold=0.1, rerank=False, explain=False
            )
        except MemoristError as exc:
            return f"(Memory search failed: {exc.message}.) Topic: {topic}"
        lines = [f"- {hit['memory']} (id {hit['id']})" for hit in found["results"]]
        known = "\n".join(lines) if lines else "- nothing remembered yet"
        return (
            f"What you remember that may be relevant to '{topic}':\n{known}\n\n"
            "Use these facts where they help; if one is outdated, correct it with update_memory."
        )

    return server


def request_caller(ctx: Context) -> Caller:
    """The caller the HTTP bridge put into this request's ASGI scope."""
    request = ctx.request_context.request
    caller = getattr(request, "scope", {}).get(CALLER_KEY) if request is not None else None
    if not isinstance(caller, Caller):
        # Unreachable through the bridge (it authenticates first); never run unscoped.
        raise ToolError("unauthenticated: this request carries no credentials")
    return caller


def fixed_caller(caller: Caller) -> CallerSource:
    """The stdio source: the one caller named on the command line."""

    def source(ctx: Context) -> Caller:
        return caller

    return source
