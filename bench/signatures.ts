// bench signatures: the signature index why/ and diagnose-drop/ read (docs/scaling.md "Finding a
// signature"). BENCH_ENTRIES resolved entries (default 2,000,000) written as the resolver writes
// them (runs of BENCH_RUN_ENTRIES, 20,000 by default, merged FANOUT at a time as it goes), then
// look-ups of signatures it holds and of signatures it does not, through a fresh reader as another
// process would. Prints the runs, bytes per entry, write rate and look-up latency (µs): a look-up
// costs one Bloom read per run plus one block for a hit, so its cost grows with the number of runs
// (about FANOUT per size tier, a tier more per ×8 entries), which is how the figure for 100M
// entries is derived from this one. The entries are written twice in the same run, runs written and
// merged on the main thread and then on the index's worker threads (the default): the main thread's
// CPU per entry of each is what the workers take off the thread that answers requests and runs
// the resolver (the entries' lines are made on the main thread either way).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { uniqueSignatures } from "../devkit/standin";
import { EMPTY_STORY } from "../src/chain/decode";
import { FANOUT, SignatureIndex } from "../src/signature-index";

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 2_000_000);
const RUN_ENTRIES = Number(process.env.BENCH_RUN_ENTRIES ?? 20_000);
const root = mkdtempSync(join(tmpdir(), "txray-sigindex-bench-"));
// Signatures as random as real ones, each its own (a pool of ENTRIES random prefixes, ~11 µs each to
// make): with the load tools' earlier pool of 4,096 shared prefixes zstd took most of each signature
// away (an entry measured 30 bytes). Payers from a pool of their own, 65,536 wallets.
const signature = uniqueSignatures(ENTRIES);
const payer = uniqueSignatures(65_536);
const at = (value: unknown) => (value as { at: number }).at;
const now = Date.now();

/** CPU seconds of this process's main thread so far (Linux: /proc/self/task/<pid>/stat, user + system ticks). */
function mainThreadCpuSeconds(): number {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Writes ENTRIES entries as the resolver does, merging as it goes, runs written and merged on `workOn`; what the main
 * thread spent.
 */
async function writeIndex(workOn: "worker" | "thread") {
  const dir = join(root, workOn, "signatures");
  const writer = new SignatureIndex(dir, { workOn });
  console.error(
    `writing ${ENTRIES.toLocaleString()} entries in runs of ${RUN_ENTRIES.toLocaleString()}, on the ${workOn}…`,
  );
  const started = performance.now();
  let mainThreadSeconds = 0;
  for (let start = 0; start < ENTRIES; start += RUN_ENTRIES) {
    const entries = Array.from({ length: Math.min(RUN_ENTRIES, ENTRIES - start) }, (_, i) => {
      const n = start + i;
      // A success decided from its status, as the resolver indexes it (story without its null fields).
      const value = {
        attemptId: `0193${n.toString(16).padStart(12, "0")}-${n % 997}`,
        accountId: "acc_1",
        program: "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
        payer: payer(n % 65_536).slice(0, 44),
        rpcHash: "a1b2c3d4e5f60718",
        rpcLabel: "helius",
        sentAt: now - 60_000 + n,
        state: "resolved",
        at: now + n,
        outcome: "landed",
        slot: 300_000_000 + Math.floor(n / 5000),
        blockTime: now + n,
        err: null,
        story: {
          topLevelProgram: "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
          instruction: "Route",
          cuRequested: 200_000,
        },
        drop: null,
        fingerprint: null,
      };
      return { sig: signature(n), attemptId: value.attemptId, value };
    });
    // The entries' making is not the index's work: the main thread is counted from here.
    const cpuBefore = mainThreadCpuSeconds();
    await writer.append(entries, at);
    await writer.maintain(0, async () => {});
    mainThreadSeconds += mainThreadCpuSeconds() - cpuBefore;
  }
  const seconds = (performance.now() - started) / 1000;
  writer.close();
  return { dir, seconds, mainThreadSeconds };
}

const onThread = await writeIndex("thread");
const onWorker = await writeIndex("worker");
const dir = onWorker.dir;
const files = readdirSync(dir).filter((name) => name.endsWith(".run"));
const bytes = files.reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
const sameFiles = JSON.stringify(readdirSync(onThread.dir).sort()) === JSON.stringify(readdirSync(dir).sort());
if (!sameFiles) throw new Error("the worker threads left other runs than the main thread");

// A reader as another process holds it, warmed by one look-up (it opens each run's footer and block index once).
const reader = new SignatureIndex(dir);
reader.lookup(signature(0));
const time = (sigs: string[], expectHit: boolean) => {
  const micros: number[] = [];
  for (const sig of sigs) {
    const started = performance.now();
    const found = reader.lookup(sig);
    micros.push((performance.now() - started) * 1000);
    if (found.length > 0 !== expectHit) throw new Error(`look-up of ${sig}: ${found.length} entries`);
    if (expectHit && (found[0].value as { story: object }).story === EMPTY_STORY) throw new Error("unexpected story");
  }
  micros.sort((a, b) => a - b);
  const q = (p: number) => Number(micros[Math.min(micros.length - 1, Math.floor(p * micros.length))].toFixed(1));
  return { p50: q(0.5), p99: q(0.99) };
};
const hits = time(
  Array.from({ length: 5_000 }, (_, i) => signature(Math.floor((i * 7919) % ENTRIES))),
  true,
);
const misses = time(
  Array.from({ length: 5_000 }, (_, i) => signature(ENTRIES + 1_000_000 + i)),
  false,
);
reader.close();
rmSync(root, { recursive: true, force: true });
console.log(
  JSON.stringify({
    entries: ENTRIES,
    runs: files.length,
    fanout: FANOUT,
    bytesPerEntry: Number((bytes / ENTRIES).toFixed(1)),
    writeEntriesPerSec: Math.round(ENTRIES / onWorker.seconds),
    // Both sides in the same run: the main thread's CPU per entry written, runs written and merged on it or on the
    // workers.
    mainThreadUsPerEntry: {
      onMainThread: Number(((onThread.mainThreadSeconds / ENTRIES) * 1e6).toFixed(2)),
      onWorkers: Number(((onWorker.mainThreadSeconds / ENTRIES) * 1e6).toFixed(2)),
    },
    hitLookupUs: hits,
    missLookupUs: misses,
    loadAverage: loadavg().map((v) => Number(v.toFixed(2))),
  }),
);
