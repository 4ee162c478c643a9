/**
 * Mistral's chat streaming wire format (`data:` lines of `chat.completion.chunk`, then `data: [DONE]`), from a
 * neutral turn description. Thinking arrives as `content: [{type: "thinking", thinking: [{type: "text"}]}]`
 * (Magistral / reasoning_effort models), text as string content, tool calls whole in one delta (Mistral does
 * not stream arguments; parallel calls share the delta), usage on the last chunk.
 */
import type { SseEvent } from "./mock-server.js";
import type { TurnScript } from "./vendor-events.js";

export function mistralEvents(t: TurnScript, opts: { toolCallIdFor?: (id: string) => string } = {}): SseEvent[] {
  const model = t.model ?? "mistral-test";
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra = {}): SseEvent => ({
    data: {
      id: "cmpl-9f2c8a1e4b7d4c0f",
      object: "chat.completion.chunk",
      created: 1764489600,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...extra,
    },
  });
  const events: SseEvent[] = [chunk({ role: "assistant", content: "" })];
  for (const d of t.thinking ?? []) {
    events.push(chunk({ content: [{ type: "thinking", thinking: [{ type: "text", text: d }] }] }));
  }
  for (const d of t.text ?? []) events.push(chunk({ content: d }));
  const calls = (t.toolCalls ?? []).map((c, index) => ({
    id: opts.toolCallIdFor ? opts.toolCallIdFor(c.id) : c.id,
    function: { name: c.name, arguments: c.args.join("") },
    index,
  }));
  if (calls.length > 0) events.push(chunk({ tool_calls: calls }));
  const u = t.usage ?? { input: 0, output: 0 };
  const prompt = u.input + (u.cacheRead ?? 0);
  const usage: Record<string, unknown> = {
    prompt_tokens: prompt,
    total_tokens: prompt + u.output,
    completion_tokens: u.output,
  };
  if (u.cacheRead) usage.prompt_tokens_details = { cached_tokens: u.cacheRead };
  const finish = t.finish === "length" ? "length" : t.finish === "tool" ? "tool_calls" : "stop";
  events.push(chunk({ content: "" }, finish, { usage }));
  events.push({ data: "[DONE]" });
  return events;
}
