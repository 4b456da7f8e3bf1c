"""ADK on a scripted model: a `BaseLlm` that plays a script and records every request as text,
and the contract harness that drives a real `Agent` through `InMemoryRunner`. No network."""

from __future__ import annotations

import os
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.agents.run_config import RunConfig
from google.adk.memory.base_memory_service import BaseMemoryService
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.sessions.session import Session
from google.genai import types
from pydantic import Field
from zep_cloud.client import AsyncZep

from zepkit.adk import ZepContextTool, ZepGraphSearchTool, create_after_model_callback
from zepkit.core import MemoryLoop
from zepkit.testing import TurnResult

os.environ.setdefault("OTEL_SDK_DISABLED", "true")
os.environ.pop("GOOGLE_API_KEY", None)

APP = "zepkit-tests"
USAGE = types.GenerateContentResponseUsageMetadata(
    prompt_token_count=0, candidates_token_count=0, total_token_count=0
)
DEFAULT: Any = object()  # "use the zepkit reply callback" (None means no callback)


def request_text(request: LlmRequest) -> str:
    """Everything the model receives, as text: the system instruction, then each content part."""
    lines = [f"system: {request.config.system_instruction or ''}"]
    for content in request.contents:
        for part in content.parts or []:
            if part.text:
                lines.append(f"{content.role}: {part.text}")
            elif part.function_call:
                lines.append(f"{content.role} calls {part.function_call.name}")
            elif part.function_response:
                lines.append(
                    f"tool {part.function_response.name}: {part.function_response.response}"
                )
    return "\n".join(lines)


def call(name: str, **args: Any) -> types.Part:
    return types.Part(function_call=types.FunctionCall(name=name, args=args))


class ScriptedLlm(BaseLlm):
    """Answers each model call with the next scripted part; records what each call received."""

    model: str = "scripted-fake"
    script: list[types.Part] = Field(default_factory=list)
    inputs: list[str] = Field(default_factory=list)
    requests: list[LlmRequest] = Field(default_factory=list)
    chunks: list[str] = Field(
        default_factory=list
    )  # streamed as partial responses before the final one, when set

    def play(self, parts: Sequence[types.Part]) -> None:
        self.script = list(parts)
        self.inputs = []
        self.requests = []

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.inputs.append(request_text(llm_request))
        self.requests.append(llm_request)
        part = self.script.pop(0)
        if stream and part.text and self.chunks:
            for chunk in self.chunks:
                yield LlmResponse(
                    content=types.Content(role="model", parts=[types.Part(text=chunk)]),
                    partial=True,
                )
        yield LlmResponse(content=types.Content(role="model", parts=[part]), usage_metadata=USAGE)


class AdkHarness:
    """One real ADK agent with zepkit attached; each turn runs through `InMemoryRunner`."""

    supports_tools = True

    def __init__(
        self,
        memory: MemoryLoop | AsyncZep,
        *,
        tools: Sequence[Any] | None = None,
        after_model_callback: Any = DEFAULT,
        memory_service: BaseMemoryService | None = None,
        run_config: RunConfig | None = None,
    ) -> None:
        self.memory = memory
        self.llm = ScriptedLlm()
        self.search = ZepGraphSearchTool(memory)
        self.context_tool = ZepContextTool(memory)
        if after_model_callback is DEFAULT:
            after_model_callback = create_after_model_callback(memory)
        self.agent = LlmAgent(
            name="assistant",
            model=self.llm,
            instruction="You are a helpful assistant.",
            tools=list(tools) if tools is not None else [self.context_tool, self.search],
            after_model_callback=after_model_callback,
        )
        self.runner = InMemoryRunner(agent=self.agent, app_name=APP)
        if memory_service is not None:
            self.runner.memory_service = memory_service
        self.run_config = run_config

    async def session(
        self, user_id: str, session_id: str, state: dict[str, Any] | None = None
    ) -> Session:
        """The ADK session, created (with `state`) on first use."""
        service = self.runner.session_service
        found = await service.get_session(app_name=APP, user_id=user_id, session_id=session_id)
        if found is not None:
            return found
        return await service.create_session(
            app_name=APP, user_id=user_id, session_id=session_id, state=state
        )

    async def run(
        self, user_id: str, session_id: str, text: str, script: Sequence[types.Part]
    ) -> list[Any]:
        """Play `script` for one user message; the events the runner produced."""
        await self.session(user_id, session_id)
        self.llm.play(script)
        message = types.Content(role="user", parts=[types.Part(text=text)])
        kwargs: dict[str, Any] = {"run_config": self.run_config} if self.run_config else {}
        return [
            event
            async for event in self.runner.run_async(
                user_id=user_id, session_id=session_id, new_message=message, **kwargs
            )
        ]

    async def run_turn(
        self,
        *,
        user_id: str,
        thread_id: str,
        text: str,
        reply: str,
        tool_queries: Sequence[str] = (),
    ) -> TurnResult:
        script = [call(self.search.name, query=q) for q in tool_queries]
        events = await self.run(user_id, thread_id, text, [*script, types.Part(text=reply)])
        finals = [e for e in events if e.is_final_response() and e.content and e.content.parts]
        text_out = finals[-1].content.parts[0].text if finals else ""
        return TurnResult(reply=text_out or "", model_inputs=list(self.llm.inputs))


@pytest.fixture
def adk_harness() -> Callable[..., AdkHarness]:
    return AdkHarness
