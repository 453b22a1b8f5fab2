// The control database's pruning rules (src/control/pruning.ts): rows past a table's rule go, rows
// something still needs stay (an uncommitted batch, a batch or segment a lake part or index run names,
// work after the resolver's checkpoint, each job's latest runs), and the lake's envelope count does not
// move. On SQLite, and on PostgreSQL in a throwaway cluster when its binaries are there.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeCheckpoint } from "../../src/chain/resolve/checkpoint";
import {
  CONTROL_HISTORY_MS,
  type ControlDb,
  commitResolutionBatch,
  forgetPrunedSegmentRowsBefore,
  isResolutionBatchCommitted,
  isSegmentCommitted,
  lakeRowCount,
  lastFlushAt,
  lastJobRuns,
  openControlDb,
  openSealRequests,
  pruneJobRuns,
  pruneLakeSegments,
  pruneResolutionBatches,
  pruneSealRequests,
  recordJobEnd,
  recordJobStart,
  recordResolutionBatch,
  recordSegment,
  requestSeal,
  uncommittedResolutionBatches,
} from "../../src/control";
import { dataPaths } from "../../src/lake/paths";
import { pruneControlPlane } from "../../src/ops/retention";
import { SignatureIndex } from "../../src/signature-index";
import { POSTGRES_MISSING, type PostgresCluster, postgresBinaries, startPostgres } from "../helpers/postgres";

const NOW = 1_763_700_000_000;
const DAY = 86_400_000;
const OLD = NOW - CONTROL_HISTORY_MS - DAY;
const RECENT = NOW - DAY;

const bin = postgresBinaries();
if (!bin) console.warn(`pruning.test: PostgreSQL half skipped: ${POSTGRES_MISSING}`);
let cluster: PostgresCluster | null = null;
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "txray-pruning-"));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  await cluster?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const backends: { name: string; open(): Promise<ControlDb> }[] = [
  { name: "sqlite", open: async () => openControlDb(join(tempDir(), "control.sqlite")) },
];
if (bin)
  backends.push({
    name: "postgres",
    async open() {
      cluster ??= await startPostgres(bin);
      return openControlDb("/nonexistent/unused.sqlite", await cluster.createDatabase("pruning"));
    },
  });

function committedBatch(db: ControlDb, batch: string, at: number) {
  recordResolutionBatch(db, batch, [], at);
  commitResolutionBatch(db, batch, [], []);
}

function takenSegment(db: ControlDb, segment: string, rows: number, day: string, at: number, flushBatch: string) {
  recordSegment(db, segment, rows, [day], at, flushBatch);
  commitResolutionBatch(db, `taking-${segment}`, [], [], { segments: [segment], at });
}

