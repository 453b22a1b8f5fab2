// Deploy and redeploy under the BPF upgradeable loader: what the deploy-detection job reads
// (getAccountInfo jsonParsed: program → programData, programData.slot/authority) and the new code
// actually running after a redeploy.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Connection, Keypair, PublicKey, TransactionInstruction } from "@solana/web3.js";
import {
  type Localnet,
  programDataAddress,
  startLocalnet,
  UPGRADEABLE_LOADER,
} from "../../../devkit/localnet/index.ts";
import { funded, rpc, signed } from "./support.ts";

let localnet: Localnet;
let connection: Connection;

beforeAll(async () => {
  localnet = await startLocalnet({ blockTimeMs: 0 });
  connection = new Connection(localnet.url, "confirmed");
});
afterAll(async () => {
  await localnet.stop();
});

async function programDataSlot(
  programId: string,
): Promise<{ slot: number; authority: string | null; programData: string }> {
  const program = await rpc(localnet.url, "getAccountInfo", [programId, { encoding: "jsonParsed" }]);
  const programData = program.result.value.data.parsed.info.programData as string;
  const data = await rpc(localnet.url, "getAccountInfo", [programData, { encoding: "jsonParsed" }]);
  const info = data.result.value.data.parsed.info;
  return { slot: info.slot, authority: info.authority, programData };
}

async function callMemo(programId: string, text: string) {
  const payer = funded(localnet);
  const ix = new TransactionInstruction({ programId: new PublicKey(programId), keys: [], data: Buffer.from(text) });
  const signature = await connection.sendRawTransaction(signed(localnet, payer, [ix]).serialize(), {
    skipPreflight: true,
  });
  return (await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 }))!;
}

describe("deployProgram", () => {
  test("a deploy writes Program and ProgramData accounts that parse like mainnet's", async () => {
    const slot = localnet.chain.slot;
    const deployed = localnet.deployProgram();
    expect(deployed.slot).toBe(slot);
    expect(deployed.programDataAddress).toBe(programDataAddress(deployed.programId));
    expect(localnet.chain.slot).toBe(slot + 1);

    const program = await rpc(localnet.url, "getAccountInfo", [deployed.programId, { encoding: "jsonParsed" }]);
    expect(program.result.value).toEqual({
      data: {
        parsed: { type: "program", info: { programData: deployed.programDataAddress } },
        program: "bpf-upgradeable-loader",
        space: 36,
      },
      executable: true,
      lamports: 1141440,
      owner: UPGRADEABLE_LOADER,
      rentEpoch: 18446744073709552000,
      space: 36,
    });
    const data = await rpc(localnet.url, "getAccountInfo", [deployed.programDataAddress, { encoding: "jsonParsed" }]);
    const { parsed, program: loader } = data.result.value.data;
    expect(loader).toBe("bpf-upgradeable-loader");
    expect(parsed.type).toBe("programData");
    expect(parsed.info.slot).toBe(slot);
    expect(parsed.info.authority).toBe(localnet.chain.deployer.publicKey.toBase58());
    expect(parsed.info.data[1]).toBe("base64");
    expect(Buffer.from(parsed.info.data[0], "base64").subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
    expect(data.result.value.executable).toBe(false);

    // web3.js reads the same through getParsedAccountInfo.
    const viaWeb3 = await connection.getParsedAccountInfo(new PublicKey(deployed.programId));
    expect(viaWeb3.value?.data).toEqual({
      parsed: { type: "program", info: { programData: deployed.programDataAddress } },
      program: "bpf-upgradeable-loader",
      space: 36,
    });
  });

  test("the deployed (memo) program runs; a redeploy moves programData.slot and swaps the code", async () => {
    const deployed = localnet.deployProgram();
    const before = await callMemo(deployed.programId, "hello txray");
    expect(before.meta!.err).toBeNull();
    expect(before.meta!.logMessages!.slice(0, 3)).toEqual([
      `Program ${deployed.programId} invoke [1]`,
      "Program log: Memo (len 11)",
      "Program log: hello txray",
    ]);
    expect((await programDataSlot(deployed.programId)).slot).toBe(deployed.slot);

    localnet.advanceBlocks(5);
    const redeploy = await rpc(localnet.url, "txray_deployProgram", {
      programId: deployed.programId,
      template: "spl-token",
    });
    expect(redeploy.result).toEqual({
      programId: deployed.programId,
      programDataAddress: deployed.programDataAddress,
      slot: deployed.slot + 1 + 5,
      authority: localnet.chain.deployer.publicKey.toBase58(),
    });
    const after = await programDataSlot(deployed.programId);
    expect(after.slot).toBe(deployed.slot + 6);
    expect(after.programData).toBe(deployed.programDataAddress);

    const broken = await callMemo(deployed.programId, "hello txray");
    expect(broken.meta!.err).toEqual({ InstructionError: [0, { Custom: 12 }] });
    expect(broken.meta!.logMessages).toContain("Program log: Error: Invalid instruction");
  });

  test("given program id, no authority (immutable), and bad input over JSON-RPC", async () => {
    const programId = Keypair.generate().publicKey.toBase58();
    const immutable = localnet.deployProgram(programId, { authority: null });
    expect(immutable.programId).toBe(programId);
    expect((await programDataSlot(programId)).authority).toBeNull();
    const bad = await rpc(localnet.url, "txray_deployProgram", { programId: "not-base58!" });
    expect(bad.error).toEqual({ code: -32602, message: "Invalid param: Invalid" });
    const badTemplate = await rpc(localnet.url, "txray_deployProgram", { template: "raydium" });
    expect(badTemplate.error?.code).toBe(-32602);
  });
});
