/**
 * The memory loop for TypeScript agents: one request per turn persists the user's message and
 * returns the block (`thread.addMessages` with `returnContext`), one stores the final reply. It
 * speaks Zep's v3 API through the `@getzep/zep-cloud` SDK, so it runs against Zep Cloud and
 * against `zepkit serve` unchanged.
 */
import { ZepClient, ZepError, type Zep } from "@getzep/zep-cloud";

import { FailSoft, type Logger, type OnError } from "./failsoft.js";
import { checkId, checkIdentity, displayName, type Identity } from "./identity.js";
import {
  DEFAULT_CONTEXT_CHARS,
  DEFAULT_DEADLINE_SECONDS,
  MAX_MESSAGE_CHARS,
  MAX_MESSAGES_PER_CALL,
  MAX_QUERY_CHARS,
} from "./limits.js";
import { LRU } from "./lru.js";
import { checkTemplate, DEFAULT_TEMPLATE, renderContext } from "./rendering.js";
import { runSearch, type SearchSettings, type SearchTarget } from "./search.js";
import { splitText } from "./splitting.js";

const CACHE_SIZE = 2048;

export interface MemoryLoopOptions {
  /** A configured client; otherwise one is made from `apiKey` and `baseUrl`. Never closed here. */
  client?: ZepClient | undefined;
  /** Zep Cloud key, or a `zepkit serve` key (default: the `ZEP_API_KEY` variable). */
  apiKey?: string | undefined;
  /** The v3 API root: `http://HOST:PORT/api/v2` for `zepkit serve` (default: Zep Cloud). */
  baseUrl?: string | undefined;
  /** The block's wording; must contain `{context}` once. */
  template?: string | undefined;
  /** Budget for the rendered block (default 4000); `null` for none. */
  maxContextChars?: number | null | undefined;
  /** The name stored with captured replies (default "Assistant"). */
  assistantName?: string | undefined;
  /** Fail-soft policy: "log" (default), "raise" or a callback. */
  onError?: OnError | undefined;
  logger?: Logger | undefined;
  /** Seconds one memory operation may take in total (default 10). */
  deadlineSeconds?: number | undefined;
}

export interface TurnOptions {
  /** The framework's run or request id: calls with the same one persist once and share a block. */
  turnId?: string | undefined;
}

/** Memory for any number of users through one client: the turn, the reply and the search. */
export class MemoryLoop {
  readonly client: ZepClient;
  readonly template: string;
  readonly maxContextChars: number | null;
  readonly assistantName: string;
  readonly deadlineSeconds: number;
  private readonly failsoft: FailSoft;
  /** The app's own logger, for notes (`info`); `console` is not given them. */
  private readonly notes: Logger | undefined;
  private readonly users = new LRU<string, Promise<void>>(CACHE_SIZE);
  private readonly threads = new LRU<string, Promise<void>>(CACHE_SIZE);
  private readonly turns = new LRU<string, Promise<string>>(CACHE_SIZE);
  private readonly replies = new LRU<string, true>(CACHE_SIZE);
  private readonly lastBlocks = new LRU<string, string>(CACHE_SIZE);

