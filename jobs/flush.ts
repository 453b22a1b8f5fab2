#!/usr/bin/env bun
// `bun jobs/flush.ts`: seal what live servers acknowledged and write the spool's sealed segments to the lake.
import { runOnce } from "./run-once";

await runOnce("flush");
