// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * `tiller gateway sessions export` on a single-node home: a session's transcript comes out as the JSONL file
 * SessionManager opens, with the context the gateway served (chat.history); unknown flags exit 2 naming the
 * flag; an unknown session exits 1 saying so, and writes nothing.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import {
  connectClient,
  type GatewayProc,
  makeHome,
  removeHome,
  spawnGateway,
  startMockProvider,
} from "./gateway-harness.js";
import { exportedContext, historyContext, runSessionsCli } from "./helpers/sessions-export.js";

describe("tiller gateway sessions export (single node)", () => {
  let mock: MockServer;
  let home: string;
  let gw: GatewayProc;
  let client: Awaited<ReturnType<typeof connectClient>>["client"];
  const out = mkdtempSync(join(tmpdir(), "tiller-export-"));

  beforeAll(async () => {
    mock = await startMockProvider();
    home = makeHome({ mockBaseUrl: mock.baseUrl });
    gw = await spawnGateway(home);
    ({ client } = await connectClient(gw.url, { scopes: ["operator.admin"] }));
    for (const key of ["work", "other"]) {
      for (const m of ["first", "second"]) {
        const r: any = await client.request(
          "agent",
          { message: `${key} ${m}`, idempotencyKey: `${key}-${m}`, sessionKey: key },
          { expectFinal: true },
        );
        expect(r.status).toBe("ok");
      }
    }
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await gw?.kill();
    await mock?.close();
    if (home) removeHome(home);
    rmSync(out, { recursive: true, force: true });
  });

  it("writes the session's JSONL, which opens with the context chat.history serves", async () => {
    const file = join(out, "work.jsonl");
    const r = await runSessionsCli(home, ["export", "work", "--out", file]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const history: any = await client.request("chat.history", { sessionKey: "work" });
    const ctx = exportedContext(file);
    expect(ctx).toEqual(historyContext(history));
    expect(ctx.filter((m) => m.role === "user")).toHaveLength(2);
    // Without --out, one session goes to stdout: the same file.
    const toStdout = await runSessionsCli(home, ["export", "agent:main:work"]);
    expect(toStdout.code).toBe(0);
    const piped = join(out, "piped.jsonl");
    writeFileSync(piped, toStdout.stdout);
    expect(exportedContext(piped)).toEqual(ctx);
  }, 60_000);

  it("--all --out DIR writes every session, one file each", async () => {
    const dir = join(out, "all");
    const r = await runSessionsCli(home, ["export", "--all", "--out", dir]);
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => l.split("\t"));
    expect(lines.map((l) => l[0]).sort()).toEqual(["agent:main:other", "agent:main:work"]);
    expect(readdirSync(dir)).toHaveLength(2);
    const other = lines.find((l) => l[0] === "agent:main:other")?.[1] as string;
    const history: any = await client.request("chat.history", { sessionKey: "other" });
    expect(exportedContext(other)).toEqual(historyContext(history));
  }, 60_000);

  it("an unknown flag exits 2 naming it; an unknown session exits 1 and writes nothing", async () => {
    const bad = await runSessionsCli(home, ["export", "work", "--ouput", join(out, "x.jsonl")]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--ouput");
    const missing = join(out, "nope.jsonl");
    const unknown = await runSessionsCli(home, ["export", "nope", "--out", missing]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no session "agent:main:nope"');
    expect(existsSync(missing)).toBe(false);
    const many = await runSessionsCli(home, ["export", "work", "other"]);
    expect(many.code).toBe(2);
    expect(many.stderr).toContain("--out DIR");
  }, 60_000);
});
