// BPF upgradeable loader account layouts (UpgradeableLoaderState, bincode):
//   Program     = u32 tag 2, programdata address (32)                     → 36 bytes
//   ProgramData = u32 tag 3, u64 slot, Option<Pubkey> authority (1 + 32), then the ELF (header 45 bytes)
//   Buffer      = u32 tag 1, Option<Pubkey> authority (1 + 32), then the ELF (header 37 bytes)
// The deploy-detection job reads ProgramData.slot ("slot that the program was last modified"), so the
// local chain writes these accounts itself to deploy and redeploy, and parses them for jsonParsed.

import { PublicKey } from "@solana/web3.js";
import { decodeBase58, encodeBase58 } from "../../src/shared/base58.ts";

export const UPGRADEABLE_LOADER = "BPFLoaderUpgradeab1e11111111111111111111111";
export const PROGRAM_DATA_HEADER = 45;

export function programDataAddress(programId: string): string {
  return PublicKey.findProgramAddressSync(
    [new PublicKey(programId).toBuffer()],
    new PublicKey(UPGRADEABLE_LOADER),
  )[0].toBase58();
}

export function encodeProgramAccount(programData: string): Uint8Array {
  const out = new Uint8Array(36);
  new DataView(out.buffer).setUint32(0, 2, true);
  out.set(decodeBase58(programData)!, 4);
  return out;
}

export function encodeProgramDataAccount(slot: number, authority: string | null, elf: Uint8Array): Uint8Array {
  const out = new Uint8Array(PROGRAM_DATA_HEADER + elf.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, 3, true);
  view.setBigUint64(4, BigInt(slot), true);
  if (authority) {
    out[12] = 1;
    out.set(decodeBase58(authority)!, 13);
  }
  out.set(elf, PROGRAM_DATA_HEADER);
  return out;
}

export type LoaderState =
  | { type: "uninitialized" }
  | { type: "buffer"; authority: string | null; data: Uint8Array }
  | { type: "program"; programData: string }
  | { type: "programData"; slot: number; authority: string | null; data: Uint8Array };

/** Decodes an upgradeable-loader account; null when the bytes are not a valid state. */
export function decodeLoaderState(data: Uint8Array): LoaderState | null {
  if (data.length < 4) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const optionKey = (at: number): string | null | undefined => {
    if (data[at] === 0) return null;
    if (data[at] === 1 && data.length >= at + 33) return encodeBase58(data.subarray(at + 1, at + 33));
    return undefined;
  };
  switch (view.getUint32(0, true)) {
    case 0:
      return { type: "uninitialized" };
    case 1: {
      if (data.length < 37) return null;
      const authority = optionKey(4);
      return authority === undefined ? null : { type: "buffer", authority, data: data.subarray(37) };
    }
    case 2:
      return data.length >= 36 ? { type: "program", programData: encodeBase58(data.subarray(4, 36)) } : null;
    case 3: {
      if (data.length < PROGRAM_DATA_HEADER) return null;
      const authority = optionKey(12);
      if (authority === undefined) return null;
      return {
        type: "programData",
        slot: Number(view.getBigUint64(4, true)),
        authority,
        data: data.subarray(PROGRAM_DATA_HEADER),
      };
    }
    default:
      return null;
  }
}

/** The `parsed` object of getAccountInfo jsonParsed for program "bpf-upgradeable-loader" (agave account-decoder). */
export function parsedLoaderState(state: LoaderState): { type: string; info?: Record<string, unknown> } {
  const base64 = (bytes: Uint8Array) => [Buffer.from(bytes).toString("base64"), "base64"];
  switch (state.type) {
    case "uninitialized":
      return { type: "uninitialized" };
    case "buffer":
      return { type: "buffer", info: { authority: state.authority, data: base64(state.data) } };
    case "program":
      return { type: "program", info: { programData: state.programData } };
    case "programData":
      return { type: "programData", info: { slot: state.slot, authority: state.authority, data: base64(state.data) } };
  }
}
