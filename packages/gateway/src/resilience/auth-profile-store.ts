import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { usageAfterFailure } from "./cooldown-policy.js";
import type { AuthProfile, AuthProfileFile, ProfileFailureReason, ProfileOrderOptions, ProfileUsage } from "./types.js";

/** Sticky choices kept in the file; older sessions fall back to least-recently-used order. */
export const MAX_STICKY_SESSIONS = 2000;

const emptyFile = (): AuthProfileFile => ({ version: 1, profiles: {}, usage: {}, sessionProfiles: {} });

/**
 * Credentials and their routing state in one file (`$TILLER_HOME/auth-profiles.json`, mode 0600).
 * Every change is written at once (temp file + rename), so cooldowns and sticky choices survive a restart
 * or a crash. A malformed file is an error naming the file, never silently replaced.
 */
export class AuthProfileStore {
  private data: AuthProfileFile;
  /** mtime and size of the file as last read or written; other values mean someone edited it meanwhile. */
  private mtimeMs = "";

  constructor(
    readonly path: string,
    private readonly clock: () => number = Date.now,
  ) {
    this.data = AuthProfileStore.read(path);
    this.mtimeMs = AuthProfileStore.mtime(path);
  }

  private static mtime(path: string): string {
    const st = statSync(path, { throwIfNoEntry: false });
    return st ? `${st.mtimeMs}:${st.size}` : "";
  }

  /**
   * Picks up credentials added or removed by hand while the gateway runs. A file that became malformed is
   * ignored (the last good state stays in use) rather than failing runs; the next valid edit is read.
   */
  reloadIfChanged(): void {
    const m = AuthProfileStore.mtime(this.path);
    if (m === this.mtimeMs) return;
    this.mtimeMs = m;
    try {
      this.data = AuthProfileStore.read(this.path);
    } catch {
      // keep the last good state
    }
  }

