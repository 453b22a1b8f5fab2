// Public surface of deploy detection (src/jobs/deploys.ts, tests).
export { detectDeploys, type DetectDeps, type DetectResult } from "./detect";
export { latestRecordedSlot, recordDeploy, type DeployRecord } from "./deploy-records";
export {
  decodeProgramData,
  programDataAddressOf,
  UPGRADEABLE_LOADER_ID,
  PROGRAM_DATA_HEADER_BYTES,
} from "./loader-state";
