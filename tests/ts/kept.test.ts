/** Writes made while memory is unreachable are kept in the process and sent once it answers, in
 * order, each stored once; past the limit a write is refused and logged as lost. */
import { describe, expect, it } from "vitest";

import { outage, serverMemory, stored, uniqueId } from "./helpers.js";

describe("kept writes", () => {
  it("are sent in order once memory answers, at the time they were said", async () => {
    const notes: string[] = [];
    const memory = serverMemory({ logger: { warn: () => undefined, info: (note) => notes.push(note) } });
    const ids = { userId: uniqueId("kai"), threadId: uniqueId("thread") };
    const down = outage();
    let saidBy: number;
    try {
      expect(await memory.beginTurn(ids, "My cat is called Miso.")).toBe("");
      await memory.captureReply(ids, "Lovely name.");
      expect(await memory.beginTurn(ids, "She is nine.")).toBe("");
      saidBy = Date.now();
    } finally {
      down.stop();
    }
    expect(memory.keptWrites).toBe(3);
    expect(notes.join("\n")).toContain("write kept");
    expect(notes.join("\n")).not.toMatch(/Miso|nine/u); // ids and lengths only
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await memory.flush()).toBe(0);
    expect(await stored(memory, ids.threadId)).toEqual([
      "user: My cat is called Miso.",
      "assistant: Lovely name.",
      "user: She is nine.",
    ]);
    const thread = await memory.client.thread.get(ids.threadId);
    const first = thread.messages?.[0]?.createdAt;
    expect(first && Date.parse(first)).toBeLessThanOrEqual(saidBy); // not when it was sent
    // a new conversation finds what was kept
    const later = { ...ids, threadId: uniqueId("thread") };
    expect(await memory.beginTurn(later, "What is my cat called?")).toContain("Miso");
  });

  it("go before the thread's next write, and one whose answer was lost is stored once", async () => {
    const memory = serverMemory({ logger: { warn: () => undefined } });
    const ids = { userId: uniqueId("lou"), threadId: uniqueId("thread") };
    await memory.beginTurn(ids, "Hello there.");
    const lost = outage({ path: "/messages", after: true });
    try {
      await memory.beginTurn(ids, "I keep bees on my roof.");
    } finally {
      lost.stop();
    }
    expect(memory.keptWrites).toBe(1);
    // memory failed a moment ago: a write now queues behind without waiting on it
    await memory.captureReply(ids, "Bees are great.");
    expect(memory.keptWrites).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the backoff after one failure
    await memory.beginTurn(ids, "They made honey this year.");
    expect(memory.keptWrites).toBe(0);
    expect(await stored(memory, ids.threadId)).toEqual([
      "user: Hello there.",
      "user: I keep bees on my roof.",
      "assistant: Bees are great.",
      "user: They made honey this year.",
    ]);
  });

  it("past the limit, a write is refused and logged as lost, without its content", async () => {
    const warned: string[] = [];
    const memory = serverMemory({ maxKeptWrites: 1, logger: { warn: (message) => warned.push(message) } });
    const ids = { userId: uniqueId("max"), threadId: uniqueId("thread") };
    const down = outage();
    try {
      await memory.beginTurn(ids, "I work as a potter.");
      await memory.beginTurn(ids, "My studio is in Leith.");
    } finally {
      down.stop();
    }
    expect(memory.keptWrites).toBe(1);
    expect(warned.join("\n")).toMatch(/maxKeptWrites 1\); this write is lost/u);
    expect(warned.join("\n")).not.toMatch(/potter|Leith/u);
    expect(await memory.flush()).toBe(0);
    expect(await stored(memory, ids.threadId)).toEqual(["user: I work as a potter."]);
  });

  it("refuse a limit that is not a whole number", () => {
    expect(() => serverMemory({ maxKeptWrites: -1 })).toThrow(/maxKeptWrites/u);
  });
});
