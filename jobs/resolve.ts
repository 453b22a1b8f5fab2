#!/usr/bin/env bun
// `bun jobs/resolve.ts`: resolve the attempts that are due against SOLANA_RPC_URL, until nothing is due within seconds.
import { runOnce } from "./run-once";

await runOnce("resolve");
