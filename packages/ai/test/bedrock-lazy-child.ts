/**
 * Child process for provider-bedrock-lazy.test.ts: reports whether the AWS SDK is loaded after importing
 * @tiller/ai, and again after one Bedrock request through the registry (to a closed port: it only has to load).
 */
import { createRequire } from "node:module";
import { complete, getModel } from "@tiller/ai";

const require = createRequire(import.meta.url);
const sdkLoaded = () => Object.keys(require.cache).some((k) => k.includes("client-bedrock-runtime"));
const atImport = sdkLoaded();
const model = { ...getModel("amazon-bedrock", "global.anthropic.claude-sonnet-4-6"), baseUrl: "http://127.0.0.1:9" };
const reply = await complete(
  model,
  { messages: [{ role: "user", content: "hi", timestamp: 1 }] },
  {
    apiKey: "bearer-key",
  },
);
console.log(JSON.stringify({ atImport, afterRequest: sdkLoaded(), stopReason: reply.stopReason }));
