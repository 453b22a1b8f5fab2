// Public surface of the control plane (bun:sqlite by default, PostgreSQL with TXRAY_CONTROL_URL).
// Every statement against the control tables is a named function of this folder: the rest of txray
// never writes SQL against them (and all of it must survive the SQLite → PostgreSQL rewriter).

export * from "./alerts";
export * from "./chain-observations";
export {
  CONTROL_SCHEMA,
  type ControlDb,
  type ControlOpenOptions,
  controlDbFileProblem,
  controlDialect,
  controlPlaneProblem,
  MIGRATION_SUMMARIES,
  openControlDb,
  openControlDbReadOnly,
  snapshotControlDb,
  sqliteControlDb,
} from "./db";
export * from "./ingest-nodes";
export * from "./issue-states";
export * from "./jobs";
export * from "./keys";
export * from "./lake-watermark";
export * from "./lease";
export { ControlPlaneError } from "./postgres";
export * from "./program-quota";
export * from "./programs";
export * from "./pruning";
export * from "./quarantine";
export * from "./resolution-batches";
export * from "./resolved-hours";
export * from "./resolver-state";
export * from "./segments";
export * from "./settings";
export * from "./spool-integrity";
