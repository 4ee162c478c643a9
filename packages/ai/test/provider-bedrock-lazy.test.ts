/**
 * Bedrock is registered like every built-in api but loads on first use: importing @tiller/ai does not load the
 * AWS SDK. `setBedrockProviderModule` swaps the implementation (pi-ai's hook), also for the `streamBedrock`
 * export and after `resetApiProviders`.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { bedrockProviderModule } from "@tiller/ai/bedrock-provider";
import { afterEach, describe, expect, it } from "vitest";
import {
  createAssistantMessageEventStream,
  getBuiltInApis,
  getModel,
  resetApiProviders,
  type StreamFunction,
  setBedrockProviderModule,
  stream,
  streamBedrock,
} from "../src/index.js";
import { streamBedrock as realStreamBedrock, streamSimpleBedrock } from "../src/providers/amazon-bedrock.js";
import { collect, textOfMessage } from "./helpers/collect.js";
import { CONTEXT } from "./helpers/provider-conformance.js";

function runChild(): Promise<{ atImport: boolean; afterRequest: boolean; stopReason: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    ["--conditions=tiller-source", "--import", "tsx", fileURLToPath(new URL("bedrock-lazy-child.ts", import.meta.url))],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => {
    out += c.toString();
  });
  child.stderr.on("data", (c: Buffer) => {
    err += c.toString();
  });
  return new Promise((resolve, reject) => {
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`child exited ${code}: ${err}`));
      else resolve({ ...JSON.parse(out.trim().split("\n").at(-1) ?? "{}"), stderr: err });
    });
  });
}

afterEach(() => {
  // Restore the built-in module for the other tests in this worker.
  setBedrockProviderModule({ streamBedrock: realStreamBedrock, streamSimpleBedrock });
  resetApiProviders();
});

describe("bedrock registration", () => {
  it("is a built-in api whose AWS SDK loads only with the first Bedrock request", async () => {
    expect(getBuiltInApis()).toContain("bedrock-converse-stream");
    const report = await runChild();
    expect(report.atImport).toBe(false);
    expect(report.afterRequest).toBe(true);
    expect(report.stopReason).toBe("error"); // nothing listens on port 9
    // The SDK's Node-version notice (about future SDK releases) stays out of the user's terminal.
    expect(report.stderr).not.toMatch(/NodeVersionSupportWarning/);
  }, 60_000);

  it("ships @tiller/ai/bedrock-provider, the module object setBedrockProviderModule takes (as pi-ai does)", () => {
    expect(bedrockProviderModule.streamBedrock).toBe(realStreamBedrock);
    expect(bedrockProviderModule.streamSimpleBedrock).toBe(streamSimpleBedrock);
  });

  it("routes stream(), the streamBedrock export and resets through setBedrockProviderModule", async () => {
    const calls: string[] = [];
    const fake: StreamFunction = (model, _context, options) => {
      calls.push(String((options as { apiKey?: string } | undefined)?.apiKey));
      const s = createAssistantMessageEventStream();
      const message = {
        role: "assistant" as const,
        content: [{ type: "text" as const, text: "from the override" }],
        api: model.api,
        provider: model.provider,
        model: model.id,
        usage: {
          input: 0,
          output: 0,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 0,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
        },
        stopReason: "stop" as const,
        timestamp: 1,
      };
      queueMicrotask(() => s.push({ type: "done", reason: "stop", message }));
      return s;
    };
    setBedrockProviderModule({ streamBedrock: fake, streamSimpleBedrock: fake });
    const model = getModel("amazon-bedrock", "global.anthropic.claude-sonnet-4-6");
    expect(model.api).toBe("bedrock-converse-stream");
    expect(textOfMessage((await collect(stream(model, CONTEXT, { apiKey: "a" }))).result)).toBe("from the override");
    expect(textOfMessage((await collect(streamBedrock(model, CONTEXT, { apiKey: "b" }))).result)).toBe(
      "from the override",
    );
    resetApiProviders();
    expect(textOfMessage((await collect(stream(model, CONTEXT, { apiKey: "c" }))).result)).toBe("from the override");
    expect(calls).toEqual(["a", "b", "c"]);
  });
});
