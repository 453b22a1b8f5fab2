// SPL Token / Token-2022 / Associated Token instructions the simulator (and tests) send, encoded
// by hand on web3.js TransactionInstruction: @solana/spl-token is not a dependency, and the few
// layouts needed are tiny (1-byte tag + little-endian u64 amounts).

import { PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js";

export const TOKEN_PROGRAM_ID = new PublicKey("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
export const TOKEN_2022_PROGRAM_ID = new PublicKey("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb");
export const ASSOCIATED_TOKEN_PROGRAM_ID = new PublicKey("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL");

export const MINT_SIZE = 82;

const writable = (pubkey: PublicKey, isSigner = false) => ({ pubkey, isSigner, isWritable: true });
const readonly = (pubkey: PublicKey, isSigner = false) => ({ pubkey, isSigner, isWritable: false });

function u64(value: bigint): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(value);
  return out;
}

/** SystemProgram.createAccount + InitializeMint2 (tag 20) with no freeze authority. */
export function createMintInstructions(options: {
  payer: PublicKey;
  mint: PublicKey;
  mintAuthority: PublicKey;
  decimals: number;
  rentLamports: number;
  programId?: PublicKey;
}): TransactionInstruction[] {
  const programId = options.programId ?? TOKEN_PROGRAM_ID;
  return [
    SystemProgram.createAccount({
      fromPubkey: options.payer,
      newAccountPubkey: options.mint,
      lamports: options.rentLamports,
      space: MINT_SIZE,
      programId,
    }),
    new TransactionInstruction({
      programId,
      keys: [writable(options.mint)],
      data: Buffer.concat([Buffer.from([20, options.decimals]), options.mintAuthority.toBuffer(), Buffer.from([0])]),
    }),
  ];
}

export function associatedTokenAddress(owner: PublicKey, mint: PublicKey, programId = TOKEN_PROGRAM_ID): PublicKey {
  return PublicKey.findProgramAddressSync(
    [owner.toBuffer(), programId.toBuffer(), mint.toBuffer()],
    ASSOCIATED_TOKEN_PROGRAM_ID,
  )[0];
}

/** Associated Token Account CreateIdempotent (tag 1). */
export function createAssociatedTokenAccountIdempotent(
  payer: PublicKey,
  owner: PublicKey,
  mint: PublicKey,
  programId = TOKEN_PROGRAM_ID,
): TransactionInstruction {
  return new TransactionInstruction({
    programId: ASSOCIATED_TOKEN_PROGRAM_ID,
    keys: [
      writable(payer, true),
      writable(associatedTokenAddress(owner, mint, programId)),
      readonly(owner),
      readonly(mint),
      readonly(SystemProgram.programId),
      readonly(programId),
    ],
    data: Buffer.from([1]),
  });
}

/** MintTo (tag 7). */
export function mintTo(
  mint: PublicKey,
  destination: PublicKey,
  authority: PublicKey,
  amount: bigint,
  programId = TOKEN_PROGRAM_ID,
) {
  return new TransactionInstruction({
    programId,
    keys: [writable(mint), writable(destination), readonly(authority, true)],
    data: Buffer.concat([Buffer.from([7]), u64(amount)]),
  });
}

/** TransferChecked (tag 12): source, mint, destination, owner. */
export function transferChecked(options: {
  source: PublicKey;
  mint: PublicKey;
  destination: PublicKey;
  owner: PublicKey;
  amount: bigint;
  decimals: number;
  programId?: PublicKey;
}): TransactionInstruction {
  return new TransactionInstruction({
    programId: options.programId ?? TOKEN_PROGRAM_ID,
    keys: [
      writable(options.source),
      readonly(options.mint),
      writable(options.destination),
      readonly(options.owner, true),
    ],
    data: Buffer.concat([Buffer.from([12]), u64(options.amount), Buffer.from([options.decimals])]),
  });
}

/** Transfer (tag 3): source, destination, owner. */
export function transfer(
  source: PublicKey,
  destination: PublicKey,
  owner: PublicKey,
  amount: bigint,
  programId = TOKEN_PROGRAM_ID,
) {
  return new TransactionInstruction({
    programId,
    keys: [writable(source), writable(destination), readonly(owner, true)],
    data: Buffer.concat([Buffer.from([3]), u64(amount)]),
  });
}
