#!/usr/bin/env bun
// `bun jobs/tables.ts [--full]`: flush, then refresh the serving tables with what arrived (--full: rebuild them).
import { runOnce } from "./run-once";

await runOnce("tables");
