/** A configuration problem the user must fix (unknown model, tool or session): reported with exit code 2. */
export class CliUsageError extends Error {}
