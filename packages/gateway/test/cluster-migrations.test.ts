/**
 * Migrations are applied exactly once when several nodes start at the same moment, and a database newer than
 * the gateway is refused instead of written to.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClusterPool, MIGRATIONS, migrate } from "../src/cluster/index.js";
import { PG_MISSING, startPostgres, type TestPostgres } from "./helpers/postgres.js";

describe.skipIf(PG_MISSING)("cluster migrations", () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await pg?.stop();
  });

  it("three nodes starting at once apply each migration once", async () => {
    const url = await pg.createDatabase();
    const pools = [0, 1, 2].map(() => new ClusterPool({ url }));
    try {
      const reports = await Promise.all(pools.map((p) => migrate(p)));
      const applied = reports.flatMap((r) => r.applied).sort((a, b) => a - b);
      expect(applied).toEqual(MIGRATIONS.map((m) => m.version));
      for (const r of reports) expect(r.version).toBe(Math.max(...MIGRATIONS.map((m) => m.version)));
      const rows = await pools[0]?.query<{ n: string }>("SELECT count(*) AS n FROM cluster_schema_migrations");
      expect(Number(rows?.rows[0]?.n)).toBe(MIGRATIONS.length);
      // A restart finds nothing to do.
      expect((await migrate(pools[1] as ClusterPool)).applied).toEqual([]);
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
  });

  it("refuses a schema newer than this gateway knows", async () => {
    const url = await pg.createDatabase();
    const pool = new ClusterPool({ url });
    try {
      await migrate(pool);
      await pool.query("INSERT INTO cluster_schema_migrations (version, name) VALUES (999, 'from the future')");
      await expect(migrate(pool)).rejects.toThrow(/version 999, newer than this gateway knows/);
    } finally {
      await pool.close();
    }
  });

  it("a failing migration names itself and leaves no half-applied schema", async () => {
    const url = await pg.createDatabase();
    const pool = new ClusterPool({ url });
    try {
      const next = Math.max(...MIGRATIONS.map((m) => m.version)) + 1;
      const bad = [...MIGRATIONS, { version: next, name: "broken", sql: "CREATE TABLE x (); SELEC 1" }];
      await expect(migrate(pool, bad)).rejects.toThrow(`migration ${next} (broken) failed`);
      const t = await pool.query("SELECT 1 FROM pg_tables WHERE tablename = 'x'");
      expect(t.rowCount).toBe(0);
      expect((await migrate(pool)).applied).toEqual([]);
    } finally {
      await pool.close();
    }
  });
});
