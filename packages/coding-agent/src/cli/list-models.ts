/** `tiller --list-models [search]`: every known model (catalog + models.json), marking those with credentials. */
import { AuthStorage } from "../auth/auth-storage.js";
import { getTillerPaths } from "../home.js";
import { ModelRegistry } from "../models/model-registry.js";
import type { CliArgs } from "./args.js";

export function listModels(args: CliArgs): number {
  const paths = getTillerPaths();
  const registry = ModelRegistry.create(AuthStorage.create(paths.auth), paths.models);
  for (const e of registry.errors) process.stderr.write(`tiller: ${e}\n`);
  const search = typeof args.listModels === "string" ? args.listModels.toLowerCase() : "";
  const models = registry
    .getAll()
    .filter((m) => !search || `${m.provider}/${m.id} ${m.name}`.toLowerCase().includes(search))
    .sort((a, b) => a.provider.localeCompare(b.provider) || a.id.localeCompare(b.id));
  if (models.length === 0) {
    process.stdout.write(search ? `no model matches "${search}"\n` : "no models known\n");
    return 0;
  }
  const rows = models.map((m) => [
    `${m.provider}/${m.id}`,
    registry.hasConfiguredAuth(m) ? "ready" : "no key",
    m.contextWindow ? `${Math.round(m.contextWindow / 1000)}k ctx` : "",
    m.reasoning ? "thinking" : "",
  ]);
  const w0 = Math.max(...rows.map((r) => r[0]!.length));
  for (const r of rows)
    process.stdout.write(`${r[0]!.padEnd(w0)}  ${r[1]!.padEnd(6)}  ${r[2]!.padEnd(9)} ${r[3]}\n`.trimEnd() + "\n");
  return 0;
}
