// Accounts and API keys. A key is shown once at creation; only its SHA-256 is stored, and a
// presented key is checked by hashing it and comparing hashes in constant time. Keys never reach a log.
//
// A key's scope is its kind (docs/security.md): `ingest` (txr_ingest_…) only sends telemetry and is
// safe to ship in a browser, `read` (txr_read_…) only reads its account's data, and `live`
// (txr_live_…) is the account's admin key: it ingests, reads and changes the account (alert rules).

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { ControlDb } from "./types";

export type KeyScope = "live" | "read" | "ingest";
/** The kinds `txray keys create --kind` names; `admin` keys are the `live` scope (txr_live_…). */
export type KeyKind = "ingest" | "read" | "admin";
export const KEY_KINDS: readonly KeyKind[] = ["ingest", "read", "admin"];
export const scopeOfKind = (kind: KeyKind): KeyScope => (kind === "admin" ? "live" : kind);
export const kindOfScope = (scope: KeyScope): KeyKind => (scope === "live" ? "admin" : scope);

/** Whether a key of this scope may send telemetry (POST /v1/ingest). */
export const scopeCanIngest = (scope: KeyScope) => scope === "live" || scope === "ingest";
/** Whether a key of this scope may read its account's data (scoped reads, programs, alert rules). */
export const scopeCanRead = (scope: KeyScope) => scope === "live" || scope === "read";
/** Whether a key of this scope may change its account (alert rules). */
export const scopeCanAdmin = (scope: KeyScope) => scope === "live";
export type KeyRecord = {
  id: string;
  accountId: string;
  accountName: string;
  scope: KeyScope;
  createdAt: number;
  revokedAt: number | null;
};
export type Principal = { accountId: string; accountName: string; scope: KeyScope; keyId: string };

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const KEY_PATTERN = /^txr_(live|read|ingest)_[1-9A-HJ-NP-Za-km-z]{32}$/;

export const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");

/** 32 uniformly random base58 characters (rejection sampling keeps the distribution uniform). */
function randomBase58(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 232 && out.length < length) out += BASE58[byte % 58]; // 232 = 4 × 58
    }
  }
  return out;
}

export function looksLikeKey(text: string): boolean {
  return KEY_PATTERN.test(text);
}

export function createAccountKey(
  db: ControlDb,
  accountName: string,
  scope: KeyScope,
  now: number,
): { key: string; record: KeyRecord } {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(accountName)) {
    throw new Error("account name: letters, digits, '_', '.', '-' (1-64 characters)");
  }
  const key = `txr_${scope}_${randomBase58(32)}`;
  const keyHash = hashKey(key);
  const id = `key_${keyHash.slice(0, 12)}`;
  return db
    .transaction(() => {
      let account = db.query<{ id: string }, [string]>("SELECT id FROM accounts WHERE name = ?").get(accountName);
      if (!account) {
        account = { id: `acc_${randomBase58(12)}` };
        db.query("INSERT INTO accounts (id, name, created_at) VALUES (?, ?, ?)").run(account.id, accountName, now);
      }
      db.query("INSERT INTO api_keys (id, account_id, scope, key_hash, created_at) VALUES (?, ?, ?, ?, ?)").run(
        id,
        account.id,
        scope,
        keyHash,
        now,
      );
      return { key, record: { id, accountId: account.id, accountName, scope, createdAt: now, revokedAt: null } };
    })
    .immediate();
}

/** The principal behind a presented key, or null for an unknown, malformed or revoked key. */
export function authenticate(db: ControlDb, presented: string): Principal | null {
  if (!looksLikeKey(presented)) return null;
  const presentedHash = hashKey(presented);
  const row = db
    .query<
      { id: string; account_id: string; name: string; scope: KeyScope; key_hash: string; revoked_at: number | null },
      [string]
    >(
      "SELECT k.id, k.account_id, a.name, k.scope, k.key_hash, k.revoked_at FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?",
    )
    .get(presentedHash);
  if (!row || row.revoked_at !== null) return null;
  if (!timingSafeEqual(Buffer.from(row.key_hash, "hex"), Buffer.from(presentedHash, "hex"))) return null;
  return { accountId: row.account_id, accountName: row.name, scope: row.scope, keyId: row.id };
}

export function listKeys(db: ControlDb): KeyRecord[] {
  return db
    .query<
      { id: string; account_id: string; name: string; scope: KeyScope; created_at: number; revoked_at: number | null },
      []
    >(
      "SELECT k.id, k.account_id, a.name, k.scope, k.created_at, k.revoked_at FROM api_keys k JOIN accounts a ON a.id = k.account_id ORDER BY k.created_at, k.id",
    )
    .all()
    .map((row) => ({
      id: row.id,
      accountId: row.account_id,
      accountName: row.name,
      scope: row.scope,
      createdAt: row.created_at,
      revokedAt: row.revoked_at,
    }));
}

/** An account's id by its name, or null. */
export function accountIdByName(db: ControlDb, name: string): string | null {
  return db.query<{ id: string }, [string]>("SELECT id FROM accounts WHERE name = ?").get(name)?.id ?? null;
}

/** Revokes by key id (`key_…`); returns false when no such active key exists. */
export function revokeKey(db: ControlDb, keyId: string, now: number): boolean {
  return db.query("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL").run(now, keyId).changes > 0;
}

/**
 * Remembers recent authentications for a moment so the ingest hot path does not hash and query
 * per request. A revoked key therefore keeps working for at most `ttlMs` (default 2 s) in a process
 * that used it just before (docs/api.md says so).
 */
export class PrincipalCache {
  private entries = new Map<string, { principal: Principal | null; until: number }>();
  constructor(
    private readonly db: ControlDb,
    private readonly ttlMs = 2000,
    private readonly clock: () => number = Date.now,
  ) {}

  get(presented: string): Principal | null {
    const now = this.clock();
    const cached = this.entries.get(presented);
    if (cached && cached.until > now) return cached.principal;
    const principal = authenticate(this.db, presented);
    if (principal) {
      if (this.entries.size > 10_000) this.entries.clear();
      this.entries.set(presented, { principal, until: now + this.ttlMs });
    }
    return principal;
  }
}