  private static read(path: string): AuthProfileFile {
    if (!existsSync(path)) return emptyFile();
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(path, "utf8"));
    } catch (err) {
      throw new Error(`${path}: not valid JSON (${(err as Error).message})`);
    }
    if (!parsed || typeof parsed !== "object" || typeof (parsed as AuthProfileFile).profiles !== "object") {
      throw new Error(`${path}: expected {"version":1,"profiles":{…}}`);
    }
    const file = parsed as Partial<AuthProfileFile>;
    const profiles: Record<string, AuthProfile> = {};
    for (const [id, p] of Object.entries(file.profiles ?? {})) {
      if (!p || typeof p.provider !== "string" || typeof p.key !== "string") {
        throw new Error(`${path}: profiles.${id} needs "provider" and "key" strings`);
      }
      profiles[id] = { id, provider: p.provider, type: p.type === "token" ? "token" : "api_key", key: p.key };
    }
    const preferred: Record<string, string> = {};
    for (const [provider, id] of Object.entries(file.preferred ?? {})) {
      if (typeof id !== "string") throw new Error(`${path}: preferred.${provider} must be a profile id string`);
      preferred[provider] = id;
    }
    return {
      version: 1,
      profiles,
      usage: file.usage ?? {},
      sessionProfiles: file.sessionProfiles ?? {},
      ...(Object.keys(preferred).length > 0 ? { preferred } : {}),
    };
  }

  private save(): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(this.data, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.path);
    chmodSync(this.path, 0o600);
    this.mtimeMs = AuthProfileStore.mtime(this.path);
  }

  /** Adds or replaces a credential. */
  upsert(profile: AuthProfile): void {
    this.data.profiles[profile.id] = { ...profile };
    this.save();
  }

  remove(id: string): void {
    delete this.data.profiles[id];
    delete this.data.usage[id];
    this.save();
  }

  get(id: string): AuthProfile | undefined {
    return this.data.profiles[id];
  }

  list(provider?: string): AuthProfile[] {
    return Object.values(this.data.profiles).filter((p) => !provider || p.provider === provider);
  }

  usage(id: string): ProfileUsage {
    return this.data.usage[id] ?? { errorCount: 0, billingFailures: 0 };
  }

  /** The time until which the profile is unusable, or undefined when it is usable now. */
  unavailableUntil(id: string, now = this.clock()): number | undefined {
    const u = this.usage(id);
    const until = Math.max(u.cooldownUntil ?? 0, u.disabledUntil ?? 0);
    return until > now ? until : undefined;
  }

  isAvailable(id: string, now = this.clock()): boolean {
    return this.unavailableUntil(id, now) === undefined;
  }

  /**
   * Profiles of `provider` in the order to try them: the explicitly preferred one (the option, else the file's
   * `preferred` entry for the provider), then the session's last one (sticky, keeps the provider's prompt cache
   * warm), then least recently used. Profiles in cooldown or disabled come last, soonest-available first.
   */
  order(provider: string, options: ProfileOrderOptions = {}): AuthProfile[] {
    this.reloadIfChanged();
    const now = options.now ?? this.clock();
    const profiles = this.list(provider);
    const sticky = options.sessionKey ? this.data.sessionProfiles[options.sessionKey] : undefined;
    const preferredId = options.preferredProfileId ?? this.data.preferred?.[provider];
    const rank = (p: AuthProfile): number => {
      if (p.id === preferredId) return 0;
      if (p.id === sticky) return 1;
      return 2;
    };
    const available = profiles.filter((p) => this.isAvailable(p.id, now));
    const waiting = profiles.filter((p) => !this.isAvailable(p.id, now));
    available.sort((a, b) => rank(a) - rank(b) || (this.usage(a.id).lastUsed ?? 0) - (this.usage(b.id).lastUsed ?? 0));
    waiting.sort((a, b) => (this.unavailableUntil(a.id, now) ?? 0) - (this.unavailableUntil(b.id, now) ?? 0));
    return [...available, ...waiting];
  }

  /** Records a successful call: clears the failure ladder and pins the profile to the session. */
  markSuccess(id: string, sessionKey?: string): void {
    const u = this.usage(id);
    // Only a cleared failure or a new sticky choice is written at once; a bare lastUsed bump (every healthy
    // call) stays in memory and goes to disk with the next real change, so the hot path does no file I/O.
    const changed =
      u.errorCount !== 0 ||
      u.cooldownUntil !== undefined ||
      (sessionKey !== undefined && this.data.sessionProfiles[sessionKey] !== id);
    this.data.usage[id] = {
      ...u,
      lastUsed: this.clock(),
      errorCount: 0,
      cooldownUntil: undefined,
      cooldownReason: undefined,
    };
    if (sessionKey && this.data.sessionProfiles[sessionKey] !== id) this.stick(sessionKey, id);
    if (changed) this.save();
  }

  /** Pins `id` to the session, keeping only the newest MAX_STICKY_SESSIONS pins so the file stays small. */
  private stick(sessionKey: string, id: string): void {
    const pins = this.data.sessionProfiles;
    delete pins[sessionKey];
    pins[sessionKey] = id;
    const keys = Object.keys(pins);
    for (let i = 0; i < keys.length - MAX_STICKY_SESSIONS; i++) delete pins[keys[i] as string];
  }

  /** Records that the profile was used (before the outcome is known), for least-recently-used order. */
  markUsed(id: string): void {
    this.data.usage[id] = { ...this.usage(id), lastUsed: this.clock() };
    this.save();
  }

  /**
   * Takes a profile out of rotation: billing disables it for hours (5 h doubling, capped at 24 h); any other
   * reason puts it in cooldown (30 s, 1 min, 5 min, or the provider's Retry-After when longer). Returns the
   * time it becomes usable again.
   */
  markFailure(id: string, reason: ProfileFailureReason, retryAfterMs?: number): number {
    const { usage, until } = usageAfterFailure(this.usage(id), reason, this.clock(), retryAfterMs);
    this.data.usage[id] = usage;
    this.save();
    return until;
  }

  /** Forgets the sticky profile of a session (on reset). */
  clearSession(sessionKey: string): void {
    delete this.data.sessionProfiles[sessionKey];
    this.save();
  }
}
