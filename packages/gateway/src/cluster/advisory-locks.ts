/**
 * Advisory lock keys (two-int form: the Tiller namespace, then the lock). Kept in one place so no two features
 * ever pick the same key.
 */
/** "TILL" as a 32-bit integer: keeps Tiller's locks apart from other applications' in a shared database. */
export const LOCK_NAMESPACE = 0x54494c4c;
/** Held (session lock) while migrations are applied. */
export const LOCK_MIGRATIONS = 1;
/** Held (transaction lock) while a node decides which queued runs it may claim. */
export const LOCK_CLAIM = 2;
/** Held (transaction lock) while an approval changes state, so change ids commit in the order they are taken. */
export const LOCK_APPROVALS = 3;
