"""promptlint: a prompt-cache linter for agent system prompts."""

__version__ = "0.1.0"
