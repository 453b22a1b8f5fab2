// Decoding BPF upgradeable loader accounts (the only loader whose programs can be redeployed):
//   Program account:    [u32 LE tag = 2][32-byte ProgramData address]
//   ProgramData account: [u32 LE tag = 3][u64 LE slot of last deploy][Option<Pubkey> upgrade authority]
// (Option = one byte 0/1, then 32 bytes when 1). Anything else is not an upgradeable program.

import { encodeBase58 } from "../../shared/base58";

export const UPGRADEABLE_LOADER_ID = "BPFLoaderUpgradeab1e11111111111111111111111";
const PROGRAM_TAG = 2;
const PROGRAM_DATA_TAG = 3;
/** Bytes of ProgramData that hold its header (tag, slot, authority option). */
export const PROGRAM_DATA_HEADER_BYTES = 4 + 8 + 1 + 32;

/** The ProgramData address of an upgradeable program account, or null. */
export function programDataAddressOf(data: Uint8Array): string | null {
  if (data.length < 36 || readU32(data, 0) !== PROGRAM_TAG) return null;
  return encodeBase58(data.subarray(4, 36));
}

export type ProgramDataHeader = { slot: number; authority: string | null };

/** Slot and authority of a ProgramData account (its first 45 bytes are enough), or null. */
export function decodeProgramData(data: Uint8Array): ProgramDataHeader | null {
  if (data.length < 13 || readU32(data, 0) !== PROGRAM_DATA_TAG) return null;
  const slot = new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(4, true);
  const hasAuthority = data[12] === 1;
  if (hasAuthority && data.length < 45) return null;
  return { slot: Number(slot), authority: hasAuthority ? encodeBase58(data.subarray(13, 45)) : null };
}

function readU32(data: Uint8Array, offset: number): number {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(offset, true);
}
