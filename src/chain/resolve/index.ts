// Public surface of chain resolution: open attempts → outcomes, stories and drop diagnoses, the
// signature index entries why and diagnose-drop read, and the same decisions made on demand.
export {
  resolvePending,
  resolveSettled,
  DEFAULT_SAMPLE_RATE,
  type ResolveOptions,
  type ResolveSummary,
} from "./resolve";
export { classifyDrop, DROP_ADVICE, DROP_CLASSES, type DropClass } from "./drops";
export { openAttemptIds } from "./state";
export {
  attemptsForSignature,
  everyIndexedAttempt,
  indexedAttempts,
  indexUpkeepDone,
  resolvedValue,
  type IndexedAttempt,
  type OpenEntry,
  type ResolvedEntry,
} from "./signatures";
export { fetchTransactionCached, resolveOnDemand, type OnDemandAnswer } from "./on-demand";
export { resolveFromTransaction } from "./outcomes";
export { inSuccessSample, samplePoint } from "./sample";
export { attemptFromSpoolFields, findInSegments } from "./intake";
export * from "./types";
