/**
 * Tool results are sanitized before they are stored in the transcript or sent to clients: text beyond a size cap
 * is cut with a note saying how much was left out, and image payloads larger than the byte or pixel limits are
 * resized (PNG by default, any format with a supplied resizer) or replaced by a short text note.
 */
import type { ImageContent, TextContent } from "@tiller/ai";
import { resizePngImage } from "./png-resize.js";

export const TOOL_RESULT_MAX_CHARS = 8000;
export const TOOL_ERROR_MAX_CHARS = 400;
export const IMAGE_MAX_BYTES = 5 * 1024 * 1024;
export const IMAGE_MAX_DIMENSION = 1200;

export interface ImageInfo {
  mimeType: string;
  bytes: number;
  width?: number;
  height?: number;
}

/** Resizes an image to fit `maxDimension` and `maxBytes`; undefined when it cannot. */
export type ImageResizer = (
  image: ImageContent,
  info: ImageInfo,
  limits: { maxDimension: number; maxBytes: number },
) => Promise<ImageContent | undefined>;

export interface SanitizeOptions {
  maxChars?: number;
  maxImageBytes?: number;
  maxImageDimension?: number;
  resizeImage?: ImageResizer;
}

export interface SanitizeReport {
  truncatedChars: number;
  imagesReplaced: number;
  imagesResized: number;
}

/** Bytes of base64 data without decoding it. */
export function base64Bytes(b64: string): number {
  const len = b64.length;
  const pad = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  return Math.floor((len * 3) / 4) - pad;
}

/** Reads width and height from PNG, GIF, JPEG or WebP headers (only the first bytes are decoded). */
export function imageDimensions(b64: string): { width: number; height: number } | undefined {
  const head = Buffer.from(b64.slice(0, 64 * 1024 - ((64 * 1024) % 4)), "base64");
  if (head.length >= 24 && head.readUInt32BE(0) === 0x89504e47) {
    return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
  }
  if (head.length >= 10 && head.toString("ascii", 0, 3) === "GIF") {
    return { width: head.readUInt16LE(6), height: head.readUInt16LE(8) };
  }
  if (head.length >= 30 && head.toString("ascii", 0, 4) === "RIFF" && head.toString("ascii", 8, 12) === "WEBP") {
    const kind = head.toString("ascii", 12, 16);
    if (kind === "VP8X") return { width: 1 + head.readUIntLE(24, 3), height: 1 + head.readUIntLE(27, 3) };
    if (kind === "VP8 ") return { width: head.readUInt16LE(26) & 0x3fff, height: head.readUInt16LE(28) & 0x3fff };
    if (kind === "VP8L") {
      const b = head.readUInt32LE(21);
      return { width: 1 + (b & 0x3fff), height: 1 + ((b >> 14) & 0x3fff) };
    }
  }
  if (head.length >= 4 && head[0] === 0xff && head[1] === 0xd8) {
    let i = 2;
    while (i + 9 < head.length) {
      if (head[i] !== 0xff) {
        i++;
        continue;
      }
      const marker = head[i + 1] as number;
      const segLen = head.readUInt16BE(i + 2);
      // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: head.readUInt16BE(i + 5), width: head.readUInt16BE(i + 7) };
      }
      i += 2 + segLen;
    }
  }
  return undefined;
}

function cutText(text: string, max: number): { text: string; cut: number } {
  if (text.length <= max) return { text, cut: 0 };
  let end = max;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  const cut = text.length - end;
  return { text: `${text.slice(0, end)}\n\n[… ${cut} more characters not shown: the tool output was too large]`, cut };
}

/**
 * Sanitizes a result's content blocks. The text budget is shared by all text blocks, in order. Returns the new
 * blocks and what was changed.
 */
export async function sanitizeToolContent(
  content: readonly (TextContent | ImageContent)[],
  options: SanitizeOptions = {},
): Promise<{ content: (TextContent | ImageContent)[]; report: SanitizeReport }> {
  const maxChars = options.maxChars ?? TOOL_RESULT_MAX_CHARS;
  const maxBytes = options.maxImageBytes ?? IMAGE_MAX_BYTES;
  const maxDim = options.maxImageDimension ?? IMAGE_MAX_DIMENSION;
  const report: SanitizeReport = { truncatedChars: 0, imagesReplaced: 0, imagesResized: 0 };
  let budget = maxChars;
  const out: (TextContent | ImageContent)[] = [];
  for (const block of content) {
    if (block.type === "text") {
      if (budget <= 0) {
        report.truncatedChars += block.text.length;
        continue;
      }
      const { text, cut } = cutText(block.text, budget);
      report.truncatedChars += cut;
      budget -= Math.min(block.text.length, budget);
      out.push(cut ? { ...block, text } : block);
      continue;
    }
    const bytes = base64Bytes(block.data);
    const dims = imageDimensions(block.data);
    const tooBig = bytes > maxBytes || (dims !== undefined && (dims.width > maxDim || dims.height > maxDim));
    if (!tooBig) {
      out.push(block);
      continue;
    }
    const info: ImageInfo = { mimeType: block.mimeType, bytes, ...dims };
    const resizer = options.resizeImage ?? resizePngImage;
    const resized = await resizer(block, info, { maxDimension: maxDim, maxBytes }).catch(() => undefined);
    if (resized && base64Bytes(resized.data) <= maxBytes) {
      report.imagesResized++;
      out.push(resized);
      continue;
    }
    report.imagesReplaced++;
    const size = dims ? `${dims.width}×${dims.height} ` : "";
    out.push({
      type: "text",
      text: `[image omitted: ${size}${block.mimeType}, ${(bytes / 1024 / 1024).toFixed(1)} MB is over the limit of ${maxDim} px / ${(maxBytes / 1024 / 1024).toFixed(0)} MB]`,
    });
  }
  return { content: out, report };
}

/** Caps an error message (tool errors are short in events and replies). */
export function capToolError(message: string, max = TOOL_ERROR_MAX_CHARS): string {
  const one = message.replace(/\s+/g, " ").trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}
