/**
 * What a Bedrock request carries on the wire: SigV4 signatures the loopback server recomputes (session tokens,
 * the credential chain from the environment, ARN model ids in the path, a wrong secret rejected), bearer
 * tokens, region and endpoint choice, and the ConverseStream body (system and cache points, tools, Claude
 * thinking, conversation repair, replayed reasoning).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getEnvApiKey } from "../src/env-api-keys.js";
import { streamBedrock, streamSimpleBedrock } from "../src/providers/amazon-bedrock.js";
import { bedrockClientConfig } from "../src/providers/amazon-bedrock-client.js";
import { stream } from "../src/stream.js";
import type { Api, AssistantMessage, Context, Message, Model } from "../src/types.js";
import { bedrockEvents } from "./helpers/bedrock-events.js";
import { type BedrockAuth, type BedrockMockServer, startBedrockMock } from "./helpers/bedrock-mock.js";
import { collect, testModel, textOfMessage } from "./helpers/collect.js";
import { CONTEXT } from "./helpers/provider-conformance.js";

const SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const AWS_VARS = [
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_REGION",
  "AWS_DEFAULT_REGION",
  "AWS_PROFILE",
  "AWS_BEARER_TOKEN_BEDROCK",
  "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
  "AWS_CONTAINER_CREDENTIALS_FULL_URI",
  "AWS_WEB_IDENTITY_TOKEN_FILE",
  "AWS_CONFIG_FILE",
  "AWS_SHARED_CREDENTIALS_FILE",
];
let saved: Record<string, string | undefined> = {};
let server: BedrockMockServer | undefined;
beforeEach(() => {
  saved = Object.fromEntries(AWS_VARS.map((k) => [k, process.env[k]]));
  for (const k of AWS_VARS) delete process.env[k];
  // Keep the machine's own ~/.aws out of the credential chain.
  process.env.AWS_CONFIG_FILE = "/nonexistent/aws-config";
  process.env.AWS_SHARED_CREDENTIALS_FILE = "/nonexistent/aws-credentials";
});
afterEach(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await server?.close();
  server = undefined;
});

const sigv4 = (region = "us-east-1", sessionToken?: string): BedrockAuth => ({
  mode: "sigv4",
  accessKeyId: "AKIDEXAMPLE",
  secretAccessKey: SECRET,
  region,
  ...(sessionToken ? { sessionToken } : {}),
});

async function start(auth: BedrockAuth, overrides: Partial<Model<Api>> = {}): Promise<Model<Api>> {
  server = await startBedrockMock(() => ({ events: bedrockEvents({ text: ["ok"] }) }), auth);
  return testModel("bedrock-converse-stream", { provider: "amazon-bedrock", baseUrl: server.baseUrl, ...overrides });
}

describe("bedrock auth on the wire", () => {
  it("signs with explicit credentials and a session token (x-amz-security-token signed)", async () => {
    const model = await start(sigv4("us-east-1", "FQoGZXIvYXdzEXAMPLETOKEN"));
    const credentials = {
      accessKeyId: "AKIDEXAMPLE",
      secretAccessKey: SECRET,
      sessionToken: "FQoGZXIvYXdzEXAMPLETOKEN",
    };
    const { result } = await collect(streamBedrock(model, CONTEXT, { credentials, region: "us-east-1" }));
    expect(server?.authFailures).toEqual([]);
    expect(textOfMessage(result)).toBe("ok");
    expect(server?.requests[0]?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=[^,]*x-amz-security-token/,
    );
  });

  it("takes keys and region from the environment when getEnvApiKey reports ambient credentials", async () => {
    process.env.AWS_ACCESS_KEY_ID = "AKIDEXAMPLE";
    process.env.AWS_SECRET_ACCESS_KEY = SECRET;
    process.env.AWS_SESSION_TOKEN = "ENVTOKEN";
    process.env.AWS_REGION = "eu-west-3";
    expect(getEnvApiKey("amazon-bedrock")).toBe("<authenticated>");
    const model = await start(sigv4("eu-west-3", "ENVTOKEN"));
    // Through the registry, as the agent calls it: the "<authenticated>" marker arrives as apiKey.
    const { result } = await collect(stream(model, CONTEXT));
    expect(server?.authFailures).toEqual([]);
    expect(result.stopReason).toBe("stop");
    expect(textOfMessage(result)).toBe("ok");
  });

  it("signs an inference-profile ARN model id, sent encoded in the path", async () => {
    const id = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3";
    const model = await start(sigv4(), { id });
    const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: SECRET };
    const { result } = await collect(streamBedrock(model, CONTEXT, { credentials, region: "us-east-1" }));
    expect(server?.authFailures).toEqual([]);
    expect(result.stopReason).toBe("stop");
    expect(server?.requests[0]?.url).toBe(`/model/${encodeURIComponent(id)}/converse-stream`);
  });

  it("is rejected by the server when signed with the wrong secret (the check is real)", async () => {
    const model = await start(sigv4());
    const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "not-the-secret" };
    const { result } = await collect(streamBedrock(model, CONTEXT, { credentials, region: "us-east-1" }));
    expect(result.stopReason).toBe("error");
    expect(result.errorStatus).toBe(403);
    expect(result.errorMessage).toMatch(/^403 InvalidSignatureException/);
    expect(server?.authFailures[0]).toMatch(/signature mismatch/);
  });

  it("signs for the region it was given (a signature for another region is refused)", async () => {
    const model = await start(sigv4("ap-southeast-2"));
    const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: SECRET };
    const { result } = await collect(streamBedrock(model, CONTEXT, { credentials, region: "us-west-2" }));
    expect(result.errorStatus).toBe(403);
    expect(server?.authFailures[0]).toMatch(/region us-west-2, expected ap-southeast-2/);
  });

  it("sends AWS_BEARER_TOKEN_BEDROCK as a bearer token, and explicit keys win over it", async () => {
    process.env.AWS_BEARER_TOKEN_BEDROCK = "ABSK-bedrock-api-key";
    expect(getEnvApiKey("amazon-bedrock")).toBe("<authenticated>");
    let model = await start({ mode: "bearer", token: "ABSK-bedrock-api-key" });
    const bearer = await collect(stream(model, CONTEXT));
    expect(bearer.result.stopReason).toBe("stop");
    await server?.close();
    model = await start(sigv4());
    const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: SECRET };
    const signed = await collect(streamBedrock(model, CONTEXT, { credentials, region: "us-east-1" }));
    expect(server?.authFailures).toEqual([]);
    expect(signed.result.stopReason).toBe("stop");
  });

  it("gets task-role credentials from the container endpoint once and reuses the client across turns", async () => {
    let fetches = 0;
    const creds = http.createServer((req, res) => {
      fetches++;
      expect(req.headers.authorization).toBe("task-auth-token");
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          AccessKeyId: "AKIDEXAMPLE",
          SecretAccessKey: SECRET,
          Token: "TASKTOKEN",
          Expiration: new Date(Date.now() + 3_600_000).toISOString(),
        }),
      );
    });
    await new Promise<void>((r) => creds.listen(0, "127.0.0.1", r));
    try {
      process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI = `http://127.0.0.1:${(creds.address() as AddressInfo).port}/creds`;
      process.env.AWS_CONTAINER_AUTHORIZATION_TOKEN = "task-auth-token";
      expect(getEnvApiKey("amazon-bedrock")).toBe("<authenticated>");
      const model = await start(sigv4("us-east-1", "TASKTOKEN"));
      for (let turn = 0; turn < 3; turn++) {
        const { result } = await collect(stream(model, CONTEXT, { region: "us-east-1" }));
        expect(result.stopReason, result.errorMessage).toBe("stop");
      }
      expect(server?.authFailures).toEqual([]);
      expect(server?.requests).toHaveLength(3);
      expect(fetches).toBe(1);
    } finally {
      delete process.env.AWS_CONTAINER_AUTHORIZATION_TOKEN;
      await new Promise<void>((r) => creds.close(() => r()));
    }
  });

  it("reports no credentials as missing: getEnvApiKey is undefined and the request fails with the reason", async () => {
    expect(getEnvApiKey("amazon-bedrock")).toBeUndefined();
    const model = await start(sigv4());
    const { result } = await collect(streamBedrock(model, CONTEXT, { region: "us-east-1" }));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/credentials/i);
    expect(server?.requests).toHaveLength(0);
  });

  it("chooses region and endpoint: option, environment, then the standard endpoint's own region", () => {
    const eu = testModel("bedrock-converse-stream", { baseUrl: "https://bedrock-runtime.eu-central-1.amazonaws.com" });
    expect(bedrockClientConfig(eu, {})).toMatchObject({
      region: "eu-central-1",
      config: { endpoint: eu.baseUrl },
    });
    process.env.AWS_REGION = "ap-northeast-1";
    const fromEnv = bedrockClientConfig(eu, {});
    expect(fromEnv.region).toBe("ap-northeast-1");
    expect(fromEnv.config.endpoint).toBeUndefined(); // the SDK builds the regional endpoint
    expect(bedrockClientConfig(eu, { region: "us-west-2" }).region).toBe("us-west-2");
    const proxy = testModel("bedrock-converse-stream", { baseUrl: "https://bedrock-proxy.internal.example" });
    expect(bedrockClientConfig(proxy, {}).config.endpoint).toBe(proxy.baseUrl);
    delete process.env.AWS_REGION;
    expect(bedrockClientConfig(proxy, {}).region).toBe("us-east-1");
    expect(bedrockClientConfig(proxy, { profile: "dev" }).region).toBeUndefined(); // the profile's region
    // With a profile, the catalog URL's region does not override the profile's.
    expect(bedrockClientConfig(eu, { profile: "dev" }).region).toBeUndefined();
    expect(bedrockClientConfig(eu, { profile: "dev" }).config.endpoint).toBeUndefined();
  });
});

const CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const bearer: BedrockAuth = { mode: "bearer", token: "k" };

async function sentBody(
  overrides: Partial<Model<Api>>,
  run: (model: Model<Api>) => AsyncIterable<unknown> & { result(): Promise<AssistantMessage> },
  // biome-ignore lint/suspicious/noExplicitAny: the wire body is inspected structurally.
): Promise<any> {
  const model = await start(bearer, overrides);
  const events = run({ ...model, ...overrides, baseUrl: model.baseUrl });
  for await (const _ of events) {
    // drain
  }
  const result = await events.result();
  expect(result.stopReason, result.errorMessage).toBe("stop");
  return server?.requests[0]?.body;
}

describe("bedrock request body", () => {
  it("sends Claude thinking as a budget with the interleaved beta, raising maxTokens and dropping temperature", async () => {
    const body = await sentBody({ id: CLAUDE, maxTokens: 64000 }, (m) =>
      streamSimpleBedrock(m, CONTEXT, { apiKey: "k", reasoning: "medium", maxTokens: 4000, temperature: 0.2 }),
    );
    expect(body.additionalModelRequestFields).toEqual({
      thinking: { type: "enabled", budget_tokens: 8192, display: "summarized" },
      anthropic_beta: ["interleaved-thinking-2025-05-14"],
    });
    expect(body.inferenceConfig.maxTokens).toBeGreaterThan(8192);
    expect(body.inferenceConfig.temperature).toBeUndefined();
    expect(body.system).toEqual([{ text: "You are terse." }, { cachePoint: { type: "default" } }]);
    expect(body.messages.at(-1).content.at(-1)).toEqual({ cachePoint: { type: "default" } });
    expect(body.toolConfig.tools[0].toolSpec).toMatchObject({
      name: "read",
      inputSchema: { json: { type: "object" } },
    });
    expect(body.modelId).toBeUndefined(); // it travels in the path
  });

  it("uses adaptive thinking with an effort for Opus 4.6/4.7 and Sonnet 4.6", async () => {
    let body = await sentBody({ id: "global.anthropic.claude-opus-4-7", thinkingLevelMap: { xhigh: "xhigh" } }, (m) =>
      streamSimpleBedrock(m, CONTEXT, { apiKey: "k", reasoning: "xhigh" }),
    );
    expect(body.additionalModelRequestFields).toEqual({
      thinking: { type: "adaptive", display: "summarized" },
      output_config: { effort: "xhigh" },
    });
    await server?.close();
    body = await sentBody({ id: "global.anthropic.claude-opus-4-6-v1", thinkingLevelMap: { xhigh: "max" } }, (m) =>
      streamBedrock(m, CONTEXT, { apiKey: "k", reasoning: "xhigh", thinkingDisplay: "omitted" }),
    );
    expect(body.additionalModelRequestFields).toEqual({
      thinking: { type: "adaptive", display: "omitted" },
      output_config: { effort: "max" },
    });
  });

  it("asks for the model's output limit capped at 32k in streamSimple, and for none unless given in stream", async () => {
    let body = await sentBody({ maxTokens: 64000 }, (m) => streamSimpleBedrock(m, CONTEXT, { apiKey: "k" }));
    expect(body.inferenceConfig).toEqual({ maxTokens: 32000 });
    await server?.close();
    body = await sentBody({ maxTokens: 8192 }, (m) => streamSimpleBedrock(m, CONTEXT, { apiKey: "k" }));
    expect(body.inferenceConfig).toEqual({ maxTokens: 8192 });
    await server?.close();
    body = await sentBody({}, (m) => streamBedrock(m, CONTEXT, { apiKey: "k" }));
    expect(body.inferenceConfig).toBeUndefined();
  });

  it("sends no thinking fields and no cache points to non-Claude models, and nothing for reasoning off", async () => {
    let body = await sentBody({ id: "deepseek.v3.2" }, (m) =>
      streamSimpleBedrock(m, CONTEXT, { apiKey: "k", reasoning: "high" }),
    );
    expect(body.additionalModelRequestFields).toBeUndefined();
    expect(JSON.stringify(body)).not.toContain("cachePoint");
    await server?.close();
    body = await sentBody({ id: CLAUDE }, (m) => streamSimpleBedrock(m, CONTEXT, { apiKey: "k", reasoning: "off" }));
    expect(body.additionalModelRequestFields).toBeUndefined();
  });

  it("marks cache points with a one-hour TTL for long retention and leaves them out for none", async () => {
    let body = await sentBody({ id: CLAUDE }, (m) =>
      streamBedrock(m, CONTEXT, { apiKey: "k", cacheRetention: "long" }),
    );
    expect(body.system[1]).toEqual({ cachePoint: { type: "default", ttl: "1h" } });
    await server?.close();
    body = await sentBody({ id: CLAUDE }, (m) => streamBedrock(m, CONTEXT, { apiKey: "k", cacheRetention: "none" }));
    expect(JSON.stringify(body)).not.toContain("cachePoint");
  });

  it("maps toolChoice and request metadata", async () => {
    let body = await sentBody({}, (m) =>
      streamBedrock(m, CONTEXT, {
        apiKey: "k",
        toolChoice: { type: "tool", name: "read" },
        requestMetadata: { team: "a" },
      }),
    );
    expect(body.toolConfig.toolChoice).toEqual({ tool: { name: "read" } });
    expect(body.requestMetadata).toEqual({ team: "a" });
    await server?.close();
    body = await sentBody({}, (m) => streamBedrock(m, CONTEXT, { apiKey: "k", toolChoice: "any" }));
    expect(body.toolConfig.toolChoice).toEqual({ any: {} });
    await server?.close();
    body = await sentBody({}, (m) => streamBedrock(m, CONTEXT, { apiKey: "k", toolChoice: "none" }));
    expect(body.toolConfig).toBeUndefined();
  });

  it("repairs the conversation: alternating roles, merged tool results, sanitized ids, images as bytes", async () => {
    const longId = `call_abc|fc_${"x".repeat(100)}`;
    const usage = {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    };
    const assistant = (content: AssistantMessage["content"]): AssistantMessage => ({
      role: "assistant",
      content,
      api: "bedrock-converse-stream",
      provider: "amazon-bedrock",
      model: CLAUDE,
      usage,
      stopReason: "toolUse",
      timestamp: 2,
    });
    const messages: Message[] = [
      assistant([{ type: "text", text: "I start." }]),
      { role: "user", content: "first", timestamp: 1 },
      {
        role: "user",
        content: [{ type: "image", data: Buffer.from("PNGDATA").toString("base64"), mimeType: "image/png" }],
        timestamp: 1,
      },
      assistant([
        { type: "thinking", thinking: "signed thought", thinkingSignature: "SIG" },
        { type: "thinking", thinking: "unsigned thought" },
        { type: "thinking", thinking: "", thinkingSignature: "OMITTED-SIG" },
        {
          type: "thinking",
          thinking: "[Reasoning redacted]",
          thinkingSignature: Buffer.from("enc").toString("base64"),
          redacted: true,
        },
        { type: "text", text: "  " },
        { type: "toolCall", id: longId, name: "read", arguments: { path: "a" } },
        { type: "toolCall", id: "call.2", name: "read", arguments: { path: "b" } },
      ]),
      {
        role: "toolResult",
        toolCallId: longId,
        toolName: "read",
        content: [{ type: "text", text: "A" }],
        isError: false,
        timestamp: 3,
      },
      { role: "toolResult", toolCallId: "call.2", toolName: "read", content: [], isError: true, timestamp: 3 },
      { role: "user", content: "now what?", timestamp: 4 },
    ];
    const context: Context = { messages, tools: CONTEXT.tools };
    const body = await sentBody({ id: CLAUDE }, (m) =>
      streamBedrock(m, context, { apiKey: "k", cacheRetention: "none" }),
    );
    const sent = body.messages;
    expect(sent.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    expect(sent[0].content).toEqual([{ text: "(continued)" }]);
    expect(sent[2].content).toEqual([
      { text: "first" },
      { image: { format: "png", source: { bytes: Buffer.from("PNGDATA").toString("base64") } } },
    ]);
    const turn = sent[3].content;
    expect(turn[0]).toEqual({ reasoningContent: { reasoningText: { text: "signed thought", signature: "SIG" } } });
    expect(turn[1]).toEqual({ text: "unsigned thought" });
    // Thinking shown as "omitted": no text, but the signed block goes back.
    expect(turn[2]).toEqual({ reasoningContent: { reasoningText: { text: "", signature: "OMITTED-SIG" } } });
    expect(turn[3]).toEqual({ reasoningContent: { redactedContent: Buffer.from("enc").toString("base64") } });
    const uses = turn
      .filter((b: { toolUse?: unknown }) => b.toolUse)
      .map((b: { toolUse: { toolUseId: string } }) => b.toolUse);
    expect(uses).toHaveLength(2);
    for (const u of uses) expect(u.toolUseId).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(sent[4].content).toEqual([
      { toolResult: { toolUseId: uses[0].toolUseId, content: [{ text: "A" }], status: "success" } },
      { toolResult: { toolUseId: uses[1].toolUseId, content: [{ text: "(no output)" }], status: "error" } },
      { text: "now what?" },
    ]);
  });
});
