import { type AssistantMessage, fauxAssistantMessage, registerFauxProvider } from "@tiller/ai";
import { describe, expect, it } from "vitest";
import {
  type AgentSessionEvent,
  createAgentSession,
  isRetryableFailure,
  retryDelayMs,
  SessionManager,
  SettingsManager,
} from "../src/index.js";

const failure = (errorMessage: string, errorStatus?: number): AssistantMessage => ({
  ...fauxAssistantMessage([], { stopReason: "error", errorMessage }),
  ...(errorStatus ? { errorStatus } : {}),
});

const retrySettings = SettingsManager.inMemory({
  retry: { enabled: true, maxRetries: 2, baseDelayMs: 20, maxDelayMs: 1000 },
});

async function run(responses: AssistantMessage[]) {
  const faux = registerFauxProvider();
  faux.setResponses(responses);
  const { session } = await createAgentSession({
    cwd: "/proj",
    model: faux.getModel(),
    sessionManager: SessionManager.inMemory("/proj"),
    settingsManager: retrySettings,
  });
  const events: AgentSessionEvent[] = [];
  session.subscribe((e) => {
    if (e.type.startsWith("auto_retry")) events.push(e);
  });
  const started = Date.now();
  await session.prompt("hello");
  const elapsed = Date.now() - started;
  faux.unregister();
  return { session, events, elapsed };
}

describe("automatic retry", () => {
  it("retries a 429 after the backoff, then succeeds; the failure leaves the context", async () => {
    const { session, events, elapsed } = await run([
      failure("429 Too Many Requests: rate limit exceeded", 429),
      fauxAssistantMessage("recovered"),
    ]);
    expect(events).toEqual([
      { type: "auto_retry_start", attempt: 1, maxAttempts: 2, delayMs: 20, errorMessage: expect.stringMatching(/429/) },
      { type: "auto_retry_end", success: true, attempt: 1 },
    ]);
    expect(elapsed).toBeGreaterThanOrEqual(18);
    expect(session.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    const last = session.messages[1];
    expect(last?.role === "assistant" && last.content[0]).toMatchObject({ text: "recovered" });
    expect(session.sessionManager.buildSessionContext().messages).toEqual(session.messages);
    session.dispose();
  });

  it("gives up after maxRetries with the last error", async () => {
    const { session, events } = await run([
      failure("503 overloaded", 503),
      failure("503 overloaded", 503),
      failure("503 overloaded again", 503),
    ]);
    expect(events.map((e) => e.type)).toEqual(["auto_retry_start", "auto_retry_start", "auto_retry_end"]);
    expect(events[1]).toMatchObject({ attempt: 2, delayMs: 40 });
    expect(events[2]).toMatchObject({ success: false, attempt: 2, finalError: "503 overloaded again" });
    session.dispose();
  });

  it("abort() during the backoff wait ends the prompt at once and reports the retry as failed", async () => {
    const faux = registerFauxProvider();
    faux.setResponses([failure("429 rate limit", 429), fauxAssistantMessage("never reached")]);
    const { session } = await createAgentSession({
      cwd: "/proj",
      model: faux.getModel(),
      sessionManager: SessionManager.inMemory("/proj"),
      settingsManager: SettingsManager.inMemory({
        retry: { enabled: true, maxRetries: 3, baseDelayMs: 60_000, maxDelayMs: 60_000 },
      }),
    });
    const events: AgentSessionEvent[] = [];
    session.subscribe((e) => {
      if (e.type.startsWith("auto_retry")) {
        events.push(e);
        if (e.type === "auto_retry_start") setTimeout(() => void session.abort(), 20);
      }
    });
    const started = Date.now();
    await session.prompt("hello");
    expect(Date.now() - started).toBeLessThan(5000);
    expect(events.map((e) => e.type)).toEqual(["auto_retry_start", "auto_retry_end"]);
    expect(events[1]).toMatchObject({ success: false, attempt: 1, finalError: "retry aborted" });
    expect(faux.getPendingResponseCount()).toBe(1);
    expect(session.isStreaming).toBe(false);
    session.dispose();
    faux.unregister();
  });

  it("never retries auth failures", async () => {
    const { events, session } = await run([failure("401 invalid x-api-key", 401)]);
    expect(events).toEqual([]);
    session.dispose();
  });

  it("classifies failures: transient ones are retryable, overflow and auth are not", () => {
    expect(isRetryableFailure(failure("rate limit reached", 429))).toBe(true);
    expect(isRetryableFailure(failure("fetch failed: ECONNRESET"))).toBe(true);
    expect(isRetryableFailure(failure("Request timed out"))).toBe(true);
    expect(isRetryableFailure(failure("prompt is too long: 300000 tokens > 200000 maximum", 400))).toBe(false);
    expect(isRetryableFailure(failure("Incorrect API key provided", 401))).toBe(false);
    expect(isRetryableFailure({ ...fauxAssistantMessage("x"), stopReason: "aborted" })).toBe(false);
  });

  it("backs off exponentially, capped, and honours a longer Retry-After", () => {
    const s = { enabled: true, maxRetries: 5, baseDelayMs: 100, maxDelayMs: 500 };
    expect([1, 2, 3, 4].map((a) => retryDelayMs(a, s))).toEqual([100, 200, 400, 500]);
    expect(retryDelayMs(1, s, 300)).toBe(300);
    expect(retryDelayMs(1, s, 10_000)).toBe(500);
  });
});
