"""What an agent harness writes into a transcript as a user message that the person did
not type: a slash command's echo, a caveat, Codex's environment context, a note that a
request was interrupted. Capture keeps such turns but does not count them as prompts, and
the learned type (memoryd.llm.typeclf) does not count them as turns the person spoke in."""

from __future__ import annotations

NOT_PROMPTS = (
    "<command-name>",
    "<command-message>",
    "<local-command",
    "Caveat:",
    "<environment_context>",
    "<user_instructions>",
    "This session is being continued",
    "[Request interrupted",
)


def written_by_harness(text: str) -> bool:
    """Whether a user message (stripped or not) is one the harness wrote."""
    return text.lstrip().startswith(NOT_PROMPTS)
