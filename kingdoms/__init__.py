"""Kingdoms: a turn-based hex strategy game whose rulers are LLM agents playing over MCP."""

__version__ = "0.1.0"

#: Version of the rules the engine implements; stored in every game file so replays can refuse a mismatch.
RULES_VERSION = "captures-2026.11"
