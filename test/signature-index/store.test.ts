// The signature index on real files: every signature written is found (no false negatives from the
// Bloom filters), an attempt written twice answers with its newest entry, merges keep every attempt
// once, a merge interrupted before it removed its inputs is repaired, retention drops old runs, and
// a batch that never committed takes its run with it; a run's lines sort as their keys compare.
import { afterEach, expect, test } from "bun:test";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FANOUT, SignatureIndex } from "../../src/signature-index";
import { compareEntries, entryLine, lineKey, sortLines } from "../../src/signature-index/run-file";
import { randomSignature } from "../helpers/envelopes";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function index(): SignatureIndex {
  const dir = mkdtempSync(join(tmpdir(), "txray-sigindex-"));
  dirs.push(dir);
  return new SignatureIndex(join(dir, "signatures"));
}
const at = (value: unknown) => (value as { at: number }).at;
const noPause = async () => {};

test("finds every signature it holds and nothing else", async () => {
  const idx = index();
  const sigs = Array.from({ length: 3000 }, () => randomSignature());
  await idx.append(
    sigs.map((sig, i) => ({ sig, attemptId: `a${i}`, value: { at: 1000 + i, n: i } })),
    at,
  );
  for (const [i, sig] of sigs.entries())
    expect(idx.lookup(sig)).toEqual([{ sig, attemptId: `a${i}`, value: { at: 1000 + i, n: i } }]);
  for (let i = 0; i < 200; i++) expect(idx.lookup(randomSignature())).toEqual([]);
});

test("a run's lines sort as their keys compare, whatever the keys: shared prefixes, short and non-ASCII signatures", () => {
  const base = randomSignature();
  const random = Array.from({ length: 3000 }, () => randomSignature());
  const sharing = (n: number) =>
    Array.from({ length: n }, (_, i) => base.slice(0, 7) + randomSignature().slice(0, 10 + (i % 5))); // the same first 7 characters
  const edges = ["a", "ab", "ab\u0000", "ab\u0000x", "", base.slice(0, 3), base.slice(0, 7), base];
  const expectSorted = (keys: string[]) => {
    const lines = keys.flatMap((sig, i) => [
      entryLine({ sig, attemptId: `b${i}`, value: { at: i } }),
      entryLine({ sig, attemptId: `a${i}`, value: { at: i } }),
    ]);
    const expected = lines
      .map((text) => ({ key: lineKey(text), text }))
      .sort((a, b) => compareEntries(a.key, b.key))
      .map((e) => e.text);
    expect(sortLines(lines).map((e) => e.text)).toEqual(expected);
  };
  expectSorted([...random, ...sharing(4), ...edges]); // prefixes nearly all different: sorted on the prefix first
  expectSorted([...random.slice(0, 500), ...sharing(500), ...edges]); // many shared: by the strings
  expectSorted([...random, ...edges, `é${base}`, `${base}é`, "\u{1F600}"]); // not ASCII: by the strings
});

test("the newest run's entry of an attempt wins; other attempts with the same signature are kept", async () => {
  const idx = index();
  const sig = randomSignature();
  await idx.append(
    [
      { sig, attemptId: "a1", value: { at: 1, state: "pending" } },
      { sig, attemptId: "a2", value: { at: 1, state: "pending" } },
    ],
    at,
  );
  await idx.append([{ sig, attemptId: "a1", value: { at: 2, state: "resolved" } }], at);
  expect(idx.lookup(sig).map((e) => [e.attemptId, (e.value as { state: string }).state])).toEqual([
    ["a1", "resolved"],
    ["a2", "pending"],
  ]);
});

test("full tiers merge; every attempt is found once with its newest entry, and a reader that listed before the merge keeps answering", async () => {
  const idx = index();
  const reader = new SignatureIndex(idx.dir);
  const written = new Map<string, { attemptId: string; round: number }>();
  const sigs = Array.from({ length: 400 }, () => randomSignature());
  for (let round = 0; round < FANOUT * FANOUT + 3; round++) {
    const entries = Array.from({ length: 20 }, (_, k) => {
      const sig = sigs[(round * 7 + k * 13) % sigs.length];
      return { sig, attemptId: `att-${sig.slice(0, 6)}`, value: { at: round, round } };
    });
    await idx.append(entries, at);
    for (const e of entries) written.set(e.sig, { attemptId: e.attemptId, round });
    if (round === 5) expect(reader.lookup(entries[0].sig)).toHaveLength(1);
    await idx.maintain(0, noPause);
  }
  expect(idx.stats().runs).toBeLessThan(2 * FANOUT);
  for (const [sig, { attemptId, round }] of written) {
    expect(reader.lookup(sig)).toEqual([{ sig, attemptId, value: { at: round, round } }]);
  }
});

