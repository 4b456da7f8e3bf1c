/**
 * A language-model middleware for `wrapLanguageModel`: before each model call the user's message
 * is persisted and the memory block goes into the system prompt (once per turn: every later step
 * of a tool loop gets the same block, from a cache, with no request); the final reply is stored
 * once, tool-call steps and partial chunks never.
 */
import type { LanguageModelMiddleware } from "ai";
import { randomUUID } from "node:crypto";

import { checkIdentity, LRU, type Identity, type MemoryLoop } from "@zepkit/core";

type TransformOptions = Parameters<NonNullable<LanguageModelMiddleware["transformParams"]>>[0];
type WrapGenerateOptions = Parameters<NonNullable<LanguageModelMiddleware["wrapGenerate"]>>[0];
type WrapStreamOptions = Parameters<NonNullable<LanguageModelMiddleware["wrapStream"]>>[0];
type CallOptions = TransformOptions["params"];
type Prompt = CallOptions["prompt"];
type StreamResult = Awaited<ReturnType<WrapStreamOptions["doStream"]>>;
type StreamPart = StreamResult["stream"] extends ReadableStream<infer Part> ? Part : never;

/** The `providerOptions` key that carries a call's identity: `{ zepkit: { userId, threadId } }`. */
export const PROVIDER_OPTIONS_KEY = "zepkit";

/** What a call may say about itself under `providerOptions.zepkit`. */
export interface ZepCallOptions extends Partial<Identity> {
  /** A stable id for this turn (your request id): all its model calls share one persisted
   * message and one block, even across processes. Without it, a call whose prompt ends with the
   * user's message starts a turn and the calls after it (tool results appended) continue it. */
  turnId?: string;
}

export interface ZepMemoryMiddlewareOptions {
  /** Identity fields for every call (a per-call `providerOptions.zepkit` wins field by field). */
  identity?: Partial<Identity> | undefined;
}

/** Long-term memory for any model: `wrapLanguageModel({ model, middleware: zepMemoryMiddleware(memory) })`. */
export function zepMemoryMiddleware(
  memory: MemoryLoop,
  options: ZepMemoryMiddlewareOptions = {},
): LanguageModelMiddleware {
  const defaults = options.identity ?? {};
  const turns = new WeakMap<CallOptions, { identity: Identity; turnId: string }>();
  // the turn each user message started, so the steps after it find it
  const started = new LRU<string, string>(2048);

  return {
    specificationVersion: "v4",

    async transformParams({ params }: TransformOptions): Promise<CallOptions> {
      const { identity, turnId: explicitTurn, rest } = callIdentity(params, defaults);
      const { text, position, startsTurn } = lastUserTurn(params.prompt);
      const where = [identity.userId, identity.threadId, position, text].join("\u0000");
      const turnId = explicitTurn ?? (startsTurn ? randomUUID() : (started.get(where) ?? where));
      let block = "";
      if (text !== undefined && startsTurn) {
        started.set(where, turnId);
        block = await memory.beginTurn(identity, text, { turnId });
      } else if (text !== undefined) {
        block = await memory.contextFor(identity, { turnId });
      }
      const transformed: CallOptions = {
        ...params,
        prompt: block ? withBlock(params.prompt, block) : params.prompt,
        ...(rest === undefined ? {} : { providerOptions: rest }),
      };
      if (rest === undefined) delete transformed.providerOptions;
      if (text !== undefined) turns.set(transformed, { identity, turnId });
      return transformed;
    },

    async wrapGenerate({ doGenerate, params }: WrapGenerateOptions) {
      const result = await doGenerate();
      const turn = turns.get(params);
      const toolStep = result.content.some((part) => part.type === "tool-call");
      if (turn !== undefined && !toolStep) {
        const reply = result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
        await memory.captureReply(turn.identity, reply, { turnId: turn.turnId });
      }
      return result;
    },

    async wrapStream({ doStream, params }: WrapStreamOptions) {
      const result = await doStream();
      const turn = turns.get(params);
      if (turn === undefined) return result;
      let reply = "";
      let toolStep = false;
      let failed = false;
      const capture = new TransformStream<StreamPart, StreamPart>({
        transform(part, controller) {
          if (part.type === "text-delta") reply += part.delta;
          else if (part.type === "tool-call") toolStep = true;
          else if (part.type === "error") failed = true;
          else if (part.type === "finish" && part.finishReason.unified === "tool-calls") toolStep = true;
          controller.enqueue(part);
        },
        async flush() {
          if (!toolStep && !failed) {
            await memory.captureReply(turn.identity, reply, { turnId: turn.turnId });
          }
        },
      });
      return { ...result, stream: result.stream.pipeThrough(capture) };
    },
  };
}

/** The call's identity (defaults, then `providerOptions.zepkit`) and the provider options
 * without ours, so the provider never sees them. */
function callIdentity(
  params: CallOptions,
  defaults: Partial<Identity>,
): { identity: Identity; turnId: string | undefined; rest: CallOptions["providerOptions"] } {
  const { [PROVIDER_OPTIONS_KEY]: ours, ...others } = params.providerOptions ?? {};
  const given = (ours ?? {}) as ZepCallOptions;
  const { turnId, ...fields } = given;
  const identity = checkIdentity({ ...defaults, ...fields }, "zepMemoryMiddleware");
  if (turnId !== undefined && (typeof turnId !== "string" || !turnId)) {
    throw new TypeError("zepMemoryMiddleware: providerOptions.zepkit.turnId must be a non-empty string");
  }
  const rest = params.providerOptions === undefined ? undefined : others;
  return { identity, turnId, rest };
}

/** The user's latest message, where it sits (its turn: the number of user messages so far) and
 * whether this call starts its turn (nothing after it yet) or continues it (a tool loop step). */
function lastUserTurn(prompt: Prompt): {
  text: string | undefined;
  position: number;
  startsTurn: boolean;
} {
  let index = -1;
  let users = 0;
  prompt.forEach((message, i) => {
    if (message.role === "user") {
      index = i;
      users += 1;
    }
  });
  const message = prompt[index];
  if (message === undefined || message.role !== "user") {
    return { text: undefined, position: 0, startsTurn: false };
  }
  const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
  return { text, position: users, startsTurn: index === prompt.length - 1 };
}

/** The prompt with the block at the end of its system message (one is added when it has none). */
function withBlock(prompt: Prompt, block: string): Prompt {
  const first = prompt[0];
  if (first !== undefined && first.role === "system") {
    return [{ ...first, content: `${first.content}\n\n${block}` }, ...prompt.slice(1)];
  }
  return [{ role: "system", content: block }, ...prompt];
}
