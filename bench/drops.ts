// `bun run bench drops [--sizes 1000,5000,20000,5000x200000] [--reference-max 20000] [--held N,...] [--payers P]`: drop
// classification of one resolve run, N dropped attempts among N resolved neighbours (DxN: D drops
// among N neighbours; the drops are neighbours too, as in a run), before and
// after indexing: the per-attempt filters over the whole neighbour list (the reference kept in
// test/chain/resolve/drops-reference.ts) against classifyDrops. Both sides in the same run on the
// same generated data, answers compared. The reference is quadratic, so it runs only up to
// --reference-max attempts. Then --held N,...: one resolve run's drops (D = 2,000, sent a minute or
// two ago) against N sends held from the last 20 minutes, the way a resolver that keeps up classifies
// them: before, every held send in the drops' windows went through the run's index (a pass over what
// is held, every run) and each held send of the drops' payers became an object; after, the held
// sends keep their counts (send-history.ts), the run only searches them and reads its payers' sends
// as columns. --payers P (default 20,000): fewer payers, busier ones (the soak has 2,000). Both on the same data in the
// same run, answers compared. Last stdout line: one
// JSON object.
import { parseArgs } from "node:util";
import { classifyDrops, classifyDropsFrom, type DropItem, SendColumns } from "../src/chain/resolve/drops";
import { SortedSends } from "../src/chain/resolve/send-history";
import type { Outcome } from "../src/chain/resolve/types";
import { generateRun, referenceClassifyDrop, seeded } from "../test/chain/resolve/drops-reference";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    sizes: { type: "string" },
    "reference-max": { type: "string" },
    held: { type: "string" },
    payers: { type: "string" },
  },
  strict: true,
});
const sizes = (values.sizes ?? "1000,5000,20000,5000x200000").split(",").map((size) => {
  const [drops, neighbours] = size.split("x").map(Number);
  return { drops, neighbours: neighbours ?? drops };
});
const referenceMax = Number(values["reference-max"] ?? 20_000);

const results: {
  drops: number;
  neighbours: number;
  referenceMs: number | null;
  indexedMs: number;
  speedup: number | null;
  identical: boolean | null;
}[] = [];
for (const { drops, neighbours } of sizes) {
  const run = generateRun(drops, neighbours, drops + neighbours);
  let start = performance.now();
  const indexed = classifyDrops(run.items, run.neighbours);
  const indexedMs = performance.now() - start;
  let referenceMs: number | null = null;
  let identical: boolean | null = null;
  if (drops <= referenceMax) {
    start = performance.now();
    const reference = run.items.map((item) =>
      referenceClassifyDrop(item.attempt, {
        heightAtExpiry: item.heightAtExpiry,
        heightAtSend: item.heightAtSend,
        neighbours: run.neighbours,
      }),
    );
    referenceMs = performance.now() - start;
    identical = Bun.deepEquals(indexed, reference, true);
  }
  const row = {
    drops,
    neighbours: run.neighbours.length,
    referenceMs: referenceMs === null ? null : Math.round(referenceMs),
    indexedMs: Math.round(indexedMs * 10) / 10,
    speedup: referenceMs === null ? null : Math.round(referenceMs / indexedMs),
    identical,
  };
  console.error(`drops: ${JSON.stringify(row)}`);
  results.push(row);
}

