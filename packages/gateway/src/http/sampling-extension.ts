/**
 * Applies an HTTP request's sampling fields (`temperature`, `max_tokens` / `max_completion_tokens` /
 * `max_output_tokens`) to every model call of its run, through the run's `wrapModelCall` seam. Runs without
 * `request.sampling` (every other source) are left as they are.
 */
import type { RunExtension } from "../run/run-types.js";

export const samplingExtension: RunExtension = {
  name: "http-sampling",
  wrapModelCall(call, ctx) {
    const sampling = ctx.request.sampling;
    if (!sampling) return call;
    return (model, context, options) =>
      call(model, context, {
        ...options,
        ...(sampling.temperature !== undefined ? { temperature: sampling.temperature } : {}),
        ...(sampling.maxTokens !== undefined ? { maxTokens: sampling.maxTokens } : {}),
      });
  },
};
