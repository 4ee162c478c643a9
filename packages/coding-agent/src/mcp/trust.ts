/**
 * Trust in project MCP servers. A server defined by a project file (`.mcp.json`, `.tiller/settings.json`) starts
 * a program or contacts a URL chosen by whoever wrote the repository, so it runs only once the user has
 * trusted it. Trust is remembered in `$TILLER_HOME/mcp-trust.json` per project folder, server name and entry
 * fingerprint: editing the entry (another command, other arguments) asks again. User-scope servers need none.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { McpServerDefinition } from "./types.js";

interface TrustFile {
  version: 1;
  /** project folder → server name → fingerprint trusted. */
  projects: Record<string, Record<string, string>>;
}

export class McpTrustStore {
  readonly path: string;

  constructor(home: string) {
    this.path = join(home, "mcp-trust.json");
  }

  private read(): TrustFile {
    if (!existsSync(this.path)) return { version: 1, projects: {} };
    try {
      const raw = JSON.parse(readFileSync(this.path, "utf8")) as Partial<TrustFile>;
      return { version: 1, projects: raw.projects && typeof raw.projects === "object" ? raw.projects : {} };
    } catch {
      // A damaged file trusts nothing; it is rewritten on the next `trust`.
      return { version: 1, projects: {} };
    }
  }

  isTrusted(server: McpServerDefinition): boolean {
    if (server.scope === "user") return true;
    return this.read().projects[server.projectRoot]?.[server.name] === server.fingerprint;
  }

  /** The project servers among `servers` that are not trusted yet. */
  untrusted(servers: readonly McpServerDefinition[]): McpServerDefinition[] {
    const file = this.read();
    return servers.filter((s) => s.scope === "project" && file.projects[s.projectRoot]?.[s.name] !== s.fingerprint);
  }

  /** Remembers trust in these servers (re-reads the file first, so other projects' entries are kept). */
  trust(servers: readonly McpServerDefinition[]): void {
    const project = servers.filter((s) => s.scope === "project");
    if (project.length === 0) return;
    const file = this.read();
    for (const s of project) {
      file.projects[s.projectRoot] ??= {};
      file.projects[s.projectRoot]![s.name] = s.fingerprint;
    }
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}
