/** The fail-soft policy: a memory error is logged (stage, ids, lengths; never content, never keys)
 * and the turn goes on without memory, unless the app asks otherwise. */

export type OnError = "log" | "raise" | ((stage: string, error: unknown) => void);

/** Where zepkit logs; `console` by default. `warn` says a memory call failed; `info`, when the
 * app's logger has one, notes what zepkit changed on the way (a search query cut to its limit),
 * as Python's INFO level does (the default `console` is not given those notes). */
export interface Logger {
  warn(message: string): void;
  info?(message: string): void;
}

/** What a log line may say about a failure: its kind and status, not its message (which may
 * echo content). */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const status = (error as { statusCode?: unknown }).statusCode;
    const name = error.name === "Error" ? error.constructor.name : error.name;
    return typeof status === "number" ? `${name} (HTTP ${status})` : name;
  }
  return typeof error;
}

export class FailSoft {
  constructor(
    private readonly onError: OnError,
    private readonly logger: Logger,
  ) {}

  /** Apply the policy to a failure at `stage`; `details` are ids and lengths only. */
  handle(stage: string, error: unknown, details: Record<string, string | number | undefined>): void {
    if (this.onError === "raise") throw error;
    if (typeof this.onError === "function") {
      this.onError(stage, error);
      return;
    }
    const shown = Object.entries(details)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${key}=${String(value)}`)
      .join(" ");
    this.logger.warn(`zepkit: memory ${stage} failed (${describeError(error)}; ${shown}); going on without it`);
  }
}
