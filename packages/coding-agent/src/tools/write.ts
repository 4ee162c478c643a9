/**
 * The write tool: writes a whole file, creating parent folders. Writes to one path are serialized with
 * edit's (see file-mutex.ts).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { AgentTool } from "@tiller/agent";
import { type Static, Type } from "@tiller/ai";
import { withFileMutation } from "./file-mutex.js";
import { resolveToolPath } from "./path-guard.js";

const writeSchema = Type.Object({
  path: Type.String({ description: "Path to the file to write (relative or absolute)" }),
  content: Type.String({ description: "Content to write to the file" }),
});
export type WriteToolInput = Static<typeof writeSchema>;

export interface WriteToolDetails {
  bytes: number;
}

/** File access used by write; replace it to write elsewhere. */
export interface WriteOperations {
  writeFile: (absolutePath: string, content: string) => Promise<void>;
  mkdir: (dir: string) => Promise<void>;
}

export interface WriteToolOptions {
  /** Refuse paths outside `cwd` (symlinks followed). */
  sandbox?: boolean;
  operations?: WriteOperations;
}

const localOps: WriteOperations = {
  writeFile: (p, c) => writeFile(p, c, "utf8"),
  mkdir: async (d) => {
    await mkdir(d, { recursive: true });
  },
};

export function createWriteTool(
  cwd: string,
  options: WriteToolOptions = {},
): AgentTool<typeof writeSchema, WriteToolDetails> {
  const ops = options.operations ?? localOps;
  return {
    name: "write",
    label: "write",
    description:
      "Write content to a file. Creates the file if it does not exist, overwrites it if it does, and creates " +
      "parent directories.",
    parameters: writeSchema,
    async execute(_id, params, signal) {
      if (signal?.aborted) throw new Error("Write aborted");
      if (typeof params.content !== "string") throw new Error("content must be a string");
      const abs = resolveToolPath(params.path, cwd, options);
      return withFileMutation(abs, async () => {
        if (signal?.aborted) throw new Error("Write aborted");
        try {
          await ops.mkdir(path.dirname(abs));
          await ops.writeFile(abs, params.content);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === "EISDIR") throw new Error(`Path is a directory: ${params.path}`);
          if (code === "EACCES") throw new Error(`Permission denied: ${params.path}`);
          if (code === "EEXIST" || code === "ENOTDIR") throw new Error(`A parent of ${params.path} is not a directory`);
          throw err;
        }
        const bytes = Buffer.byteLength(params.content, "utf8");
        return {
          content: [{ type: "text", text: `Wrote ${bytes} bytes to ${params.path}` }],
          details: { bytes },
        };
      });
    },
  };
}