for (const backend of backends) {
  describe(`pruning on ${backend.name}`, () => {
    let db: ControlDb;
    beforeAll(async () => {
      db = await backend.open();
    }, 60_000);
    afterAll(() => db?.close());

    test("resolution batches: old committed ones nothing names go; the rest stay", () => {
      committedBatch(db, "old-free", OLD);
      committedBatch(db, "old-in-use", OLD);
      recordResolutionBatch(db, "old-uncommitted", [], OLD);
      committedBatch(db, "after-checkpoint", RECENT);
      committedBatch(db, "newest", NOW);
      const inUse = new Set(["old-in-use"]);
      // Without a checkpoint a restart replays every batch: nothing goes.
      expect(
        pruneResolutionBatches(db, NOW - CONTROL_HISTORY_MS, { checkpointThrough: null, batchesInUse: inUse }),
      ).toBe(0);
      const removed = pruneResolutionBatches(db, NOW - CONTROL_HISTORY_MS, {
        checkpointThrough: RECENT - 1,
        batchesInUse: inUse,
      });
      expect(isResolutionBatchCommitted(db, "old-free")).toBe(false);
      expect(isResolutionBatchCommitted(db, "old-in-use")).toBe(true);
      expect(uncommittedResolutionBatches(db).map((b) => b.batch)).toEqual(["old-uncommitted"]);
      expect(isResolutionBatchCommitted(db, "after-checkpoint")).toBe(true);
      expect(isResolutionBatchCommitted(db, "newest")).toBe(true);
      // The batches that only marked segments taken (below) are not recorded: just "old-free" went.
      expect(removed).toBe(1);
    });

    test("segment records: old ones taken in and compacted away go; the lake's count stays", () => {
      takenSegment(db, "seg-old", 10, "2025-11-01", OLD, "fb-old");
      takenSegment(db, "seg-old-parts", 20, "2025-11-02", OLD, "fb-parts");
      recordSegment(db, "seg-old-waiting", 30, ["2025-11-02"], OLD, "fb-waiting");
      takenSegment(db, "seg-recent", 40, "2025-11-20", RECENT, "fb-recent");
      takenSegment(db, "seg-old-in-spool", 5, "2025-11-01", OLD, "fb-in-spool");
      const before = lakeRowCount(db);
      const flushedAt = lastFlushAt(db);
      const removed = pruneLakeSegments(db, NOW - CONTROL_HISTORY_MS, {
        checkpointThrough: RECENT + 1,
        batchesInUse: new Set(["fb-parts"]),
        segmentsInSpool: new Set(["seg-old-in-spool"]),
      });
      expect(removed).toBe(1);
      expect(isSegmentCommitted(db, "seg-old")).toBe(false);
      for (const kept of ["seg-old-parts", "seg-old-waiting", "seg-recent", "seg-old-in-spool"])
        expect(isSegmentCommitted(db, kept)).toBe(true);
      expect(lakeRowCount(db)).toBe(before);
      expect(lastFlushAt(db)).toBe(flushedAt);
      // Retention removing the pruned segment's day takes its rows out of the count.
      forgetPrunedSegmentRowsBefore(db, "2025-11-02");
      expect(lakeRowCount(db)).toBe(before - 10);
    });

    test("job runs: each job keeps its latest runs", () => {
      for (let i = 0; i < 205; i++) {
        const id = recordJobStart(db, "flush", NOW + i);
        if (i < 204) recordJobEnd(db, id, { ok: true, durationMs: 1 }, NOW + i);
      }
      recordJobStart(db, "retired-job", NOW);
      expect(pruneJobRuns(db, 3)).toBe(198); // 201 runs of flush less 3; retired-job has 1
      const latest = lastJobRuns(db);
      expect(latest.flush.lastRunAt).toBe(NOW + 204);
      expect(latest.flush.lastFinished?.startedAt).toBe(NOW + 203);
      expect(latest["retired-job"].lastRunAt).toBe(NOW);
    });

    test("seal requests: those a dead requester left go after a day", () => {
      requestSeal(db, "node-a", NOW - 2 * DAY);
      const fresh = requestSeal(db, "node-a", NOW);
      expect(pruneSealRequests(db, NOW - DAY)).toBe(1);
      expect(openSealRequests(db, "node-a")).toEqual([fresh]);
    });
  });
}

test("pruneControlPlane keeps what the checkpoint, a lake part or an index run needs", async () => {
  const dir = tempDir();
  const paths = dataPaths(dir);
  const control = openControlDb(paths.controlDb);
  const signatures = new SignatureIndex(paths.signatureIndex, { workOn: "thread" });
  try {
    for (const batch of ["free", "part", "run"]) committedBatch(control, batch, OLD);
    committedBatch(control, "newest", NOW);
    const partition = join(paths.dataset("resolutions"), "program=x", "day=2025-11-01");
    mkdirSync(partition, { recursive: true });
    writeFileSync(join(partition, "part-part-0.parquet"), "");
    await signatures.append([{ sig: "s", attemptId: "a", value: { at: OLD } }], () => OLD, "run");
    const clock = () => NOW;
    // No checkpoint yet: a restart would replay everything, so no batch goes.
    expect(pruneControlPlane({ paths, control, signatures, clock }).resolutionBatches).toBe(0);
    mkdirSync(paths.resolver, { recursive: true });
    writeCheckpoint(paths, { format: 1, through: NOW - 1, open: [], names: [] });
    expect(pruneControlPlane({ paths, control, signatures, clock }).resolutionBatches).toBe(1);
    expect(["free", "part", "run", "newest"].filter((b) => isResolutionBatchCommitted(control, b))).toEqual([
      "part",
      "run",
      "newest",
    ]);
  } finally {
    signatures.close();
    control.close();
  }
});
