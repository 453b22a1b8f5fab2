// Public surface of the signature index: signature → the attempts txray holds for it (resolved, or
// taken in and still open), in sorted, Bloom-filtered runs under <data dir>/index/signatures
// (docs/scaling.md, "Finding a signature").

export type { IndexEntry, RunFooter } from "./run-file";
export { FANOUT, type MaintainResult, SignatureIndex } from "./store";
