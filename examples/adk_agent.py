"""A Google ADK agent with zepkit memory: two sessions of one user; the second session's model
input holds what she said in the first.

Run: python examples/adk_agent.py   (offline: a scripted model on the embedded local engine)
With GOOGLE_API_KEY set, the same agent runs on Gemini (model from GEMINI_MODEL, default
gemini-2.5-flash).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import AsyncGenerator

from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types

from zepkit.adk import ZepContextTool, ZepGraphSearchTool, create_after_model_callback
from zepkit.core import MemoryLoop

APP = "zepkit-adk-example"


class ScriptedGemini(BaseLlm):
    """Stands in for Gemini offline: a question about Tobias first searches memory."""

    model: str = "scripted"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        last = llm_request.contents[-1].parts[0]
        if last.function_response:
            part = types.Part(text=f"From memory: {last.function_response.response['result']}")
        elif last.text and "Tobias" in last.text and last.text.endswith("?"):
            call = types.FunctionCall(name="search_memory", args={"query": "Tobias"})
            part = types.Part(function_call=call)
        else:
            part = types.Part(text="Noted, thanks for telling me.")
        usage = types.GenerateContentResponseUsageMetadata(
            prompt_token_count=0, candidates_token_count=0, total_token_count=0
        )
        yield LlmResponse(content=types.Content(role="model", parts=[part]), usage_metadata=usage)


async def main(db_path: str) -> None:
    seen: list[str] = []

    def record(callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        """Keep each model call's system instruction, to show what the model received."""
        seen.append(str(llm_request.config.system_instruction or ""))

    use_gemini = bool(os.environ.get("GOOGLE_API_KEY"))
    model = os.environ.get("GEMINI_MODEL", "gemini-2.5-flash") if use_gemini else ScriptedGemini()
    async with MemoryLoop.local(db_path) as memory:
        agent = LlmAgent(
            name="assistant",
            model=model,
            instruction="You are a friendly assistant. Answer in one sentence.",
            tools=[ZepContextTool(memory), ZepGraphSearchTool(memory)],
            before_model_callback=record,
            after_model_callback=create_after_model_callback(memory),
        )
        runner = InMemoryRunner(agent=agent, app_name=APP)
        said = [
            ("monday", "My brother Tobias plays the trombone in a jazz band."),
            ("tuesday", "What instrument does Tobias play?"),
        ]
        for session_id, text in said:
            await runner.session_service.create_session(
                app_name=APP, user_id="ana", session_id=session_id, state={"zep_first_name": "Ana"}
            )
            seen.clear()
            message = types.Content(role="user", parts=[types.Part(text=text)])
            async for event in runner.run_async(
                user_id="ana", session_id=session_id, new_message=message
            ):
                if event.is_final_response() and event.content and event.content.parts:
                    print(f"[{session_id}] ana: {text}")
                    print(f"[{session_id}] agent: {event.content.parts[0].text}")

        print(f"\nTuesday's model calls: {len(seen)}; the first one's instructions:\n{seen[0]}")
        assert seen and all("trombone" in instruction for instruction in seen)
        stored = await memory.get_messages("tuesday")
        assert [m.role for m in stored] == ["user", "assistant"]


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(main(os.path.join(folder, "memory.db")))
