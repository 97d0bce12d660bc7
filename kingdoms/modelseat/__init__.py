"""Model seats: `kingdoms seat` puts an LLM from Anthropic, OpenAI or an OpenAI-compatible server on a seat.

It plays through the MCP tools like any external agent and stores each model call's tokens, latency and cost
in the game file (through the server's harness tool `report_usage`). `providers` holds the SDK adapters (the
SDKs come with the optional extra `kingdoms[models]` and are imported only when used), `costs` the price table,
`seat` the month loop and the command.
"""
