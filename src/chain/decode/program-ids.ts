// Program ids the decoder knows by heart: the native/SPL programs whose errors and instructions it
// names without an IDL, and the runtime builtins that get a smaller default compute budget.

export const SYSTEM_PROGRAM = "11111111111111111111111111111111";
export const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";
export const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
export const TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
export const ASSOCIATED_TOKEN_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
export const VOTE_PROGRAM = "Vote111111111111111111111111111111111111111";
export const STAKE_PROGRAM = "Stake11111111111111111111111111111111111111";

/**
 * Runtime builtins: a top-level instruction of one of these gets 3,000 CUs of default budget instead
 * of 200,000 (agave `builtins-default-costs`, `compute-budget-instruction` default limit). Stake,
 * Config and Address Lookup Table are being migrated to Core BPF programs; once a migration feature is
 * active they count as 200,000 like any program. They are still listed here (pre-migration rule).
 */
export const BUILTIN_PROGRAMS: ReadonlySet<string> = new Set([
  SYSTEM_PROGRAM,
  COMPUTE_BUDGET_PROGRAM,
  VOTE_PROGRAM,
  STAKE_PROGRAM,
  "Config1111111111111111111111111111111111111",
  "AddressLookupTab1e1111111111111111111111111",
  "BPFLoader1111111111111111111111111111111111",
  "BPFLoader2111111111111111111111111111111111",
  "BPFLoaderUpgradeab1e11111111111111111111111",
  "LoaderV411111111111111111111111111111111111",
  "KeccakSecp256k11111111111111111111111111111",
  "Ed25519SigVerify111111111111111111111111111",
  "Secp256r1SigVerify1111111111111111111111111",
  "ZkTokenProof1111111111111111111111111111111",
  "ZkE1Gama1Proof11111111111111111111111111111",
]);

/**
 * Display names of well-known programs (the native ones and the busiest public dapps), for the call
 * stack, the Landing Score page and chat answers. A name is for people only: nothing groups by it.
 */
export const PROGRAM_NAMES: Readonly<Record<string, string>> = {
  [SYSTEM_PROGRAM]: "System Program",
  [COMPUTE_BUDGET_PROGRAM]: "Compute Budget",
  [TOKEN_PROGRAM]: "SPL Token",
  [TOKEN_2022_PROGRAM]: "Token-2022",
  [ASSOCIATED_TOKEN_PROGRAM]: "Associated Token",
  [VOTE_PROGRAM]: "Vote Program",
  [STAKE_PROGRAM]: "Stake Program",
  Config1111111111111111111111111111111111111: "Config Program",
  AddressLookupTab1e1111111111111111111111111: "Address Lookup Table",
  BPFLoaderUpgradeab1e11111111111111111111111: "BPF Upgradeable Loader",
  MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr: "Memo",
  JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4: "Jupiter v6",
  "675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8": "Raydium AMM v4",
  CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK: "Raydium CLMM",
  CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C: "Raydium CPMM",
  whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc: "Orca Whirlpool",
  LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo: "Meteora DLMM",
  "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P": "pump.fun",
  pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA: "PumpSwap AMM",
};

/** A program's display name, or null when txray does not know it. */
export const programName = (program: string | null | undefined): string | null =>
  program ? (PROGRAM_NAMES[program] ?? null) : null;
