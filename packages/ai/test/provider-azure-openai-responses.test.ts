import { afterEach, describe, expect, it } from "vitest";
import {
  resolveAzureBaseUrl,
  streamAzureOpenAIResponses,
  streamSimpleAzureOpenAIResponses,
} from "../src/providers/azure-openai-responses.js";
import { collect, testModel, textOfMessage } from "./helpers/collect.js";
import { type MockScript, type MockServer, startMockServer } from "./helpers/mock-server.js";
import { CONTEXT, runConformanceSuite } from "./helpers/provider-conformance.js";
import { errorBodies, openaiResponsesEvents } from "./helpers/vendor-events.js";

// The endpoint variables win over a model's baseUrl (pi's order); keep a developer's settings away from the
// loopback tests, and hand them back to the live test below.
const LIVE = {
  key: process.env.AZURE_OPENAI_API_KEY,
  baseUrl: process.env.AZURE_OPENAI_BASE_URL,
  resource: process.env.AZURE_OPENAI_RESOURCE_NAME,
  deployment: process.env.AZURE_OPENAI_DEPLOYMENT,
};
for (const name of [
  "AZURE_OPENAI_BASE_URL",
  "AZURE_OPENAI_RESOURCE_NAME",
  "AZURE_OPENAI_API_VERSION",
  "AZURE_OPENAI_DEPLOYMENT_NAME_MAP",
]) {
  delete process.env[name];
}

const startAzureMock = (script: MockScript): Promise<MockServer> => startMockServer(script, "/openai/v1");

runConformanceSuite({
  name: "azure-openai-responses",
  api: "azure-openai-responses",
  provider: "azure-openai-responses",
  startMock: startAzureMock,
  events: (t) => openaiResponsesEvents(t),
  stream: streamAzureOpenAIResponses,
  streamSimple: streamSimpleAzureOpenAIResponses,
  errors: {
    // Azure's own 401 body for a wrong key.
    auth: {
      status: 401,
      json: {
        error: {
          code: "401",
          message:
            "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.",
        },
      },
      message: /Access denied due to invalid subscription key/,
    },
    rateLimit: {
      status: 429,
      json: {
        error: {
          code: "429",
          message:
            "Requests to the Responses Operation under Azure OpenAI API version v1 have exceeded token rate limit of your current AIServices S0 pricing tier. Please retry after 7 seconds.",
        },
      },
      headers: { "retry-after": "7" },
      message: /exceeded token rate limit/,
      retryAfterMs: 7000,
    },
    server: { status: 500, json: errorBodies.openaiServer, message: /server had an error/ },
    overloaded: {
      status: 503,
      json: { error: { code: "ServiceUnavailable", message: "The service is temporarily overloaded." } },
      message: /temporarily overloaded/,
    },
    contextOverflow: {
      status: 400,
      json: errorBodies.openaiResponsesContextOverflow,
      message: /exceeds the context window of this model/,
    },
  },
  malformed: { event: "response.output_text.delta", data: '{"type":"response.output_text.delta","delta":"oo' },
  streamsToolArguments: true,
  eventsBeforeText: () => 4,
});

