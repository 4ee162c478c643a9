/**
 * Serves the web page (built by web/build.mjs into the package's web-dist/) on the gateway's port: `/` is
 * index.html, and the bundle's few asset files by name. Everything else is left to the caller, so other
 * routes (`/health`, `/v1/*`) keep working. Files are read once and kept: the set is fixed at build time.
 */
import { existsSync, readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** web-dist/ next to src/ and dist/ (both are one level under the package root). */
export const WEB_DIST_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "web-dist");

const ASSETS: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/index.html": { file: "index.html", type: "text/html; charset=utf-8" },
  "/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/styles.css": { file: "styles.css", type: "text/css; charset=utf-8" },
};

// The page talks only to its own origin (the gateway's WebSocket); nothing from elsewhere may load.
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'";

export class WebAssets {
  private readonly cache = new Map<string, Buffer>();
  constructor(private readonly dir: string = WEB_DIST_DIR) {}

  /** Whether the page was built (web-dist/index.html exists). */
  get available(): boolean {
    return existsSync(join(this.dir, "index.html"));
  }

  /** Answers GET/HEAD of `/` and the asset paths; returns false (untouched) for any other request. */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    const path = (req.url ?? "/").split(/[?#]/, 1)[0] as string;
    const asset = ASSETS[path];
    if (!asset) return false;
    const body = this.read(asset.file);
    if (!body) {
      res.writeHead(503, { "content-type": "text/plain; charset=utf-8" });
      res.end("Tiller gateway: the web page is not built (run npm run build).\n");
      return true;
    }
    res.writeHead(200, {
      "content-type": asset.type,
      "content-length": body.length,
      "cache-control": "no-cache",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "content-security-policy": CSP,
    });
    res.end(req.method === "HEAD" ? undefined : body);
    return true;
  }

  private read(file: string): Buffer | undefined {
    let body = this.cache.get(file);
    if (!body) {
      const path = join(this.dir, file);
      if (!existsSync(path)) return undefined;
      body = readFileSync(path);
      this.cache.set(file, body);
    }
    return body;
  }
}
