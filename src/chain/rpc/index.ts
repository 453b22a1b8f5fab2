// Public surface of the Solana RPC layer used by jobs.
export * from "./client";
export * from "./health";
