// Ingest's view of the wire contract: the envelope schema lives in the neutral module
// src/shared/envelope.ts, shared with the SDK so the two cannot drift.

export * from "../shared/envelope";
