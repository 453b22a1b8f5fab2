// The control plane behaves the same on SQLite (the default) and PostgreSQL (TXRAY_CONTROL_URL):
// the same checks run against both, and two connections stand for two nodes. PostgreSQL runs in a
// throwaway cluster (test/helpers/postgres.ts); without its binaries that half skips, saying why.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  addProgramCounts,
  alertCounts,
  alertRuleById,
  alertStates,
  authenticate,
  type ControlDb,
  cachedTransaction,
  cacheTransaction,
  commitAlertChanges,
  controlDialect,
  createAccountKey,
  deliveryLog,
  firingCounts,
  forgetTransactionsBeyond,
  ifLeaseFree,
  insertAlertRule,
  isSegmentCommitted,
  lakeRowCount,
  lastJobRuns,
  listAccountPrograms,
  listAlertRules,
  listKeys,
  messagesSince,
  openControlDb,
  PrincipalCache,
  pendingDeliveries,
  pruneAlertHistory,
  recordDeliveryAttempt,
  recordDeliveryOutcome,
  recordJobEnd,
  recordJobStart,
  recordSegment,
  removeAlertRule,
  revokeKey,
  serverSecret,
  withLease,
} from "../../src/control";
import { toPostgres } from "../../src/control/dialect";
import { POSTGRES_MISSING, type PostgresCluster, postgresBinaries, startPostgres } from "../helpers/postgres";

const bin = postgresBinaries();
if (!bin) console.warn(`control-plane.test: PostgreSQL half skipped: ${POSTGRES_MISSING}`);

