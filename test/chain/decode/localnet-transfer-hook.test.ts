// A failure inside a Token-2022 transfer hook, on the LiteSVM local chain: a mint whose TransferHook
// extension names a program LiteSVM ships (Memo, or the legacy SPL Token program) as its hook. On
// TransferChecked, Token-2022 CPIs the transfer-hook interface's `Execute` into that program, which
// rejects it, so the transaction fails inside the hook. With no validation account
// (["extra-account-metas", mint] under the hook program) among the transfer's accounts, Token-2022's
// `invoke_execute` calls the hook with the four transfer accounts only (spl-transfer-hook-interface
// `onchain.rs`). Token-2022's own failures on such a mint stay its own: an unreadable validation
// account, and a transfer that leaves the hook program out of its accounts (the runtime refuses the
// CPI: MissingAccount). The envelopes go through ingest, the resolver against the chain's JSON-RPC,
// and why/.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { Keypair, PublicKey, SystemProgram, Transaction, type TransactionInstruction } from "@solana/web3.js";
import { type Localnet, startLocalnet } from "../../../devkit/localnet/index.ts";
import {
  associatedTokenAddress,
  createAssociatedTokenAccountIdempotent,
  mintTo,
  TOKEN_2022_PROGRAM_ID,
  transferChecked,
} from "../../../devkit/simulate/spl.ts";
import { loadIdls } from "../../../src/chain/idl";
import { createRpcClient } from "../../../src/chain/rpc";
import { encodeBase58 } from "../../../src/shared/base58";
import { makeEnvelope } from "../../helpers/envelopes";
import { ingestAndFlush, resolveUntilSettled } from "../../helpers/resolve";
import { type TestServer, testServer } from "../../helpers/server";
import { PROGRAMS } from "./fixtures";

const TOKEN_2022 = TOKEN_2022_PROGRAM_ID.toBase58();
const MEMO = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr";
/** Mint (82) padded to the account length (165), account type (1), TLV header (4), TransferHook (64). */
const HOOKED_MINT_LEN = 234;
const DECIMALS = 6;

let localnet: Localnet;
let t: TestServer;
const payer = Keypair.generate();

/** Sends through the chain in process; the JSON-RPC txray reads serves what landed. */
function submit(instructions: TransactionInstruction[], signers: Keypair[] = []) {
  const tx = new Transaction({
    feePayer: payer.publicKey,
    recentBlockhash: localnet.chain.latestBlockhash().blockhash,
  });
  tx.add(...instructions);
  tx.sign(payer, ...signers);
  return { tx, result: localnet.chain.submit(tx.serialize()) };
}

/**
 * A Token-2022 mint whose transfer hook is `hook`, the payer's funded account and a recipient's:
 * InitializeTransferHook (tag 36, sub-tag 0: authority, program id) must precede InitializeMint2.
 */
function hookedMint(hook: PublicKey) {
  const mint = Keypair.generate();
  const recipient = Keypair.generate().publicKey;
  const setup = submit(
    [
      SystemProgram.createAccount({
        fromPubkey: payer.publicKey,
        newAccountPubkey: mint.publicKey,
        lamports: Number(localnet.chain.minimumBalanceForRentExemption(HOOKED_MINT_LEN)),
        space: HOOKED_MINT_LEN,
        programId: TOKEN_2022_PROGRAM_ID,
      }),
      {
        programId: TOKEN_2022_PROGRAM_ID,
        keys: [{ pubkey: mint.publicKey, isSigner: false, isWritable: true }],
        data: Buffer.concat([Buffer.from([36, 0]), payer.publicKey.toBuffer(), hook.toBuffer()]),
      },
      {
        programId: TOKEN_2022_PROGRAM_ID,
        keys: [{ pubkey: mint.publicKey, isSigner: false, isWritable: true }],
        data: Buffer.concat([Buffer.from([20, DECIMALS]), payer.publicKey.toBuffer(), Buffer.from([0])]),
      },
      createAssociatedTokenAccountIdempotent(payer.publicKey, payer.publicKey, mint.publicKey, TOKEN_2022_PROGRAM_ID),
      createAssociatedTokenAccountIdempotent(payer.publicKey, recipient, mint.publicKey, TOKEN_2022_PROGRAM_ID),
      mintTo(
        mint.publicKey,
        associatedTokenAddress(payer.publicKey, mint.publicKey, TOKEN_2022_PROGRAM_ID),
        payer.publicKey,
        1_000_000n,
        TOKEN_2022_PROGRAM_ID,
      ),
    ],
    [mint],
  );
  expect(setup.result.err).toBeNull();
  return { mint: mint.publicKey, recipient };
}

/** TransferChecked of a hooked mint; `extra` accounts follow the four transfer accounts. */
function hookedTransfer(mint: PublicKey, recipient: PublicKey, extra: PublicKey[]) {
  const transfer = transferChecked({
    source: associatedTokenAddress(payer.publicKey, mint, TOKEN_2022_PROGRAM_ID),
    mint,
    destination: associatedTokenAddress(recipient, mint, TOKEN_2022_PROGRAM_ID),
    owner: payer.publicKey,
    amount: 5n,
    decimals: DECIMALS,
    programId: TOKEN_2022_PROGRAM_ID,
  });
  transfer.keys.push(...extra.map((pubkey) => ({ pubkey, isSigner: false, isWritable: false })));
  const { tx, result } = submit([transfer]);
  expect(result.landed).toBe(true);
  return { sig: encodeBase58(tx.signatures[0].signature!), result };
}

