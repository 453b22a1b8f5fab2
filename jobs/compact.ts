#!/usr/bin/env bun
// `bun jobs/compact.ts`: merge each lake partition's small Parquet parts by size tier.
import { runOnce } from "./run-once";

await runOnce("compact");
