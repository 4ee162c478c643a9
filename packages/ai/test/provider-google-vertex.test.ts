import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { explicitGeminiThinkingConfig as vertexThinkingConfig } from "../src/providers/google-shared.js";
import { streamGoogleVertex, streamSimpleGoogleVertex } from "../src/providers/google-vertex.js";
import type { Context, ToolCall } from "../src/types.js";
import { collect, testModel, textOfMessage } from "./helpers/collect.js";
import { type MockServer, startGeminiMock } from "./helpers/mock-server.js";
import { CONTEXT, runConformanceSuite } from "./helpers/provider-conformance.js";
import { errorBodies, geminiEvents } from "./helpers/vendor-events.js";

// A developer's Vertex settings must not steer the loopback tests (the live test below reads its own copy).
const LIVE = {
  key: process.env.GOOGLE_CLOUD_API_KEY,
  project: process.env.GOOGLE_CLOUD_PROJECT,
  location: process.env.GOOGLE_CLOUD_LOCATION,
};
for (const name of ["GOOGLE_CLOUD_API_KEY", "GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"]) {
  delete process.env[name];
}

runConformanceSuite({
  name: "google-vertex",
  api: "google-vertex",
  provider: "google-vertex",
  startMock: startGeminiMock,
  events: (t) => geminiEvents(t),
  stream: streamGoogleVertex,
  streamSimple: streamSimpleGoogleVertex,
  errors: {
    auth: {
      status: 401,
      json: {
        error: {
          code: 401,
          message:
            "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
          status: "UNAUTHENTICATED",
        },
      },
      message: /UNAUTHENTICATED: Request had invalid authentication credentials/,
    },
    // Vertex's shared-capacity 429 (no quota wording), with the wait in a header.
    rateLimit: {
      status: 429,
      json: {
        error: {
          code: 429,
          message:
            "Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.",
          status: "RESOURCE_EXHAUSTED",
        },
      },
      headers: { "retry-after": "5" },
      message: /RESOURCE_EXHAUSTED: Resource exhausted/,
      retryAfterMs: 5000,
    },
    server: { status: 500, json: errorBodies.geminiServer, message: /INTERNAL: An internal error has occurred/ },
    overloaded: {
      status: 503,
      json: errorBodies.geminiOverloaded,
      headers: { "retry-after": "2" },
      message: /UNAVAILABLE: The model is overloaded/,
      retryAfterMs: 2000,
    },
    contextOverflow: {
      status: 400,
      json: errorBodies.geminiContextOverflow,
      message: /input token count \(1234567\) exceeds the maximum/,
    },
  },
  malformed: { data: '{"candidates":[{"content":{"parts":[{"text":"oo' },
  streamsToolArguments: false,
  eventsBeforeText: () => 0,
});