  constructor(options: MemoryLoopOptions = {}) {
    this.client =
      options.client ??
      new ZepClient({
        ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
        ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl.replace(/\/+$/u, "") } : {}),
      });
    this.template = checkTemplate(options.template ?? DEFAULT_TEMPLATE);
    this.maxContextChars =
      options.maxContextChars === undefined ? DEFAULT_CONTEXT_CHARS : options.maxContextChars;
    this.assistantName = options.assistantName ?? "Assistant";
    this.deadlineSeconds = options.deadlineSeconds ?? DEFAULT_DEADLINE_SECONDS;
    this.failsoft = new FailSoft(options.onError ?? "log", options.logger ?? console);
    this.notes = options.logger;
  }

  /** Persist the user's message and return the rendered block for this turn (`""` when memory
   * has nothing to say or failed). With a `turnId`, later calls of the same turn (a tool loop)
   * neither persist again nor ask again: they get the same block. */
  async beginTurn(identity: Identity, text: string, options: TurnOptions = {}): Promise<string> {
    checkIdentity(identity, "beginTurn");
    if (typeof text !== "string") throw new TypeError("beginTurn: text must be a string");
    const key = options.turnId === undefined ? undefined : turnKey(identity, options.turnId);
    const cached = key === undefined ? undefined : this.turns.get(key);
    if (cached !== undefined) return cached;
    const work = this.persistAndRecall(identity, text);
    if (key !== undefined) this.turns.set(key, work);
    return work;
  }

  /** The block for a turn already persisted, without writing (a later step whose first step ran
   * in another process, say). Cached under `turnId` like `beginTurn`. */
  async contextFor(identity: Identity, options: TurnOptions = {}): Promise<string> {
    checkIdentity(identity, "contextFor");
    const key = options.turnId === undefined ? undefined : turnKey(identity, options.turnId);
    const cached = key === undefined ? undefined : this.turns.get(key);
    if (cached !== undefined) return cached;
    const work = this.recall(identity);
    if (key !== undefined) this.turns.set(key, work);
    return work;
  }

  /** Store the assistant's final reply, once per `turnId`; empty text is skipped. */
  async captureReply(identity: Identity, text: string, options: TurnOptions = {}): Promise<void> {
    checkIdentity(identity, "captureReply");
    if (typeof text !== "string" || !text.trim()) return;
    if (options.turnId !== undefined) {
      const key = turnKey(identity, options.turnId);
      if (this.replies.get(key)) return;
      this.replies.set(key, true);
    }
    try {
      await this.write(identity, "assistant", this.assistantName, text, false);
    } catch (error) {
      this.failsoft.handle("reply capture", error, {
        userId: identity.userId,
        threadId: identity.threadId,
        chars: text.length,
      });
    }
  }

  /** A search for the model: validated arguments in, one sentence or `- ` lines out; never
   * throws. The target is the turn's user or a shared graph, never a model argument; `settings`
   * narrow the scopes and pin values (a tool checks them once, when it is made). */
  async search(args: unknown, target: SearchTarget, settings: SearchSettings = {}): Promise<string> {
    if ("userId" in target) checkId(target.userId, "search: userId");
    else checkId(target.graphId, "search: graphId");
    return runSearch(
      this.client,
      args,
      target,
      settings,
      this.requestOptions(),
      (error, scope) => this.failsoft.handle("search tool", error, { ...target, scope }),
      (chars) => this.notes?.info?.(`zepkit: search query cut from ${chars} to ${MAX_QUERY_CHARS} characters`),
    );
  }

  /** Create the user and the thread on first use (once per process; a failure is retried on the
   * next turn). A user who exists already takes the profile fields given (a new name is sent
   * with the first turn that brings it). */
  async provision(identity: Identity): Promise<void> {
    const { userId, threadId } = identity;
    const profile = profileOf(identity);
    await once(this.users, `${userId}\u0000${JSON.stringify(profile)}`, async () => {
      const created = await ignoreConflict(this.client.user.add({ userId, ...profile }, this.requestOptions()));
      if (!created && Object.keys(profile).length > 0) {
        await this.client.user.update(userId, profile, this.requestOptions());
      }
    });
    await once(this.threads, `${userId}\u0000${threadId}`, async () => {
      const created = await ignoreConflict(
        this.client.thread.create({ threadId, userId }, this.requestOptions()),
      );
      if (!created) await this.checkOwner(identity);
    });
  }

  private async persistAndRecall(identity: Identity, text: string): Promise<string> {
    try {
      const context = await this.write(identity, "user", displayName(identity), text, true);
      const block = renderContext(context, this.template, this.maxContextChars);
      this.lastBlocks.set(threadKey(identity), block);
      return block;
    } catch (error) {
      this.failsoft.handle("turn", error, {
        userId: identity.userId,
        threadId: identity.threadId,
        chars: text.length,
      });
      return this.lastBlocks.get(threadKey(identity)) ?? "";
    }
  }

  private async recall(identity: Identity): Promise<string> {
    try {
      await this.provision(identity);
      const answer = await this.client.thread.getUserContext(
        identity.threadId,
        {},
        this.requestOptions(),
      );
      return renderContext(answer.context, this.template, this.maxContextChars);
    } catch (error) {
      this.failsoft.handle("context", error, {
        userId: identity.userId,
        threadId: identity.threadId,
      });
      return this.lastBlocks.get(threadKey(identity)) ?? "";
    }
  }

  /** Store one message (split into pieces of at most 4,096 characters, sent 30 to a call); the
   * thread's context from the last call when `withContext`. */
  private async write(
    identity: Identity,
    role: Zep.RoleType,
    name: string | undefined,
    text: string,
    withContext: boolean,
  ): Promise<string | undefined> {
    await this.provision(identity);
    const pieces = text.trim() ? splitText(text, MAX_MESSAGE_CHARS) : [];
    if (pieces.length === 0 && !withContext) return undefined;
    const messages: Zep.Message[] = pieces.map((content) => ({
      role,
      content,
      ...(name ? { name } : {}),
    }));
    if (messages.length === 0) {
      const answer = await this.client.thread.getUserContext(identity.threadId, {}, this.requestOptions());
      return answer.context;
    }
    let context: string | undefined;
    for (let start = 0; start < messages.length; start += MAX_MESSAGES_PER_CALL) {
      const batch = messages.slice(start, start + MAX_MESSAGES_PER_CALL);
      const last = start + MAX_MESSAGES_PER_CALL >= messages.length;
      const answer = await this.client.thread.addMessages(
        identity.threadId,
        { messages: batch, ...(withContext && last ? { returnContext: true } : {}) },
        this.requestOptions(),
      );
      context = answer.context;
    }
    return context;
  }

  /** A thread id already taken: refuse it unless it belongs to this user, so two users never
   * share a thread's memory. */
  private async checkOwner(identity: Identity): Promise<void> {
    const thread = await this.client.thread.get(identity.threadId, { lastn: 1 }, this.requestOptions());
    if (thread.userId !== undefined && thread.userId !== identity.userId) {
      throw new ThreadOwnerError(identity.threadId);
    }
  }

  private requestOptions(): { timeoutInSeconds: number; maxRetries: number; abortSignal: AbortSignal } {
    return {
      timeoutInSeconds: this.deadlineSeconds,
      maxRetries: 1,
      abortSignal: AbortSignal.timeout(this.deadlineSeconds * 1000),
    };
  }
}

