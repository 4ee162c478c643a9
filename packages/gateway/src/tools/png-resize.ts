/**
 * A dependency-free PNG downscaler for tool-result images: decodes 8-bit, non-interlaced PNGs (grey, grey+alpha,
 * RGB, RGBA, palette), shrinks them with an area-average filter to fit a maximum dimension, and re-encodes them as
 * RGBA PNG. Anything else (16-bit, interlaced, JPEG…) returns undefined, and the caller replaces the image instead.
 * Cost is linear in the source pixels.
 */
import { deflateSync, inflateSync } from "node:zlib";
import type { ImageContent } from "@tiller/ai";
import type { ImageResizer } from "./tool-result-sanitizer.js";

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Refuse to decode beyond this many pixels (memory guard: 4 bytes each). */
const MAX_SOURCE_PIXELS = 50_000_000;

let crcTable: Uint32Array | undefined;
function crc32(buf: Buffer): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = 0; i < buf.length; i++) c = (crcTable[(c ^ (buf[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export interface RgbaImage {
  width: number;
  height: number;
  /** width * height * 4 bytes. */
  data: Uint8Array;
}

/** Decodes a PNG into RGBA; undefined for formats this decoder does not handle. */
export function decodePng(png: Buffer): RgbaImage | undefined {
  if (png.length < 33 || !png.subarray(0, 8).equals(SIGNATURE)) return undefined;
  let pos = 8;
  let width = 0;
  let height = 0;
  let colorType = -1;
  let palette: Buffer | undefined;
  let alphaTable: Buffer | undefined;
  const idat: Buffer[] = [];
  while (pos + 8 <= png.length) {
    const len = png.readUInt32BE(pos);
    const type = png.toString("ascii", pos + 4, pos + 8);
    const body = png.subarray(pos + 8, pos + 8 + len);
    pos += 12 + len;
    if (type === "IHDR") {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const bitDepth = body[8];
      colorType = body[9] as number;
      const interlace = body[12];
      if (bitDepth !== 8 || interlace !== 0 || ![0, 2, 3, 4, 6].includes(colorType)) return undefined;
      if (width === 0 || height === 0 || width * height > MAX_SOURCE_PIXELS) return undefined;
    } else if (type === "PLTE") palette = body;
    else if (type === "tRNS") alphaTable = body;
    else if (type === "IDAT") idat.push(body);
    else if (type === "IEND") break;
  }
  if (colorType < 0 || idat.length === 0 || (colorType === 3 && !palette)) return undefined;
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[colorType] as number;
  const stride = width * channels;
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(idat));
  } catch {
    return undefined;
  }
  if (raw.length < (stride + 1) * height) return undefined;
  const out = new Uint8Array(width * height * 4);
  let prev = new Uint8Array(stride);
  let cur = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? (cur[i - channels] as number) : 0;
      const b = prev[i] as number;
      const c = i >= channels ? (prev[i - channels] as number) : 0;
      const x = line[i] as number;
      let v: number;
      switch (filter) {
        case 0:
          v = x;
          break;
        case 1:
          v = x + a;
          break;
        case 2:
          v = x + b;
          break;
        case 3:
          v = x + ((a + b) >> 1);
          break;
        case 4: {
          const p = a + b - c;
          const pa = Math.abs(p - a);
          const pb = Math.abs(p - b);
          const pc = Math.abs(p - c);
          v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
          break;
        }
        default:
          return undefined;
      }
      cur[i] = v & 0xff;
    }
    for (let px = 0; px < width; px++) {
      const o = (y * width + px) * 4;
      const s = px * channels;
      if (colorType === 6) {
        out[o] = cur[s] as number;
        out[o + 1] = cur[s + 1] as number;
        out[o + 2] = cur[s + 2] as number;
        out[o + 3] = cur[s + 3] as number;
      } else if (colorType === 2) {
        out[o] = cur[s] as number;
        out[o + 1] = cur[s + 1] as number;
        out[o + 2] = cur[s + 2] as number;
        out[o + 3] = 255;
      } else if (colorType === 0 || colorType === 4) {
        const g = cur[s] as number;
        out[o] = g;
        out[o + 1] = g;
        out[o + 2] = g;
        out[o + 3] = colorType === 4 ? (cur[s + 1] as number) : 255;
      } else {
        const idx = cur[s] as number;
        const p = palette as Buffer;
        out[o] = p[idx * 3] ?? 0;
        out[o + 1] = p[idx * 3 + 1] ?? 0;
        out[o + 2] = p[idx * 3 + 2] ?? 0;
        out[o + 3] = alphaTable?.[idx] ?? 255;
      }
    }
    [prev, cur] = [cur, prev];
  }
  return { width, height, data: out };
}

/** Area-average downscale to exactly `w`×`h` (each source pixel is read once). */
export function downscale(img: RgbaImage, w: number, h: number): RgbaImage {
  const sums = new Float64Array(w * h * 4);
  const counts = new Uint32Array(w * h);
  for (let y = 0; y < img.height; y++) {
    const ty = Math.min(h - 1, Math.floor((y * h) / img.height));
    for (let x = 0; x < img.width; x++) {
      const tx = Math.min(w - 1, Math.floor((x * w) / img.width));
      const t = ty * w + tx;
      const s = (y * img.width + x) * 4;
      sums[t * 4] += img.data[s] as number;
      sums[t * 4 + 1] += img.data[s + 1] as number;
      sums[t * 4 + 2] += img.data[s + 2] as number;
      sums[t * 4 + 3] += img.data[s + 3] as number;
      counts[t] = (counts[t] as number) + 1;
    }
  }
  const data = new Uint8Array(w * h * 4);
  for (let t = 0; t < w * h; t++) {
    const n = (counts[t] as number) || 1;
    for (let k = 0; k < 4; k++) data[t * 4 + k] = Math.round((sums[t * 4 + k] as number) / n);
  }
  return { width: w, height: h, data };
}

function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
  return Buffer.concat([head, body, crc]);
}

/** Encodes RGBA as a PNG (no filtering, zlib level 6). */
export function encodePng(img: RgbaImage): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(img.width, 0);
  ihdr.writeUInt32BE(img.height, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  const stride = img.width * 4;
  const raw = Buffer.alloc((stride + 1) * img.height);
  for (let y = 0; y < img.height; y++) {
    raw[y * (stride + 1)] = 0;
    raw.set(img.data.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  }
  return Buffer.concat([
    SIGNATURE,
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 6 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** The default resizer: PNGs are scaled to fit; other formats are left to the caller (replaced). */
export const resizePngImage: ImageResizer = async (image, _info, limits) => {
  if (image.mimeType !== "image/png") return undefined;
  const img = decodePng(Buffer.from(image.data, "base64"));
  if (!img) return undefined;
  const scale = Math.min(1, limits.maxDimension / Math.max(img.width, img.height));
  const w = Math.max(1, Math.round(img.width * scale));
  const h = Math.max(1, Math.round(img.height * scale));
  const png = encodePng(scale < 1 ? downscale(img, w, h) : img);
  if (png.length > limits.maxBytes) return undefined;
  const out: ImageContent = { type: "image", data: png.toString("base64"), mimeType: "image/png" };
  return out;
};
