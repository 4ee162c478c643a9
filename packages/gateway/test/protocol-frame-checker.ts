/**
 * Checks a conversation of wire frames against the protocol schema: every frame's shape, every request's
 * params and every response's payload against its method (responses are matched to requests by id), and every
 * event's payload against its event. Returns one line per violation.
 */
import type { TSchema } from "typebox";
import {
  AgentEventSchema,
  ApprovalResolvedSchema,
  ChatEventSchema,
  type CompiledSchema,
  ConnectChallengeSchema,
  ConnectParamsSchema,
  compileSchema,
  ErrorEventSchema,
  ExecApprovalRecordSchema,
  FrameSchema,
  HelloOkSchema,
  METHOD_SPECS,
  PluginApprovalRecordSchema,
  ShutdownEventSchema,
  TickEventSchema,
} from "../src/protocol/schema/index.js";

const cache = new Map<TSchema, CompiledSchema<TSchema>>();
function compiled(schema: TSchema): CompiledSchema<TSchema> {
  let c = cache.get(schema);
  if (!c) cache.set(schema, (c = compileSchema(schema)));
  return c;
}

const EVENTS: Record<string, TSchema> = {
  "connect.challenge": ConnectChallengeSchema,
  agent: AgentEventSchema,
  chat: ChatEventSchema,
  tick: TickEventSchema,
  shutdown: ShutdownEventSchema,
  error: ErrorEventSchema,
  "exec.approval.requested": ExecApprovalRecordSchema,
  "exec.approval.resolved": ApprovalResolvedSchema,
  "plugin.approval.requested": PluginApprovalRecordSchema,
  "plugin.approval.resolved": ApprovalResolvedSchema,
};

export class FrameChecker {
  readonly problems: string[] = [];
  /** How many payloads were checked against a method or event schema (not only the frame shape). */
  checkedPayloads = 0;
  private readonly methodById = new Map<string, string>();

  check(frame: unknown, where = ""): void {
    const f = frame as {
      type?: string;
      id?: string;
      method?: string;
      params?: unknown;
      ok?: boolean;
      payload?: unknown;
      event?: string;
    };
    this.expect(FrameSchema, frame, `${where} frame`);
    if (f.type === "req" && f.id && f.method) {
      this.methodById.set(f.id, f.method);
      const params = f.params ?? {};
      if (f.method === "connect") this.expect(ConnectParamsSchema, params, `${where} connect params`);
      else {
        const spec = (METHOD_SPECS as Record<string, { params: TSchema }>)[f.method];
        if (!spec) this.problems.push(`${where} request for a method outside the catalog: ${f.method}`);
        else this.expect(spec.params, params, `${where} ${f.method} params`);
      }
    } else if (f.type === "res" && f.id && f.ok) {
      const method = this.methodById.get(f.id);
      if (method === "connect") this.expect(HelloOkSchema, f.payload, `${where} hello-ok`);
      else if (method) {
        const spec = (METHOD_SPECS as Record<string, { result: TSchema }>)[method];
        if (spec) this.expect(spec.result, f.payload, `${where} ${method} result`);
      }
    } else if (f.type === "event" && f.event) {
      const schema = EVENTS[f.event];
      if (!schema) this.problems.push(`${where} event outside the catalog: ${f.event}`);
      else this.expect(schema, f.payload, `${where} ${f.event} event`);
    }
  }

  private expect(schema: TSchema, value: unknown, what: string): void {
    const c = compiled(schema);
    if (schema !== FrameSchema) this.checkedPayloads++;
    const issue = c.issue(value);
    if (issue)
      this.problems.push(
        `${what}: ${issue.path || "(value)"}: ${issue.kind} (${issue.expected}) in ${JSON.stringify(value).slice(0, 300)}`,
      );
  }
}
