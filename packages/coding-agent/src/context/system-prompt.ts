import type { ContextFile } from "./context-files.js";
import { formatSkillsForPrompt, type Skill } from "./skills.js";

/** What the system prompt needs to know about a tool. Any AgentTool fits; the two prompt fields are optional. */
export interface SystemPromptTool {
  name: string;
  description?: string;
  /** One line describing the tool in the tool list (defaults to the first sentence of `description`). */
  promptSnippet?: string;
  /** Extra guideline bullets this tool adds. */
  promptGuidelines?: readonly string[];
}

export interface BuildSystemPromptOptions {
  cwd: string;
  tools?: readonly SystemPromptTool[];
  contextFiles?: readonly ContextFile[];
  skills?: readonly Skill[];
  /** Replaces the built-in base prompt (context files, skills, date and folder are still appended). */
  systemPrompt?: string;
  /** Appended after everything else. */
  appendSystemPrompt?: string;
  /** Date to state (default: today). Fixed in tests. */
  date?: Date;
}

const BASE = `You are an expert coding assistant working inside Tiller, a terminal coding agent.
You help the user by reading files, running commands, editing code and writing new files.
The user can steer you while you work: a new user message may arrive between tool calls; follow the latest instruction.`;

/**
 * Builds the system prompt: base text (or `systemPrompt`), the tool list and guidelines, the project context files
 * under "# Project Context", the skill list, the date and working folder, then `appendSystemPrompt`.
 * Pure: same inputs, same text.
 */
export function buildSystemPrompt(options: BuildSystemPromptOptions): string {
  const parts: string[] = [];
  const tools = options.tools ?? [];
  if (options.systemPrompt !== undefined) {
    parts.push(options.systemPrompt.trim());
  } else {
    parts.push(BASE);
    if (tools.length > 0) {
      parts.push(`Available tools:\n${tools.map((t) => `- ${t.name}: ${snippet(t)}`).join("\n")}`);
    } else {
      parts.push("No tools are available in this session: answer from the conversation alone.");
    }
    parts.push(
      `Guidelines:\n${guidelines(tools)
        .map((g) => `- ${g}`)
        .join("\n")}`,
    );
  }
  const files = options.contextFiles ?? [];
  if (files.length > 0) {
    const body = files.map((f) => `## ${f.path}\n\n${f.content.trim()}`).join("\n\n");
    parts.push(`# Project Context\n\nProject-specific instructions and guidelines:\n\n${body}`);
  }
  const skills = options.skills ?? [];
  const hasRead = tools.some((t) => t.name === "read");
  if (skills.length > 0 && (hasRead || options.systemPrompt !== undefined || tools.length === 0)) {
    parts.push(`# Skills\n\n${formatSkillsForPrompt(skills)}`);
  }
  const date = (options.date ?? new Date()).toISOString().slice(0, 10);
  parts.push(`Current date: ${date}\nCurrent working directory: ${options.cwd}`);
  if (options.appendSystemPrompt?.trim()) parts.push(options.appendSystemPrompt.trim());
  return parts.join("\n\n");
}

function snippet(tool: SystemPromptTool): string {
  if (tool.promptSnippet) return tool.promptSnippet;
  const d = (tool.description ?? "").trim().replace(/\s+/g, " ");
  const end = d.search(/\.(\s|$)/);
  return end >= 0 ? d.slice(0, end + 1) : d;
}

function guidelines(tools: readonly SystemPromptTool[]): string[] {
  const names = new Set(tools.map((t) => t.name));
  const out: string[] = [];
  if (names.has("read")) out.push("Read a file before editing it; do not guess its contents.");
  if (names.has("edit")) out.push("Use edit for precise changes to existing files; old text must match exactly.");
  if (names.has("write")) out.push("Use write only for new files or complete rewrites.");
  if (names.has("bash") && !names.has("grep") && !names.has("find")) {
    out.push("Use bash for file operations such as ls, rg and find.");
  }
  for (const t of tools) for (const g of t.promptGuidelines ?? []) if (!out.includes(g)) out.push(g);
  out.push("Be concise. Show file paths clearly when you mention files.");
  return out;
}
