// Real SPL Token / Token-2022 / Associated Token / Compute Budget behaviour from LiteSVM's built-in
// programs, as getTransaction shows it: logs, errors, inner instructions and token balances.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ComputeBudgetProgram, Connection, Keypair, type PublicKey } from "@solana/web3.js";
import { type Localnet, startLocalnet } from "../../../devkit/localnet/index.ts";
import {
  associatedTokenAddress,
  createAssociatedTokenAccountIdempotent,
  createMintInstructions,
  MINT_SIZE,
  mintTo,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  transferChecked,
} from "../../../devkit/simulate/spl.ts";
import { funded, key, signed } from "./support.ts";

let localnet: Localnet;
let connection: Connection;

beforeAll(async () => {
  localnet = await startLocalnet({ blockTimeMs: 0 });
  connection = new Connection(localnet.url, "confirmed");
});
afterAll(async () => {
  await localnet.stop();
});

interface TokenSetup {
  owner: Keypair;
  mint: PublicKey;
  source: PublicKey;
  destination: PublicKey;
}

async function send(payer: Keypair, ixs: Parameters<typeof signed>[2], extra: Keypair[] = [], skipPreflight = true) {
  const signature = await connection.sendRawTransaction(signed(localnet, payer, ixs, extra).serialize(), {
    skipPreflight,
  });
  const tx = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
  if (!tx) throw new Error("transaction did not land");
  return { signature, tx };
}

async function setupToken(programId: PublicKey): Promise<TokenSetup> {
  const owner = funded(localnet, 5_000_000_000);
  const mint = Keypair.generate();
  const rentLamports = await connection.getMinimumBalanceForRentExemption(MINT_SIZE);
  await send(
    owner,
    createMintInstructions({
      payer: owner.publicKey,
      mint: mint.publicKey,
      mintAuthority: owner.publicKey,
      decimals: 6,
      rentLamports,
      programId,
    }),
    [mint],
  );
  const other = Keypair.generate().publicKey;
  const source = associatedTokenAddress(owner.publicKey, mint.publicKey, programId);
  const destination = associatedTokenAddress(other, mint.publicKey, programId);
  await send(owner, [
    createAssociatedTokenAccountIdempotent(owner.publicKey, owner.publicKey, mint.publicKey, programId),
    createAssociatedTokenAccountIdempotent(owner.publicKey, other, mint.publicKey, programId),
    mintTo(mint.publicKey, source, owner.publicKey, 1_000_000n, programId),
  ]);
  return { owner, mint: mint.publicKey, source, destination };
}

const xfer = (s: TokenSetup, amount: bigint, programId = TOKEN_PROGRAM_ID) =>
  transferChecked({
    source: s.source,
    mint: s.mint,
    destination: s.destination,
    owner: s.owner.publicKey,
    amount,
    decimals: 6,
    programId,
  });

