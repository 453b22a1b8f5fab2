// Public surface of deploy detection (src/jobs/deploys.ts, tests).

export { type DeployRecord, latestRecordedSlot, recordDeploy } from "./deploy-records";
export { type DetectDeps, type DetectOptions, type DetectResult, detectDeploys } from "./detect";
export {
  decodeProgramData,
  PROGRAM_DATA_HEADER_BYTES,
  programDataAddressOf,
  UPGRADEABLE_LOADER_ID,
} from "./loader-state";
export {
  compareUrl,
  type DeploySource,
  type DeployToSource,
  decodeVerificationRecord,
  deploySource,
  deploysToSource,
  fetchDeploySource,
  OTTER_VERIFY_PROGRAM_ID,
  OTTERSEC_SIGNERS,
  refreshDeploySources,
  VERIFIED_BUILDS_DIR_NAME,
  type VerificationRecord,
  verificationRecordAddress,
} from "./verified-build";
