// Helpers shared by the localnet tests: raw JSON-RPC calls (to check exact wire shapes, which
// web3.js would reshape), funded keypairs and signed legacy transactions.

import { Keypair, type PublicKey, Transaction, type TransactionInstruction } from "@solana/web3.js";
import type { Localnet } from "../../../devkit/localnet/index.ts";

export interface RpcBody {
  jsonrpc: "2.0";
  id: number | string | null;
  result?: any;
  error?: { code: number; message: string; data?: any };
}

let nextId = 1;

/** One raw JSON-RPC call; returns the whole response body. */
export async function rpc(url: string, method: string, params?: unknown): Promise<RpcBody> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
  });
  return (await response.json()) as RpcBody;
}

/** A fresh keypair funded from the faucet (in process). */
export function funded(localnet: Localnet, lamports = 2_000_000_000): Keypair {
  const keypair = Keypair.generate();
  localnet.airdrop(keypair.publicKey.toBase58(), lamports);
  return keypair;
}

/** A signed legacy transaction against the chain's current blockhash (or `blockhash`). */
export function signed(
  localnet: Localnet,
  payer: Keypair,
  instructions: TransactionInstruction[],
  extra: Keypair[] = [],
  blockhash?: string,
): Transaction {
  const tx = new Transaction({
    feePayer: payer.publicKey,
    recentBlockhash: blockhash ?? localnet.chain.latestBlockhash().blockhash,
  });
  tx.add(...instructions);
  tx.sign(payer, ...extra);
  return tx;
}

export const base64 = (tx: Transaction) => tx.serialize().toString("base64");

export const key = (pubkey: PublicKey) => pubkey.toBase58();
