// Bundles the web page (web/src/main.ts + index.html + styles.css) into web-dist/ with esbuild: one minified
// ES module, no CDN, so the gateway serves it offline. Called by scripts/build.mjs and by the web tests.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const WEB_DIST = join(here, "..", "web-dist");

/** Builds the page into web-dist/; resolves with the bundle's metafile (sizes per input). */
export async function buildWeb({ outdir = WEB_DIST } = {}) {
  const { build } = await import("esbuild");
  // Written in place (a fixed set of files), never removed first: a test building while a gateway serves
  // the folder must not make it answer "not built".
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    entryPoints: [join(here, "src", "main.ts")],
    outfile: join(outdir, "app.js"),
    bundle: true,
    format: "esm",
    // platform browser: a stray server import (node:*, ws, sqlite) fails the build instead of shipping.
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "none",
    metafile: true,
    logLevel: "error",
  });
  copyFileSync(join(here, "index.html"), join(outdir, "index.html"));
  copyFileSync(join(here, "styles.css"), join(outdir, "styles.css"));
  return result.metafile;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildWeb();
