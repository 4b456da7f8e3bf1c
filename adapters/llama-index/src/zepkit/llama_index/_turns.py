"""Reading a LlamaIndex chat history as turns: which user message is current, and whether the run
has answered it yet.

A memory block only sees the history (`Memory.aget` hands it the stored messages), never a run id,
so a turn is told apart by its user message: while a run works, its user message stays the last
one (tool calls wait in the agent's scratchpad); when it finishes, the final reply follows it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock

# A ReAct agent's final step as it is kept in the history: "Thought: ...\nAnswer: <the reply>".
_REACT_ANSWER = re.compile(r"\s*Thought:.*?\nAnswer:[ \t]*", re.DOTALL)


def reply_text(text: str) -> str:
    """What the user reads of a final assistant message: a ReAct step's answer, else the text."""
    found = _REACT_ANSWER.match(text)
    return (text[found.end() :] if found else text).strip()


def message_text(message: ChatMessage) -> str:
    """The text blocks of a message; images and other media are not text memory."""
    return "\n".join(block.text for block in message.blocks if isinstance(block, TextBlock))


@dataclass
class Turn:
    """Where the current turn's user message sits in the history, and what it says."""

    index: int
    text: str
    replied: bool = False


@dataclass(frozen=True)
class Seen:
    """What one look at the history shows: the current user message and the reply, if any."""

    index: int
    text: str
    answered: bool
    reply: str | None


def read_history(messages: Sequence[ChatMessage]) -> Seen | None:
    """The last user message and what follows it (None when there is no user message)."""
    history = list(messages)
    # `Memory.aget(input=...)` hands blocks the stored history plus the run's input again.
    if (
        len(history) >= 2
        and history[-1].role == MessageRole.USER
        and history[-2].role == MessageRole.USER
        and message_text(history[-1]) == message_text(history[-2])
    ):
        history.pop()
    index = next(
        (i for i in range(len(history) - 1, -1, -1) if history[i].role == MessageRole.USER),
        None,
    )
    if index is None:
        return None
    tail = history[index + 1 :]
    reply = None
    if tail and tail[-1].role == MessageRole.ASSISTANT:
        reply = reply_text(message_text(tail[-1])) or None
    return Seen(index, message_text(history[index]), bool(tail), reply)


def is_new_turn(turn: Turn | None, seen: Seen) -> bool:
    """A different user message is a new turn; so is the same text again once the last turn was
    answered, or at another place (a retry after a failed run). Older messages leaving the active
    history (LlamaIndex archives them) move the index but not the text, so they start nothing."""
    if turn is None or turn.text != seen.text:
        return True
    return not seen.answered and (turn.replied or turn.index != seen.index)
