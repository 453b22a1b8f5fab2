// The simulated world, created with real transactions before traffic starts: funded payer wallets
// (each with a wallet-adapter name), funded recipients, an SPL Token mint with token accounts for
// everyone, and an "app" program deployed under the upgradeable loader (a memo program: the
// tracked program of release-diff). All keys derive from the seed, so a seed replays the same world.
// The app's IDL (app-idl.json, Shank: its one instruction's tag is the memo's first byte, `t`; its
// error 12 is what the broken release answers) names its instruction and error once registered.

import { createHash } from "node:crypto";
import { type Connection, Keypair, PublicKey, Transaction, type TransactionInstruction } from "@solana/web3.js";
import type { ChainClient } from "./chain-client.ts";
import {
  associatedTokenAddress,
  createAssociatedTokenAccountIdempotent,
  createMintInstructions,
  MINT_SIZE,
  mintTo,
} from "./spl.ts";

export const WALLET_ADAPTERS = ["Phantom", "Solflare", "Backpack", "Phantom", "Solflare", "Coinbase Wallet"] as const;
/** Walletless senders (scripts, bots) report this adapter name. */
export const BOT_ADAPTER = "keypair";

export interface Wallet {
  keypair: Keypair;
  walletAdapter: string;
  tokenAccount: PublicKey;
  /** Relative share of attempts this wallet sends. */
  weight: number;
}

export interface World {
  payers: Wallet[];
  recipients: Wallet[];
  mint: PublicKey;
  decimals: number;
  /** Deployed app program (memo code at first), or null when disabled. */
  appProgram: PublicKey | null;
}

export interface WorldOptions {
  seed: number;
  payers?: number;
  recipients?: number;
  /** Lamports airdropped to each payer (default 20 SOL). */
  payerLamports?: number;
  /** Token base units minted to each payer (default 1e12). */
  payerTokens?: bigint;
  deployApp?: boolean;
}

export const keypairFromSeed = (label: string) => Keypair.fromSeed(createHash("sha256").update(label).digest());

/** The app program's id in the world of `seed` (known before the world exists: to register its IDL first). */
export const appProgramId = (seed: number) => keypairFromSeed(`txray-sim/${seed}/app`).publicKey.toBase58();

/** The app program's IDL, as a user would register it: `txray idl add <app program> devkit/simulate/app-idl.json`. */
export const APP_IDL_FILE = new URL("./app-idl.json", import.meta.url).pathname;

async function sendSetup(
  connection: Connection,
  client: ChainClient,
  instructions: TransactionInstruction[],
  signers: Keypair[],
) {
  const { blockhash } = await connection.getLatestBlockhash();
  const tx = new Transaction({ feePayer: signers[0].publicKey, recentBlockhash: blockhash }).add(...instructions);
  tx.sign(...signers);
  const signature = await connection.sendRawTransaction(tx.serialize());
  const status = await client.waitForStatus(signature, 10_000);
  if (!status || status.err)
    throw new Error(`setup transaction ${signature} failed: ${JSON.stringify(status?.err ?? "not landed")}`);
}

export async function createWorld(connection: Connection, client: ChainClient, options: WorldOptions): Promise<World> {
  const payerCount = options.payers ?? 6;
  const recipientCount = options.recipients ?? 3;
  const decimals = 6;
  const wallet = (role: string, i: number, adapter: string, weight: number) => {
    const keypair = keypairFromSeed(`txray-sim/${options.seed}/${role}/${i}`);
    return { keypair, walletAdapter: adapter, tokenAccount: PublicKey.default, weight };
  };
  // The last payer is a bot: no wallet adapter, and it sends several times more than a human, on a
  // timer (runner.ts: every few attempts) where people send at random.
  const payers: Wallet[] = Array.from({ length: payerCount }, (_, i) =>
    i === payerCount - 1 && payerCount > 1
      ? wallet("payer", i, BOT_ADAPTER, 4)
      : wallet("payer", i, WALLET_ADAPTERS[i % WALLET_ADAPTERS.length], 1),
  );
  const recipients = Array.from({ length: recipientCount }, (_, i) => wallet("recipient", i, "Phantom", 0));

  for (const w of [...payers, ...recipients]) {
    const lamports = payers.includes(w) ? (options.payerLamports ?? 20_000_000_000) : 1_000_000_000;
    const signature = await connection.requestAirdrop(w.keypair.publicKey, lamports);
    const status = await client.waitForStatus(signature, 10_000);
    if (!status || status.err) throw new Error(`airdrop to ${w.keypair.publicKey.toBase58()} failed`);
  }

  const mintKeypair = keypairFromSeed(`txray-sim/${options.seed}/mint`);
  const authority = payers[0].keypair;
  const rentLamports = await connection.getMinimumBalanceForRentExemption(MINT_SIZE);
  // Re-running a seed against a chain that already has this world reuses its mint.
  const existingMint = await connection.getAccountInfo(mintKeypair.publicKey);
  if (!existingMint)
    await sendSetup(
      connection,
      client,
      createMintInstructions({
        payer: authority.publicKey,
        mint: mintKeypair.publicKey,
        mintAuthority: authority.publicKey,
        decimals,
        rentLamports,
      }),
      [authority, mintKeypair],
    );
  for (const w of [...payers, ...recipients]) {
    w.tokenAccount = associatedTokenAddress(w.keypair.publicKey, mintKeypair.publicKey);
    const ixs = [
      createAssociatedTokenAccountIdempotent(authority.publicKey, w.keypair.publicKey, mintKeypair.publicKey),
    ];
    if (payers.includes(w))
      ixs.push(
        mintTo(mintKeypair.publicKey, w.tokenAccount, authority.publicKey, options.payerTokens ?? 1_000_000_000_000n),
      );
    await sendSetup(connection, client, ixs, [authority]);
  }

  let appProgram: PublicKey | null = null;
  if (options.deployApp !== false) {
    const programId = appProgramId(options.seed);
    const deployed = await client.deployProgram({ programId, template: "memo" });
    appProgram = new PublicKey(deployed.programId);
  }
  return { payers, recipients, mint: mintKeypair.publicKey, decimals, appProgram };
}
