/**
 * The read tool: a text file's lines from `offset` (1-based), at most 2,000 lines / 50 KB per call with a
 * note saying how to continue; images as image blocks (a note instead for text-only models).
 */
import { access, constants, readFile, stat } from "node:fs/promises";
import type { AgentTool } from "@tiller/agent";
import { type ImageContent, type Static, type TextContent, Type } from "@tiller/ai";
import { resolveToolPath } from "./path-guard.js";
import {
  countLines,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  formatSize,
  lineStartOffset,
  type TruncationResult,
  truncateHead,
} from "./truncate.js";

const readSchema = Type.Object({
  path: Type.String({ description: "Path to the file to read (relative or absolute)" }),
  offset: Type.Optional(Type.Number({ description: "Line number to start reading from (1-indexed)" })),
  limit: Type.Optional(Type.Number({ description: "Maximum number of lines to read" })),
});
export type ReadToolInput = Static<typeof readSchema>;

export interface ReadToolDetails {
  truncation?: TruncationResult;
  /** Set for image files. */
  mimeType?: string;
}

/**
 * File access used by read (pi's shape); replace it to read from elsewhere (a container, SSH). Errors carrying
 * a Node `code` (ENOENT, EACCES, EISDIR) become the tool's usual messages.
 */
export interface ReadOperations {
  readFile: (absolutePath: string) => Promise<Buffer>;
  /** Throws when the file is missing or not readable. */
  access: (absolutePath: string) => Promise<void>;
  /** The image MIME type of the file, or null/undefined for non-images. Default: sniff the file's magic bytes. */
  detectImageMimeType?: (absolutePath: string) => Promise<string | null | undefined>;
  /**
   * Tiller's addition: says whether the path is a directory before reading it. Without it a directory is
   * recognized by the EISDIR error `readFile` raises.
   */
  stat?: (absolutePath: string) => Promise<{ isDirectory(): boolean }>;
}

export interface ReadToolOptions {
  /**
   * pi's option to shrink images to 2000×2000. Accepted for pi programs; Tiller sends images as they are (it
   * carries no image codec), so this has no effect.
   */
  autoResizeImages?: boolean;
  /** Refuse paths outside `cwd` (symlinks followed). */
  sandbox?: boolean;
  /** False for text-only models: images become a note. Default true. */
  modelAcceptsImages?: boolean;
  operations?: ReadOperations;
  maxLines?: number;
  maxBytes?: number;
}

/** Recognize an image by its magic bytes (extensions lie). */
export function detectImageMimeType(buf: Buffer): string | undefined {
  if (buf.length >= 8 && buf.readUInt32BE(0) === 0x89504e47 && buf.readUInt32BE(4) === 0x0d0a1a0a) return "image/png";
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return "image/jpeg";
  if (buf.length >= 6 && (buf.toString("latin1", 0, 6) === "GIF87a" || buf.toString("latin1", 0, 6) === "GIF89a"))
    return "image/gif";
  if (buf.length >= 12 && buf.toString("latin1", 0, 4) === "RIFF" && buf.toString("latin1", 8, 12) === "WEBP")
    return "image/webp";
  return undefined;
}

function isErrno(err: unknown, code: string): boolean {
  return typeof err === "object" && err !== null && (err as NodeJS.ErrnoException).code === code;
}

const localOps: ReadOperations = {
  readFile: (p) => readFile(p),
  access: (p) => access(p, constants.R_OK),
  stat: (p) => stat(p),
};

function fileError(err: unknown, path: string): unknown {
  if (isErrno(err, "ENOENT") || isErrno(err, "ENOTDIR")) return new Error(`File not found: ${path}`);
  if (isErrno(err, "EACCES")) return new Error(`Permission denied: ${path}`);
  if (isErrno(err, "EISDIR")) return new Error(`Path is a directory: ${path}. Use ls to list it.`);
  return err;
}

