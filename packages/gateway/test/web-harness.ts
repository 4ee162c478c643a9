/**
 * Harness for the web page tests: the page built into web-dist/ (when missing or older than web/), Debian's
 * chromium driven by playwright-core (headless, a fresh profile, never a downloaded browser), a real
 * gateway process, and a scripted OpenAI-compatible model. Besides gateway-harness.ts's directives the
 * model understands `[tools:N]`: it calls `exec` (a command printing, sleeping a second, printing again)
 * until the conversation has N tool results, then answers "all N steps done". A user message arriving
 * after a tool result (a steering message) is answered like any message ("echo: …"), with no more tools.
 * `[think]` answers "<think>weighing the options</think>The answer is 4." (reasoning, then the reply).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { type MockServer, startOpenAIMock } from "../../ai/test/helpers/mock-server.js";
import { openaiChatEvents } from "../../ai/test/helpers/vendor-events.js";
import { type GatewayProc, mockReply, ROOT, removeHome, spawnGateway } from "./gateway-harness.js";

export const CHROMIUM = "/usr/bin/chromium";
export const ARTIFACTS = join(ROOT, "test-artifacts", "web");
const WEB = join(ROOT, "packages", "gateway", "web");
const DIST = join(ROOT, "packages", "gateway", "web-dist");

function newest(dir: string): number {
  let t = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}

/** Builds the page unless web-dist/ is newer than every file of web/. */
export async function ensureWebBuilt(): Promise<void> {
  let built = 0;
  try {
    built = statSync(join(DIST, "app.js")).mtimeMs;
  } catch {
    built = 0;
  }
  if (built > newest(WEB)) return;
  const { buildWeb } = (await import(join(WEB, "build.mjs"))) as { buildWeb(): Promise<unknown> };
  await buildWeb();
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Debian's chromium, headless, on a fresh profile that is removed on close. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `the web page tests need Debian's chromium at ${CHROMIUM} (apt-get install chromium; .ci/run does)`,
    );
  }
  const profile = mkdtempSync(join(tmpdir(), "tiller-web-profile-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * spawnGateway with HOME pointing into the test's TILLER_HOME. Node gives a child's stdio as sockets, so
 * bash takes `exec`'s shells for remote-shell sessions and sources ~/.bashrc; a user's rc (pyenv's rehash
 * takes a lock) then stalls concurrent tool calls for seconds. The page's tests are about the page, so the
 * gateway's tools run with an empty home. (spawn copies the environment at once, so HOME is restored
 * right after.)
 */
export async function spawnWebGateway(home: string, args: string[] = []): Promise<GatewayProc> {
  const userHome = join(home, "user-home");
  mkdirSync(userHome, { recursive: true });
  const saved = process.env.HOME;
  process.env.HOME = userHome;
  try {
    return spawnGateway(home, args);
  } finally {
    process.env.HOME = saved;
  }
}

/** Text of the user messages of a model request body. */
export function userTexts(body: unknown): string[] {
  const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  return messages
    .filter((m) => m.role === "user")
    .map((m) =>
      typeof m.content === "string" ? m.content : (m.content as { text?: string }[]).map((c) => c.text ?? "").join(""),
    );
}

const usage = { input: 10, output: 5 };

/** The scripted model (see the file comment). */
export function startScriptedModel(): Promise<MockServer> {
  return startOpenAIMock((req) => {
    const messages = (req.body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
    const last = messages.at(-1);
    // The turn's own request is the last user message; tool results after it count its steps.
    const lastUser = messages.findLastIndex((m) => m.role === "user");
    const tools = /\[tools:(\d+)\]/.exec(userTexts({ messages: messages.slice(lastUser) })[0] ?? "");
    const done = messages.slice(lastUser).filter((m) => m.role === "tool").length;
    if (tools) {
      const n = Number(tools[1]);
      if (done < n) {
        const k = done + 1;
        const command = `echo tick-${k}; sleep 1; echo tock-${k}`;
        return {
          events: openaiChatEvents({
            toolCalls: [{ id: `call_${k}`, name: "exec", args: [JSON.stringify({ command })] }],
            finish: "tool",
            usage,
          }),
        };
      }
      return { events: openaiChatEvents({ text: ["all ", `${n} steps `, "done"], usage }) };
    }
    if (last?.role === "tool") return { events: openaiChatEvents({ text: ["done"], usage }) };
    if (/\[think\]/.test(userTexts(req.body).at(-1) ?? "")) {
      return {
        events: openaiChatEvents({ text: ["<think>weighing ", "the options</think>", "The answer is 4."], usage }),
      };
    }
    const text = userTexts(req.body).at(-1) ?? "";
    return mockReply(text);
  });
}

/** Opens the page with the token in the fragment and waits until it is connected. */
export async function openPage(context: BrowserContext, port: number, token: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${port}/#token=${encodeURIComponent(token)}`);
  await waitConnected(page);
  return page;
}

export async function waitConnected(page: Page, timeout = 30_000): Promise<void> {
  await page
    .getByRole("status", { name: "Connection" })
    .filter({ hasText: /^Connected$/ })
    .waitFor({ timeout });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/** A page test's parts: the scripted model, a gateway on the home built for it, and a browser. */
export interface WebSuite {
  mock: MockServer;
  gw: GatewayProc;
  browser: Browser;
  /** Closes the browser, stops the gateway and the model, removes the home. */
  stop(): Promise<void>;
}

/**
 * Starts a page test's parts (the page built first): `homeFor` writes the gateway's home for the model's base URL.
 * A part that fails to start stops the ones already started.
 */
export async function startWebSuite(token: string, homeFor: (mockBaseUrl: string) => string): Promise<WebSuite> {
  await ensureWebBuilt();
  const mock = await startScriptedModel();
  let gw: GatewayProc | undefined;
  try {
    const home = homeFor(mock.baseUrl);
    gw = await spawnWebGateway(home, ["--token", token]);
    const browser = await launchBrowser();
    const started = gw;
    return {
      mock,
      gw: started,
      browser,
      async stop() {
        await browser.close();
        await started.stop();
        await mock.close();
        removeHome(started.home);
      },
    };
  } catch (err) {
    await gw?.stop();
    if (gw) removeHome(gw.home);
    await mock.close();
    throw err;
  }
}