describe("google-vertex specifics", () => {
  const servers: MockServer[] = [];
  const cleanups: (() => void)[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.close()));
    servers.length = 0;
    for (const c of cleanups.splice(0)) c();
  });

  it("express mode: posts to v1/publishers/google/models with the API key and a thinking budget", async () => {
    const server = await startGeminiMock([{ events: geminiEvents({ text: ["ok"] }) }]);
    servers.push(server);
    const model = testModel("google-vertex", {
      id: "gemini-2.5-flash",
      provider: "google-vertex",
      baseUrl: server.url,
    });
    const { result } = await collect(
      streamSimpleGoogleVertex(model, CONTEXT, { apiKey: "vk", reasoning: "medium", maxTokens: 55 }),
    );
    expect(textOfMessage(result)).toBe("ok");
    const req = server.requests[0]!;
    expect(req.url).toBe("/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(req.headers["x-goog-api-key"]).toBe("vk");
    expect(req.body.systemInstruction).toMatchObject({ parts: [{ text: "You are terse." }] });
    expect(req.body.generationConfig).toMatchObject({
      maxOutputTokens: 55,
      thinkingConfig: { includeThoughts: true, thinkingBudget: 8192 },
    });
  });

  it("Application Default Credentials: project/location path and the OAuth token from the credential file", async () => {
    // An external-account credential whose token exchange is answered by the same loopback server: the real
    // google-auth-library flow, ending in `Authorization: Bearer <token>` on the Vertex request.
    // google-auth-library also looks the audience's project up in Cloud Resource Manager: answered here too.
    const server = await startGeminiMock((req) =>
      req.url.startsWith("/crm/")
        ? { json: { projectNumber: "123", projectId: "my-proj", lifecycleState: "ACTIVE" } }
        : req.url.startsWith("/sts")
          ? {
              json: {
                access_token: "ya29.loopback-token",
                issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
                token_type: "Bearer",
                expires_in: 3600,
              },
            }
          : { events: geminiEvents({ text: ["adc ok"] }) },
    );
    servers.push(server);
    const dir = mkdtempSync(join(tmpdir(), "tiller-vertex-"));
    writeFileSync(join(dir, "subject"), "subject-jwt");
    writeFileSync(
      join(dir, "creds.json"),
      JSON.stringify({
        type: "external_account",
        audience: "//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/p/providers/q",
        subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
        token_url: `${server.url}/sts/v1/token`,
        cloud_resource_manager_url: `${server.url}/crm/v1/projects/`,
        credential_source: { file: join(dir, "subject") },
      }),
    );
    const saved = process.env.GOOGLE_APPLICATION_CREDENTIALS;
    process.env.GOOGLE_APPLICATION_CREDENTIALS = join(dir, "creds.json");
    cleanups.push(() => {
      if (saved === undefined) delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
      else process.env.GOOGLE_APPLICATION_CREDENTIALS = saved;
      rmSync(dir, { recursive: true, force: true });
    });
    const model = testModel("google-vertex", { id: "gemini-2.5-pro", provider: "google-vertex", baseUrl: server.url });
    const { result } = await collect(
      streamGoogleVertex(model, CONTEXT, { project: "my-proj", location: "europe-west4" }),
    );
    expect(result.errorMessage).toBeUndefined();
    expect(textOfMessage(result)).toBe("adc ok");
    const call = server.requests.find((r) => r.url.includes(":streamGenerateContent"))!;
    expect(call.url).toBe(
      "/v1/projects/my-proj/locations/europe-west4/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
    );
    expect(call.headers.authorization).toBe("Bearer ya29.loopback-token");
    expect(call.headers["x-goog-api-key"]).toBeUndefined();
  });

  it("names what is missing when there is neither a key nor a project and location", async () => {
    const model = testModel("google-vertex", { provider: "google-vertex", baseUrl: "http://127.0.0.1:9" });
    const { result, types } = await collect(streamGoogleVertex(model, CONTEXT, { location: "us-central1" }));
    expect(types).toEqual(["error"]);
    expect(result.errorMessage).toMatch(/GOOGLE_CLOUD_API_KEY/);
    expect(result.errorMessage).toMatch(/a project \(options.project or GOOGLE_CLOUD_PROJECT\)$/);
  });

  it("maps pi's thinking option, with Gemini 3's lowest level when thinking is turned off", () => {
    const flash25 = testModel("google-vertex", { id: "gemini-2.5-flash" });
    const pro3 = testModel("google-vertex", { id: "gemini-3.1-pro-preview" });
    const flash3 = testModel("google-vertex", { id: "gemini-3-flash-preview" });
    expect(vertexThinkingConfig(flash25, { enabled: false })).toEqual({ thinkingBudget: 0 });
    expect(vertexThinkingConfig(pro3, { enabled: false })).toEqual({ thinkingLevel: "LOW" });
    expect(vertexThinkingConfig(flash3, { enabled: false })).toEqual({ thinkingLevel: "MINIMAL" });
    expect(vertexThinkingConfig(flash25, { enabled: true, budgetTokens: 99 })).toEqual({
      includeThoughts: true,
      thinkingBudget: 99,
    });
    expect(vertexThinkingConfig(pro3, { enabled: true, level: "HIGH" })).toEqual({
      includeThoughts: true,
      thinkingLevel: "HIGH",
    });
    expect(vertexThinkingConfig(testModel("google-vertex", { reasoning: false }), { enabled: true })).toBeUndefined();
  });

  it("replays a recorded Vertex stream whose first chunk carries usage without token counts", async () => {
    // The two chunks gemini-2.0-flash-001 returned on Vertex, as recorded in elastic/elasticsearch
    // (x-pack inference, GoogleVertexAiChatCompletionResponseEntity.java), sent here as alt=sse events.
    const recorded = [
      {
        candidates: [{ content: { role: "model", parts: [{ text: "Hello there! How" }] } }],
        usageMetadata: { trafficType: "ON_DEMAND" },
        modelVersion: "gemini-2.0-flash-001",
        createTime: "2025-04-29T16:55:36.576032Z",
        responseId: "iAQRaKCUI_D7ld8Pq-aaaaa",
      },
      {
        candidates: [
          { content: { role: "model", parts: [{ text: " can I help you today?\n" }] }, finishReason: "STOP" },
        ],
        usageMetadata: {
          promptTokenCount: 2,
          candidatesTokenCount: 11,
          totalTokenCount: 13,
          trafficType: "ON_DEMAND",
          promptTokensDetails: [{ modality: "TEXT", tokenCount: 2 }],
          candidatesTokensDetails: [{ modality: "TEXT", tokenCount: 11 }],
        },
        modelVersion: "gemini-2.0-flash-001",
        createTime: "2025-04-29T16:55:36.576032Z",
        responseId: "iAQRaKCUI_D7ld8Pq-aaaaa",
      },
    ];
    const server = await startGeminiMock([{ events: recorded.map((data) => ({ data })) }]);
    servers.push(server);
    const model = testModel("google-vertex", { id: "gemini-2.0-flash", reasoning: false, baseUrl: server.url });
    const { result } = await collect(streamGoogleVertex(model, CONTEXT, { apiKey: "k" }));
    expect(textOfMessage(result)).toBe("Hello there! How can I help you today?\n");
    expect(result.usage).toMatchObject({ input: 2, output: 11, totalTokens: 13 });
    expect(result.responseId).toBe("iAQRaKCUI_D7ld8Pq-aaaaa");
    expect(result.responseModel).toBe("gemini-2.0-flash-001");
    expect(result.stopReason).toBe("stop");
  });

  it("continues a Gemini API conversation on Vertex: same model family, signatures kept only for the same model", async () => {
    const server = await startGeminiMock([
      {
        events: geminiEvents({
          toolCalls: [{ id: "x", name: "read", args: ['{"path":"a.txt"}'] }],
          signature: "SIG==",
          finish: "tool",
        }),
      },
      { events: geminiEvents({ text: ["done"] }) },
    ]);
    servers.push(server);
    const model = testModel("google-vertex", {
      id: "gemini-3-pro-preview",
      provider: "google-vertex",
      baseUrl: server.url,
    });
    const first = await collect(streamGoogleVertex(model, CONTEXT, { apiKey: "k" }));
    const call = first.result.content.find((b): b is ToolCall => b.type === "toolCall")!;
    expect(call).toMatchObject({ name: "read", thoughtSignature: "SIG==" });
    const context: Context = {
      messages: [
        ...CONTEXT.messages,
        first.result,
        {
          role: "toolResult",
          toolCallId: call.id,
          toolName: "read",
          content: [{ type: "text", text: "A" }],
          isError: false,
          timestamp: 3,
        },
      ],
    };
    await collect(streamGoogleVertex(model, context, { apiKey: "k" }));
    const sent = server.requests[1]!.body.contents;
    // Vertex rejects function-call ids in requests: none are sent, only name, args and the signature.
    expect(sent[1]).toEqual({
      role: "model",
      parts: [{ functionCall: { name: "read", args: { path: "a.txt" } }, thoughtSignature: "SIG==" }],
    });
    expect(sent[2].parts[0]).toEqual({ functionResponse: { name: "read", response: { output: "A" } } });
  });
});

describe.skipIf(!LIVE.key && !(LIVE.project && LIVE.location))("google-vertex live", () => {
  it("streams a short answer from the real API", async () => {
    const model = testModel("google-vertex", {
      id: "gemini-2.5-flash",
      provider: "google-vertex",
      baseUrl: "https://{location}-aiplatform.googleapis.com",
      reasoning: false,
    });
    const { result } = await collect(
      streamGoogleVertex(
        model,
        { messages: [{ role: "user", content: "Say OK", timestamp: 1 }] },
        { maxTokens: 20, apiKey: LIVE.key, project: LIVE.project, location: LIVE.location },
      ),
    );
    expect(result.stopReason).toBe("stop");
  });
});