describe("SPL Token", () => {
  let spl: TokenSetup;
  beforeAll(async () => {
    spl = await setupToken(TOKEN_PROGRAM_ID);
  });

  test("ATA creation records the CPIs as inner instructions with stack height 2", async () => {
    const owner = funded(localnet);
    const { tx } = await send(owner, [
      createAssociatedTokenAccountIdempotent(owner.publicKey, owner.publicKey, spl.mint),
    ]);
    expect(tx.meta!.err).toBeNull();
    expect(tx.meta!.logMessages!.slice(0, 2)).toEqual([
      "Program ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL invoke [1]",
      "Program log: CreateIdempotent",
    ]);
    const inner = tx.meta!.innerInstructions!;
    expect(inner.length).toBe(1);
    expect(inner[0].index).toBe(0);
    const keys = tx.transaction.message.staticAccountKeys.map(key);
    expect(inner[0].instructions.map((ix) => keys[ix.programIdIndex])).toEqual([
      key(TOKEN_PROGRAM_ID),
      "11111111111111111111111111111111",
      key(TOKEN_PROGRAM_ID),
      key(TOKEN_PROGRAM_ID),
    ]);
    expect(inner[0].instructions.map((ix) => (ix as unknown as { stackHeight: number }).stackHeight)).toEqual([
      2, 2, 2, 2,
    ]);
  });

  test("a transfer lands with pre/post token balances, in account-index order", async () => {
    const { tx } = await send(spl.owner, [xfer(spl, 250_000n)]);
    expect(tx.meta!.err).toBeNull();
    const keys = tx.transaction.message.staticAccountKeys.map(key);
    const entry = (account: PublicKey, owner: string, amount: string, uiAmount: number, uiAmountString: string) => ({
      accountIndex: keys.indexOf(key(account)),
      mint: key(spl.mint),
      owner,
      programId: key(TOKEN_PROGRAM_ID),
      uiTokenAmount: { amount, decimals: 6, uiAmount, uiAmountString },
    });
    const byIndex = (a: { accountIndex: number }, b: { accountIndex: number }) => a.accountIndex - b.accountIndex;
    const destinationOwner = tx.meta!.preTokenBalances!.find(
      (b) => b.accountIndex === keys.indexOf(key(spl.destination)),
    )!.owner!;
    expect(tx.meta!.preTokenBalances).toEqual(
      [
        entry(spl.source, key(spl.owner.publicKey), "1000000", 1, "1"),
        entry(spl.destination, destinationOwner, "0", 0, "0"),
      ].sort(byIndex),
    );
    expect(tx.meta!.postTokenBalances).toEqual(
      [
        entry(spl.source, key(spl.owner.publicKey), "750000", 0.75, "0.75"),
        entry(spl.destination, destinationOwner, "250000", 0.25, "0.25"),
      ].sort(byIndex),
    );
    expect(destinationOwner).not.toBe(key(spl.owner.publicKey));
  });

  test("insufficient funds fails on chain with custom program error 0x1", async () => {
    const { tx } = await send(spl.owner, [xfer(spl, 5_000_000n)]);
    expect(tx.meta!.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(tx.meta!.logMessages).toEqual([
      "Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA invoke [1]",
      "Program log: Error: insufficient funds",
      "Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA consumed 193 of 200000 compute units",
      "Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA failed: custom program error: 0x1",
    ]);
    expect(tx.meta!.computeUnitsConsumed).toBe(193);
    expect(tx.meta!.fee).toBe(5000);
  });

  test("SetComputeUnitLimit too low exhausts the meter inside the token program", async () => {
    const { tx } = await send(spl.owner, [ComputeBudgetProgram.setComputeUnitLimit({ units: 200 }), xfer(spl, 1n)]);
    expect(tx.meta!.err).toEqual({ InstructionError: [1, "ProgramFailedToComplete"] });
    expect(tx.meta!.logMessages).toEqual([
      "Program ComputeBudget111111111111111111111111111111 invoke [1]",
      "Program ComputeBudget111111111111111111111111111111 success",
      "Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA invoke [1]",
      "Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA consumed 50 of 50 compute units",
      "Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA failed: exceeded CUs meter at BPF instruction",
    ]);
    expect(tx.meta!.computeUnitsConsumed).toBe(200);
  });
});

describe("Token-2022", () => {
  test("TransferChecked logs the instruction and fails with 0x1 on insufficient funds", async () => {
    const t22 = await setupToken(TOKEN_2022_PROGRAM_ID);
    const { tx } = await send(t22.owner, [xfer(t22, 2_000_000n, TOKEN_2022_PROGRAM_ID)]);
    expect(tx.meta!.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(tx.meta!.logMessages!.slice(0, 3)).toEqual([
      "Program TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb invoke [1]",
      "Program log: Instruction: TransferChecked",
      "Program log: Error: insufficient funds",
    ]);
    expect(tx.meta!.logMessages!.at(-1)).toBe(
      "Program TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb failed: custom program error: 0x1",
    );
  });
});
