// Public surface of the spool: the durable, fsync'd log between ingest and the lake. Ingest appends
// batches to it (Spool), flush reads its sealed segments and their checksums, and the seal
// responder lets jobs in other processes ask a live node to seal.
export {
  Spool,
  newSegmentName,
  sealedSegmentFiles,
  segmentNameOf,
  liveOwner,
  recoverActiveSegments,
  removeSegment,
  cutTornTail,
  spoolLineWith,
  type SpoolOptions,
} from "./spool";
export {
  FRAME_RECORD_BYTES,
  FRAMES_SUFFIX,
  framesFileOf,
  encodeFrames,
  checkFrames,
  writeVerifiedCopy,
  hasFrames,
  type FrameCheck,
} from "./frames";
export { QUARANTINE_DIR, quarantinedPathOf, moveToQuarantine, segmentLineCount } from "./quarantine";
export {
  SPOOL_COLUMNS,
  SPOOL_TEXT_COLUMNS,
  spoolLinePrefix,
  encodeSpoolBatch,
  decodeSpoolLine,
  type SpoolColumn,
} from "./line-format";
export { startSealResponder, SEAL_POLL_MS, HEARTBEAT_MS, type SealResponderDeps } from "./seal-responder";
