/**
 * The edit tool: several exact replacements in one file per call. Each `oldText` must match one region of
 * the ORIGINAL file (exactly, else tolerantly — see edit-match.ts); regions may not overlap. The file's
 * BOM and line endings are kept. Returns a unified diff.
 */
import { access, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { AgentTool } from "@tiller/agent";
import { type Static, Type } from "@tiller/ai";
import { unifiedDiff } from "./diff.js";
import { locate, type MatchRegion } from "./edit-match.js";
import { withFileMutation } from "./file-mutex.js";
import { resolveToolPath } from "./path-guard.js";

const editSchema = Type.Object({
  path: Type.String({ description: "Path to the file to edit (relative or absolute)" }),
  edits: Type.Array(
    Type.Object(
      {
        oldText: Type.String({ description: "Exact text to replace; must match one region of the file" }),
        newText: Type.String({ description: "Replacement text" }),
      },
      { additionalProperties: false },
    ),
    { description: "Replacements, each matched against the original file", minItems: 1 },
  ),
});
export type EditToolInput = Static<typeof editSchema>;

export interface EditToolDetails {
  /** Unified diff of the change. */
  diff: string;
  /** 1-based line of the first change in the new file. */
  firstChangedLine?: number;
  /** Indexes of edits that needed tolerant matching. */
  fuzzyEdits?: number[];
}

/** File access used by edit; replace it to edit elsewhere. */
export interface EditOperations {
  readFile: (absolutePath: string) => Promise<Buffer>;
  writeFile: (absolutePath: string, content: string) => Promise<void>;
  /** Throws when the file is missing or not writable. */
  access: (absolutePath: string) => Promise<void>;
}

export interface EditToolOptions {
  /** Refuse paths outside `cwd` (symlinks followed). */
  sandbox?: boolean;
  operations?: EditOperations;
}

const localOps: EditOperations = {
  readFile: (p) => readFile(p),
  writeFile: (p, c) => writeFile(p, c, "utf8"),
  access: (p) => access(p),
};

/** Accept the legacy single-edit shape `{path, oldText, newText}` and `edits` sent as a JSON string. */
function prepareEditArguments(args: unknown): EditToolInput {
  if (typeof args !== "object" || args === null) return args as EditToolInput;
  const a = { ...(args as Record<string, unknown>) };
  if (typeof a.edits === "string") {
    try {
      a.edits = JSON.parse(a.edits);
    } catch {
      // Left as is: validation reports it.
    }
  }
  if (a.edits === undefined && typeof a.oldText === "string" && typeof a.newText === "string") {
    a.edits = [{ oldText: a.oldText, newText: a.newText }];
    delete a.oldText;
    delete a.newText;
  }
  return a as EditToolInput;
}

const MAX_DIFF_IN_TEXT = 4000;

/** Apply `edits` to `content` (LF-normalized). Throws the errors a model can act on. */
export function applyEdits(
  content: string,
  edits: { oldText: string; newText: string }[],
  fileName: string,
): { content: string; fuzzy: number[] } {
  if (!Array.isArray(edits) || edits.length === 0) throw new Error("edits must contain at least one replacement");
  const regions: (MatchRegion & { index: number; newText: string })[] = [];
  const label = (i: number) => (edits.length > 1 ? `edits[${i}]` : "oldText");
  edits.forEach((edit, i) => {
    if (typeof edit?.oldText !== "string" || typeof edit.newText !== "string")
      throw new Error(`${label(i)}: oldText and newText must be strings`);
    const oldText = edit.oldText.replace(/\r\n/g, "\n");
    if (oldText === "") throw new Error(`${label(i)}: oldText is empty; give the exact text to replace`);
    const found = locate(content, oldText);
    if (!found.ok && found.count === 0)
      throw new Error(
        `Could not find ${label(i)} in ${fileName}. The text must match the file exactly (whitespace included); ` +
          `read the file again and copy the lines to replace.`,
      );
    if (!found.ok)
      throw new Error(
        `Found ${found.count} matches for ${label(i)} in ${fileName}; each edit must match exactly one region. ` +
          `Add surrounding lines to make it unique.`,
      );
    regions.push({ ...found.region, index: i, newText: edit.newText.replace(/\r\n/g, "\n") });
  });
  const sorted = [...regions].sort((x, y) => x.start - y.start);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.start < sorted[i - 1]!.end)
      throw new Error(
        `edits[${sorted[i - 1]!.index}] and edits[${sorted[i]!.index}] overlap in ${fileName}; ` +
          `merge them into one edit.`,
      );
  }
  let out = content;
  for (let i = sorted.length - 1; i >= 0; i--) {
    const r = sorted[i]!;
    out = out.slice(0, r.start) + r.newText + out.slice(r.end);
  }
  if (out === content) throw new Error(`No changes made to ${fileName}: the replacements equal the original text.`);
  return { content: out, fuzzy: regions.filter((r) => r.kind !== "exact").map((r) => r.index) };
}

export function createEditTool(
  cwd: string,
  options: EditToolOptions = {},
): AgentTool<typeof editSchema, EditToolDetails> {
  const ops = options.operations ?? localOps;
  return {
    name: "edit",
    label: "edit",
    description:
      "Edit a file with one or more exact text replacements. Each oldText must match exactly one region of the " +
      "original file (include enough context to be unique); edits must not overlap. Returns a diff.",
    parameters: editSchema,
    prepareArguments: prepareEditArguments,
    async execute(_id, rawParams, signal) {
      if (signal?.aborted) throw new Error("Edit aborted");
      const params = prepareEditArguments(rawParams);
      const abs = resolveToolPath(params.path, cwd, options);
      return withFileMutation(abs, async () => {
        try {
          await ops.access(abs);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === "ENOENT" || code === "ENOTDIR") throw new Error(`File not found: ${params.path}`);
          if (code === "EACCES") throw new Error(`Permission denied: ${params.path}`);
          throw err;
        }
        const raw = (await ops.readFile(abs)).toString("utf8");
        if (signal?.aborted) throw new Error("Edit aborted");
        const bom = raw.startsWith("\ufeff") ? "\ufeff" : "";
        const body = bom ? raw.slice(1) : raw;
        const crlf = body.includes("\r\n");
        const lf = crlf ? body.replace(/\r\n/g, "\n") : body;
        const name = path.relative(cwd, abs) || path.basename(abs);
        const result = applyEdits(lf, params.edits, params.path);
        const restored = bom + (crlf ? result.content.replace(/\n/g, "\r\n") : result.content);
        await ops.writeFile(abs, restored);
        const { diff, firstChangedLine } = unifiedDiff(lf, result.content, name);
        const n = params.edits.length;
        let text = `Edited ${params.path}: ${n} replacement${n === 1 ? "" : "s"}`;
        if (result.fuzzy.length > 0) text += ` (edits ${result.fuzzy.join(", ")} matched ignoring whitespace/quotes)`;
        text += diff.length <= MAX_DIFF_IN_TEXT ? `.\n\n${diff}` : `. Diff is ${diff.split("\n").length} lines long.`;
        return {
          content: [{ type: "text", text }],
          details: { diff, firstChangedLine, fuzzyEdits: result.fuzzy.length > 0 ? result.fuzzy : undefined },
        };
      });
    },
  };
}
