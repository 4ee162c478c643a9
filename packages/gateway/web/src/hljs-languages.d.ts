// highlight.js ships no declarations for single languages; each is a LanguageFn.
declare module "highlight.js/lib/languages/*" {
  import type { LanguageFn } from "highlight.js";

  const language: LanguageFn;
  export default language;
}
