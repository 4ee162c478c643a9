import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { decodePng, downscale, encodePng } from "../src/tools/png-resize.js";

/** A PNG written the way other encoders do: one filter type per row (0..4 cycling), any colour type. */
function pngWithFilters(width: number, height: number, colorType: number, pixels: number[][][], extra: Buffer[] = []) {
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[colorType] as number;
  const stride = width * channels;
  const rows: Buffer[] = [];
  let prev = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const cur = Buffer.from((pixels[y] as number[][]).flat());
    const filter = y % 5;
    const out = Buffer.alloc(stride + 1);
    out[0] = filter;
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? (cur[i - channels] as number) : 0;
      const b = prev[i] as number;
      const c = i >= channels ? (prev[i - channels] as number) : 0;
      let pred = 0;
      if (filter === 1) pred = a;
      else if (filter === 2) pred = b;
      else if (filter === 3) pred = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      out[i + 1] = ((cur[i] as number) - pred) & 0xff;
    }
    rows.push(out);
    prev = cur;
  }
  const chunk = (type: string, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(body.length, 0);
    head.write(type, 4, "ascii");
    return Buffer.concat([head, body, Buffer.alloc(4)]); // CRCs are not checked by the decoder
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = colorType;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    ...extra,
    chunk("IDAT", deflateSync(Buffer.concat(rows))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

describe("png decode/encode/downscale", () => {
  it("decodes RGB rows written with every filter type", () => {
    const w = 6;
    const h = 10;
    const px = Array.from({ length: h }, (_, y) =>
      Array.from({ length: w }, (_, x) => [(x * 40 + y) & 255, (y * 25) & 255, (x * y * 7) & 255]),
    );
    const img = decodePng(pngWithFilters(w, h, 2, px));
    expect(img).toBeDefined();
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const o = (y * w + x) * 4;
        expect([...(img?.data.subarray(o, o + 4) ?? [])]).toEqual([...(px[y]?.[x] ?? []), 255]);
      }
    }
  });

  it("expands grey, grey+alpha and palette images (with transparency) to RGBA", () => {
    expect([...(decodePng(pngWithFilters(1, 1, 0, [[[77]]]))?.data ?? [])]).toEqual([77, 77, 77, 255]);
    expect([...(decodePng(pngWithFilters(1, 1, 4, [[[10, 20]]]))?.data ?? [])]).toEqual([10, 10, 10, 20]);
    const plte = Buffer.concat([
      Buffer.from([0, 0, 0, 6, 0x50, 0x4c, 0x54, 0x45]),
      Buffer.from([1, 2, 3, 4, 5, 6]),
      Buffer.alloc(4),
    ]);
    const trns = Buffer.concat([
      Buffer.from([0, 0, 0, 2, 0x74, 0x52, 0x4e, 0x53]),
      Buffer.from([255, 128]),
      Buffer.alloc(4),
    ]);
    expect([...(decodePng(pngWithFilters(2, 1, 3, [[[0], [1]]], [plte, trns]))?.data ?? [])]).toEqual([
      1, 2, 3, 255, 4, 5, 6, 128,
    ]);
  });

  it("round-trips through encodePng and averages areas when downscaling", () => {
    const data = new Uint8Array(4 * 2 * 4);
    // Left half black, right half white: a 2x1 downscale is one black and one white pixel.
    for (let y = 0; y < 2; y++)
      for (let x = 0; x < 4; x++) data.set(x < 2 ? [0, 0, 0, 255] : [255, 255, 255, 255], (y * 4 + x) * 4);
    const img = { width: 4, height: 2, data };
    expect(decodePng(encodePng(img))).toEqual(img);
    expect([...downscale(img, 2, 1).data]).toEqual([0, 0, 0, 255, 255, 255, 255, 255]);
  });

  it("refuses what it cannot decode (not a PNG, 16-bit)", () => {
    expect(decodePng(Buffer.from("not a png at all, definitely not"))).toBeUndefined();
    const png16 = pngWithFilters(1, 1, 0, [[[0, 0]]]);
    png16[24] = 16; // bit depth in IHDR
    expect(decodePng(png16)).toBeUndefined();
  });
});
