/**
 * `@tiller/ai/bedrock-provider`: the Bedrock stream functions as one module object, the shape
 * `setBedrockProviderModule` takes (pi-ai ships the same entry point as `@mariozechner/pi-ai/bedrock-provider`).
 * Importing it loads the AWS SDK; the main entry point does not.
 */
import { streamBedrock, streamSimpleBedrock } from "./providers/amazon-bedrock.js";
import type { BedrockProviderModule } from "./register-builtins.js";

export const bedrockProviderModule: BedrockProviderModule = { streamBedrock, streamSimpleBedrock };
