// IDL history on the LiteSVM local chain: a program (SPL Token's code deployed at a new address, so
// no built-in table names its errors) publishes an Anchor IDL account, fails an instruction, is upgraded
// with a changed IDL, and fails again. txray's on-chain IDL refresh dates the new IDL from the deploy
// slot the program's data account records, and each real failure is named by the IDL in force at
// its own slot: the release that renamed the error does not rename the failure before it.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { Connection, Keypair, PublicKey, TransactionInstruction } from "@solana/web3.js";
import { type Localnet, startLocalnet } from "../../../devkit/localnet";
import { createMintInstructions, MINT_SIZE } from "../../../devkit/simulate/spl";
import { latestRecordedSlot } from "../../../src/chain/deploys";
import { anchorIdlAddress, loadIdls, storedIdlSlots } from "../../../src/chain/idl";
import { resolveFromTransaction } from "../../../src/chain/resolve/outcomes";
import { addProgramCounts } from "../../../src/control";
import { deploysJob } from "../../../src/jobs/deploys";
import { runJob } from "../../../src/jobs/run";
import { funded, signed } from "../../devkit/localnet/support";
import { testContext } from "../../helpers/context";
import { idlAccountData } from "./support";

/** SPL Token's custom error 6 (AlreadyInUse), under the names two releases of the "vault" give it. */
const idlV1 = {
  version: "0.1.0",
  name: "vault",
  instructions: [{ name: "deposit", accounts: [], args: [] }],
  errors: [{ code: 6, name: "VaultAlreadyOpen", msg: "the vault is already open" }],
};
const idlV2 = {
  version: "0.2.0",
  name: "vault",
  instructions: [{ name: "deposit", accounts: [], args: [] }],
  errors: [{ code: 6, name: "VaultInUse", msg: "the vault is in use" }],
};

let localnet: Localnet;
let connection: Connection;

beforeAll(async () => {
  localnet = await startLocalnet({ blockTimeMs: 0 });
  connection = new Connection(localnet.url, "confirmed");
});
afterAll(async () => await localnet.stop());

function publishIdl(program: string, json: unknown): void {
  const data = idlAccountData(json);
  localnet.chain.setAccount(anchorIdlAddress(program), {
    lamports: localnet.chain.minimumBalanceForRentExemption(data.length),
    data,
    owner: program,
    executable: false,
  });
}

async function send(tx: ReturnType<typeof signed>, skipPreflight = false): Promise<string> {
  const signature = await connection.sendRawTransaction(tx.serialize(), { skipPreflight });
  await connection.confirmTransaction(signature, "confirmed");
  return signature;
}

/** InitializeMint2 (tag 20) again on an initialized mint: SPL Token's custom error 6 (AlreadyInUse), committed on chain. */
async function failedInitialize(program: PublicKey, payer: Keypair, mint: PublicKey) {
  const again = new TransactionInstruction({
    programId: program,
    keys: [{ pubkey: mint, isSigner: false, isWritable: true }],
    data: Buffer.concat([Buffer.from([20, 0]), payer.publicKey.toBuffer(), Buffer.from([0])]),
  });
  const signature = await send(signed(localnet, payer, [again]), true);
  const result = await connection.getTransaction(signature, {
    maxSupportedTransactionVersion: 0,
    commitment: "confirmed",
  });
  expect(result?.meta?.err).toEqual({ InstructionError: [0, { Custom: 6 }] });
  return JSON.parse(JSON.stringify(result));
}

test("a failure before and one after an IDL change are each named by their own IDL", async () => {
  const ctx = await testContext({ SOLANA_RPC_URL: localnet.url });
  try {
    const first = localnet.deployProgram(undefined, { template: "spl-token" });
    const program = first.programId;
    const programKey = new PublicKey(program);
    publishIdl(program, idlV1);
    addProgramCounts(ctx.control, [{ accountId: "acc_test", program, attempts: 1, lastSeen: 1 }]);

    const payer = funded(localnet, 5_000_000_000);
    const mint = Keypair.generate();
    await send(
      signed(
        localnet,
        payer,
        createMintInstructions({
          payer: payer.publicKey,
          mint: mint.publicKey,
          mintAuthority: payer.publicKey,
          decimals: 0,
          rentLamports: Number(localnet.chain.minimumBalanceForRentExemption(MINT_SIZE)),
          programId: programKey,
        }),
        [mint],
      ),
    );

    // The deploys job's first look: the deploy and the IDL in force from the start.
    expect((await runJob(ctx, deploysJob)).ok).toBe(true);
    expect(storedIdlSlots(ctx.paths.root, program)).toEqual([0]);
    const before = await failedInitialize(programKey, payer, mint.publicKey);

    // The release: the same code upgraded (a later ProgramData slot) with its IDL renaming error 6.
    localnet.advanceBlocks(3);
    const upgrade = localnet.deployProgram(program, { template: "spl-token" });
    expect(upgrade.slot).toBeGreaterThan(before.slot);
    publishIdl(program, idlV2);
    expect((await runJob(ctx, deploysJob)).details).toMatchObject({ recorded: 1 });
    expect(latestRecordedSlot(ctx.paths, program)).toBe(upgrade.slot);
    expect(storedIdlSlots(ctx.paths.root, program)).toEqual([0, upgrade.slot]);

    const after = await failedInitialize(programKey, payer, mint.publicKey);
    expect(after.slot).toBeGreaterThan(upgrade.slot);

    const idls = loadIdls(ctx.paths.root);
    const attempt = { program, ixPrefix: null, nonce: false, attemptId: "a1" } as never;
    const named = (tx: unknown) => resolveFromTransaction(attempt, null, tx, idls, 0, 0).story;
    expect([named(before).errName, named(before).errMessage]).toEqual([
      "VaultAlreadyOpen",
      "the vault is already open",
    ]);
    expect([named(after).errName, named(after).errMessage]).toEqual(["VaultInUse", "the vault is in use"]);
    expect(named(after).failingProgram).toBe(program);
  } finally {
    ctx.dispose();
  }
});
