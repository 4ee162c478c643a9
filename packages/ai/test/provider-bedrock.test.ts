import { describe, expect, it } from "vitest";
import { hasAwsCredentialsInEnv } from "../src/env-api-keys.js";
import { getModel } from "../src/models.js";
import { streamBedrock, streamSimpleBedrock } from "../src/providers/amazon-bedrock.js";
import type { SimpleStreamOptions, StreamOptions } from "../src/types.js";
import { bedrockErrors, bedrockEvents } from "./helpers/bedrock-events.js";
import { type BedrockAuth, startBedrockMock } from "./helpers/bedrock-mock.js";
import { collect } from "./helpers/collect.js";
import { runConformanceSuite } from "./helpers/provider-conformance.js";

// The conformance suite passes `apiKey: "test-key"`. SigV4 run: the key becomes the access key id (so it shows
// in the Credential scope) and the request is signed with a secret only the test server knows.
const SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const sigv4: BedrockAuth = { mode: "sigv4", accessKeyId: "test-key", secretAccessKey: SECRET, region: "us-east-1" };
function signed<T extends StreamOptions>(o: T | undefined): T {
  const { apiKey, ...rest } = o ?? ({} as T);
  return {
    ...rest,
    region: "us-east-1",
    credentials: { accessKeyId: apiKey ?? "none", secretAccessKey: SECRET },
  } as unknown as T;
}

const errors = {
  auth: { ...bedrockErrors.auth, message: /UnrecognizedClientException: The security token included/ },
  rateLimit: { ...bedrockErrors.throttling, message: /ThrottlingException: Too many requests/ },
  server: {
    ...bedrockErrors.server,
    message: /InternalServerException: internal server error: The server encountered an error/,
  },
  overloaded: {
    ...bedrockErrors.unavailable,
    message: /ServiceUnavailableException: service unavailable: Bedrock is unable/,
  },
  contextOverflow: { ...bedrockErrors.tooLong, message: /ValidationException: Input is too long for requested model/ },
};
const malformed = { event: "contentBlockDelta", data: '{"contentBlockIndex":0,"delta":{"text":"oo' };

runConformanceSuite({
  name: "bedrock (SigV4)",
  api: "bedrock-converse-stream",
  provider: "amazon-bedrock",
  startMock: (script) => startBedrockMock(script, sigv4),
  events: (t) => bedrockEvents(t),
  stream: (model, context, options) => streamBedrock(model, context, signed(options)),
  streamSimple: (model, context, options) => streamSimpleBedrock(model, context, signed<SimpleStreamOptions>(options)),
  errors,
  malformed,
  streamsToolArguments: true,
  eventsBeforeText: () => 1,
});

runConformanceSuite({
  name: "bedrock (API key)",
  api: "bedrock-converse-stream",
  provider: "amazon-bedrock",
  startMock: (script) => startBedrockMock(script, { mode: "bearer", token: "test-key" }),
  events: (t) => bedrockEvents(t),
  stream: streamBedrock,
  streamSimple: streamSimpleBedrock,
  errors,
  malformed,
  streamsToolArguments: true,
  eventsBeforeText: () => 1,
});

describe.skipIf(!hasAwsCredentialsInEnv())("bedrock live", () => {
  it("streams a short answer from the real service (region from AWS_REGION, else us-east-1)", async () => {
    const model = getModel("amazon-bedrock", "us.anthropic.claude-haiku-4-5-20251001-v1:0");
    const { result } = await collect(
      streamBedrock(model, { messages: [{ role: "user", content: "Say OK", timestamp: 1 }] }, { maxTokens: 20 }),
    );
    expect(result.stopReason, result.errorMessage).toBe("stop");
    expect(result.usage.input).toBeGreaterThan(0);
  });
});
