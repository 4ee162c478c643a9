/**
 * `POST /v1/chat/completions`: OpenAI's Chat Completions over a gateway run. Without `stream`, one
 * `chat.completion`; with it, `chat.completion.chunk` events (a role chunk, content deltas, a finish chunk,
 * a usage chunk when `stream_options.include_usage`), then `data: [DONE]`. A run that fails mid-stream sends an
 * `{"error": …}` event and `[DONE]`; a client that disconnects aborts its run.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { compileSchema, readJson } from "./body.js";
import { errorBody, sendError, sendJson } from "./errors.js";
import { abortOnDisconnect, newRunId, startRun } from "./run-bridge.js";
import { runFailure } from "./run-errors.js";
import { decodeDataUrl, type PlainMessage, samplingOf, toRunInput } from "./run-input.js";
import { ChatCompletionRequest, type ChatMessage } from "./schemas.js";
import { SseWriter } from "./sse.js";
import { resolveTarget } from "./targets.js";
import type { EndpointContext, HttpCaller, RunReply } from "./types.js";

const check = compileSchema(ChatCompletionRequest);

function plain(m: ChatMessage, i: number): PlainMessage {
  const role = m.role === "system" || m.role === "developer" ? "system" : m.role === "user" ? "user" : "assistant";
  if (m.role === "tool" || m.role === "function") return { role: "assistant", text: "", images: [] };
  const text: string[] = [];
  const images: PlainMessage["images"] = [];
  if (typeof m.content === "string") text.push(m.content);
  else if (Array.isArray(m.content)) {
    m.content.forEach((part, j) => {
      if (part.type === "text" && "text" in part) text.push(part.text);
      else if (part.type === "image_url" && "image_url" in part) {
        const url = typeof part.image_url === "string" ? part.image_url : part.image_url.url;
        images.push(decodeDataUrl(url, `messages[${i}].content[${j}].image_url`));
      }
    });
  }
  return { role, text: text.join("\n"), images };
}

function usageOf(reply: RunReply) {
  return { prompt_tokens: reply.usage.input, completion_tokens: reply.usage.output, total_tokens: reply.usage.total };
}

function finishReason(reply: RunReply): "stop" | "length" {
  return reply.stopReason === "length" ? "length" : "stop";
}

export async function chatCompletions(
  api: EndpointContext,
  caller: HttpCaller,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const { core } = api;
  const body = await readJson(req, api.maxBodyBytes, check);
  const target = resolveTarget(core, req, caller, body);
  // Tool results of client-side tools are not supported: they are dropped from the conversation.
  const messages = body.messages.filter((m) => m.role !== "tool" && m.role !== "function").map(plain);
  const input = {
    ...toRunInput(messages, target, "messages"),
    // max_completion_tokens is the current name; max_tokens the legacy one.
    sampling: samplingOf(body.temperature, body.max_completion_tokens ?? body.max_tokens),
  };
  const created = Math.floor(Date.now() / 1000);
  const model = body.model;

  if (!body.stream) {
    const run = await startRun(core, api.fanout, input);
    abortOnDisconnect(res, run);
    const reply = await run.done;
    if (reply.status !== "ok") {
      sendError(res, runFailure(reply));
      return;
    }
    sendJson(
      res,
      200,
      {
        id: `chatcmpl-${run.runId}`,
        object: "chat.completion",
        created,
        model,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: reply.text, refusal: null },
            logprobs: null,
            finish_reason: finishReason(reply),
          },
        ],
        usage: usageOf(reply),
      },
      { "x-tiller-session-key": reply.sessionKey },
    );
    return;
  }

  const includeUsage = body.stream_options?.include_usage === true;
  const runId = newRunId();
  const chunkId = `chatcmpl-${runId}`;
  const chunk = (delta: Record<string, unknown>, finish: string | null): Record<string, unknown> => ({
    id: chunkId,
    object: "chat.completion.chunk",
    created,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const sse = new SseWriter(res, api.maxBufferedBytes, { "x-tiller-session-key": target.sessionKey });
  sse.send(chunk({ role: "assistant", content: "" }, null));
  let streamed = false;
  let reply: RunReply;
  try {
    const run = await startRun(
      core,
      api.fanout,
      input,
      (delta) => {
        streamed = true;
        sse.send(chunk({ content: delta }, null));
      },
      runId,
    );
    abortOnDisconnect(res, run);
    reply = await run.done;
  } catch (err) {
    sse.send({
      error: { message: err instanceof Error ? err.message : String(err), type: "api_error", code: "run_failed" },
    });
    sse.done();
    return;
  }
  if (sse.closed) return;
  if (reply.status !== "ok") {
    sse.send(errorBody(runFailure(reply)));
    sse.done();
    return;
  }
  // Nothing streamed (a reply produced without deltas, e.g. merged into another run): send it whole.
  if (!streamed && reply.text) sse.send(chunk({ content: reply.text }, null));
  sse.send(chunk({}, finishReason(reply)));
  if (includeUsage) {
    sse.send({ id: chunkId, object: "chat.completion.chunk", created, model, choices: [], usage: usageOf(reply) });
  }
  sse.done();
}
