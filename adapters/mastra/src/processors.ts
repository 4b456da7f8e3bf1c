/**
 * Mastra processors: the input processor persists the user's message and adds the memory block
 * as a system message once per request (Mastra sends it with every step of the tool loop); the
 * output processor stores the final reply once.
 */
import type { Identity, MemoryLoop } from "@zepkit/core";
import type { MastraDBMessage } from "@mastra/core/agent";
import type { ProcessInputArgs, ProcessOutputResultArgs, Processor } from "@mastra/core/processors";

import { runIdentity } from "./identity.js";

/** The tag of the block's system message in Mastra's message list. */
export const SYSTEM_MESSAGE_TAG = "zepkit-memory";

export interface ZepProcessorOptions {
  /** Identity fields for every run (the run's request context and memory ids fill the rest). */
  identity?: Partial<Identity> | undefined;
}

type Part = MastraDBMessage["content"]["parts"][number];

function partText(part: Part): string | undefined {
  return part.type === "text" ? part.text : undefined;
}

function messageText(message: MastraDBMessage): string {
  const texts = message.content.parts.flatMap((part) => partText(part) ?? []);
  if (texts.length > 0) return texts.join("\n");
  return typeof message.content.content === "string" ? message.content.content : "";
}

export class ZepInputProcessor implements Processor<"zepkit-memory-input"> {
  readonly id = "zepkit-memory-input";
  readonly name = "zepkit memory (input)";

  constructor(
    private readonly memory: MemoryLoop,
    private readonly options: ZepProcessorOptions = {},
  ) {}

  async processInput({ messageList, requestContext }: ProcessInputArgs): Promise<ProcessInputArgs["messageList"]> {
    const identity = runIdentity(requestContext, this.options.identity ?? {}, "ZepInputProcessor");
    const said = messageList.get.input.db().filter((message) => message.role === "user").at(-1);
    if (said === undefined) return messageList;
    const block = await this.memory.beginTurn(identity, messageText(said));
    if (block) messageList.addSystem(block, SYSTEM_MESSAGE_TAG);
    return messageList;
  }
}

export class ZepOutputProcessor implements Processor<"zepkit-memory-output"> {
  readonly id = "zepkit-memory-output";
  readonly name = "zepkit memory (output)";

  constructor(
    private readonly memory: MemoryLoop,
    private readonly options: ZepProcessorOptions = {},
  ) {}

  async processOutputResult(args: ProcessOutputResultArgs): Promise<ProcessOutputResultArgs["messageList"]> {
    const { messageList, requestContext } = args;
    const identity = runIdentity(requestContext, this.options.identity ?? {}, "ZepOutputProcessor");
    const reply = finalReply(args);
    if (reply) await this.memory.captureReply(identity, reply);
    return messageList;
  }
}

/** The text of the run's last step; nothing when it ended on tool calls (a run cut short). */
function finalReply(args: ProcessOutputResultArgs): string {
  const { result } = args as { result?: { steps?: Array<{ text?: unknown; finishReason?: unknown }> } };
  const last = result?.steps?.at(-1);
  if (last !== undefined) {
    return last.finishReason === "tool-calls" || typeof last.text !== "string" ? "" : last.text;
  }
  // releases without `result`: the response's text after its last tool call
  const parts = args.messageList.get.response
    .db()
    .filter((message) => message.role === "assistant")
    .flatMap((message) => message.content.parts);
  const lastTool = parts.findLastIndex((part) => part.type === "tool-invocation");
  return parts
    .slice(lastTool + 1)
    .flatMap((part) => partText(part) ?? [])
    .join("");
}

/** Both processors, for `inputProcessors` and `outputProcessors`. */
export function zepMemoryProcessors(
  memory: MemoryLoop,
  options: ZepProcessorOptions = {},
): { input: ZepInputProcessor; output: ZepOutputProcessor } {
  return { input: new ZepInputProcessor(memory, options), output: new ZepOutputProcessor(memory, options) };
}
