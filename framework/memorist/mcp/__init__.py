"""The MCP server: Memorist's memory as tools for agents (stdio and Streamable HTTP).

- :mod:`.scope`: the caller a connection acts for and the confinement rule;
- :mod:`.adapter`: the one module that reaches the engine (scope checks, compact results);
- :mod:`.tools`: the tools, resource and prompt (one server for both transports);
- :mod:`.stdio` / :mod:`.command`: ``memorist mcp``;
- :mod:`.http`: ``/mcp`` on the running app, authenticated like the REST API.

Only :mod:`.command` may be imported without the ``mcp`` SDK installed.
"""
