/**
 * Response ids that carry their session: `resp_<base64url(sessionKey)>_<random>`. `previous_response_id`
 * continues that session (its transcript is the history), with no table to keep and nothing lost on restart. A
 * caller learns no more than it could name itself: it may pick any session with `x-tiller-session-key` anyway.
 */
import { randomUUID } from "node:crypto";
import { badRequest } from "./errors.js";

export function newResponseId(sessionKey: string): string {
  return `resp_${Buffer.from(sessionKey).toString("base64url")}_${randomUUID().replace(/-/g, "")}`;
}

/** The session of a response id; 400 naming `previous_response_id` for an id this gateway never made. */
export function sessionOfResponseId(id: string, exists: (sessionKey: string) => boolean): string {
  const m = /^resp_([A-Za-z0-9_-]+)_[0-9a-f]{32}$/.exec(id);
  const key = m ? Buffer.from(m[1] as string, "base64url").toString("utf8") : "";
  if (!key.startsWith("agent:") || !exists(key)) {
    throw badRequest(`previous response "${id}" not found`, "previous_response_id", "previous_response_not_found");
  }
  return key;
}
