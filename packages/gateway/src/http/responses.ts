/**
 * `POST /v1/responses`: OpenAI's Responses API over a gateway run. `input` is a string or message items
 * (`instructions`, system and developer items → extra system prompt; the last user item → the prompt; earlier
 * turns → history of a stateless request). `previous_response_id` continues the earlier response's session.
 * Streaming sends `response.created`, `response.in_progress`, `response.output_item.added`,
 * `response.content_part.added`, `response.output_text.delta`…, `response.output_text.done`,
 * `response.content_part.done`, `response.output_item.done` and `response.completed` (or `response.incomplete`
 * when cut at the output budget, `response.failed` when the run fails), then `data: [DONE]`.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { compileSchema, readJson } from "./body.js";
import { sendError, sendJson } from "./errors.js";
import { newResponseId, sessionOfResponseId } from "./response-ids.js";
import { abortOnDisconnect, startRun } from "./run-bridge.js";
import { runFailure } from "./run-errors.js";
import { decodeDataUrl, type PlainMessage, samplingOf, toRunInput } from "./run-input.js";
import { type ResponsesInputItem, ResponsesRequest } from "./schemas.js";
import { SseWriter } from "./sse.js";
import { resolveTarget } from "./targets.js";
import type { EndpointContext, HttpCaller, RunReply } from "./types.js";

const check = compileSchema(ResponsesRequest);

function plainItems(input: string | ResponsesInputItem[]): PlainMessage[] {
  if (typeof input === "string") return [{ role: "user", text: input, images: [] }];
  const out: PlainMessage[] = [];
  input.forEach((item, i) => {
    if (!("role" in item)) return; // function_call_output, reasoning, item_reference: not used by Tiller runs
    const role = item.role === "system" || item.role === "developer" ? "system" : item.role;
    if (typeof item.content === "string") {
      out.push({ role, text: item.content, images: [] });
      return;
    }
    const text: string[] = [];
    const images: PlainMessage["images"] = [];
    item.content.forEach((part, j) => {
      if ((part.type === "input_text" || part.type === "output_text") && "text" in part) text.push(part.text);
      else if (part.type === "input_image" && ("image_url" in part || "source" in part)) {
        const field = `input[${i}].content[${j}]`;
        const url =
          part.image_url ??
          (part.source?.type === "base64" && part.source.data
            ? `data:${part.source.media_type ?? "image/png"};base64,${part.source.data}`
            : (part.source?.url ?? ""));
        images.push(decodeDataUrl(url, field));
      }
    });
    out.push({ role, text: text.join("\n"), images });
  });
  return out;
}

interface Shape {
  id: string;
  itemId: string;
  created: number;
  model: string;
  instructions: string | null;
  previous: string | null;
}

function outputItem(s: Shape, text: string, status: "in_progress" | "completed" | "incomplete") {
  return {
    type: "message",
    id: s.itemId,
    status,
    role: "assistant",
    content: status === "in_progress" ? [] : [{ type: "output_text", text, annotations: [] }],
  };
}

function responseObject(s: Shape, status: string, reply?: RunReply, extra: Record<string, unknown> = {}) {
  const done = reply?.status === "ok";
  const incomplete = done && reply.stopReason === "length";
  return {
    id: s.id,
    object: "response",
    created_at: s.created,
    status,
    model: s.model,
    output: done ? [outputItem(s, reply.text, incomplete ? "incomplete" : "completed")] : [],
    usage: reply
      ? {
          input_tokens: reply.usage.input,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: reply.usage.output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: reply.usage.total,
        }
      : null,
    error: null,
    incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
    instructions: s.instructions,
    previous_response_id: s.previous,
    parallel_tool_calls: false,
    tool_choice: "auto",
    tools: [],
    text: { format: { type: "text" } },
    metadata: {},
    ...extra,
  };
}

export async function responses(
  api: EndpointContext,
  caller: HttpCaller,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const { core } = api;
  const body = await readJson(req, api.maxBodyBytes, check);
  const previous = body.previous_response_id ?? null;
  const previousKey = previous ? sessionOfResponseId(previous, (k) => core.store.get(k) !== undefined) : undefined;
  const target = resolveTarget(core, req, caller, body, previousKey);
  const input = {
    ...toRunInput(plainItems(body.input), target, "input", body.instructions ?? undefined),
    sampling: samplingOf(body.temperature, body.max_output_tokens),
  };
  const s: Shape = {
    id: newResponseId(target.sessionKey),
    itemId: `msg_${randomUUID().replace(/-/g, "")}`,
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    instructions: body.instructions ?? null,
    previous,
  };
  const headers = { "x-tiller-session-key": target.sessionKey };

  if (!body.stream) {
    const run = await startRun(core, api.fanout, input);
    abortOnDisconnect(res, run);
    const reply = await run.done;
    if (reply.status !== "ok") {
      sendError(res, runFailure(reply));
      return;
    }
    const status = reply.stopReason === "length" ? "incomplete" : "completed";
    sendJson(res, 200, responseObject(s, status, reply), headers);
    return;
  }

  const sse = new SseWriter(res, api.maxBufferedBytes, headers);
  let seq = 0;
  const event = (type: string, data: Record<string, unknown>): void =>
    sse.send({ type, sequence_number: seq++, ...data }, type);
  const part = { item_id: s.itemId, output_index: 0, content_index: 0 };
  event("response.created", { response: responseObject(s, "in_progress") });
  event("response.in_progress", { response: responseObject(s, "in_progress") });
  event("response.output_item.added", { output_index: 0, item: outputItem(s, "", "in_progress") });
  event("response.content_part.added", { ...part, part: { type: "output_text", text: "", annotations: [] } });
  let streamed = "";
  let reply: RunReply;
  try {
    const run = await startRun(core, api.fanout, input, (delta) => {
      streamed += delta;
      event("response.output_text.delta", { ...part, delta, logprobs: [] });
    });
    abortOnDisconnect(res, run);
    reply = await run.done;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    event("response.failed", {
      response: responseObject(s, "failed", undefined, { error: { code: "server_error", message } }),
    });
    sse.done();
    return;
  }
  if (sse.closed) return;
  if (reply.status !== "ok") {
    const failure = runFailure(reply);
    event("response.failed", {
      response: responseObject(s, "failed", reply, {
        error: { code: failure.code ?? "server_error", message: failure.message },
      }),
    });
    sse.done();
    return;
  }
  // Deltas are what the client has; a reply that arrived without any (merged into another run) is sent whole.
  if (!streamed && reply.text) {
    streamed = reply.text;
    event("response.output_text.delta", { ...part, delta: reply.text, logprobs: [] });
  }
  const text = streamed;
  const incomplete = reply.stopReason === "length";
  event("response.output_text.done", { ...part, text, logprobs: [] });
  event("response.content_part.done", { ...part, part: { type: "output_text", text, annotations: [] } });
  event("response.output_item.done", {
    output_index: 0,
    item: outputItem(s, text, incomplete ? "incomplete" : "completed"),
  });
  const final = responseObject(s, incomplete ? "incomplete" : "completed", { ...reply, text });
  event(incomplete ? "response.incomplete" : "response.completed", { response: final });
  sse.done();
}
