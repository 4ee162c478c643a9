/** Built-in `/commands` of the interactive UI. Each returns once done; failures are shown as notices by the caller. */

import type { SelectItem } from "@mariozechner/pi-tui";
import type { ThinkingLevel } from "@tiller/agent";
import { SessionManager } from "../../session/session-manager.js";
import { THINKING_LEVELS } from "../args.js";
import { formatMcpStatus } from "../mcp-format.js";
import type { CliSetup } from "../session-setup.js";
import { userText } from "./chat-items.js";
import type { ChoiceRequest } from "./choice-prompt.js";
import { findModel, firstLine, modelItems, searchModels, sessionItems, treeItems } from "./pickers.js";
import type { SelectorOptions } from "./selector.js";

/** What commands may do to the UI. */
export interface CommandHost {
  setup: CliSetup;
  notice(message: string, level?: "info" | "warning" | "error"): void;
  /** Shows a picker; a string option is the value highlighted first. */
  pick(title: string, items: SelectItem[], options?: string | SelectorOptions): Promise<string | undefined>;
  /** An inline choice in the panel (the seam for approvals and trust prompts); `cancel` on Esc. */
  choose(request: ChoiceRequest): Promise<string | undefined>;
  setEditorText(text: string): void;
  /** Replaces the session (resume) and redraws the transcript. */
  openSession(path: string): Promise<void>;
  /** Shows the current branch again after the session moved. */
  showBranch(): void;
  refreshInfo(): void;
  quit(): void;
}

export const BUILTIN_COMMANDS: Record<string, string> = {
  help: "show commands and keys",
  model: "switch model (/model provider/id, or pick)",
  thinking: "set thinking level (/thinking high, or pick)",
  compact: "summarize older context now (/compact [focus])",
  new: "start a new session",
  resume: "reopen an earlier session of this folder",
  fork: "continue from an earlier message in a new session file",
  tree: "move to another point of this session's tree",
  mcp: "MCP servers: state, tools, errors",
  quit: "leave tiller",
  exit: "leave tiller",
};

export async function runBuiltinCommand(host: CommandHost, name: string, arg: string): Promise<void> {
  const { session } = host.setup;
  switch (name) {
    case "help": {
      const lines = Object.entries(BUILTIN_COMMANDS).map(([n, d]) => `  /${n.padEnd(9)} ${d}`);
      for (const [n, c] of host.setup.extensions.getCommands())
        lines.push(`  /${n.padEnd(9)} ${c.description ?? "(extension)"}`);
      for (const t of host.setup.templates) lines.push(`  /${t.name.padEnd(9)} ${t.description}`);
      lines.push(
        "Keys: Enter send/steer · Alt+Enter follow-up · Ctrl+J new line · ↑↓ history · Esc abort · " +
          "Ctrl+O expand tools · Ctrl+C clear/abort/quit · Ctrl+D quit",
      );
      host.notice(lines.join("\n"));
      return;
    }
    case "mcp":
      host.notice(formatMcpStatus(host.setup.mcp?.status() ?? []));
      return;
    case "quit":
    case "exit":
      host.quit();
      return;
    case "model": {
      const registry = host.setup.modelRegistry;
      const query = arg.trim();
      const current = `${session.model.provider}/${session.model.id}`;
      let model = query ? findModel(registry, query) : undefined;
      if (!model) {
        // No exact match: fuzzy search over the catalog and configured providers, in the picker.
        if (query && searchModels(registry, query).length === 0) throw new Error(`unknown model "${query}"`);
        const picked = await host.pick("Model", modelItems(registry), { selected: current, filter: query });
        if (!picked) return;
        model = findModel(registry, picked);
        if (!model) throw new Error(`unknown model "${picked}"`);
      }
      session.setModel(model);
      host.notice(`model: ${model.provider}/${model.id} · thinking ${session.thinkingLevel}`);
      if (!registry.hasConfiguredAuth(model))
        host.notice(`no API key for ${model.provider} yet: set its environment variable or auth.json`, "warning");
      host.refreshInfo();
      return;
    }
    case "thinking": {
      let level = arg.trim();
      if (!level) {
        const picked = await host.pick(
          "Thinking level",
          THINKING_LEVELS.map((l) => ({ value: l, label: l })),
          session.thinkingLevel,
        );
        if (!picked) return;
        level = picked;
      }
      if (!(THINKING_LEVELS as readonly string[]).includes(level)) {
        throw new Error(`thinking level must be one of ${THINKING_LEVELS.join(", ")}`);
      }
      const applied = session.setThinkingLevel(level as ThinkingLevel);
      host.notice(
        applied === level ? `thinking: ${applied}` : `thinking: ${applied} (the model does not support ${level})`,
      );
      host.refreshInfo();
      return;
    }
    case "compact": {
      host.notice("compacting…");
      await session.compact(arg.trim() || undefined);
      host.refreshInfo();
      return;
    }
    case "new":
      session.newSession();
      await host.setup.extensions.emit({ type: "session_start", reason: "new", sessionId: session.sessionId });
      host.notice("new session started");
      host.refreshInfo();
      return;
    case "resume": {
      const sessions = SessionManager.list(process.cwd()).filter((s) => s.id !== session.sessionId);
      if (sessions.length === 0) {
        host.notice("no other session in this folder");
        return;
      }
      const picked = await host.pick("Resume session", sessionItems(sessions.slice(0, 500)));
      if (picked) await host.openSession(picked);
      return;
    }
    case "fork": {
      const users = session.sessionManager
        .getBranch()
        .filter((e) => e.type === "message" && (e.message as { role?: string }).role === "user");
      if (users.length === 0) {
        host.notice("nothing to fork from yet");
        return;
      }
      const picked = await host.pick(
        "Fork from message (its text goes back into the editor)",
        users
          .slice()
          .reverse()
          .map((e) => ({
            value: e.id,
            label: e.type === "message" ? firstLine(userText((e.message as { content?: unknown }).content)) : e.id,
          })),
      );
      if (!picked) return;
      const entry = session.sessionManager.getEntry(picked)!;
      const text = entry.type === "message" ? userText((entry.message as { content?: unknown }).content) : "";
      if (entry.parentId) session.fork(entry.parentId);
      else session.newSession();
      await host.setup.extensions.emit({ type: "session_start", reason: "fork", sessionId: session.sessionId });
      host.notice(`forked into ${session.sessionFile ?? "a new session"}`);
      host.showBranch();
      host.setEditorText(text);
      host.refreshInfo();
      return;
    }
    case "tree": {
      const { items, current } = treeItems(session.sessionManager);
      if (items.length === 0) {
        host.notice("the session is empty");
        return;
      }
      const picked = await host.pick("Session tree (• current branch; choose a point to continue from)", items, {
        ...(current ? { selected: current } : {}),
        maxVisible: 14,
      });
      if (!picked) return;
      const r = await session.navigateTree(picked);
      host.showBranch();
      if (r.editorText) host.setEditorText(r.editorText);
      return;
    }
    default:
      throw new Error(`unknown command /${name} (try /help)`);
  }
}