describe("azure-openai-responses specifics", () => {
  let server: MockServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("posts to /responses with api-version, the api-key header and the deployment name as model", async () => {
    server = await startAzureMock([{ events: openaiResponsesEvents({ text: ["ok"] }) }]);
    const model = testModel("azure-openai-responses", {
      id: "gpt-5.2",
      provider: "azure-openai-responses",
      baseUrl: server.baseUrl,
    });
    const { result } = await collect(
      streamSimpleAzureOpenAIResponses(model, CONTEXT, { apiKey: "az-key", reasoning: "low" }),
    );
    expect(textOfMessage(result)).toBe("ok");
    await collect(
      streamAzureOpenAIResponses(model, CONTEXT, {
        apiKey: "az-key",
        azureDeploymentName: "my-gpt52",
        azureApiVersion: "2025-04-01-preview",
        reasoningEffort: "high",
        reasoningSummary: "detailed",
      }),
    );
    const [first, second] = server.requests;
    expect(first!.url).toBe("/openai/v1/responses?api-version=v1");
    expect(first!.headers["api-key"]).toBe("az-key");
    expect(first!.headers.authorization).toBeUndefined();
    expect(first!.body.model).toBe("gpt-5.2");
    expect(first!.body.reasoning).toEqual({ effort: "low", summary: "auto" });
    expect(second!.url).toBe("/openai/v1/responses?api-version=2025-04-01-preview");
    expect(second!.body.model).toBe("my-gpt52");
    expect(second!.body.reasoning).toEqual({ effort: "high", summary: "detailed" });
  });

  it("maps models to deployments through AZURE_OPENAI_DEPLOYMENT_NAME_MAP", async () => {
    server = await startAzureMock([{ events: openaiResponsesEvents({ text: ["ok"] }) }]);
    const model = testModel("azure-openai-responses", { id: "gpt-5-mini", baseUrl: server.baseUrl });
    process.env.AZURE_OPENAI_DEPLOYMENT_NAME_MAP = "gpt-5=prod-5, gpt-5-mini = prod-mini";
    try {
      await collect(streamAzureOpenAIResponses(model, CONTEXT, { apiKey: "k" }));
    } finally {
      delete process.env.AZURE_OPENAI_DEPLOYMENT_NAME_MAP;
    }
    expect(server.requests[0]!.body.model).toBe("prod-mini");
  });

  it("builds the endpoint from a resource name and completes a bare Azure host to /openai/v1", () => {
    const model = testModel("azure-openai-responses", { baseUrl: "" });
    expect(resolveAzureBaseUrl(model, { azureResourceName: "contoso" })).toBe(
      "https://contoso.openai.azure.com/openai/v1",
    );
    expect(resolveAzureBaseUrl(model, { azureBaseUrl: "https://contoso.cognitiveservices.azure.com/openai/" })).toBe(
      "https://contoso.cognitiveservices.azure.com/openai/v1",
    );
    expect(resolveAzureBaseUrl(model, { azureBaseUrl: "https://proxy.example/azure" })).toBe(
      "https://proxy.example/azure",
    );
  });

  it("fails with a clear error, without a request, when no endpoint or key is configured", async () => {
    const bare = testModel("azure-openai-responses", { provider: "my-azure", baseUrl: "" });
    const saved = process.env.AZURE_OPENAI_API_KEY;
    delete process.env.AZURE_OPENAI_API_KEY;
    try {
      const noEndpoint = await collect(streamAzureOpenAIResponses(bare, CONTEXT, { apiKey: "k" }));
      expect(noEndpoint.result.errorMessage).toMatch(/AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME/);
      const noKey = await collect(streamAzureOpenAIResponses({ ...bare, baseUrl: "http://127.0.0.1:9" }, CONTEXT));
      expect(noKey.result.errorMessage).toMatch(/set AZURE_OPENAI_API_KEY/);
      expect(noKey.types).toEqual(["error"]);
    } finally {
      if (saved !== undefined) process.env.AZURE_OPENAI_API_KEY = saved;
    }
  });
});

describe.skipIf(!LIVE.key || !(LIVE.baseUrl || LIVE.resource))("azure-openai-responses live", () => {
  it("streams a short answer from the real API", async () => {
    const model = testModel("azure-openai-responses", {
      id: LIVE.deployment ?? "gpt-4o-mini",
      provider: "azure-openai-responses",
      baseUrl: "",
      reasoning: false,
    });
    const { result } = await collect(
      streamAzureOpenAIResponses(
        model,
        { messages: [{ role: "user", content: "Say OK", timestamp: 1 }] },
        { maxTokens: 20, azureBaseUrl: LIVE.baseUrl, azureResourceName: LIVE.resource },
      ),
    );
    expect(result.stopReason).toBe("stop");
  });
});
