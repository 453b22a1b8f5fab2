#!/usr/bin/env bun
// `bun jobs/deploys.ts`: record the deploys of the lake's programs (their ProgramData slot) over SOLANA_RPC_URL.
import { runOnce } from "./run-once";

await runOnce("deploys");