function positiveInt(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
  return Math.floor(value);
}

export function createReadTool(
  cwd: string,
  options: ReadToolOptions = {},
): AgentTool<typeof readSchema, ReadToolDetails> {
  const ops = options.operations ?? localOps;
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  return {
    name: "read",
    label: "read",
    description:
      `Read a file. Text output is limited to ${maxLines} lines or ${maxBytes / 1024}KB per call; use offset and ` +
      `limit to page through large files. Images (png, jpeg, gif, webp) are returned as images.`,
    parameters: readSchema,
    async execute(_id, params, signal) {
      if (signal?.aborted) throw new Error("Read aborted");
      // Models often mean "from the start" by offset 0.
      const offset = positiveInt(params.offset === 0 ? 1 : params.offset, "offset");
      const limit = positiveInt(params.limit, "limit");
      const abs = resolveToolPath(params.path, cwd, options);
      let buf: Buffer;
      let sniffed: string | null | undefined;
      try {
        await ops.access(abs);
        if ((await ops.stat?.(abs))?.isDirectory()) throw Object.assign(new Error("EISDIR"), { code: "EISDIR" });
        sniffed = await ops.detectImageMimeType?.(abs);
        buf = await ops.readFile(abs);
      } catch (err) {
        throw fileError(err, params.path);
      }
      if (signal?.aborted) throw new Error("Read aborted");

      const mimeType = ops.detectImageMimeType ? (sniffed ?? undefined) : detectImageMimeType(buf);
      if (mimeType) {
        if (options.modelAcceptsImages === false) {
          const note = `[${params.path} is an image (${mimeType}, ${formatSize(buf.length)}). The current model cannot view images.]`;
          return { content: [{ type: "text", text: note }], details: { mimeType } };
        }
        const blocks: (TextContent | ImageContent)[] = [
          { type: "text", text: `Read image file [${mimeType}]` },
          { type: "image", data: buf.toString("base64"), mimeType },
        ];
        return { content: blocks, details: { mimeType } };
      }
      if (buf.subarray(0, 8192).includes(0)) {
        const note = `[${params.path} is a binary file (${formatSize(buf.length)}); not shown. Use bash (e.g. xxd | head) to inspect it.]`;
        return { content: [{ type: "text", text: note }], details: {} };
      }

      let text = buf.toString("utf8");
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      const total = countLines(text);
      const start = (offset ?? 1) - 1;
      if (start > 0 && start >= total)
        throw new Error(`Offset ${offset} is beyond the end of the file (${total} lines)`);
      const end = limit !== undefined ? Math.min(start + limit, total) : total;
      // Slice the requested lines without splitting the whole file.
      const from = lineStartOffset(text, start);
      let to = from;
      for (let line = start; line < end; line++) {
        const nl = text.indexOf("\n", to);
        to = nl === -1 ? text.length : nl + 1;
      }
      const selected = text.slice(from, to).replace(/\n$/, "");
      const t = truncateHead(selected, { maxLines, maxBytes });

      let out: string;
      if (t.firstLineExceedsLimit) {
        out =
          `[Line ${start + 1} is ${formatSize(Buffer.byteLength(selected.split("\n", 1)[0]!, "utf8"))}, over the ` +
          `${formatSize(maxBytes)} ` +
          `limit. Use bash: sed -n '${start + 1}p' ${params.path} | head -c ${maxBytes}]`;
      } else if (t.truncated) {
        const last = start + t.outputLines;
        out = `${t.content}\n\n[Showing lines ${start + 1}-${last} of ${total}. Use offset=${last + 1} to continue.]`;
      } else if (end < total) {
        out = `${t.content}\n\n[${total - end} more lines in file. Use offset=${end + 1} to continue.]`;
      } else {
        out = total === 0 ? "(empty file)" : t.content;
      }
      return { content: [{ type: "text", text: out }], details: t.truncated ? { truncation: t } : {} };
    },
  };
}
