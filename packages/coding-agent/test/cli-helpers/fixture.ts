/** A temp TILLER_HOME wired to a loopback mock provider, plus a temp project folder. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MockServer } from "./mock-openai.js";

export interface CliFixture {
  root: string;
  home: string;
  project: string;
  /** Environment for the spawned CLI: TILLER_HOME, HOME, no real provider keys. */
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

export function makeFixture(server: MockServer | undefined, name = "tiller-cli-"): CliFixture {
  const root = mkdtempSync(join(tmpdir(), name));
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  if (server) {
    writeFileSync(
      join(home, "models.json"),
      JSON.stringify({
        providers: {
          mock: { baseUrl: server.baseUrl, api: "openai-completions", apiKey: "test-key", models: [{ id: "mock-1" }] },
        },
      }),
    );
    writeFileSync(join(home, "settings.json"), JSON.stringify({ defaultProvider: "mock", defaultModel: "mock-1" }));
  }
  const env: NodeJS.ProcessEnv = {
    TILLER_HOME: home,
    HOME: root,
    OPENAI_API_KEY: "",
    ANTHROPIC_API_KEY: "",
    GEMINI_API_KEY: "",
    NO_COLOR: "1",
  };
  return { root, home, project, env, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
