// Public surface of chain resolution: open attempts → outcomes, stories and drop diagnoses, the
// signature index entries why and diagnose-drop read, and the same decisions made on demand.

export { readCheckpoint } from "./checkpoint";
export { classifyDrop, DROP_ADVICE, DROP_CLASSES, type DropClass } from "./drops";
export { attemptFromSpoolFields, findInSegments } from "./intake";
export { fetchTransactionCached, type OnDemandAnswer, resolveOnDemand } from "./on-demand";
export { resolveFromTransaction } from "./outcomes";
export {
  DEFAULT_SAMPLE_RATE,
  type ResolveOptions,
  type ResolveSummary,
  resolvePending,
  resolveSettled,
} from "./resolve";
export { inSuccessSample, samplePoint } from "./sample";
export {
  attemptsForSignature,
  everyIndexedAttempt,
  type IndexedAttempt,
  indexedAttempts,
  indexUpkeepDone,
  type OpenEntry,
  type ResolvedEntry,
  resolvedValue,
} from "./signatures";
export { openAttemptIds } from "./state";
export { type KeptTransaction, keptTransaction, signatureStatus } from "./transaction-details";
export * from "./types";
