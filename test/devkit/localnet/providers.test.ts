// Several RPC "providers" over one chain: drop injection (deterministic for a seed), preflight still
// enforced by a dropping provider, and the txray_* admin methods over JSON-RPC.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Keypair, SystemProgram } from "@solana/web3.js";
import { type Localnet, mulberry32, startLocalnet } from "../../../devkit/localnet/index.ts";
import { encodeBase58 } from "../../../src/shared/base58.ts";
import { base64, funded, rpc, signed } from "./support.ts";

let localnet: Localnet;

beforeAll(async () => {
  localnet = await startLocalnet({ blockTimeMs: 0 });
});
afterAll(async () => {
  await localnet.stop();
});

const transfer = (payer: Keypair, lamports: number) =>
  signed(localnet, payer, [
    SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports }),
  ]);

describe("drop injection", () => {
  test("a provider with dropRate 1 answers the signature and never executes", async () => {
    const provider = localnet.addProvider({ dropRate: 1, label: "blackhole" });
    const payer = funded(localnet, 1_000_000_000);
    const tx = transfer(payer, 1_000_000);
    const body = await rpc(provider.url, "sendTransaction", [base64(tx), { encoding: "base64" }]);
    const signature = body.result as string;
    expect(signature).toBe(encodeBase58(tx.signatures[0].signature!));
    const status = await rpc(localnet.url, "getSignatureStatuses", [[signature], { searchTransactionHistory: true }]);
    expect(status.result.value).toEqual([null]);
    expect((await rpc(localnet.url, "getTransaction", [signature])).result).toBeNull();
    expect(localnet.chain.getBalance(payer.publicKey.toBase58())).toBe(1_000_000_000n);
    expect(provider.stats).toEqual({ received: 1, preflightFailed: 0, forwarded: 0, dropped: 1 });
    // The same bytes through the main endpoint land: only the provider was at fault.
    const main = await rpc(localnet.url, "sendTransaction", [base64(tx), { encoding: "base64" }]);
    expect(main.result).toBe(signature);
    expect(localnet.chain.ledger.has(signature)).toBe(true);
  });

  test("the drop pattern is fixed by the seed", async () => {
    const seed = 4242;
    const provider = localnet.addProvider({ dropRate: 0.5, label: "coinflip", seed });
    const payer = funded(localnet, 1_000_000_000);
    const draw = mulberry32(seed);
    const expected: boolean[] = [];
    const landed: boolean[] = [];
    for (let i = 0; i < 20; i++) {
      expected.push(draw() >= 0.5);
      const body = await rpc(provider.url, "sendTransaction", [
        base64(transfer(payer, 1_000_000 + i)),
        { encoding: "base64" },
      ]);
      landed.push(localnet.chain.ledger.has(body.result));
    }
    expect(landed).toEqual(expected);
    expect(landed.filter(Boolean).length).toBe(expected.filter(Boolean).length);
    expect(provider.stats.dropped).toBe(expected.filter((x) => !x).length);
    expect(provider.stats.dropped).toBeGreaterThan(0);
    expect(provider.stats.forwarded).toBeGreaterThan(0);
  });

  test("a dropping provider still runs preflight (-32002) before deciding", async () => {
    const provider = localnet.addProvider({ dropRate: 1, label: "strict-blackhole" });
    const payer = funded(localnet, 1_000_000_000);
    const body = await rpc(provider.url, "sendTransaction", [
      base64(transfer(payer, 5_000_000_000)),
      { encoding: "base64" },
    ]);
    expect(body.error?.code).toBe(-32002);
    expect(body.error?.data.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(provider.stats).toEqual({ received: 1, preflightFailed: 1, forwarded: 0, dropped: 0 });
  });
});

describe("admin methods over JSON-RPC", () => {
  test("txray_addProvider serves the same chain; txray_setDropRate targets the receiving endpoint", async () => {
    const added = await rpc(localnet.url, "txray_addProvider", { label: "remote", dropRate: 1 });
    expect(added.result).toMatchObject({
      label: "remote",
      dropRate: 1,
      stats: { received: 0, preflightFailed: 0, forwarded: 0, dropped: 0 },
    });
    const url = added.result.url as string;
    expect((await rpc(url, "getSlot")).result).toBe(localnet.chain.slot);
    expect((await rpc(url, "getGenesisHash")).result).toBe(localnet.chain.genesisHash);

    const payer = funded(localnet, 1_000_000_000);
    const first = await rpc(url, "sendTransaction", [base64(transfer(payer, 1_000_000)), { encoding: "base64" }]);
    expect(localnet.chain.ledger.has(first.result)).toBe(false);
    const changed = await rpc(url, "txray_setDropRate", [0]);
    expect(changed.result).toMatchObject({ label: "remote", dropRate: 0 });
    const second = await rpc(url, "sendTransaction", [base64(transfer(payer, 2_000_000)), { encoding: "base64" }]);
    expect(localnet.chain.ledger.has(second.result)).toBe(true);
    expect(localnet.provider("main")!.dropRate).toBe(0);

    const list = await rpc(localnet.url, "txray_listProviders");
    expect((list.result as { label: string }[]).map((p) => p.label)).toEqual([
      "main",
      "blackhole",
      "coinflip",
      "strict-blackhole",
      "remote",
    ]);
    const duplicate = await rpc(localnet.url, "txray_addProvider", { label: "remote" });
    expect(duplicate.error).toEqual({ code: -32602, message: "Invalid params: provider remote already exists" });

    expect((await rpc(localnet.url, "txray_removeProvider", { provider: "remote" })).result).toBe(true);
    expect(
      await fetch(url, { method: "POST", body: "{}" }).then(
        () => "up",
        () => "down",
      ),
    ).toBe("down");
    expect((await rpc(localnet.url, "txray_removeProvider", ["main"])).error?.code).toBe(-32602);
  });

  test("txray_advanceBlocks accepts by-name, wrapped and positional params; validates count", async () => {
    const start = localnet.chain.blockHeight;
    expect((await rpc(localnet.url, "txray_advanceBlocks", { count: 2 })).result.blockHeight).toBe(start + 2);
    expect((await rpc(localnet.url, "txray_advanceBlocks", [{ count: 3 }])).result.blockHeight).toBe(start + 5);
    const positional = await rpc(localnet.url, "txray_advanceBlocks", [4]);
    expect(positional.result).toEqual({
      slot: localnet.chain.slot,
      blockHeight: start + 9,
      blockhash: localnet.chain.clock.blockhash,
    });
    expect((await rpc(localnet.url, "txray_advanceBlocks", [])).result.blockHeight).toBe(start + 10);
    const bad = await rpc(localnet.url, "txray_advanceBlocks", { count: 0 });
    expect(bad.error?.code).toBe(-32602);
    expect(bad.error?.message).toStartWith("Invalid params: params[count]:");
    const info = await rpc(localnet.url, "txray_info");
    expect(info.result).toMatchObject({
      slot: localnet.chain.slot,
      blockHeight: start + 10,
      blockTimeMs: 0,
      genesisHash: localnet.chain.genesisHash,
    });
  });

  test("in-process setDropRate validates the rate", () => {
    expect(() => localnet.setDropRate(1.5)).toThrow("dropRate must be within [0, 1], got 1.5");
    expect(localnet.setDropRate(0.25, "coinflip").dropRate).toBe(0.25);
  });
});
