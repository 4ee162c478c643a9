/** Which database a gateway joins: TILLER_CLUSTER_URL, else gateway.cluster.postgres, else none (single node). */
import { describe, expect, it } from "vitest";
import { resolveClusterUrl } from "../src/cluster/index.js";

describe("cluster URL", () => {
  it("is absent by default: single-node stays as it is", () => {
    expect(resolveClusterUrl({}, {})).toBeUndefined();
    expect(resolveClusterUrl({ gateway: { port: 1 } }, {})).toBeUndefined();
    expect(resolveClusterUrl({ gateway: { cluster: { postgres: "" } } }, {})).toBeUndefined();
  });

  it("comes from tiller.json, and the environment wins", () => {
    const config = { gateway: { cluster: { postgres: "postgres://tiller@db:5432/tiller" } } };
    expect(resolveClusterUrl(config, {})).toBe("postgres://tiller@db:5432/tiller");
    expect(resolveClusterUrl(config, { TILLER_CLUSTER_URL: "postgresql://other/x" })).toBe("postgresql://other/x");
  });

  it("names the key of a bad value and never echoes a password", () => {
    expect(() => resolveClusterUrl({ gateway: { cluster: { postgres: 5 } } }, {})).toThrow(
      "tiller.json: gateway.cluster.postgres: expected a postgres:// URL, got 5",
    );
    expect(() => resolveClusterUrl({ gateway: { cluster: "x" } }, {})).toThrow(
      "tiller.json: gateway.cluster: expected an object",
    );
    expect(() => resolveClusterUrl({}, { TILLER_CLUSTER_URL: "mysql://u:secret@h/db" })).toThrow(
      "TILLER_CLUSTER_URL: expected a postgres:// or postgresql:// URL, got mysql://…",
    );
    let message = "";
    try {
      resolveClusterUrl({}, { TILLER_CLUSTER_URL: "postgres//u:secret@h" });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^TILLER_CLUSTER_URL: not a URL/);
    expect(message).not.toContain("secret");
  });
});
