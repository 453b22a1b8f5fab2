// The stand-in decides each signature's fate from a hash of it: the soak's and `bench resolve`'s
// mixes (60% landed, 10% failed on chain, 30% never landed by default) hold only if the hash spreads
// real-looking signatures evenly, and a signature must keep its fate from one look-up to the next.
import { afterAll, expect, test } from "bun:test";
import { randomSignatures, startStandInChain } from "../../../devkit/standin";

const chain = startStandInChain({ hostname: "127.0.0.1", port: 0 });
afterAll(() => chain.stop());

type Status = { err: unknown } | null;
const fateOf = (status: Status) => (status === null ? "dropped" : status.err === null ? "landed" : "failed");

async function statuses(sigs: string[]): Promise<Status[]> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "getSignatureStatuses",
    params: [sigs, { searchTransactionHistory: true }],
  });
  const reply = (await (await fetch(chain.url, { method: "POST", body })).json()) as { result: { value: Status[] } };
  return reply.result.value;
}

test("signatures land, fail and drop in the configured shares, and keep their fate", async () => {
  const signature = randomSignatures();
  const sigs = Array.from({ length: 20_000 }, () => signature());
  const first = await statuses(sigs);
  const count = { landed: 0, failed: 0, dropped: 0 };
  for (const status of first) count[fateOf(status)]++;
  expect(Math.abs(count.landed / sigs.length - 0.6)).toBeLessThan(0.02);
  expect(Math.abs(count.failed / sigs.length - 0.1)).toBeLessThan(0.015);
  expect(Math.abs(count.dropped / sigs.length - 0.3)).toBeLessThan(0.02);
  const again = await statuses(sigs);
  expect(again.map(fateOf)).toEqual(first.map(fateOf));
});