let cluster: PostgresCluster | null = null;
const dirs: string[] = [];
afterAll(async () => {
  await cluster?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

type Backend = { name: string; open(): Promise<() => ControlDb> };
const backends: Backend[] = [
  {
    name: "sqlite",
    async open() {
      const dir = mkdtempSync(join(tmpdir(), "txray-control-"));
      dirs.push(dir);
      return () => openControlDb(join(dir, "control.sqlite"));
    },
  },
];
let databases = 0;
if (bin) {
  backends.push({
    name: "postgres",
    async open() {
      cluster ??= await startPostgres(bin);
      const url = await cluster.createDatabase(`control_${++databases}`);
      return () => openControlDb("/nonexistent/unused.sqlite", url);
    },
  });
}

for (const backend of backends) {
  describe(`control plane on ${backend.name}`, () => {
    let a: ControlDb; // one node
    let b: ControlDb; // another node on the same control plane
    beforeAll(async () => {
      const open = await backend.open();
      a = open();
      b = open(); // migrations already applied: opening again is a no-op
    }, 60_000);
    afterAll(() => {
      a?.close();
      b?.close();
    });

    test("dialect is what was asked for", () => {
      expect(controlDialect(a)).toBe(backend.name as "sqlite" | "postgres");
    });

    test("a key created on one node authenticates on the other; revoked there, it fails everywhere (after the cache)", () => {
      const { key, record } = createAccountKey(a, "acme", "live", 1_763_700_000_000);
      expect(authenticate(b, key)).toEqual({
        accountId: record.accountId,
        accountName: "acme",
        scope: "live",
        keyId: record.id,
      });
      const second = createAccountKey(b, "acme", "read", 1_763_700_000_001);
      expect(second.record.accountId).toBe(record.accountId); // one account, found by name on either node
      let now = 1_000;
      const cache = new PrincipalCache(b, 2000, () => now);
      expect(cache.get(key)?.keyId).toBe(record.id);
      expect(revokeKey(a, record.id, 1_763_700_000_002)).toBe(true);
      expect(revokeKey(a, record.id, 1_763_700_000_003)).toBe(false);
      expect(authenticate(b, key)).toBeNull();
      expect(cache.get(key)?.keyId).toBe(record.id); // still cached on b for at most 2 s
      now += 2001;
      expect(cache.get(key)).toBeNull();
      const listed = listKeys(b);
      expect(listed.map((k) => [k.id, k.scope, k.revokedAt])).toEqual([
        [record.id, "live", 1_763_700_000_002],
        [second.record.id, "read", null],
      ]);
      expect(typeof listed[0].createdAt).toBe("number");
      expect(authenticate(b, `txr_live_${"1".repeat(32)}`)).toBeNull();
    });

    test("an ingest key is stored as its own scope; the scope column refuses anything else", () => {
      const { key, record } = createAccountKey(a, "acme", "ingest", 1_763_700_000_004);
      expect(key).toStartWith("txr_ingest_");
      expect(authenticate(b, key)).toMatchObject({ keyId: record.id, scope: "ingest" });
      expect(() =>
        a
          .query("INSERT INTO api_keys (id, account_id, scope, key_hash, created_at) VALUES (?, ?, ?, ?, ?)")
          .run("key_bogus", record.accountId, "root", "00", 1),
      ).toThrow();
    });

    test("program counts add up across nodes and page by program", () => {
      addProgramCounts(a, [{ accountId: "acc_x", program: "P2", attempts: 3, lastSeen: 1_763_700_000_500 }]);
      addProgramCounts(b, [
        { accountId: "acc_x", program: "P2", attempts: 4, lastSeen: 1_763_700_000_100 },
        { accountId: "acc_x", program: "P1", attempts: 1, lastSeen: 5 },
      ]);
      expect(listAccountPrograms(a, "acc_x", null, 10)).toEqual([
        { program: "P1", attempts: 1, lastSeen: 5 },
        { program: "P2", attempts: 7, lastSeen: 1_763_700_000_500 },
      ]);
      expect(listAccountPrograms(a, "acc_x", "P1", 10).map((p) => p.program)).toEqual(["P2"]);
    });

    test("job runs: ids from either node, the last run of each job", () => {
      const first = recordJobStart(a, "flush", 1_763_700_001_000);
      const second = recordJobStart(b, "flush", 1_763_700_002_000);
      expect(second).toBeGreaterThan(first);
      recordJobEnd(b, second, { ok: true, durationMs: 12, details: { rows: 3 } }, 1_763_700_002_012);
      expect(lastJobRuns(a).flush).toEqual({
        lastRunAt: 1_763_700_002_000,
        ok: true,
        durationMs: 12,
        error: null,
        details: { rows: 3 },
        lastFinished: null,
      });
      // A run still going shows the latest finished one beside it (a job running back to back).
      recordJobStart(a, "flush", 1_763_700_002_500);
      expect(lastJobRuns(b).flush).toEqual({
        lastRunAt: 1_763_700_002_500,
        ok: null,
        durationMs: null,
        error: null,
        details: null,
        lastFinished: { startedAt: 1_763_700_002_000, ok: true, durationMs: 12, error: null, details: { rows: 3 } },
      });
    });

    test("segments are counted once, and large numbers stay numbers", () => {
      recordSegment(a, "node1-0001", 2_500_000_000, ["2026-11-21"], 1_763_700_003_000);
      expect(isSegmentCommitted(b, "node1-0001")).toBe(true);
      expect(isSegmentCommitted(b, "node2-0001")).toBe(false);
      expect(() => recordSegment(b, "node1-0001", 1, [], 1)).toThrow();
      expect(lakeRowCount(b)).toBe(2_500_000_000);
    });

    test("alerts: a rule, its states and deliveries written on one node are read on the other; counts, removal and pruning", () => {
      const rule = {
        id: "alr_00000000000000a1",
        accountId: "acc_alerts",
        program: "P1",
        rule: "new_issue",
        params: '{"minCount":1}',
        destination: { type: "webhook" as const, url: "https://example.com/h", secret: "s3cr3t-0123456789abcdef" },
        destinationKey: "dk1",
        createdAt: 1_000,
        deletedAt: null,
      };
      insertAlertRule(a, rule);
      expect(alertRuleById(b, rule.id)).toEqual(rule);
      expect(listAlertRules(b, "acc_alerts").map((r) => r.id)).toEqual([rule.id]);
      const delivery = (id: string, status: "pending" | "sent" | "held", createdAt: number) => ({
        id,
        ruleId: rule.id,
        accountId: "acc_alerts",
        destinationKey: "dk1",
        kind: "alert" as const,
        subject: `issue:${id}`,
        state: "firing",
        title: id,
        payload: "{}",
        status,
        createdAt,
        nextAttemptAt: createdAt,
        giveUpAt: createdAt + 1000,
        summaryId: null,
      });
      commitAlertChanges(a, {
        states: [
          {
            ruleId: rule.id,
            subject: "issue:x",
            state: "firing",
            changedAt: 2_000,
            clearSince: null,
            evaluatedAt: 2_000,
            title: "x",
            data: "{}",
          },
        ],
        deliveries: [delivery("dlv_1", "pending", 2_000), delivery("dlv_2", "held", 2_001)],
        updates: [],
      });
      // Upsert of a state, and a held delivery released.
      commitAlertChanges(b, {
        states: [
          {
            ruleId: rule.id,
            subject: "issue:x",
            state: "firing",
            changedAt: 2_000,
            clearSince: 2_500,
            evaluatedAt: 2_500,
            title: "x2",
            data: "{}",
          },
        ],
        deliveries: [],
        updates: [{ id: "dlv_2", status: "pending", summaryId: null, nextAttemptAt: 2_600 }],
      });
      expect(alertStates(a, rule.id)).toEqual([
        {
          ruleId: rule.id,
          subject: "issue:x",
          state: "firing",
          changedAt: 2_000,
          clearSince: 2_500,
          evaluatedAt: 2_500,
          title: "x2",
          data: "{}",
        },
      ]);
      expect(firingCounts(a, "acc_alerts").get(rule.id)).toBe(1);
      expect(pendingDeliveries(b).map((d) => [d.id, d.destination.secret])).toEqual([
        ["dlv_1", rule.destination.secret],
        ["dlv_2", rule.destination.secret],
      ]);
      recordDeliveryAttempt(a, "dlv_1", 3_000);
      recordDeliveryOutcome(b, "dlv_1", { status: "sent", httpStatus: 200, error: null, at: 3_001 });
      expect(messagesSince(a, "dk1", 0)).toBe(2);
      expect(alertCounts(b, 3_002)).toEqual({
        rules: 1,
        firing: 1,
        pending: 1,
        held: 0,
        oldestPendingAt: 2_001,
        lastSentAt: 3_001,
        last24h: { sent: 1, failed: 0, summarized: 0 },
      });
      expect(
        deliveryLog(a, { accountId: "acc_alerts", ruleId: null, limit: 10 }).map((d) => [d.id, d.status, d.attempts]),
      ).toEqual([
        ["dlv_2", "pending", 0],
        ["dlv_1", "sent", 1],
      ]);
      expect(removeAlertRule(b, "acc_other", rule.id, 4_000)).toBe(false);
      expect(removeAlertRule(b, "acc_alerts", rule.id, 4_000)).toBe(true);
      expect(deliveryLog(a, { accountId: null, ruleId: rule.id, limit: 10 }).map((d) => d.status)).toEqual([
        "cancelled",
        "sent",
      ]);
      expect(alertStates(a, rule.id)).toEqual([]);
      pruneAlertHistory(a, 10_000);
      expect(deliveryLog(a, { accountId: null, ruleId: null, limit: 10 })).toEqual([]);
      expect(a.query("SELECT count(*) AS n FROM alert_rules").get()).toEqual({ n: 0 });
    });

    test("INSERT OR IGNORE / OR REPLACE keep their SQLite meaning", () => {
      expect(serverSecret(a, "cursor")).toBe(serverSecret(b, "cursor"));
      a.query("INSERT OR REPLACE INTO rpc_transactions (sig, fetched_at, body) VALUES (?, ?, ?)").run("s1", 1, "old");
      b.query("INSERT OR REPLACE INTO rpc_transactions (sig, fetched_at, body) VALUES (?, ?, ?)").run("s1", 2, "new");
      expect(a.query("SELECT fetched_at, body FROM rpc_transactions WHERE sig = ?").all("s1")).toEqual([
        { fetched_at: 2, body: "new" },
      ]);
    });

    test("fetched transactions are kept up to a count, the most recently fetched first", () => {
      a.query("DELETE FROM rpc_transactions").run();
      for (let i = 1; i <= 5; i++) cacheTransaction(a, `cap${i}`, { i }, 1000 + i);
      expect(forgetTransactionsBeyond(a, 10)).toBe(0);
      expect(forgetTransactionsBeyond(b, 3)).toBe(2);
      expect(a.query("SELECT sig FROM rpc_transactions ORDER BY sig").all()).toEqual([
        { sig: "cap3" },
        { sig: "cap4" },
        { sig: "cap5" },
      ]);
      expect(cachedTransaction(b, "cap5")).toEqual({ i: 5 });
      expect(cachedTransaction(b, "cap1")).toBeNull();
    });

    test("a transaction that throws leaves nothing behind", () => {
      expect(() =>
        a
          .transaction(() => {
            a.query("INSERT INTO meta (key, value) VALUES (?, ?)").run("t:1", "x");
            throw new Error("boom");
          })
          .immediate(),
      ).toThrow("boom");
      expect(b.query("SELECT value FROM meta WHERE key = ?").get("t:1")).toBeNull();
    });

    test("a lease is held by one node at a time and free again when released", async () => {
      let inside = 0;
      let most = 0;
      const work = async () => {
        inside++;
        most = Math.max(most, inside);
        await Bun.sleep(20);
        inside--;
      };
      await Promise.all([withLease(a, "lake", work), withLease(b, "lake", work), withLease(a, "lake", work)]);
      expect(most).toBe(1);
      let otherTried: { ran: boolean } | null = null;
      const held = await ifLeaseFree(a, "job:flush", async () => {
        otherTried = await ifLeaseFree(b, "job:flush", async () => "no");
        return "yes";
      });
      expect(held).toEqual({ ran: true, value: "yes" });
      expect(otherTried!).toEqual({ ran: false });
      expect(await ifLeaseFree(b, "job:flush", async () => "now")).toEqual({ ran: true, value: "now" });
    });

    test("a lease whose holder process is gone is free at once", async () => {
      const dead = Bun.spawnSync(["true"]).pid; // exited already
      a.query("INSERT INTO meta (key, value) VALUES (?, ?)").run(
        "lease:job:tables",
        JSON.stringify({ holder: "x", host: require("node:os").hostname(), pid: dead, until: Date.now() + 60_000 }),
      );
      expect(await ifLeaseFree(b, "job:tables", async () => 1)).toEqual({ ran: true, value: 1 });
    });
  });
}

test("the dialect rewrite: placeholders, OR IGNORE, OR REPLACE, scalar max; literals untouched", () => {
  expect(toPostgres("SELECT '?' AS q, \"a?\" FROM t WHERE a = ? AND b = ?")).toBe(
    "SELECT '?' AS q, \"a?\" FROM t WHERE a = $1 AND b = $2",
  );
  expect(toPostgres("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)")).toBe(
    "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT DO NOTHING",
  );
  expect(toPostgres("INSERT OR REPLACE INTO block_heights (observed_at, height) VALUES (?, ?)")).toBe(
    "INSERT INTO block_heights (observed_at, height) VALUES ($1, $2) ON CONFLICT (observed_at) DO UPDATE SET height = excluded.height",
  );
  expect(toPostgres("SELECT max(id) FROM t; UPDATE t SET x = max(t.x, excluded.x)")).toBe(
    "SELECT max(id) FROM t; UPDATE t SET x = greatest(t.x, excluded.x)",
  );
  expect(() => toPostgres("INSERT OR REPLACE INTO unknown_table (a) VALUES (?)")).toThrow("PRIMARY_KEYS");
});

test("upgrading SQLite: keys made before ingest keys keep authenticating, and ingest keys can be made", () => {
  const dir = mkdtempSync(join(tmpdir(), "txray-control-upgrade-"));
  try {
    const file = join(dir, "control.sqlite");
    const before = openControlDb(file);
    const live = createAccountKey(before, "acme", "live", 1_763_700_000_000);
    const read = createAccountKey(before, "acme", "read", 1_763_700_000_001);
    // Back to the scope check of the first migration, as a database of version 11 (before ingest keys) has it.
    before.exec(`CREATE TABLE api_keys_old (
       id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), scope TEXT NOT NULL CHECK (scope IN ('live','read')),
       key_hash TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL, revoked_at INTEGER);
     INSERT INTO api_keys_old SELECT id, account_id, scope, key_hash, created_at, revoked_at FROM api_keys;
     DROP TABLE api_keys;
     ALTER TABLE api_keys_old RENAME TO api_keys;
     UPDATE schema_version SET version = 11;`);
    expect(() => createAccountKey(before, "acme", "ingest", 1_763_700_000_002)).toThrow();
    before.close();
    const after = openControlDb(file);
    try {
      expect(authenticate(after, live.key)).toMatchObject({ keyId: live.record.id, scope: "live" });
      expect(authenticate(after, read.key)).toMatchObject({ keyId: read.record.id, scope: "read" });
      const ingest = createAccountKey(after, "acme", "ingest", 1_763_700_000_003);
      expect(authenticate(after, ingest.key)).toMatchObject({ accountId: live.record.accountId, scope: "ingest" });
    } finally {
      after.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
