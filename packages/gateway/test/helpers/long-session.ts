/**
 * Writes a long v3 session file the way the coding agent would: turns of user → assistant (tool call) → tool
 * result → assistant, with entries the history does not show (model changes, custom entries, labels), abandoned
 * branches (a retried turn: its entries stay in the file, the leaf's branch goes around them) and, optionally, a
 * compaction. Used by the chat.history tests and bench/gateway-history.bench.ts.
 */
import { writeFileSync } from "node:fs";

export interface LongSessionOptions {
  /** Turns written (each 4 context entries, plus the extras). */
  turns: number;
  /** Every this many turns, an abandoned branch of 2 entries before the turn (0: none). */
  branchEvery?: number;
  /** After this turn, a compaction that keeps the entries from `keepTurns` turns back. */
  compactAfterTurn?: number;
  keepTurns?: number;
  /** Characters of filler text per message. */
  textChars?: number;
}

export interface LongSession {
  file: string;
  /** Entries written (header excluded). */
  entries: number;
  bytes: number;
}

export function writeLongSession(file: string, o: LongSessionOptions): LongSession {
  const lines: string[] = [];
  let n = 0;
  const ts = "2026-01-01T00:00:00.000Z";
  const filler = "x".repeat(o.textChars ?? 200);
  lines.push(
    JSON.stringify({
      type: "session",
      version: 3,
      id: "0190f000-0000-7000-8000-000000000000",
      timestamp: ts,
      cwd: "/",
    }),
  );
  let leaf: string | null = null;
  const turnStarts: string[] = [];
  const add = (fields: Record<string, unknown>, parent: string | null = leaf): string => {
    const id = (n++).toString(16).padStart(8, "0");
    lines.push(JSON.stringify({ ...fields, id, parentId: parent, timestamp: ts }));
    return id;
  };
  const usage = {
    input: 100,
    output: 10,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 110,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.001 },
  };
  const assistant = (content: unknown[], stopReason: string) => ({
    role: "assistant",
    content,
    api: "openai-completions",
    provider: "mock",
    model: "m",
    usage,
    stopReason,
    timestamp: 1,
  });
  leaf = add({ type: "model_change", provider: "mock", modelId: "m" });
  for (let t = 1; t <= o.turns; t++) {
    if (o.branchEvery && t % o.branchEvery === 0) {
      // A retried turn: two entries on a branch the leaf leaves behind.
      const a = add({ type: "message", message: { role: "user", content: `abandoned ${t}`, timestamp: 1 } });
      add({ type: "message", message: assistant([{ type: "text", text: `abandoned answer ${t}` }], "stop") }, a);
    }
    leaf = add({ type: "message", message: { role: "user", content: `turn ${t} ${filler}`, timestamp: t } });
    turnStarts.push(leaf);
    const callId = `call_${t}`;
    leaf = add({
      type: "message",
      message: assistant([{ type: "toolCall", id: callId, name: "read", arguments: { path: `/f${t}` } }], "toolUse"),
    });
    leaf = add({
      type: "message",
      message: {
        role: "toolResult",
        toolCallId: callId,
        toolName: "read",
        content: [{ type: "text", text: `result ${t} ${filler}` }],
        isError: false,
        timestamp: t,
      },
    });
    if (t % 7 === 0) add({ type: "label", targetId: leaf, label: `l${t}` });
    if (t % 5 === 0) leaf = add({ type: "custom", customType: "state", data: { t } });
    leaf = add({ type: "message", message: assistant([{ type: "text", text: `answer ${t} ${filler}` }], "stop") });
    if (o.compactAfterTurn === t) {
      const kept = turnStarts[turnStarts.length - (o.keepTurns ?? 10)] as string;
      leaf = add({ type: "compaction", summary: "earlier turns", firstKeptEntryId: kept, tokensBefore: 1000 });
    }
  }
  const text = `${lines.join("\n")}\n`;
  writeFileSync(file, text);
  return { file, entries: n, bytes: Buffer.byteLength(text) };
}
