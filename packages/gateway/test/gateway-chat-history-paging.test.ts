// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * chat.history against a real gateway: a long session pages from the newest with `limit` and `before` (each
 * page's `cursor`) until `hasMore` is false, the pages together are the whole history once and in order, tool
 * results come with the assistant message that called the tool, and a cursor from before a reset is refused.
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GatewayClient, GatewayRequestError } from "../src/cli/gateway-client.js";
import { connectClient, type GatewayProc, type MockGateway, startMockGateway } from "./gateway-harness.js";

let gw: GatewayProc;
let client: GatewayClient;
let started: MockGateway | undefined;

beforeAll(async () => {
  started = await startMockGateway();
  ({ gw } = started);
  ({ client } = await connectClient(gw.url));
});

afterAll(async () => {
  await client?.close();
  await started?.stop();
});

async function run(sessionKey: string, message: string): Promise<void> {
  const f: any = await client.request(
    "agent",
    { message, idempotencyKey: randomUUID(), sessionKey },
    { expectFinal: true },
  );
  expect(f.status).toBe("ok");
}

const text = (m: any): string =>
  typeof m.content === "string" ? m.content : m.content.map((c: any) => c.text ?? `[${c.type}]`).join("");

describe("chat.history paging", () => {
  it("pages a long session from the newest; pages join into the whole history; tool results included", async () => {
    const key = "agent:main:paging";
    for (let i = 1; i <= 7; i++) await run(key, `message ${i}`);
    const file = join(gw.home, "notes.txt");
    writeFileSync(file, "the file's words");
    await run(key, `[tool:read:${file}]`);

    const whole: any = await client.request("chat.history", { sessionKey: key, limit: 1000 });
    // 7 × (user, assistant) + user, assistant(tool call), tool result, assistant.
    expect(whole.messages.map((m: any) => m.role)).toEqual([
      ...Array.from({ length: 7 }, () => ["user", "assistant"]).flat(),
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    expect(whole.hasMore).toBe(false);
    expect(whole.cursor).toBeUndefined();
    const call = whole.messages[15].content.find((c: any) => c.type === "toolCall");
    expect(whole.messages[16]).toMatchObject({
      role: "toolResult",
      toolCallId: call.id,
      toolName: "read",
      isError: false,
    });
    expect(text(whole.messages[16])).toContain("the file's words");

    // The newest page of 2 would start with the tool result: it takes the assistant message that called it too.
    const first: any = await client.request("chat.history", { sessionKey: key, limit: 2 });
    expect(first.messages.map((m: any) => m.role)).toEqual(["assistant", "toolResult", "assistant"]);
    expect(first.hasMore).toBe(true);

    const pages: any[][] = [first.messages];
    let cursor: string | undefined = first.cursor;
    while (cursor) {
      const page: any = await client.request("chat.history", { sessionKey: key, limit: 4, before: cursor });
      expect(page.messages.length).toBeGreaterThan(0);
      pages.unshift(page.messages);
      cursor = page.hasMore ? page.cursor : undefined;
      if (!page.hasMore) expect(page.cursor).toBeUndefined();
    }
    expect(pages.length).toBe(5);
    expect(pages.flat()).toEqual(whole.messages);
    expect(text(pages[0]?.[0])).toBe("message 1");

    // New messages after a page do not shift older pages: the same cursor gives the same page.
    const again: any = await client.request("chat.history", { sessionKey: key, limit: 4, before: first.cursor });
    await run(key, "message 9");
    const later: any = await client.request("chat.history", { sessionKey: key, limit: 4, before: first.cursor });
    expect(later.messages).toEqual(again.messages);
  }, 90_000);

  it("refuses a cursor from before a reset (history-changed) and one that is not a cursor, clearly", async () => {
    const key = "agent:main:paging-reset";
    for (let i = 1; i <= 3; i++) await run(key, `turn ${i}`);
    const page: any = await client.request("chat.history", { sessionKey: key, limit: 2 });
    expect(page.hasMore).toBe(true);
    await client.request("sessions.reset", { key });
    const err = await client
      .request("chat.history", { sessionKey: key, limit: 2, before: page.cursor })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayRequestError);
    expect((err as any).error).toMatchObject({ code: "INVALID_REQUEST", details: { reason: "history-changed" } });
    expect((err as any).message).toMatch(/reset/);
    const bad = await client.request("chat.history", { sessionKey: key, before: "nonsense" }).catch((e: unknown) => e);
    expect((bad as any).error).toMatchObject({ code: "INVALID_REQUEST", details: { key: "before" } });
    // The newest page still answers (empty after the reset).
    const fresh: any = await client.request("chat.history", { sessionKey: key });
    expect(fresh).toMatchObject({ messages: [], hasMore: false });
  }, 60_000);
});
