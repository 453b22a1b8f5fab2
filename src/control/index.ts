// Public surface of the control plane (bun:sqlite by default, PostgreSQL with TXRAY_CONTROL_URL).
export { openControlDb, controlDialect, sqliteControlDb, type ControlDb } from "./db";
export { ControlPlaneError } from "./postgres";
export * from "./keys";
export * from "./programs";
export * from "./jobs";
export * from "./segments";
export * from "./settings";
export * from "./lease";
export * from "./ingest-nodes";
export * from "./signatures";
