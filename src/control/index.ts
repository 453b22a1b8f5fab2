// Public surface of the control plane (bun:sqlite by default, PostgreSQL with TXRAY_CONTROL_URL).
// Every statement against the control tables is a named function of this folder: the rest of txray
// never writes SQL against them (and all of it must survive the SQLite → PostgreSQL rewriter).
export {
  openControlDb,
  openControlDbReadOnly,
  snapshotControlDb,
  controlDbFileProblem,
  controlDialect,
  sqliteControlDb,
  type ControlDb,
} from "./db";
export { ControlPlaneError } from "./postgres";
export * from "./keys";
export * from "./programs";
export * from "./jobs";
export * from "./segments";
export * from "./settings";
export * from "./lease";
export * from "./ingest-nodes";
export * from "./resolved-hours";
export * from "./resolver-state";
export * from "./chain-observations";
export * from "./resolution-batches";
export * from "./spool-integrity";
export * from "./quarantine";
export * from "./lake-watermark";
export * from "./alerts";
