/**
 * The memory loop for TypeScript agents: one request per turn persists the user's message and
 * returns the block (`thread.addMessages` with `returnContext`), one stores the final reply. It
 * speaks Zep's v3 API through the `@getzep/zep-cloud` SDK, so it runs against Zep Cloud and
 * against `zepkit serve` unchanged.
 */
import { randomUUID } from "node:crypto";

import { ZepClient, ZepError, type Zep } from "@getzep/zep-cloud";

import { FailSoft, type Logger, type OnError } from "./failsoft.js";
import { checkId, checkIdentity, displayName, type Identity } from "./identity.js";
import { DEFAULT_MAX_KEPT_WRITES, isTransient, KeptWrites, type Write } from "./kept.js";
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
/** Seconds before kept writes are tried again after a failure, doubling up to the last. */
const RETRY_SECONDS = [1, 2, 5, 15, 30];

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
  /** Writes kept in this process while memory is unreachable (default 1000; 0 keeps none). */
  maxKeptWrites?: number | undefined;
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
  private readonly logger: Logger;
  private readonly kept: KeptWrites;
  /** Each thread's writes run one after another, so kept ones go first and order holds. */
  private readonly chains = new Map<string, Promise<void>>();
  private failures = 0;
  private retryAt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;

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
    this.kept = new KeptWrites(options.maxKeptWrites ?? DEFAULT_MAX_KEPT_WRITES);
    this.logger = options.logger ?? console;
  }

  /** Writes kept while memory was unreachable and not yet sent. */
  get keptWrites(): number {
    return this.kept.size;
  }

  /** Send the kept writes now, each thread's in order; the number still kept after (memory
   * still unreachable). They are also sent before their thread's next write, and in the
   * background, with backoff, while any wait. */
  async flush(): Promise<number> {
    for (const thread of this.kept.waiting()) {
      try {
        await this.serial(thread, () => this.sendKept(thread));
      } catch (error) {
        if (isTransient(error)) this.failed();
        break; // still unreachable: the rest would fail alike
      }
    }
    return this.kept.size;
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
      if (error instanceof KeptBehindError) return;
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
      if (error instanceof KeptBehindError) return this.lastBlocks.get(threadKey(identity)) ?? "";
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
   * thread's context from the last call when `withContext`. The thread's kept writes go first; a
   * write that fails for a transient reason is kept (and the error still thrown). */
  private async write(
    identity: Identity,
    role: Zep.RoleType,
    name: string | undefined,
    text: string,
    withContext: boolean,
  ): Promise<string | undefined> {
    const said = new Date().toISOString();
    const pieces = text.trim() ? splitText(text, MAX_MESSAGE_CHARS) : [];
    if (pieces.length === 0 && !withContext) return undefined;
    const messages: Zep.Message[] = pieces.map((content) => ({
      role,
      content,
      ...(name ? { name } : {}),
    }));
    const writes: Write[] = [];
    for (let start = 0; start < messages.length; start += MAX_MESSAGES_PER_CALL) {
      writes.push({ messages: messages.slice(start, start + MAX_MESSAGES_PER_CALL), key: randomUUID() });
    }
    const thread = threadKey(identity);
    return this.serial(thread, async () => {
      let sent = 0;
      try {
        if (this.kept.first(thread) && Date.now() < this.retryAt) {
          throw new KeptBehindError(); // memory failed a moment ago: queue without waiting on it
        }
        await this.provision(identity);
        await this.sendKept(thread);
        if (writes.length === 0) {
          const answer = await this.client.thread.getUserContext(identity.threadId, {}, this.requestOptions());
          return answer.context;
        }
        let context: string | undefined;
        for (const write of writes) {
          const last = sent === writes.length - 1;
          context = await this.send(identity.threadId, write, withContext && last);
          sent += 1;
        }
        this.recovered();
        return context;
      } catch (error) {
        const rest = writes.slice(sent);
        if (rest.length > 0 && (error instanceof KeptBehindError || isTransient(error))) {
          this.keep(thread, identity, rest, said, text.length);
        }
        if (isTransient(error)) this.failed();
        throw error;
      }
    });
  }

  private async send(threadId: string, write: Write, withContext: boolean): Promise<string | undefined> {
    const options = this.requestOptions();
    const answer = await this.client.thread.addMessages(
      threadId,
      { messages: write.messages, ...(withContext ? { returnContext: true } : {}) },
      { ...options, headers: { "Idempotency-Key": write.key } },
    );
    return answer.context;
  }

  /** Send the thread's kept writes, oldest first (run inside the thread's chain). A transient
   * failure stops and throws, keeping the rest; a write refused for good is logged and dropped. */
  private async sendKept(thread: string): Promise<void> {
    for (let next = this.kept.first(thread); next; next = this.kept.first(thread)) {
      const { identity, write } = next;
      try {
        await this.provision(identity);
        await this.send(identity.threadId, write, false);
      } catch (error) {
        if (isTransient(error)) throw error; // the caller counts the failure once
        this.kept.dropFirst(thread);
        this.failsoft.handle("kept write", error, {
          userId: identity.userId,
          threadId: identity.threadId,
          messages: write.messages.length,
        });
        continue;
      }
      this.kept.dropFirst(thread);
    }
  }

  /** Keep writes that could not be sent, stamped with when they were said; lost, and logged as
   * such, when the process keeps too many already. */
  private keep(thread: string, identity: Identity, writes: Write[], said: string, chars: number): void {
    const stamped = writes.map((write) => ({
      ...write,
      messages: write.messages.map((message) => ({ ...message, createdAt: message.createdAt ?? said })),
    }));
    const where = `userId=${identity.userId} threadId=${identity.threadId} chars=${chars}`;
    if (this.kept.keep(thread, identity, stamped)) {
      this.notes?.info?.(`zepkit: memory unreachable, write kept until it answers (${where})`);
      this.scheduleRetry();
    } else {
      this.logger.warn(
        `zepkit: memory unreachable and ${this.kept.size} writes kept already (maxKeptWrites ` +
          `${this.kept.limit}); this write is lost (${where})`,
      );
    }
  }

  private failed(): void {
    const delay = RETRY_SECONDS[Math.min(this.failures, RETRY_SECONDS.length - 1)] ?? 30;
    this.failures += 1;
    this.retryAt = Date.now() + delay * 1000;
    this.scheduleRetry();
  }

  private recovered(): void {
    this.failures = 0;
    this.retryAt = 0;
    if (this.kept.size > 0) this.scheduleRetry(0);
  }

  /** Flush in the background once the backoff has passed; the timer never keeps the process
   * alive. */
  private scheduleRetry(after = Math.max(0, this.retryAt - Date.now())): void {
    if (this.retryTimer !== undefined || this.kept.size === 0) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.flush().then((left) => {
        if (left > 0) this.scheduleRetry();
      });
    }, after);
    this.retryTimer.unref?.();
  }

  /** Run `work` after the thread's earlier writes, whatever became of them. */
  private serial<T>(thread: string, work: () => Promise<T>): Promise<T> {
    const before = this.chains.get(thread) ?? Promise.resolve();
    const run = before.then(work);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.chains.set(thread, settled);
    void settled.then(() => {
      if (this.chains.get(thread) === settled) this.chains.delete(thread);
    });
    return run;
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

/** A write queued behind its thread's kept ones while memory is failing: not an error of its own. */
class KeptBehindError extends Error {
  override readonly name = "KeptBehindError";
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
