/** The Agent's default stream function: @tiller/ai's `streamSimple` (routes by `model.api` to a provider). */
import { streamSimple } from "@tiller/ai";
import type { StreamFn } from "./types.js";

export const defaultStreamFn: StreamFn = (model, context, options) => streamSimple(model, context, options);
