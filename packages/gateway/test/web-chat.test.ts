/**
 * The web page in a real browser (Debian's chromium) against a real gateway process and a scripted model:
 * log in, send and see the reply stream in as Markdown with the run's tokens and cost, steer a run that is calling slow tools (the
 * steering message reaches the next model request), follow up, stop, and the plain-ws:// refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import { type GatewayProc, makeHome } from "./gateway-harness.js";
import {
  type Browser,
  openPage,
  screenshot,
  startWebSuite,
  userTexts,
  type WebSuite,
  waitConnected,
} from "./web-harness.js";

const TOKEN = "web-test-token";
const T = { timeout: 20_000 };
let mock: MockServer;
let gw: GatewayProc;
let browser: Browser;
let suite: WebSuite | undefined;

beforeAll(async () => {
  suite = await startWebSuite(TOKEN, (mockBaseUrl) =>
    // Priced so that every model call (10 in, 5 out) costs 10 × $2000/M + 5 × $10000/M = $0.07.
    makeHome({
      mockBaseUrl,
      mockCost: { input: 2000, output: 10_000 },
      config: { agents: { defaults: { reasoning: "stream" } } },
    }),
  );
  ({ mock, gw, browser } = suite);
}, 90_000);

afterAll(async () => {
  await suite?.stop();
});

describe("web page: chat", () => {
  it("logs in with the form, streams a Markdown reply with highlighted code that copies, and shows the run's usage", async () => {
    const page = await browser.context.newPage();
    await page.goto(`http://127.0.0.1:${gw.port}/`);
    // No token yet: the gateway refuses the handshake and the page asks for one.
    await page.getByLabel("Token").waitFor();
    await page.getByLabel("Token").fill("wrong");
    await page.getByRole("button", { name: "Connect" }).click();
    await expect.poll(() => page.getByRole("alert").textContent(), { timeout: 15_000 }).toMatch(/refused the token/);
    await page.getByLabel("Token").fill(TOKEN);
    await page.getByRole("button", { name: "Connect" }).click();
    await waitConnected(page);
    expect(page.url()).not.toContain(TOKEN);
    expect(await page.evaluate('sessionStorage.getItem("tiller.token")')).toBe(TOKEN);

    const box = page.getByRole("textbox", { name: "Message" });
    await box.fill("say **bold**");
    // Shift+Enter breaks the line; Enter alone would send.
    for (const line of ["```ts", "const answer = 42;", "```"]) {
      await box.press("Shift+Enter");
      await box.pressSequentially(line);
    }
    expect(await box.inputValue()).toContain("\n```ts");
    await box.press("Enter");
    const log = page.getByRole("log");
    await log.locator("strong", { hasText: "bold" }).waitFor({ timeout: 20_000 });
    await log.locator(".code-block code .hljs-keyword", { hasText: "const" }).waitFor();
    await expect.poll(() => log.getByRole("button", { name: "Copy code" }).count(), { timeout: 20_000 }).toBe(1);
    await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], {
      origin: `http://127.0.0.1:${gw.port}`,
    });
    await log.getByRole("button", { name: "Copy code" }).click();
    await log.getByRole("button", { name: "Copy code" }).getByText("Copied").waitFor(T);
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe("const answer = 42;");
    await expect
      .poll(() => log.getByLabel("Run usage").first().textContent(), { timeout: 20_000 })
      .toMatch(/^10 in · 5 out · \$0\.07 · \d+\.\d s$/);
    await expect.poll(() => box.inputValue(), { timeout: 20_000 }).toBe("");
    // The session's totals follow the run.
    await expect
      .poll(() => page.getByLabel("Session usage").textContent(), { timeout: 20_000 })
      .toBe("10 in · 5 out · $0.07");
    await screenshot(page, "chat-1280x800");
    // After a reload the run's line comes from history (the model call's usage in the transcript).
    await page.reload();
    await waitConnected(page);
    await expect
      .poll(() => log.getByLabel("Run usage").first().textContent(), { timeout: 20_000 })
      .toBe("10 in · 5 out · $0.07");
    await page.close();
  }, 90_000);

  it("shows thinking collapsed above the reply, and a failed run's error in place", async () => {
    const page = await openPage(browser.context, gw.port, TOKEN);
    await page.getByRole("button", { name: "New session" }).click();
    const box = page.getByRole("textbox", { name: "Message" });
    const log = page.getByRole("log");
    await box.fill("[think] what is 2+2?");
    await box.press("Enter");
    await log.getByText("The answer is 4.").waitFor(T);
    const thinking = log.locator("details.thinking").last();
    await thinking.locator("summary", { hasText: "Thinking" }).waitFor(T);
    expect(await thinking.getAttribute("open")).toBeNull();
    expect(await thinking.locator(".thinking-text").isVisible()).toBe(false);
    await thinking.locator("summary").click();
    await thinking.getByText("weighing the options").waitFor(T);
    expect(await log.locator(".md").last().textContent()).not.toContain("weighing");
    // From history too (reload): thinking folded away, never in the reply text.
    await page.reload();
    await waitConnected(page);
    await log.getByText("The answer is 4.").waitFor(T);
    expect(await log.locator("details.thinking").count()).toBe(1);
    expect(await log.locator(".md").last().textContent()).not.toMatch(/weighing|<think>/);

    await box.fill("[fail] this one breaks");
    await box.press("Enter");
    const error = log.getByRole("alert");
    await error.waitFor(T);
    expect(await error.textContent()).toMatch(/Run failed: .*mock provider refused/);
    // The error sits inside that run, after the message that caused it.
    expect(await log.locator("article.run").last().getByRole("alert").count()).toBe(1);
    await page.close();
  }, 90_000);

  it("shows markup in a reply as text: raw HTML, script links and remote images never become elements", async () => {
    const page = await openPage(browser.context, gw.port, TOKEN);
    await page.getByRole("button", { name: "New session" }).click();
    const box = page.getByRole("textbox", { name: "Message" });
    const log = page.getByRole("log");
    // The scripted model echoes the message back, so the reply carries this markup.
    await box.fill(
      '<img src=x onerror="document.title=1"> [click](javascript:document.title=2) ![pic](http://192.0.2.1/a.png) ok',
    );
    await box.press("Enter");
    const reply = log.locator("article.run .md").last();
    await reply.getByText(/ok$/).waitFor(T);
    expect(await reply.locator("img").count()).toBe(0);
    expect(await reply.locator("a").count()).toBe(0);
    expect(await reply.textContent()).toContain('<img src=x onerror="document.title=1">');
    expect(await page.title()).toBe("Tiller");
    await page.close();
  }, 60_000);

  it("Send steers a run that is calling slow tools: the steering message reaches the next model request", async () => {
    const page = await openPage(browser.context, gw.port, TOKEN);
    await page.getByRole("button", { name: "New session" }).click();
    await expect
      .poll(() => page.getByRole("textbox", { name: "Session name" }).inputValue(), { timeout: 20_000 })
      .toMatch(/^web-/);
    const box = page.getByRole("textbox", { name: "Message" });
    await box.fill("[tools:3] build the thing");
    await page.getByRole("button", { name: "Send" }).click();
    const log = page.getByRole("log");
    // The first tool card, with its arguments and the live output of the running command.
    const card = log.locator(".tool-card").first();
    await card.getByText("tick-1; sleep 1").waitFor({ timeout: 20_000 });
    await card.getByLabel("exec output").getByText("tick-1").waitFor({ timeout: 20_000 });
    await expect.poll(() => page.getByRole("button", { name: "Stop" }).isEnabled(), { timeout: 20_000 }).toBe(true);

    await box.fill("steer: use tabs, not spaces");
    await page.getByRole("button", { name: "Send" }).click();
    // Shown as not yet delivered, then delivered at the tool boundary.
    await page.getByLabel("Not yet delivered").getByText("steer: use tabs").waitFor();
    await log.getByText("echo: steer: use tabs, not spaces").waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByLabel("Not yet delivered").locator("li").count(), { timeout: 20_000 }).toBe(0);
    await expect
      .poll(() => log.locator(".tool-card .tool-status", { hasText: "done" }).first().isVisible(), { timeout: 20_000 })
      .toBe(true);

    const withSteer = mock.requests.filter((r) => userTexts(r.body).includes("steer: use tabs, not spaces"));
    expect(withSteer.length).toBe(1);
    const body = withSteer[0]?.body as { messages: { role: string }[] };
    // It arrived after a tool result, inside the same run (no new run of its own: the first message is still there).
    expect(userTexts(body)[0]).toBe("[tools:3] build the thing");
    expect(body.messages.some((m) => m.role === "tool")).toBe(true);
    // The model answered the steering instead of calling the remaining tools.
    expect(
      mock.requests.some(
        (r) => userTexts(r.body)[0] === "[tools:3] build the thing" && /all 3/.test(JSON.stringify(r.body)),
      ),
    ).toBe(false);
    await expect.poll(() => page.getByRole("button", { name: "Stop" }).isDisabled(), { timeout: 20_000 }).toBe(true);
    await screenshot(page, "steer-1280x800");
    await page.close();
  }, 120_000);

  it("Follow up waits for the active run, then runs as its own turn; queued messages are shown until then", async () => {
    const page = await openPage(browser.context, gw.port, TOKEN);
    await page.getByRole("button", { name: "New session" }).click();
    const box = page.getByRole("textbox", { name: "Message" });
    await box.fill("[slow:10:150] first");
    await box.press("Enter");
    const log = page.getByRole("log");
    await log.getByText("d1").waitFor({ timeout: 20_000 });
    await box.fill("and then this");
    await page.getByRole("button", { name: "Follow up" }).click();
    const pending = page.getByLabel("Not yet delivered");
    await pending.getByText("and then this").waitFor();
    // Still queued while the first reply streams.
    expect(await log.getByText("echo: and then this").count()).toBe(0);
    await log.getByText("echo: and then this").waitFor({ timeout: 30_000 });
    await expect.poll(() => pending.locator("li").count(), { timeout: 20_000 }).toBe(0);
    const runs = log.locator("article.run");
    await expect.poll(() => runs.count(), { timeout: 20_000 }).toBe(2);
    await expect.poll(() => runs.nth(0).textContent(), { timeout: 20_000 }).toContain("d9");
    // Its own model request: the follow-up was the last user message, after the whole first reply.
    const req = mock.requests.find((r) => userTexts(r.body).at(-1) === "and then this");
    expect(userTexts(req?.body)).toEqual(["[slow:10:150] first", "and then this"]);
    await page.close();
  }, 90_000);

  it("the session's queue mode (header) decides what a mid-run Send does; × takes a queued message back", async () => {
    const page = await openPage(browser.context, gw.port, TOKEN);
    await page.getByRole("button", { name: "New session" }).click();
    await expect
      .poll(() => page.getByRole("textbox", { name: "Session name" }).inputValue(), { timeout: 20_000 })
      .toMatch(/^web-/);
    await page.getByRole("combobox", { name: "Queue mode" }).selectOption("followup");
    await expect.poll(() => page.getByRole("combobox", { name: "Queue mode" }).inputValue(), T).toBe("followup");
    const box = page.getByRole("textbox", { name: "Message" });
    const log = page.getByRole("log");
    await box.fill("[tools:2] two slow steps");
    await box.press("Enter");
    await log.locator(".tool-card").first().getByText("tick-1").first().waitFor(T);
    // Send mid-run, with the session in followup mode: queued as a turn of its own, not steered in.
    await box.fill("queued by mode");
    await page.getByRole("button", { name: "Send" }).click();
    // Follow up, then taken back before it runs.
    await box.fill("never mind this one");
    await page.getByRole("button", { name: "Follow up" }).click();
    const pending = page.getByLabel("Not yet delivered");
    await pending.getByText("never mind this one").waitFor(T);
    await page.getByRole("button", { name: "Cancel followup: never mind this one" }).click();
    await expect.poll(() => pending.getByText("never mind this one").count(), T).toBe(0);
    await log.getByText("all 2 steps done").waitFor({ timeout: 30_000 });
    await log.getByText("echo: queued by mode").waitFor({ timeout: 30_000 });
    await expect.poll(() => pending.locator("li").count(), T).toBe(0);
    await expect.poll(() => log.locator("article.run").count(), T).toBe(2);
    // The gateway held it: its own model request after the whole first run; the cancelled one never ran.
    const req = mock.requests.find((r) => userTexts(r.body).at(-1) === "queued by mode");
    expect(JSON.stringify(req?.body)).toContain("all 2 steps done");
    expect(mock.requests.some((r) => userTexts(r.body).includes("never mind this one"))).toBe(false);
    await page.close();
  }, 120_000);

  it("Stop aborts the streaming reply and the composer is ready again", async () => {
    const page = await openPage(browser.context, gw.port, TOKEN);
    await page.getByRole("button", { name: "New session" }).click();
    const box = page.getByRole("textbox", { name: "Message" });
    await box.fill("[slow:200:100] a long one");
    await box.press("Enter");
    const log = page.getByRole("log");
    await log.getByText("d2").waitFor({ timeout: 20_000 });
    await page.getByRole("button", { name: "Stop" }).click();
    await log.getByText("Stopped.").waitFor({ timeout: 20_000 });
    await expect.poll(() => page.getByRole("button", { name: "Stop" }).isDisabled(), { timeout: 20_000 }).toBe(true);
    expect(await log.textContent()).not.toContain("d199");
    await box.fill("after the stop");
    await box.press("Enter");
    await log.getByText("echo: after the stop").waitFor({ timeout: 20_000 });
    await page.close();
  }, 90_000);

  it("names every control and keeps a sane keyboard order: sessions, then the header, transcript, composer", async () => {
    const page = await openPage(browser.context, gw.port, TOKEN);
    const box = page.getByRole("textbox", { name: "Message" });
    await box.fill("an accessible reply");
    await box.press("Enter");
    await page.getByRole("log", { name: "Transcript" }).getByText("echo: an accessible reply").waitFor(T);
    // The names, by role.
    for (const [role, name] of [
      ["textbox", "Message"],
      ["button", "Send"],
      ["button", "Follow up"],
      ["button", "Stop"],
      ["button", "New session"],
      ["searchbox", "Search sessions"],
      ["textbox", "Session name"],
      ["combobox", "Model"],
      ["combobox", "Thinking level"],
      ["combobox", "Queue mode"],
      ["status", "Connection"],
      ["navigation", "Sessions"],
    ] as const) {
      expect(await page.getByRole(role, { name, exact: true }).count(), `${role} "${name}"`).toBe(1);
    }
    // No visible control without an accessible name.
    const unnamed = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>("button, input, select, textarea, a[href]")]
        .filter((el) => el.offsetParent !== null)
        .filter((el) => {
          const label = (el as HTMLInputElement).labels?.[0]?.textContent ?? "";
          return !(el.getAttribute("aria-label") ?? "").trim() && !label.trim() && !(el.textContent ?? "").trim();
        })
        .map((el) => el.outerHTML.slice(0, 80)),
    );
    expect(unnamed).toEqual([]);
    // Focus order: the sessions come first, the composer's actions follow the textbox.
    const order = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>("button, input, select, textarea")]
        .filter((el) => el.offsetParent !== null && !(el as HTMLButtonElement).disabled && el.tabIndex >= 0)
        .map((el) => el.getAttribute("aria-label") || el.textContent?.trim() || el.tagName),
    );
    expect(order.indexOf("New session")).toBeLessThan(order.indexOf("Session name"));
    expect(order.indexOf("Session name")).toBeLessThan(order.indexOf("Message"));
    await box.focus();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Send");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Follow up");
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Shift+Tab");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Message");
    // Keyboard only: a button pressed with Enter acts.
    await box.fill("sent from the keyboard");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.getByRole("log").getByText("echo: sent from the keyboard").waitFor(T);
    await page.close();
  }, 90_000);

  it("works at 390 px wide: the composer and its buttons fit, the sessions open from a toggle", async () => {
    const page = await openPage(browser.context, gw.port, TOKEN);
    await page.setViewportSize({ width: 390, height: 844 });
    const box = page.getByRole("textbox", { name: "Message" });
    await box.fill("hello from a phone");
    await box.press("Enter");
    await page.getByRole("log").getByText("echo: hello from a phone").waitFor({ timeout: 20_000 });
    for (const name of ["Send", "Follow up", "Stop"]) {
      const b = await page.getByRole("button", { name, exact: true }).boundingBox();
      expect(b && b.x >= 0 && b.x + b.width <= 390).toBe(true);
    }
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await screenshot(page, "chat-390x844");
    await page.getByRole("button", { name: "Sessions" }).click();
    await expect
      .poll(() => page.getByRole("button", { name: "New session" }).isVisible(), { timeout: 20_000 })
      .toBe(true);
    await screenshot(page, "sessions-390x844");
    await page.close();
  }, 90_000);

  it("refuses a plain ws:// gateway that is not on loopback, and says why", async () => {
    const page = await browser.context.newPage();
    await page.goto(`http://127.0.0.1:${gw.port}/`);
    await page.getByLabel("Gateway URL").fill("ws://192.0.2.10:18789");
    await page.getByLabel("Token").fill(TOKEN);
    await page.getByRole("button", { name: "Connect" }).click();
    await expect
      .poll(() => page.getByRole("alert").textContent(), { timeout: 20_000 })
      .toMatch(/plain ws:\/\/.*unencrypted.*wss:\/\//);
    await page.close();
  }, 60_000);
});
