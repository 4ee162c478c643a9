/**
 * Serializes writes to one file. Tools of a batch run in parallel, so two edits of the same file could
 * otherwise both read the old content and the second write would drop the first edit.
 */
import path from "node:path";

const tails = new Map<string, Promise<unknown>>();

/** Run `fn` after every earlier call for the same absolute path has settled. */
export async function withFileMutation<T>(filePath: string, fn: () => Promise<T>): Promise<T> {
  const key = path.resolve(filePath);
  const previous = tails.get(key) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  tails.set(key, tail);
  try {
    return await run;
  } finally {
    // Drop the entry once nobody queued behind us, so the map does not grow with every file touched.
    if (tails.get(key) === tail) tails.delete(key);
  }
}

/** Number of paths with queued or running writes (for tests and diagnostics). */
export function pendingFileMutations(): number {
  return tails.size;
}

/** pi's name for `withFileMutation`: `fn` runs after every earlier mutation of the same file has settled. */
export const withFileMutationQueue: <T>(filePath: string, fn: () => Promise<T>) => Promise<T> = withFileMutation;
