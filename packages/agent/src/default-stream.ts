/**
 * The Agent's default stream function: @tiller/ai's `streamSimple`, looked up at call time so this package
 * loads even where the provider layer is trimmed down.
 */
import * as ai from "@tiller/ai";
import type { StreamFn } from "./types.js";

export const defaultStreamFn: StreamFn = (model, context, options) => {
  const streamSimple = (ai as unknown as { streamSimple?: StreamFn }).streamSimple;
  if (!streamSimple) throw new Error("@tiller/ai does not export streamSimple: pass streamFn to the Agent");
  return streamSimple(model, context, options);
};
