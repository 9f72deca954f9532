"""``mnemo mcp``: the MCP bridge that LLM clients start (design.md §2).

The bridge is a thin stdio MCP server. It owns nothing: every tool call is forwarded to the
daemon, which it starts when none runs, so that the several copies of the server an MCP client
may start all share one owner of the store and the index.

- ``link``    the connection to the daemon: find it, start it, forward one operation (stdlib
  only, no MCP import, so it is cheap to test)
- ``tools``   the MCP tools: names, descriptions, typed arguments, annotations, and the
  translation of mnemo errors into tool errors the model can act on
- ``server``  the MCPServer, logging to a file in MNEMO_HOME, and the stdio run loop

The bridge never imports the model stack (torch, sentence-transformers, spaCy, chromadb): it
answers ``initialize`` as soon as the SDK is loaded, and the daemon is found or started on a
background thread meanwhile.
"""
