// The resolver reads a run's drop neighbours from the attempt index in a compact form (full rows only
// for the drops' payer+program pairs, every other send as columns, a minute at a time). The
// classification must be exactly what the whole list of indexed neighbours gave.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { classifyDrops, classifyDropsFrom, type Neighbour } from "../../../src/chain/resolve/drops";
import { loadNeighbours } from "../../../src/chain/resolve/resolve";
import { testContext } from "../../helpers/context";
import { generateRun } from "./drops-reference";

let ctx: Awaited<ReturnType<typeof testContext>>;
beforeAll(async () => {
  ctx = await testContext();
});
afterAll(() => ctx.dispose());

test("compact neighbours from the index classify every drop as the whole list did", async () => {
  for (const [drops, neighbours, seed] of [[400, 9000, 21], [1500, 3000, 22]] as const) {
    ctx.control.query("DELETE FROM attempt_index").run();
    const run = generateRun(drops, neighbours, seed);
    const indexed = run.neighbours.slice(0, neighbours); // the rest are the drops themselves
    const insert = ctx.control.query(
      `INSERT INTO attempt_index (attempt_id, sig, account_id, program, outcome, payer, rpc_hash, rpc_label, sent_at, resolved_at,
         cu_price_micro_lamports, fingerprint, drop_class, story) VALUES (?, ?, 'acc', ?, ?, ?, ?, 'label', ?, ?, ?, NULL, NULL, '{}')`,
    );
    ctx.control.transaction(() => {
      indexed.forEach((n, i) => insert.run(`n${String(i).padStart(6, "0")}`, n.sig, n.program, n.outcome, n.payer, n.rpcHash, n.sentAt, n.sentAt + 1, n.cuPriceMicroLamports));
    })();
    // What the resolver used to classify against: every indexed send (not preflight) in time order,
    // ties in index order, then this run's drops.
    const whole: Neighbour[] = [
      ...indexed.map((n, i) => ({ n, i })).filter(({ n }) => n.outcome !== "preflight").sort((a, b) => a.n.sentAt - b.n.sentAt || a.i - b.i).map(({ n }) => n),
      ...run.neighbours.slice(neighbours),
    ];
    const compact = await loadNeighbours(ctx, run.items.map((item) => item.attempt), []);
    expect(compact.sends.length).toBe(whole.length);
    expect(compact.samePayerProgram.length).toBeLessThan(whole.length);
    const diagnoses = classifyDropsFrom(run.items, compact);
    expect(diagnoses).toEqual(classifyDrops(run.items, whole));
    expect(new Set(diagnoses.map((d) => d.dropClass)).size).toBeGreaterThanOrEqual(4);
  }
});