test("with several runs written between upkeeps, no run is stranded: the runs stay few and every attempt is found", async () => {
  // The resolver writes a run every few seconds, and an upkeep busy with a merge of larger runs (or
  // held back by a batch not yet committed) lets several pile up, so an upkeep finds more than
  // FANOUT runs of a tier; merging the newest of them stranded the older ones
  // between larger runs, and the number of runs grew with time (440 after 107 minutes of a soak).
  const idx = index();
  const written = new Map<string, { attemptId: string; round: number }>();
  let round = 0;
  for (let upkeep = 0; upkeep < 60; upkeep++) {
    for (let k = 0; k < 9 + (upkeep % 5); k++, round++) {
      const entries = Array.from({ length: 3 }, () => {
        const sig = randomSignature();
        return { sig, attemptId: `att-${sig.slice(0, 6)}`, value: { at: round, round } };
      });
      await idx.append(entries, at);
      for (const e of entries) written.set(e.sig, { attemptId: e.attemptId, round });
    }
    await idx.maintain(0, noPause);
  }
  // 660 runs written: at most FANOUT - 1 runs of each tier are left unmerged, and nothing else.
  expect(round).toBe(660);
  expect(idx.stats().runs).toBeLessThanOrEqual(3 * (FANOUT - 1) + 1);
  for (const [sig, { attemptId, round }] of written)
    expect(idx.lookup(sig)).toEqual([{ sig, attemptId, value: { at: round, round } }]);
});

test("runs stranded by the old rule are absorbed by the next merge of the tier above them", async () => {
  // What an index written under the old rule holds: a run of tier 0 between runs of tier 1.
  const idx = index();
  const sigs: string[] = [];
  const write = async (round: number) => {
    const sig = randomSignature();
    sigs.push(sig);
    await idx.append([{ sig, attemptId: `att-${round}`, value: { at: round, round } }], at);
  };
  let round = 0;
  for (let group = 0; group < FANOUT; group++) {
    await write(round++); // left alone: the next FANOUT are merged without it
    for (let k = 0; k < FANOUT; k++) await write(round++);
    await idx.maintain(0, noPause);
  }
  // The old rule left FANOUT + 1 runs of the first group's stretch; this one merges them all.
  await idx.maintain(0, noPause);
  expect(idx.stats().runs).toBeLessThanOrEqual(2);
  for (const sig of sigs) expect(idx.lookup(sig)).toHaveLength(1);
  expect(sigs).toHaveLength(FANOUT * (FANOUT + 1));
});

test("a merge interrupted before it removed its inputs is repaired: nothing counts twice", async () => {
  const idx = index();
  const sig = randomSignature();
  for (let i = 0; i < FANOUT; i++) await idx.append([{ sig, attemptId: `a${i}`, value: { at: i } }], at);
  const before = readdirSync(idx.dir);
  const saved = join(idx.dir, "..", "saved");
  rmSync(saved, { recursive: true, force: true });
  mkdirSync(saved);
  for (const name of before) copyFileSync(join(idx.dir, name), join(saved, name));
  await idx.maintain(0, noPause);
  expect(readdirSync(idx.dir)).toHaveLength(1);
  // The inputs come back (as if the process died between the merged run's rename and their removal).
  for (const name of before) copyFileSync(join(saved, name), join(idx.dir, name));
  const reader = new SignatureIndex(idx.dir);
  expect(reader.lookup(sig)).toHaveLength(FANOUT);
  expect(reader.stats().runs).toBe(1);
  await idx.maintain(0, noPause);
  expect(readdirSync(idx.dir)).toHaveLength(1);
});

