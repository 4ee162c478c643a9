/**
 * Stage "model": the plugins' model hooks (`before_model_resolve`, then the legacy `before_agent_start`) may
 * switch the run's provider or model; an unknown override keeps the model and is logged. Returns what the legacy
 * hook gave for the prompt stage.
 */
import type { ModelRegistry } from "../../config/models-config.js";
import type { HookRunner } from "../../plugins/hook-runner.js";
import type { BeforePromptBuildResult } from "../../plugins/hook-types.js";
import { runModelHooks } from "../../prompt/prepare-run-prompt.js";
import type { RunContext } from "../run-types.js";
import { hookContextOf } from "./pipeline.js";

export interface RunModelInput {
  hooks: HookRunner;
  models: Pick<ModelRegistry, "resolve">;
  log?: (line: string) => void;
}

export async function resolveRunModel(ctx: RunContext, input: RunModelInput): Promise<BeforePromptBuildResult> {
  const m = await runModelHooks(input.hooks, ctx.prompt, hookContextOf(ctx));
  if (m.modelOverride || m.providerOverride) {
    const ref = m.modelOverride ?? ctx.model.model.id;
    const resolved = input.models.resolve(
      ref,
      m.providerOverride ?? (m.modelOverride ? undefined : ctx.model.model.provider),
    );
    if (resolved) ctx.model = resolved;
    else
      input.log?.(`[plugins] model override ${m.providerOverride ?? ""}/${ref} is unknown; keeping ${ctx.model.ref}`);
  }
  return m.legacyPrompt;
}
