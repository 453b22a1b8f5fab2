// The why story of a real failure inside a CPI, produced by LiteSVM's built-in programs through the
// local JSON-RPC chain: an Associated Token `CreateIdempotent` whose System `CreateAccount` CPI runs
// out of lamports. Decoded from getTransaction (on chain) and from the preflight simulation logs.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { Connection, Keypair, SendTransactionError } from "@solana/web3.js";
import { type Localnet, startLocalnet } from "../../../devkit/localnet/index.ts";
import {
  createAssociatedTokenAccountIdempotent,
  createMintInstructions,
  MINT_SIZE,
  TOKEN_PROGRAM_ID,
} from "../../../devkit/simulate/spl.ts";
import { decodePreflight, decodeTransaction, issueFingerprint, storyFingerprint } from "../../../src/chain/decode";
import { funded, signed } from "../../devkit/localnet/support.ts";
import { PROGRAMS } from "./fixtures";

let localnet: Localnet;
let connection: Connection;

beforeAll(async () => {
  localnet = await startLocalnet({ blockTimeMs: 0 });
  connection = new Connection(localnet.url, "confirmed");
});
afterAll(async () => await localnet.stop());

/** A fee payer with SOL, and a rent payer for the new token account with far too little. */
async function setup() {
  const feePayer = funded(localnet, 5_000_000_000);
  const mint = Keypair.generate();
  const rentLamports = await connection.getMinimumBalanceForRentExemption(MINT_SIZE);
  const created = signed(
    localnet,
    feePayer,
    createMintInstructions({
      payer: feePayer.publicKey,
      mint: mint.publicKey,
      mintAuthority: feePayer.publicKey,
      decimals: 6,
      rentLamports,
    }),
    [mint],
  );
  await connection.confirmTransaction(await connection.sendRawTransaction(created.serialize()), "confirmed");
  const poorPayer = funded(localnet, 1_000_000); // a token account needs 2,039,280 lamports of rent
  const create = createAssociatedTokenAccountIdempotent(
    poorPayer.publicKey,
    Keypair.generate().publicKey,
    mint.publicKey,
    TOKEN_PROGRAM_ID,
  );
  return { tx: signed(localnet, feePayer, [create], [poorPayer]) };
}

const expectedStory = {
  topLevelProgram: PROGRAMS.ata,
  instruction: "CreateIdempotent", // the targeted ATA program's instruction (`Program log: CreateIdempotent`)
  failingProgram: PROGRAMS.system,
  errCode: 1,
  errName: "ResultWithNegativeLamports", // looked up for the failing System program, not for ATA
  cpiDepth: 1,
  computeExceeded: false,
};

test("on chain: instruction is the ATA's, failingInstruction the System CPI's, cuUsed from meta", async () => {
  const { tx } = await setup();
  const signature = await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
  await connection.confirmTransaction(signature, "confirmed");
  const result = await connection.getTransaction(signature, {
    maxSupportedTransactionVersion: 0,
    commitment: "confirmed",
  });
  expect(result?.meta?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
  const story = decodeTransaction(JSON.parse(JSON.stringify(result)), undefined, { program: PROGRAMS.ata });
  expect(story).toMatchObject({
    ...expectedStory,
    failingInstruction: "CreateAccount",
    cuUsed: result!.meta!.computeUnitsConsumed,
  });
  expect(story.ixPath).toMatch(/^0\.\d$/);
  // The issue groups by the targeted program's instruction.
  expect(storyFingerprint(PROGRAMS.ata, "failed_onchain", story)).toBe(
    issueFingerprint({
      program: PROGRAMS.ata,
      outcome: "failed_onchain",
      failingProgram: PROGRAMS.system,
      instruction: "CreateIdempotent",
      key: 1,
    }),
  );
});

test("preflight: the same story from the simulation logs alone, cuUsed from the top-level consumed line", async () => {
  const { tx } = await setup();
  let logs: string[] = [];
  let message = "";
  try {
    await connection.sendRawTransaction(tx.serialize(), { skipPreflight: false });
    throw new Error("preflight passed");
  } catch (error) {
    if (!(error instanceof SendTransactionError)) throw error;
    logs = (await error.getLogs(connection)) ?? [];
    message = error.message;
  }
  const consumed = logs
    .map((line) => /^Program ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL consumed (\d+) of/.exec(line)?.[1])
    .find(Boolean);
  expect(consumed).toBeDefined();
  const story = decodePreflight({ preflightError: message, simulationLogs: logs, program: PROGRAMS.ata });
  // The System frame logs no name and the simulation gives no message to decode its data.
  expect(story).toMatchObject({ ...expectedStory, failingInstruction: null, cuUsed: Number(consumed) });
});
