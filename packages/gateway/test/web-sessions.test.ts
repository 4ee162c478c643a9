/**
 * Sessions and the connection in the web page (Debian's chromium, a real gateway process): switching
 * sessions, rename and search, compact, reset and delete, reload keeping the history (tool results included), paging a long history, a
 * gateway restart mid-session (the page reconnects), and two tabs on one session seeing the same run live.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import { connectClient, type GatewayProc, makeHome, removeHome } from "./gateway-harness.js";
import {
  type Browser,
  ensureWebBuilt,
  launchBrowser,
  openPage,
  screenshot,
  spawnWebGateway,
  startScriptedModel,
  waitConnected,
} from "./web-harness.js";

const TOKEN = "web-sessions-token";
const T = { timeout: 20_000 };
let mock: MockServer;
let gw: GatewayProc;
let home: string;
let browser: Browser;

beforeAll(async () => {
  await ensureWebBuilt();
  mock = await startScriptedModel();
  home = makeHome({ mockBaseUrl: mock.baseUrl });
  gw = await spawnWebGateway(home, ["--token", TOKEN]);
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await mock?.close();
  if (home) removeHome(home);
});

describe("web page: sessions and connection", () => {
  it("switches sessions (each shows its own history), renames, searches, compacts, resets and deletes", async () => {
    const page = await openPage(browser.context, gw.port, TOKEN);
    page.on("dialog", (d) => void d.accept());
    const box = page.getByRole("textbox", { name: "Message" });
    const log = page.getByRole("log");
    const name = page.getByRole("textbox", { name: "Session name" });

    await page.getByRole("button", { name: "New session" }).click();
    await expect.poll(() => name.inputValue(), T).toMatch(/^web-/);
    await box.fill("alpha");
    await box.press("Enter");
    await log.getByText("echo: alpha").waitFor(T);
    await name.fill("Alpha work");
    await name.press("Enter");
    const list = page.getByRole("list", { name: "Sessions" });
    await list.getByRole("button", { name: /Alpha work/ }).waitFor(T);

    await page.getByRole("button", { name: "New session" }).click();
    await expect.poll(() => log.textContent(), T).not.toContain("alpha");
    await box.fill("beta");
    await box.press("Enter");
    await log.getByText("echo: beta").waitFor(T);
    await screenshot(page, "sessions-1280x800");

    await list.getByRole("button", { name: /Alpha work/ }).click();
    await log.getByText("echo: alpha").waitFor(T);
    expect(await log.textContent()).not.toContain("beta");
    expect(await name.inputValue()).toBe("Alpha work");

    await page.getByRole("searchbox", { name: "Search sessions" }).fill("alpha w");
    await expect.poll(() => list.getByRole("button").count(), T).toBe(1);
    await page.getByRole("searchbox", { name: "Search sessions" }).fill("");

    // Compact: the gateway's answer is shown (a two-message session has nothing old enough to fold).
    await page.getByRole("button", { name: "Compact" }).click();
    await log.getByText(/Not compacted: nothing to compact/).waitFor(T);
    await log.getByText("echo: alpha").waitFor(T);
    // Reset: the session starts over (empty transcript), still listed.
    await page.getByRole("button", { name: "Reset" }).click();
    await expect.poll(() => log.textContent(), T).not.toContain("alpha");
    await list.getByRole("button", { name: /Alpha work/ }).waitFor(T);
    // Delete: gone from the list.
    await page.getByRole("button", { name: "Delete" }).click();
    await expect.poll(() => list.getByRole("button", { name: /Alpha work/ }).count(), T).toBe(0);
    await page.close();
  }, 120_000);

  it("sets model, thinking level and queue mode per session (sessions.patch), and the next run uses them", async () => {
    const page = await openPage(browser.context, gw.port, TOKEN);
    await page.getByRole("button", { name: "New session" }).click();
    const name = page.getByRole("textbox", { name: "Session name" });
    await expect.poll(() => name.inputValue(), T).toMatch(/^web-/);
    const key = `agent:main:${await name.inputValue()}`;
    await page
      .getByRole("combobox", { name: "Model" })
      .locator("option", { hasText: "mock/mock-small" })
      .waitFor({ state: "attached", ...T });
    await page.getByRole("combobox", { name: "Model" }).selectOption("mock/mock-small");
    await page.getByRole("combobox", { name: "Thinking level" }).selectOption("low");
    await page.getByRole("combobox", { name: "Queue mode" }).selectOption("followup");
    const { client } = await connectClient(gw.url, { token: TOKEN });
    const row = async () => {
      const r = (await client.request("sessions.list", { limit: 200 })) as { sessions: Record<string, unknown>[] };
      return r.sessions.find((s) => s.key === key);
    };
    await expect.poll(async () => (await row())?.queueMode, T).toBe("followup");
    expect((await row())?.modelOverride).toBe("mock/mock-small");
    expect((await row())?.thinkingLevel).toBe("low");
    await client.close();

    const box = page.getByRole("textbox", { name: "Message" });
    await box.fill("which model?");
    await box.press("Enter");
    await page.getByRole("log").getByText("echo: which model?").waitFor(T);
    const req = mock.requests.find((r) => JSON.stringify(r.body).includes("which model?"));
    expect((req?.body as { model?: string } | undefined)?.model).toBe("mock-small");
    // A gateway command answers without a run; the page shows the answer and is not left "running".
    await box.fill("/queue collect");
    await box.press("Enter");
    await page
      .getByRole("log")
      .getByText(/Queue set: collect/)
      .waitFor(T);
    await expect.poll(() => page.getByRole("button", { name: "Stop" }).isDisabled(), T).toBe(true);
    await expect.poll(() => page.getByRole("combobox", { name: "Queue mode" }).inputValue(), T).toBe("collect");
    await box.fill("/queue followup");
    await box.press("Enter");
    await expect
      .poll(
        () =>
          page
            .getByRole("log")
            .getByText(/Queue set: followup/)
            .count(),
        T,
      )
      .toBe(1);
    // The controls show the session's settings after a reload.
    await page.reload();
    await waitConnected(page);
    await expect.poll(() => page.getByRole("combobox", { name: "Queue mode" }).inputValue(), T).toBe("followup");
    await page.close();
  }, 90_000);

  it("keeps the session and its history across a reload, and pages a long history (button and scrolling)", async () => {
    const { client } = await connectClient(gw.url, { token: TOKEN });
    const key = "agent:main:long-history";
    for (let i = 0; i < 30; i++) {
      await client.request(
        "agent",
        { message: `msg ${i}`, idempotencyKey: `long-${i}`, sessionKey: key },
        { expectFinal: true },
      );
    }
    await client.close();
    const page = await openPage(browser.context, gw.port, TOKEN);
    const list = page.getByRole("list", { name: "Sessions" });
    await list.getByRole("button", { name: /long-history/ }).click();
    const log = page.getByRole("log");
    await log.getByText("echo: msg 29").waitFor(T);
    // 60 messages, 50 per page: the oldest are behind "Load older messages".
    expect(await log.getByText("echo: msg 0", { exact: true }).count()).toBe(0);
    // The button itself (dispatched: a real click scrolls it into view first, which already loads the page).
    await page.getByRole("button", { name: "Load older messages" }).dispatchEvent("click");
    await log.getByText("echo: msg 0", { exact: true }).waitFor(T);
    // The older page went above, once: every message shown once, oldest first, and nothing older to load.
    // (The messages' text, without the runs' usage lines.)
    const texts = (await log.locator(".msg.user > p, .msg.assistant > .run-body").allTextContents()).map((t) =>
      t.trim(),
    );
    expect(texts.length).toBe(60);
    expect(texts[0]).toBe("msg 0");
    expect(texts.at(-1)).toBe("echo: msg 29");
    expect(texts.filter((t) => t === "echo: msg 10").length).toBe(1);
    await expect.poll(() => page.getByRole("button", { name: "Load older messages" }).count(), T).toBe(0);

    await page.reload();
    await waitConnected(page);
    await log.getByText("echo: msg 29").waitFor(T);
    expect(await page.getByRole("textbox", { name: "Session name" }).inputValue()).toBe("long-history");
    // Scrolling to the top loads the older page too.
    expect(await log.getByText("echo: msg 0", { exact: true }).count()).toBe(0);
    await log.evaluate((el) => {
      el.scrollTop = 0;
    });
    await log.getByText("echo: msg 0", { exact: true }).waitFor(T);
    await page.close();
  }, 120_000);

  it("after a reload, tool cards show their results from history", async () => {
    const page = await openPage(browser.context, gw.port, TOKEN);
    await page.getByRole("button", { name: "New session" }).click();
    const box = page.getByRole("textbox", { name: "Message" });
    const log = page.getByRole("log");
    await box.fill("[tools:2] two steps");
    await box.press("Enter");
    await log.getByText("all 2 steps done").waitFor({ timeout: 30_000 });
    await page.reload();
    await waitConnected(page);
    await log.getByText("all 2 steps done").waitFor(T);
    const cards = log.locator(".tool-card");
    await expect.poll(() => cards.count(), T).toBe(2);
    for (const k of [1, 2]) {
      const card = cards.nth(k - 1);
      expect(await card.locator(".tool-args").textContent()).toContain(`echo tick-${k}; sleep 1; echo tock-${k}`);
      expect(await card.getByLabel("exec output").textContent()).toMatch(new RegExp(`tick-${k}\\s+tock-${k}`));
      expect(await card.locator(".tool-status").textContent()).toBe("done");
    }
    await screenshot(page, "tool-results-after-reload-1280x800");
    await page.close();
  }, 90_000);

  it("reconnects after a gateway restart mid-session and carries on", async () => {
    const page = await openPage(browser.context, gw.port, TOKEN);
    await page.getByRole("button", { name: "New session" }).click();
    const box = page.getByRole("textbox", { name: "Message" });
    const log = page.getByRole("log");
    await box.fill("before the restart");
    await box.press("Enter");
    await log.getByText("echo: before the restart").waitFor(T);

    const port = gw.port;
    await gw.stop();
    await expect.poll(() => page.getByRole("status", { name: "Connection" }).textContent(), T).toMatch(/Reconnecting/);
    gw = await spawnWebGateway(home, ["--token", TOKEN, "--port", String(port)]);
    await waitConnected(page, 60_000);
    await log.getByText("echo: before the restart").waitFor(T);
    await box.fill("after the restart");
    await box.press("Enter");
    await log.getByText("echo: after the restart").waitFor(T);
    await page.close();
  }, 120_000);

  it("two tabs on one session see the same run live", async () => {
    const one = await openPage(browser.context, gw.port, TOKEN);
    await one.getByRole("button", { name: "New session" }).click();
    const title = one.getByRole("textbox", { name: "Session name" });
    await expect.poll(() => title.inputValue(), T).toMatch(/^web-/);
    const name = await title.inputValue();
    const two = await openPage(browser.context, gw.port, TOKEN);
    await two.getByRole("list", { name: "Sessions" }).getByRole("button", { name }).click();
    await expect.poll(() => two.getByRole("textbox", { name: "Session name" }).inputValue(), T).toBe(name);

    const box = one.getByRole("textbox", { name: "Message" });
    await box.fill("[slow:12:150] together");
    await box.press("Enter");
    // Tab two sees the reply stream in while the run is still going.
    await two.getByRole("log").getByText("d2").waitFor(T);
    expect(await two.getByRole("button", { name: "Stop" }).isEnabled()).toBe(true);
    expect(await two.getByRole("log").textContent()).not.toContain("d11");
    await two.getByRole("log").getByText("d11").waitFor(T);
    // Once it ends, tab two also has the message that started it (from history).
    await two.getByRole("log").getByText("[slow:12:150] together").waitFor(T);
    await expect.poll(() => two.getByRole("button", { name: "Stop" }).isDisabled(), T).toBe(true);
    await one.close();
    await two.close();
  }, 120_000);
});
