import { describe, expect, it } from "vitest";
import {
  type AssistantMessageDiagnostic,
  appendAssistantMessageDiagnostic,
  cleanupSessionResources,
  createAssistantMessageDiagnostic,
  extractDiagnosticError,
  formatThrownValue,
  registerSessionResourceCleanup,
} from "../src/index.js";

describe("diagnostics", () => {
  it("formats and extracts thrown values of every kind", () => {
    expect(formatThrownValue(new TypeError("bad"))).toBe("bad");
    expect(formatThrownValue(new RangeError(""))).toBe("RangeError");
    expect(formatThrownValue("text")).toBe("text");
    expect(formatThrownValue(42)).toBe("42");
    const err = Object.assign(new Error("refused"), { code: "ECONNREFUSED" });
    expect(extractDiagnosticError(err)).toMatchObject({ name: "Error", message: "refused", code: "ECONNREFUSED" });
    expect(extractDiagnosticError(err).stack).toContain("refused");
    expect(extractDiagnosticError({ code: 1 })).toEqual({ name: "ThrownValue", message: "[object Object]" });
    expect(extractDiagnosticError(Object.assign(new Error("x"), { code: { nested: true } })).code).toBeUndefined();
  });

  it("appends without mutating an earlier snapshot of the list", () => {
    const message: { diagnostics?: AssistantMessageDiagnostic[] } = {};
    const before = Date.now();
    const first = createAssistantMessageDiagnostic("retry", new Error("429"), { attempt: 1 });
    expect(first.timestamp).toBeGreaterThanOrEqual(before);
    expect(first).toMatchObject({ type: "retry", error: { message: "429" }, details: { attempt: 1 } });
    appendAssistantMessageDiagnostic(message, first);
    const snapshot = message.diagnostics;
    appendAssistantMessageDiagnostic(message, createAssistantMessageDiagnostic("cut", "socket hang up"));
    expect(snapshot).toHaveLength(1);
    expect(message.diagnostics?.map((d) => d.type)).toEqual(["retry", "cut"]);
  });
});

describe("session resources", () => {
  it("runs every cleanup with the session id, then reports failures together", () => {
    const seen: (string | undefined)[] = [];
    const offA = registerSessionResourceCleanup((id) => seen.push(id));
    const offB = registerSessionResourceCleanup(() => {
      throw new Error("socket stuck");
    });
    const offC = registerSessionResourceCleanup((id) => seen.push(`c:${id}`));
    let thrown: unknown;
    try {
      cleanupSessionResources("s1");
    } catch (error) {
      thrown = error;
    }
    expect(seen).toEqual(["s1", "c:s1"]);
    expect(thrown).toBeInstanceOf(AggregateError);
    expect((thrown as AggregateError).message).toBe("Failed to cleanup session resources");
    expect((thrown as AggregateError).errors.map((e) => (e as Error).message)).toEqual(["socket stuck"]);
    offB();
    offB();
    cleanupSessionResources();
    expect(seen).toEqual(["s1", "c:s1", undefined, "c:undefined"]);
    offA();
    offC();
    cleanupSessionResources("s2");
    expect(seen).toHaveLength(4);
  });
});
