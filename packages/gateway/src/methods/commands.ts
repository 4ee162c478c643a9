/**
 * Slash commands handled by the gateway itself, without a model turn: /status (model, tokens, queue of the
 * session), /stop (abort the active run),
 * /queue <mode> [debounce:2s] [cap:N] [drop:old|new|summarize] and /queue default (per-session queue
 * settings), /new and /reset (a fresh session id), /approve <id> <decision> (approvals/approve-command.ts). Each
 * answers like a run with one text payload.
 */
import { approveCommand } from "../approvals/approve-command.js";
import { DROP_POLICIES, QUEUE_MODES, type QueueDropPolicy, type QueueMode } from "../config/config-types.js";
import type { RunOutcome } from "../run/run-types.js";
import type { GatewayCore } from "../server/gateway-core.js";
import type { SessionQueueState } from "../server/run-placement.js";

function reply(text: string, status: RunOutcome["status"] = "ok"): RunOutcome {
  const now = Date.now();
  return {
    status,
    summary: status === "ok" ? "completed" : text,
    ...(status === "ok" ? {} : { error: text }),
    startedAt: now,
    endedAt: now,
    result: {
      payloads: [{ text, mediaUrl: null }],
      meta: { durationMs: 0, agentMeta: { sessionId: "", provider: "gateway", model: "command" } },
    },
  };
}

function parseDuration(v: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(v.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  return Math.round(m[2] === "m" ? n * 60_000 : m[2] === "s" ? n * 1000 : n);
}

/**
 * Handles `message` when it is a gateway command; undefined means: an ordinary message. `scopes`: the sender's
 * (commands that need a scope, like /approve, are refused without them).
 */
export async function handleSlashCommand(
  core: GatewayCore,
  sessionKey: string,
  agentId: string,
  message: string,
  scopes?: readonly string[],
): Promise<RunOutcome | undefined> {
  const text = message.trim();
  if (!text.startsWith("/")) return undefined;
  const [cmd = "", ...args] = text.split(/\s+/);
  switch (cmd.toLowerCase()) {
    case "/stop": {
      const ids = await core.abortRuns(sessionKey);
      const extra = (await core.shaping?.runCommandHooks("stop", sessionKey)) ?? [];
      return reply([ids.length > 0 ? "Stopped." : "Nothing to stop.", ...extra].join("\n\n"));
    }
    case "/new":
    case "/reset": {
      const previous = core.store.ensure(sessionKey, agentId);
      const entry = await core.resetSession(sessionKey);
      // Command hooks (command:new / command:reset) and the plugins' session_end of the session that ended.
      const extra = (await core.shaping?.runCommandHooks(cmd.slice(1).toLowerCase(), sessionKey, previous)) ?? [];
      return reply([`New session started (${entry?.sessionId ?? "?"}).`, ...extra].join("\n\n"));
    }
    case "/status": {
      const states = await core.placement.queueState?.([sessionKey]);
      const placed = states ? (states.get(sessionKey) ?? { queued: 0 }) : undefined;
      return reply(statusText(core, sessionKey, agentId, placed));
    }
    case "/approve": {
      const r = await approveCommand(core.approvals, args, scopes);
      return reply(r.text, r.ok ? "ok" : "error");
    }
    case "/queue": {
      core.store.ensure(sessionKey, agentId);
      const first = (args[0] ?? "").toLowerCase();
      if (!first) {
        const s = core.queueSettings(sessionKey);
        return reply(`Queue: ${s.mode} (debounce ${s.debounceMs}ms, cap ${s.cap}, drop ${s.drop}).`);
      }
      if (first === "default" || first === "reset") {
        const cleared = { queueMode: null, queueDebounceMs: null, queueCap: null, queueDrop: null };
        core.store.patch(sessionKey, cleared);
        // A cluster keeps the queue settings in its shared session index: every node's accept reads them there.
        await core.placement.sessionPatched?.(sessionKey, agentId, cleared);
        return reply(`Queue reset to the default (${core.config.messages.queue.mode}).`);
      }
      const patch: { queueMode?: QueueMode; queueDebounceMs?: number; queueCap?: number; queueDrop?: QueueDropPolicy } =
        {};
      for (const arg of args) {
        const [k, v] = arg.includes(":") ? (arg.split(":", 2) as [string, string]) : ["mode", arg];
        const key = k.toLowerCase();
        if (key === "mode" && QUEUE_MODES.includes(v.toLowerCase() as QueueMode))
          patch.queueMode = v.toLowerCase() as QueueMode;
        else if (key === "debounce" && parseDuration(v) !== undefined) patch.queueDebounceMs = parseDuration(v);
        else if (key === "cap" && /^\d+$/.test(v) && Number(v) > 0) patch.queueCap = Number(v);
        else if (key === "drop" && DROP_POLICIES.includes(v as QueueDropPolicy)) patch.queueDrop = v as QueueDropPolicy;
        else {
          return reply(
            `Unknown /queue option "${arg}". Usage: /queue ${QUEUE_MODES.join("|")} [debounce:2s] [cap:20] [drop:${DROP_POLICIES.join("|")}]`,
            "error",
          );
        }
      }
      core.store.patch(sessionKey, patch);
      await core.placement.sessionPatched?.(sessionKey, agentId, patch);
      const s = core.queueSettings(sessionKey);
      return reply(`Queue set: ${s.mode} (debounce ${s.debounceMs}ms, cap ${s.cap}, drop ${s.drop}).`);
    }
    default:
      return undefined;
  }
}

function compactNumber(n: number): string {
  return n >= 1000 ? `${Math.round(n / 100) / 10}k` : String(n);
}

/** `/status`: the session's model, token counters, queue and run state, as one reply. */
function statusText(
  core: GatewayCore,
  sessionKey: string,
  agentId: string,
  /** The queue state a placement keeps outside this process (a cluster's); absent: this process's queue. */
  placed?: SessionQueueState,
): string {
  const entry = core.store.get(sessionKey);
  const agent = core.config.agents.list.find((a) => a.id === agentId);
  const resolved = core.models.resolve(entry?.model ?? agent?.model) ?? core.models.resolve(undefined);
  const thinking = entry?.thinking ?? core.config.agents.defaults.thinking;
  const q = core.queueSettings(sessionKey);
  const local = core.queues.active(sessionKey);
  const activeRunId = placed ? placed.activeRunId : local && !local.finished ? local.runId : undefined;
  const waiting = placed ? placed.queued : core.queues.pendingCount(sessionKey);
  const window = resolved?.model.contextWindow;
  return [
    `Session: ${sessionKey}${entry ? ` (${entry.sessionId})` : ""}`,
    `Model: ${resolved?.ref ?? core.models.defaultRef} · thinking ${thinking}`,
    `Tokens: ${compactNumber(entry?.inputTokens ?? 0)} in / ${compactNumber(entry?.outputTokens ?? 0)} out · context ${compactNumber(entry?.contextTokens ?? 0)}${window ? `/${compactNumber(window)}` : ""}`,
    `Queue: ${q.mode} (debounce ${q.debounceMs}ms, cap ${q.cap}, drop ${q.drop}) · ${waiting} waiting`,
    `Run: ${activeRunId ? `active (${activeRunId})` : "idle"} · compactions ${entry?.compactionCount ?? 0}`,
  ].join("\n");
}
