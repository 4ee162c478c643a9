import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuthStorage, ModelRegistry } from "../src/index.js";

let dir: string;
let file: string;
const saved = { ...process.env };
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-auth-"));
  file = join(dir, "auth.json");
  delete process.env.OPENAI_API_KEY;
});
afterEach(() => {
  process.env = { ...saved };
  rmSync(dir, { recursive: true, force: true });
});

describe("AuthStorage", () => {
  it("resolves runtime key > auth.json > environment > models.json", () => {
    const auth = AuthStorage.create(file);
    const reg = ModelRegistry.inMemory(auth);
    reg.registerProvider("openai", { apiKey: "from-models-json" });
    const model = { provider: "openai" };
    expect(reg.getApiKey(model)).toBe("from-models-json");
    process.env.OPENAI_API_KEY = "from-env";
    expect(reg.getApiKey(model)).toBe("from-env");
    expect(auth.getAuthSource("openai")).toBe("env");
    auth.setApiKey("openai", "from-file");
    expect(reg.getApiKey(model)).toBe("from-file");
    expect(auth.getAuthSource("openai")).toBe("file");
    auth.setRuntimeApiKey("openai", "from-cli");
    expect(reg.getApiKey(model)).toBe("from-cli");
    expect(auth.getAuthSource("openai")).toBe("runtime");
    // The runtime key is never written.
    expect(readFileSync(file, "utf8")).not.toContain("from-cli");
  });

  it("writes auth.json with mode 0600 in pi's format", async () => {
    const auth = AuthStorage.create(file);
    auth.setApiKey("anthropic", "sk-ant");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ anthropic: { type: "api_key", key: "sk-ant" } });
    expect(await AuthStorage.create(file).getApiKey("anthropic")).toBe("sk-ant");
  });

  it("concurrent writers in separate processes keep each other's keys", async () => {
    const here = dirname(fileURLToPath(import.meta.url));
    const script = `
      import { AuthStorage } from ${JSON.stringify(join(here, "../src/index.ts"))};
      const [file, prefix] = process.argv.slice(-2);
      const auth = AuthStorage.create(file);
      for (let i = 0; i < 10; i++) auth.setApiKey(prefix + i, "k" + i);
    `;
    const scriptFile = join(dir, "writer.mts");
    writeFileSync(scriptFile, script);
    const run = (prefix: string) =>
      new Promise<number>((resolve) => {
        const c = spawn(process.execPath, ["--conditions=tiller-source", "--import", "tsx", scriptFile, file, prefix], {
          stdio: "inherit",
        });
        c.on("exit", (code) => resolve(code ?? 1));
      });
    expect(await Promise.all([run("a"), run("b")])).toEqual([0, 0]);
    const keys = Object.keys(JSON.parse(readFileSync(file, "utf8")));
    expect(keys).toHaveLength(20);
  }, 30_000);

  it("a corrupt auth.json is reported and never overwritten", () => {
    writeFileSync(file, "{oops");
    const auth = AuthStorage.create(file);
    expect(auth.errors[0]).toMatch(/not valid JSON/);
    expect(() => auth.setApiKey("openai", "x")).toThrow(/not valid JSON/);
    expect(readFileSync(file, "utf8")).toBe("{oops");
  });
});
