// why's chain look-ups are charged only when they happen: a look-up the budget for all signatures
// txray never ingested (WHY_CHAIN_LOOKUPS_PER_MINUTE) refuses leaves the client's own budget
// (WHY_CHAIN_PER_MINUTE) untouched.
import { expect, test } from "bun:test";
import { why } from "../../src/analytics/queries";
import { chainAccess } from "../../src/contract";
import type { TxrayError } from "../../src/shared/errors";
import { testContext } from "../helpers/context";
import { randomSignature } from "../helpers/envelopes";
import { startFakeRpc } from "../helpers/fake-rpc";

test("a look-up the budget for all refuses costs the client nothing", async () => {
  const rpc = await startFakeRpc();
  const ctx = await testContext({
    SOLANA_RPC_URL: rpc.url,
    WHY_CHAIN_PER_MINUTE: "3",
    WHY_CHAIN_LOOKUPS_PER_MINUTE: "2",
  });
  try {
    const deps = chainAccess(ctx).whyDeps();
    const ask = (client: string) =>
      why(ctx, deps, { sig: randomSignature(), client }).then(
        () => "found",
        (error: TxrayError) => error.code,
      );
    // Two look-ups by others spend the budget for all; the client's asks are refused by it, not by its own.
    expect([await ask("198.51.100.1"), await ask("198.51.100.2")]).toEqual(["not_found", "not_found"]);
    for (let i = 0; i < 5; i++) expect(await ask("203.0.113.9")).toBe("rate_limited");
    // Its own budget of 3 is whole: the refused asks spent none of it.
    const asked = deps.mayAskChain!;
    const ownOnly = [1, 2, 3, 4].map(() => asked("203.0.113.9", false).allowed);
    expect(ownOnly).toEqual([true, true, true, false]);
  } finally {
    ctx.dispose();
    await rpc.stop();
  }
});
