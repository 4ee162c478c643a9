/**
 * The search of pi's session picker: a query is either `re:<pattern>` (a case-insensitive regular expression) or
 * words, each matched fuzzily, with `"quoted phrases"` matched exactly (whitespace and case ignored). A session
 * matches on its id, name, message text and folder. "recent" keeps the listing's order (newest first);
 * "relevance" puts the best matches first, ties newest first.
 */
import { fuzzyMatch } from "@mariozechner/pi-tui";
import type { SessionInfo } from "../../../session/types.js";
import type { SessionNameFilter, SessionSortMode } from "./types.js";

/** A parsed query; `error` set means nothing matches (an invalid or empty `re:` pattern). */
interface SessionQuery {
  regex?: RegExp;
  terms: Array<{ phrase: boolean; text: string }>;
  error?: string;
}

const squash = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();

/** Whether a session has a name worth showing (not blank). */
export function hasSessionName(session: SessionInfo): boolean {
  return (session.name ?? "").trim() !== "";
}

function parseQuery(query: string): SessionQuery {
  const q = query.trim();
  if (q.startsWith("re:")) {
    const pattern = q.slice(3).trim();
    if (!pattern) return { terms: [], error: "empty pattern" };
    try {
      return { terms: [], regex: new RegExp(pattern, "i") };
    } catch (err) {
      return { terms: [], error: err instanceof Error ? err.message : String(err) };
    }
  }
  // An odd number of quotes: no phrases, every word fuzzy.
  const quotes = q.split('"').length - 1;
  if (quotes % 2 === 1) return { terms: q.split(/\s+/).map((text) => ({ phrase: false, text })) };
  const terms: SessionQuery["terms"] = [];
  q.split('"').forEach((part, i) => {
    if (i % 2 === 1) {
      if (part.trim()) terms.push({ phrase: true, text: part });
    } else for (const word of part.split(/\s+/)) if (word) terms.push({ phrase: false, text: word });
  });
  return { terms };
}

/** The match score of a session (lower is better), or undefined when it does not match. */
function score(session: SessionInfo, query: SessionQuery): number | undefined {
  if (query.error) return undefined;
  const text = `${session.id} ${session.name ?? ""} ${session.allMessagesText} ${session.cwd}`;
  if (query.regex) {
    const at = text.search(query.regex);
    return at < 0 ? undefined : at * 0.1;
  }
  let total = 0;
  let squashed: string | undefined;
  for (const term of query.terms) {
    if (term.phrase) {
      squashed ??= squash(text);
      const at = squashed.indexOf(squash(term.text));
      if (at < 0) return undefined;
      total += at * 0.1;
    } else {
      const m = fuzzyMatch(term.text, text);
      if (!m.matches) return undefined;
      total += m.score;
    }
  }
  return total;
}

/**
 * The sessions to list for `query`: only named ones under the "named" filter; an empty query keeps the given
 * order; otherwise the matches, in the order `sortMode` asks for ("threaded" sorts as "relevance" while searching).
 */
export function searchSessions(
  sessions: readonly SessionInfo[],
  query: string,
  sortMode: SessionSortMode,
  nameFilter: SessionNameFilter = "all",
): SessionInfo[] {
  const named = nameFilter === "named" ? sessions.filter(hasSessionName) : [...sessions];
  if (!query.trim()) return named;
  const parsed = parseQuery(query);
  const scored: Array<{ session: SessionInfo; score: number }> = [];
  for (const session of named) {
    const s = score(session, parsed);
    if (s !== undefined) scored.push({ session, score: s });
  }
  if (sortMode !== "recent") {
    scored.sort((a, b) => a.score - b.score || b.session.modified.getTime() - a.session.modified.getTime());
  }
  return scored.map((s) => s.session);
}