const heldSizes = (values.held ?? "1000000,4000000").split(",").filter(Boolean).map(Number);
const heldResults: {
  held: number;
  drops: number;
  beforeMs: number;
  afterMs: number;
  speedup: number;
  identical: boolean;
}[] = [];
for (const size of heldSizes) {
  const random = seeded(size);
  const now = 1_763_700_000_000;
  const span = 20 * 60_000;
  const providers = ["bad0000000000000", "good000000000001", "good000000000002"];
  const programs = ["P1", "P2", "P3"];
  const payers = Array.from({ length: Number(values.payers ?? 20_000) }, (_, i) => `payer-${i}`);
  const pick = <X>(list: X[]) => list[Math.floor(random() * list.length)];
  const held = new SortedSends();
  for (let i = 0; i < size; i++) {
    const rpcHash = pick(providers);
    const outcome: Outcome =
      random() < (rpcHash === providers[0] ? 0.25 : 0.08) ? "dropped" : random() < 0.9 ? "landed" : "failed_onchain";
    held.push({
      sentAt: now - span + Math.floor((i * span) / size),
      rpcHash,
      program: pick(programs),
      outcome,
      price: random() < 0.2 ? null : Math.floor(random() * 20) * 500,
      payer: pick(payers),
      sig: `h${i}`,
    });
  }
  const items: DropItem[] = Array.from({ length: 2_000 }, (_, i) => {
    const sentAt = now - 120_000 + Math.floor(random() * 60_000);
    return {
      attempt: {
        attemptId: `a${i}`,
        accountId: "acc",
        program: pick(programs),
        sig: `d${i}`,
        lastValidBlockHeight: 10_000,
        sentAt,
        rpcHash: pick(providers),
        rpcLabel: "rpc",
        payer: pick(payers),
        cuPriceMicroLamports: random() < 0.2 ? null : Math.floor(random() * 20) * 500,
        nonce: false,
        kind: "send",
        receivedAt: sentAt,
        cuLimit: null,
        ixPrefix: null,
        preflightError: null,
        simulationLogs: null,
      },
      heightAtExpiry: 10_001,
      heightAtSend: 9_900,
    };
  });
  const first = Math.min(...items.map((item) => item.attempt.sentAt));
  const last = Math.max(...items.map((item) => item.attempt.sentAt));
  const heldFrom = first - 15 * 60_000;
  const start = held.times.findIndex((t) => t >= heldFrom);
  const end = held.length;
  const keys = new Set(items.map((item) => `${item.attempt.payer}\u0000${item.attempt.program}`));
  const fresh = () => {
    const columns = new SendColumns();
    for (const { attempt: a } of items) columns.push(a.sentAt, a.rpcHash, a.program, "dropped", a.cuPriceMicroLamports);
    return columns;
  };
  const listed = items.map(({ attempt: a }) => ({
    sig: a.sig,
    payer: a.payer,
    program: a.program,
    sentAt: a.sentAt,
    outcome: "dropped" as Outcome,
  }));
  // Before: the held sends of the drops' payers as one object each, and of the window passed
  // through the run's index, as the resolver did (the copies are not timed: the resolver read them
  // where they were held).
  const samePayer = [
    ...[...keys].flatMap((key) => {
      const [payer, program] = key.split("\u0000");
      const pair = held.pairSends(key, first - 90_000, last + 90_000);
      return pair.times.map((sentAt, k) => ({ sig: pair.sigs[k], payer, program, sentAt, outcome: pair.outcomes[k] }));
    }),
    ...listed,
  ];
  const all = new SendColumns();
  for (let i = start; i < end; i++) {
    const row = held.row(i);
    all.push(row.sentAt, row.rpcHash, row.program, row.outcome, row.price);
  }
  for (const { attempt: a } of items) all.push(a.sentAt, a.rpcHash, a.program, "dropped", a.cuPriceMicroLamports);
  let t0 = performance.now();
  const before = classifyDropsFrom(items, { samePayerProgram: samePayer, sends: all });
  const beforeMs = performance.now() - t0;
  t0 = performance.now();
  const after = classifyDropsFrom(items, {
    samePayerProgram: listed,
    heldSamePayer: { sends: held, from: first - 90_000, to: last + 90_000 },
    sends: fresh(),
    held: { sends: held, from: heldFrom, to: Infinity },
  });
  const afterMs = performance.now() - t0;
  const row = {
    held: size,
    drops: items.length,
    beforeMs: Math.round(beforeMs),
    afterMs: Math.round(afterMs * 10) / 10,
    speedup: Math.round((beforeMs / afterMs) * 10) / 10,
    identical: Bun.deepEquals(before, after, true),
  };
  console.error(`drops held: ${JSON.stringify(row)}`);
  heldResults.push(row);
}
console.log(JSON.stringify({ bench: "drops", results, held: heldResults }));
