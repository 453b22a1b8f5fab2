// The resolver's open attempts live in its process's memory, checkpointed every RESOLVE_CHECKPOINT
// interval; a process that starts over rebuilds them from the checkpoint and what the lake and the
// control database say happened after it (segments taken since: open again; batches committed
// since: resolved). Another process's run makes this process's memory stale: it rebuilds too.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { loadIdls } from "../../../src/chain/idl";
import { openAttemptIds, resolvePending } from "../../../src/chain/resolve";
import { checkpointPath, readCheckpoint } from "../../../src/chain/resolve/checkpoint";
import { checkpointDue } from "../../../src/chain/resolve/state";
import { createRpcClient } from "../../../src/chain/rpc";
import { loadConfig } from "../../../src/config";
import { createContext } from "../../../src/context";
import { silentLogger } from "../../../src/shared/logger";
import { advancingClock } from "../../helpers/clock";
import { makeEnvelope } from "../../helpers/envelopes";
import { recordedTransaction, startRecordedRpc } from "../../helpers/recorded-rpc";
import { ingestAndFlush } from "../../helpers/resolve";
import { type TestServer, testServer } from "../../helpers/server";

const landed = recordedTransaction("18_");
const HEIGHT = 300_000_000;
let rpc: ReturnType<typeof startRecordedRpc>;
let t: TestServer;
const clock = advancingClock();

beforeAll(async () => {
  rpc = startRecordedRpc([landed], { blockHeight: HEIGHT });
  t = await testServer({ SOLANA_RPC_URL: rpc.url, SPOOL_SEAL_MS: "600000" }, { clock });
});
afterAll(async () => {
  await t.stop();
  rpc.stop();
});

const options = () => ({
  rpc: createRpcClient({ url: rpc.url }),
  idls: loadIdls(t.ctx.paths.root),
  checkpointMs: 60_000,
});
/** A second process on the same data directory: its own control connection, so its own resolver memory. */
async function otherProcess() {
  return await createContext(
    loadConfig({ TXRAY_DATA_DIR: t.ctx.config.dataDir, TXRAY_CONTROL_URL: t.ctx.config.TXRAY_CONTROL_URL }),
    { logger: silentLogger },
  );
}

test("a process that starts over holds the same open attempts: the checkpoint, then what was taken in and resolved after it", async () => {
  const first = Array.from({ length: 3 }, () => makeEnvelope({ lastValidBlockHeight: HEIGHT + 1_000 }));
  await ingestAndFlush(t, first);
  const checkpointed = await resolvePending(t.ctx, options());
  expect(checkpointed.stillPending).toBe(3); // not found, not expired: open
  expect(existsSync(checkpointPath(t.ctx.paths))).toBe(true);
  expect(checkpointed.stepsMs.checkpoint).toEqual(expect.any(Number)); // its own step, not part of upkeep
  expect(
    readCheckpoint(t.ctx.paths)!
      .open.map((a) => a.sig)
      .sort(),
  ).toEqual(first.map((e) => e.sig).sort());

  // After the checkpoint (the next is 60 s away): two more taken in, one of them resolved.
  const second = [
    makeEnvelope({ lastValidBlockHeight: HEIGHT + 1_000 }),
    makeEnvelope({ sig: landed.sig, lastValidBlockHeight: HEIGHT + 1_000 }),
  ];
  await ingestAndFlush(t, second);
  const run = await resolvePending(t.ctx, options());
  expect(run.resolved.failed_onchain).toBe(1);
  expect(run.stillPending).toBe(4);
  expect(readCheckpoint(t.ctx.paths)!.open).toHaveLength(3); // not written again yet
  expect(run.stepsMs.checkpoint).toBeUndefined();

  const other = await otherProcess();
  try {
    const open = await openAttemptIds(other);
    const held = await openAttemptIds(t.ctx);
    expect([...open].sort()).toEqual([...held].sort());
    expect(open.size).toBe(4);
    // The other process resolves (its run is the latest): this process's memory is stale and is rebuilt, with nothing resolved twice.
    expect(
      (await resolvePending(other, { ...options(), rpc: createRpcClient({ url: rpc.url }) })).resolved.failed_onchain,
    ).toBe(0);
  } finally {
    other.close();
  }
  clock.advance(1_100); // the open attempts are due again a second after their last look-up
  const after = await resolvePending(t.ctx, options());
  expect(after.resolved).toEqual({ landed: 0, failed_onchain: 0, dropped: 0, preflight: 0 });
  expect(after.stillPending).toBe(4);
  const rows = await t.ctx.duck.all<{ n: number }>(
    `SELECT count(*)::INTEGER AS n FROM read_parquet('${t.ctx.paths.datasetGlob("resolutions")}')`,
  );
  expect(rows[0].n).toBe(1);
});

test("a large checkpoint is written less often: at most 2% of the resolver's thread", () => {
  // Small (milliseconds): every interval, as configured.
  expect(checkpointDue({ lastCheckpointAt: 1_000_000, lastCheckpointMs: 20 }, 1_000_000 + 29_999, 30_000)).toBe(false);
  expect(checkpointDue({ lastCheckpointAt: 1_000_000, lastCheckpointMs: 20 }, 1_000_000 + 30_000, 30_000)).toBe(true);
  // Hundreds of thousands of open attempts (1.7 s to write): every 85 s, not every 30 s.
  expect(checkpointDue({ lastCheckpointAt: 1_000_000, lastCheckpointMs: 1_700 }, 1_000_000 + 30_000, 30_000)).toBe(
    false,
  );
  expect(checkpointDue({ lastCheckpointAt: 1_000_000, lastCheckpointMs: 1_700 }, 1_000_000 + 84_999, 30_000)).toBe(
    false,
  );
  expect(checkpointDue({ lastCheckpointAt: 1_000_000, lastCheckpointMs: 1_700 }, 1_000_000 + 85_000, 30_000)).toBe(
    true,
  );
});
