#!/usr/bin/env node
/**
 * `tiller-agent` (run as `tiller agent …`): sends one message to a gateway session with the `agent`
 * method, prints the reply as it streams, and exits 0 when the run ends ok, 1 otherwise.
 *   tiller-agent --message "…" [--session KEY] [--agent ID] [--url ws://…] [--token T]
 *                [--model provider/id] [--thinking LEVEL] [--timeout SECONDS] [--json]
 */
import { randomUUID } from "node:crypto";
import { loadConfig, resolveTillerHome } from "../config/load-config.js";
import type { EventFrame } from "../protocol/frames.js";
import type { AgentFinal, AgentParams } from "../protocol/schema/agent.js";
import type { AgentEventPayload } from "../protocol/schema/events.js";
import { CAP_DELTA_ONLY } from "../server/connection.js";
import { gatewayUrl, int, parseArgs, str, UsageError } from "./args.js";
import { isEntryPoint } from "./entry.js";
import { GatewayClient, GatewayRequestError } from "./gateway-client.js";

const HELP = `Usage: tiller agent --message "…" [--session KEY] [--agent ID] [--url ws://HOST:PORT] [--token T]
                    [--model provider/id] [--thinking LEVEL] [--timeout SECONDS] [--json]
Sends the message to the gateway (default ws://127.0.0.1:18789, or $TILLER_GATEWAY_URL), prints the reply
as it streams; exit code 0 when the run ends ok, 1 on error.`;

/** `tiller agent …`; resolves with the exit code (2 for bad usage, naming the flag). */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    return await run(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`tiller agent: ${err.message}\n`);
    return 2;
  }
}

async function run(argv: readonly string[]): Promise<number> {
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(argv, {
      switches: ["json"],
      values: ["message", "session", "agent", "url", "token", "model", "thinking", "timeout"],
    });
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`tiller agent: ${err.message}\n${HELP}\n`);
    return 2;
  }
  if (args.flags.has("help")) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const message = str(args, "message") ?? (args.positional.length > 0 ? args.positional.join(" ") : undefined);
  if (!message) {
    process.stderr.write(`tiller agent: --message is required\n${HELP}\n`);
    return 2;
  }
  const config = loadConfig(resolveTillerHome());
  const json = args.flags.has("json");
  let runId = "";
  let streamed = "";
  const onEvent = (frame: EventFrame): void => {
    if (json || frame.event !== "agent") return;
    const p = frame.payload as AgentEventPayload;
    const delta = p.data.delta;
    if (p.runId !== runId || p.stream !== "assistant" || typeof delta !== "string" || !delta) return;
    streamed += delta;
    process.stdout.write(delta);
  };
  const client = await GatewayClient.connect(gatewayUrl(args, config.gateway.port), {
    token: str(args, "token") || process.env.TILLER_GATEWAY_TOKEN || config.gateway.auth.token,
    scopes: ["operator.write"],
    caps: [CAP_DELTA_ONLY],
    onEvent,
  });
  const idempotencyKey = randomUUID();
  runId = idempotencyKey;
  const timeout = int(args, "timeout");
  const params: AgentParams = {
    message,
    idempotencyKey,
    ...(str(args, "session") ? { sessionKey: str(args, "session") } : {}),
    ...(str(args, "agent") ? { agentId: str(args, "agent") } : {}),
    ...(str(args, "model") ? { model: str(args, "model") } : {}),
    ...(str(args, "thinking") ? { thinking: str(args, "thinking") } : {}),
    ...(timeout !== undefined ? { timeout } : {}),
  };
  const stop = (): void => {
    // Ctrl-C: abort the run on the gateway, then leave.
    const sessionKey = params.sessionKey ?? `agent:${config.agents.defaultId}:main`;
    void client
      .call("chat.abort", { sessionKey, runId }, { timeoutMs: 2000 })
      .catch(() => {})
      .finally(() => process.exit(130));
  };
  process.once("SIGINT", stop);
  try {
    const final = (await client.call("agent", params, { expectFinal: true })) as AgentFinal;
    if (json) {
      process.stdout.write(`${JSON.stringify(final, null, 2)}\n`);
    } else {
      const payloads = final.result?.payloads ?? [];
      const texts = payloads.filter((p) => !p.isError && p.text).map((p) => p.text.trimEnd());
      if (streamed.length > 0) process.stdout.write("\n");
      else if (texts.length > 0) process.stdout.write(`${texts.join("\n\n")}\n`);
      for (const p of payloads) {
        for (const url of [...(p.mediaUrl ? [p.mediaUrl] : []), ...(p.mediaUrls ?? [])]) {
          process.stdout.write(`Attachment: ${url}\n`);
        }
        if (p.isError && p.text) process.stderr.write(`${p.text}\n`);
      }
      if (final.status !== "ok" && !payloads.some((p) => p.isError)) {
        process.stderr.write(`${final.summary ?? "No reply from agent."}\n`);
      }
    }
    return final.status === "ok" ? 0 : 1;
  } catch (err) {
    const text = err instanceof GatewayRequestError ? err.message : String(err instanceof Error ? err.message : err);
    process.stderr.write(`${text}\n`);
    return 1;
  } finally {
    process.off("SIGINT", stop);
    await client.close();
  }
}

if (isEntryPoint(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`tiller agent: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