/** A thread id used for a second user: refused rather than mixing two users' memories. */
export class ThreadOwnerError extends Error {
  override readonly name = "ThreadOwnerError";
  constructor(threadId: string) {
    super(`thread ${JSON.stringify(threadId)} belongs to another user`);
  }
}

/** The profile fields an identity gives (an empty one is not given). */
function profileOf(identity: Identity): Pick<Zep.CreateUserRequest, "firstName" | "lastName" | "email"> {
  return {
    ...(identity.firstName ? { firstName: identity.firstName } : {}),
    ...(identity.lastName ? { lastName: identity.lastName } : {}),
    ...(identity.email ? { email: identity.email } : {}),
  };
}

function turnKey(identity: Identity, turnId: string): string {
  return `${identity.userId}\u0000${identity.threadId}\u0000${turnId}`;
}

function threadKey(identity: Identity): string {
  return `${identity.userId}\u0000${identity.threadId}`;
}

/** Run `work` once per key; a failure is forgotten so the next call tries again. */
async function once(cache: LRU<string, Promise<void>>, key: string, work: () => Promise<void>): Promise<void> {
  let running = cache.get(key);
  if (running === undefined) {
    running = work();
    cache.set(key, running);
    running.catch(() => cache.delete(key));
  }
  await running;
}

/** Await a create; `false` when it already existed (HTTP 409), `true` when created now. */
async function ignoreConflict(request: Promise<unknown>): Promise<boolean> {
  try {
    await request;
    return true;
  } catch (error) {
    if (error instanceof ZepError && error.statusCode === 409) return false;
    throw error;
  }
}
