/** Standard environment variables per provider. Read at call time, so a key set later is seen. */
const ENV_KEYS: Record<string, string[]> = {
  openai: ["OPENAI_API_KEY"],
  anthropic: ["ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN"],
  google: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
  openrouter: ["OPENROUTER_API_KEY"],
  groq: ["GROQ_API_KEY"],
  deepseek: ["DEEPSEEK_API_KEY"],
  xai: ["XAI_API_KEY"],
  mistral: ["MISTRAL_API_KEY"],
  cerebras: ["CEREBRAS_API_KEY"],
  // pi-ai's names where the `<PROVIDER>_API_KEY` default would guess wrong.
  "github-copilot": ["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"],
  "vercel-ai-gateway": ["AI_GATEWAY_API_KEY"],
  moonshotai: ["MOONSHOT_API_KEY"],
  "moonshotai-cn": ["MOONSHOT_API_KEY"],
  huggingface: ["HF_TOKEN"],
  "kimi-coding": ["KIMI_API_KEY"],
  "cloudflare-workers-ai": ["CLOUDFLARE_API_KEY"],
  "cloudflare-ai-gateway": ["CLOUDFLARE_API_KEY"],
  "opencode-go": ["OPENCODE_API_KEY"],
  ollama: ["OLLAMA_API_KEY"],
  "azure-openai-responses": ["AZURE_OPENAI_API_KEY"],
  // Vertex express mode; without it, Vertex uses Application Default Credentials with a project and location.
  "google-vertex": ["GOOGLE_CLOUD_API_KEY"],
};

/** Names of the environment variables consulted for `provider`, in order. */
export function getEnvApiKeyNames(provider: string): string[] {
  return ENV_KEYS[provider] ?? [`${provider.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_API_KEY`];
}

/**
 * The environment variables that are set and give `provider` an API key, in the order `getEnvApiKey` reads
 * them, or undefined when none is set. Only API-key variables count (no ambient AWS or Google credentials).
 */
export function findEnvKeys(provider: string): string[] | undefined {
  const found = getEnvApiKeyNames(provider).filter((name) => !!process.env[name]);
  return found.length > 0 ? found : undefined;
}

/** The API key for `provider` from the environment, or undefined. Never throws. */
export function getEnvApiKey(provider: string): string | undefined {
  if (provider === "amazon-bedrock") return hasAwsCredentialsInEnv() ? "<authenticated>" : undefined;
  for (const name of getEnvApiKeyNames(provider)) {
    const value = process.env[name];
    if (value) return value;
  }
  return undefined;
}

/**
 * Whether the environment names AWS credentials Bedrock can use: a profile, an access key pair, a Bedrock API
 * key (AWS_BEARER_TOKEN_BEDROCK), ECS task credentials or a web-identity token (IRSA). Bedrock has no single
 * API key variable, so `getEnvApiKey("amazon-bedrock")` answers with the marker "<authenticated>" (as pi-ai
 * does) and the Bedrock provider resolves the real credentials itself.
 */
export function hasAwsCredentialsInEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(
    env.AWS_PROFILE ||
      (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) ||
      env.AWS_BEARER_TOKEN_BEDROCK ||
      env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI ||
      env.AWS_CONTAINER_CREDENTIALS_FULL_URI ||
      env.AWS_WEB_IDENTITY_TOKEN_FILE,
  );
}