test("retention removes runs whose newest entry is too old; a batch that never committed takes its run with it", async () => {
  const idx = index();
  const [old, recent, uncommitted] = [randomSignature(), randomSignature(), randomSignature()];
  await idx.append([{ sig: old, attemptId: "o", value: { at: 100 } }], at);
  await idx.append([{ sig: recent, attemptId: "r", value: { at: 5000 } }], at);
  await idx.append([{ sig: uncommitted, attemptId: "u", value: { at: 6000 } }], at, "r-batch-1");
  expect(idx.discardBatch("r-batch-1")).toBe(1);
  expect(idx.lookup(uncommitted)).toEqual([]);
  expect(await idx.maintain(1000, noPause)).toEqual({ merged: 0, removed: 1 });
  expect(idx.lookup(old)).toEqual([]);
  expect(idx.lookup(recent)).toHaveLength(1);
  expect(existsSync(idx.dir)).toBe(true);
});

test("merges on the worker thread write the same runs, byte for byte, as merges on this thread", async () => {
  const onWorker = index();
  const onThread = new SignatureIndex(join(onWorker.dir, "..", "on-thread"), { workOn: "thread" });
  const sigs = Array.from({ length: 300 }, () => randomSignature());
  for (let round = 0; round < FANOUT * 2; round++) {
    const entries = Array.from({ length: 50 }, (_, k) => ({
      sig: sigs[(round * 11 + k * 7) % sigs.length],
      attemptId: `a${k % 9}`,
      value: { at: round, round },
    }));
    for (const idx of [onWorker, onThread]) {
      await idx.append(entries, at);
      await idx.maintain(0, noPause);
    }
  }
  const names = readdirSync(onWorker.dir).sort();
  expect(names).toEqual(readdirSync(onThread.dir).sort());
  expect(names.length).toBeLessThan(FANOUT); // two merges happened
  for (const name of names)
    expect(readFileSync(join(onWorker.dir, name))).toEqual(readFileSync(join(onThread.dir, name)));
  onWorker.close();
  onThread.close();
});

test("closing the index stops a merge on the worker: the merge fails, its inputs stay and no temporary file is left", async () => {
  const idx = index();
  for (let run = 0; run < FANOUT; run++)
    await idx.append(
      Array.from({ length: 20_000 }, (_, i) => ({
        sig: randomSignature(),
        attemptId: `a${run}-${i}`,
        value: { at: run },
      })),
      at,
    );
  const before = readdirSync(idx.dir).sort();
  const maintaining = idx.maintain(0, noPause);
  await Bun.sleep(5); // the worker has started on the 160,000 entries
  idx.close();
  await expect(maintaining).rejects.toThrow("signature index closed");
  expect(readdirSync(idx.dir).sort()).toEqual(before);
});

test("the upkeep passes over a temporary file that is gone by the time it looks (a write that just finished)", async () => {
  const idx = index();
  await idx.append([{ sig: randomSignature(), attemptId: "a0", value: { at: 1 } }], at);
  // Listed but gone when looked at, as a run renamed between the listing and the look: a link to nothing.
  symlinkSync(join(idx.dir, "nowhere"), join(idx.dir, "000000000009-000000000009.run.tmp"));
  await expect(idx.maintain(0, noPause)).resolves.toMatchObject({ removed: 0 });
  idx.close();
});

test("runs written on the write thread take sequence numbers in call order, and each is found once written", async () => {
  const idx = index();
  const sigs = Array.from({ length: 5 }, () => randomSignature());
  // Started together, as the resolver starts its open entries' run and its batch's run.
  const footers = await Promise.all(
    sigs.map((sig, i) => idx.append([{ sig, attemptId: `a${i}`, value: { at: i } }], at, i === 4 ? "r-batch" : null)),
  );
  expect(footers.map((f) => [f!.lo, f!.hi])).toEqual([
    [1, 1],
    [2, 2],
    [3, 3],
    [4, 4],
    [5, 5],
  ]);
  expect(footers[4]!.batch).toBe("r-batch");
  for (const [i, sig] of sigs.entries())
    expect(idx.lookup(sig)).toEqual([{ sig, attemptId: `a${i}`, value: { at: i } }]);
  expect(readdirSync(idx.dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  idx.close();
});
