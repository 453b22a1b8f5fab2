// Constructed verified-build records (the OtterSec verify program's account layout) and an
// in-process RPC client that serves accounts, for tests of deploy sources.

import type { RpcClient } from "../../../src/chain/rpc";
import { decodeBase58 } from "../../../src/shared/base58";

type Fields = { program: string; signer: string; repository: string; commit: string; deployedSlot: number };

/** Borsh-encodes a verify-program record (8-byte discriminator, then the fields in layout order). */
export function verificationRecord(fields: Fields): Uint8Array {
  const parts: Uint8Array[] = [new Uint8Array(8), decodeBase58(fields.program)!, decodeBase58(fields.signer)!];
  const u32 = (n: number) => {
    const out = new Uint8Array(4);
    new DataView(out.buffer).setUint32(0, n, true);
    return out;
  };
  const text = (value: string) => {
    const bytes = new TextEncoder().encode(value);
    parts.push(u32(bytes.length), bytes);
  };
  text("0.4.3");
  text(fields.repository);
  text(fields.commit);
  parts.push(u32(2));
  text("--library-name");
  text("vault");
  const slot = new Uint8Array(8);
  new DataView(slot.buffer).setBigUint64(0, BigInt(fields.deployedSlot), true);
  parts.push(slot, Uint8Array.of(254));
  return Buffer.concat(parts);
}

/** An in-process RPC client answering getMultipleAccounts from `accounts` (address → data). */
export function accountsRpc(accounts: Map<string, Uint8Array>): RpcClient & { calls: number } {
  const client = {
    calls: 0,
    async call(method: string, params: unknown[]) {
      client.calls++;
      if (method !== "getMultipleAccounts") throw new Error(`unexpected ${method}`);
      const value = (params[0] as string[]).map((address) => {
        const data = accounts.get(address);
        return data ? { data: [Buffer.from(data).toString("base64"), "base64"], owner: "x", lamports: 1 } : null;
      });
      return { context: { slot: 1 }, value };
    },
  };
  return client as unknown as RpcClient & { calls: number };
}