const validationAccount = (mint: PublicKey, hook: PublicKey) =>
  PublicKey.findProgramAddressSync([Buffer.from("extra-account-metas"), mint.toBuffer()], hook)[0];

let memoHook: ReturnType<typeof hookedTransfer>;
let tokenHook: ReturnType<typeof hookedTransfer>;
let badValidation: ReturnType<typeof hookedTransfer>;
let hookOmitted: ReturnType<typeof hookedTransfer>;

beforeAll(async () => {
  localnet = await startLocalnet({ blockTimeMs: 0 });
  localnet.airdrop(payer.publicKey.toBase58(), 10_000_000_000);
  t = await testServer({ SOLANA_RPC_URL: localnet.url });
  const memo = new PublicKey(MEMO);
  const token = new PublicKey(PROGRAMS.token);
  const memoMint = hookedMint(memo);
  const tokenMint = hookedMint(token);
  memoHook = hookedTransfer(memoMint.mint, memoMint.recipient, [memo]);
  tokenHook = hookedTransfer(tokenMint.mint, tokenMint.recipient, [token]);
  // A validation account that holds no ExtraAccountMetaList: Token-2022 fails reading it, before any CPI.
  badValidation = hookedTransfer(memoMint.mint, memoMint.recipient, [validationAccount(memoMint.mint, memo), memo]);
  // A client that does not resolve the hook's accounts: the hook program is not among them.
  hookOmitted = hookedTransfer(memoMint.mint, memoMint.recipient, []);
  const { lastValidBlockHeight, blockhash } = localnet.chain.latestBlockhash();
  await ingestAndFlush(
    t,
    [memoHook, tokenHook, badValidation, hookOmitted].map(({ sig }) =>
      makeEnvelope({ sig, program: TOKEN_2022, blockhash, lastValidBlockHeight, sentAt: Date.now() }),
    ),
  );
  const rpc = createRpcClient({ url: localnet.url });
  const summary = await resolveUntilSettled(t.ctx, { rpc, idls: loadIdls(t.ctx.paths.root), recheckDelayMs: 20 });
  expect(summary.stillPending).toBe(0);
});
afterAll(async () => {
  await t?.stop();
  await localnet?.stop();
});

test("the chain ran the hook: Token-2022's TransferChecked invoked it at depth 2, and it failed there", () => {
  expect(memoHook.result.err).toEqual({ InstructionError: [0, "MissingRequiredSignature"] });
  expect(memoHook.result.logs).toContain(`Program ${MEMO} invoke [2]`);
  expect(memoHook.result.logs).toContain(`Program ${MEMO} failed: missing required signature for instruction`);
  expect(tokenHook.result.err).toEqual({ InstructionError: [0, { Custom: 12 }] });
  expect(tokenHook.result.logs).toContain(`Program ${PROGRAMS.token} failed: custom program error: 0xc`);
});

test("why/: a hook rejecting Execute is the failing program, not Token-2022", async () => {
  const story = (await t.get(`/v1/why/${memoHook.sig}`)).body;
  expect(story).toMatchObject({
    outcome: "failed_onchain",
    program: TOKEN_2022,
    instruction: "TransferChecked",
    failingProgram: MEMO,
    failingInstruction: "Execute", // the interface's discriminator, from the inner instruction's data
    ixPath: "0.0",
    cpiDepth: 1,
    errCode: null,
    errName: "MissingRequiredSignature",
  });
});

test("why/: a hook's custom code is named from the hook program's table", async () => {
  const story = (await t.get(`/v1/why/${tokenHook.sig}`)).body;
  expect(story).toMatchObject({
    outcome: "failed_onchain",
    program: TOKEN_2022,
    instruction: "TransferChecked",
    failingProgram: PROGRAMS.token,
    failingInstruction: "Execute",
    cpiDepth: 1,
    errCode: 12,
    errName: "InvalidInstruction",
  });
});

test("why/: Token-2022 failing before the CPI (an unreadable validation account) is Token-2022's own", async () => {
  const story = (await t.get(`/v1/why/${badValidation.sig}`)).body;
  expect(badValidation.result.logs.some((line) => line.includes(`${MEMO} invoke`))).toBe(false);
  expect(story).toMatchObject({
    outcome: "failed_onchain",
    failingProgram: TOKEN_2022,
    failingInstruction: "TransferChecked",
    cpiDepth: 0,
    errName: "InvalidAccountData",
  });
});

test("why/: a transfer without the hook program among its accounts fails in Token-2022, MissingAccount", async () => {
  expect(hookOmitted.result.logs).toContain(`Unknown program ${MEMO}`); // the runtime's line for the CPI it refused
  const story = (await t.get(`/v1/why/${hookOmitted.sig}`)).body;
  expect(story).toMatchObject({
    outcome: "failed_onchain",
    failingProgram: TOKEN_2022,
    failingInstruction: "TransferChecked",
    cpiDepth: 0,
    errCode: null,
    errName: "MissingAccount",
    errMessage: "An account required by the instruction is missing",
  });
});
