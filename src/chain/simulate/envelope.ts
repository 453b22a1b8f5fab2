// The simulator emits exactly the envelope txray ingests: the schema of record lives in
// src/ingest/envelope.ts; this module re-exports it with the simulator's SDK version and the
// provider identity helper.

export { envelopeSchema, type Envelope } from "../../ingest/envelope.ts";
export { rpcHash } from "../../shared/rpc-identity.ts";

export const SDK_VERSION = "txray-simulator/0.1.0";
