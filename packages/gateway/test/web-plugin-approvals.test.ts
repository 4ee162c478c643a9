/**
 * Plugin approvals in the web page (Debian's chromium, a real gateway with a plugin whose before_tool_call
 * returns `requireApproval`): the card shows the plugin's title and description and only the decisions the
 * plugin offers; Deny keeps the tool from running and the run goes on with the denial.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GatewayProc, makeHome } from "./gateway-harness.js";
import { type Browser, openPage, startWebSuite, type WebSuite } from "./web-harness.js";

const TOKEN = "web-plugin-approvals-token";
const T = { timeout: 20_000 };
let gw: GatewayProc;
let browser: Browser;
let suite: WebSuite | undefined;

beforeAll(async () => {
  suite = await startWebSuite(TOKEN, (mockBaseUrl) => {
    const home = makeHome({ mockBaseUrl, config: { tools: { enabled: true } } });
    mkdirSync(join(home, "plugins"), { recursive: true });
    writeFileSync(
      join(home, "plugins", "gate.mjs"),
      `export default { id: "gate", register(api) {
  api.on("before_tool_call", (e) => {
    const cmd = e.params.command ?? "";
    if (cmd.includes("tick-1")) return { requireApproval: { title: "Run the first step?", description: "It prints twice.", severity: "warning", allowedDecisions: ["allow-once", "deny"] } };
    return undefined;
  });
} };
`,
    );
    return home;
  });
  ({ gw, browser } = suite);
}, 90_000);

afterAll(async () => {
  await suite?.stop();
});

describe("web page: plugin approvals", () => {
  it("shows the plugin's title and offered decisions; Deny keeps the tool from running", async () => {
    const page = await openPage(browser.context, gw.port, TOKEN);
    await page.getByRole("button", { name: "New session" }).click();
    const box = page.getByRole("textbox", { name: "Message" });
    const log = page.getByRole("log");
    await box.fill("[tools:1] gated by a plugin");
    await box.press("Enter");
    const card = log.getByRole("group", { name: "Approval requested by exec" });
    await card.waitFor(T);
    expect(await card.locator(".approval-command").textContent()).toBe("Run the first step?");
    expect(await card.locator(".approval-detail").textContent()).toBe("It prints twice.");
    // Only what the plugin offers.
    expect(await card.getByRole("button").allTextContents()).toEqual(["Allow once", "Deny"]);
    await card.getByRole("button", { name: "Deny" }).click();
    await card.getByRole("status").filter({ hasText: "Denied" }).waitFor(T);
    const tool = log.locator(".tool-card").first();
    await expect.poll(() => tool.locator(".tool-status").textContent(), T).toBe("failed");
    expect(await tool.getByLabel("exec output").textContent()).not.toContain("tick-1");
    await log.getByText("all 1 steps done").waitFor({ timeout: 30_000 });
    await page.close();
  }, 120_000);
});
