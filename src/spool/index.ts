// Public surface of the spool: the durable, fsync'd log between ingest and the lake. Ingest appends
// batches to it (Spool), flush reads its sealed segments and their checksums, and the seal
// responder lets jobs in other processes ask a live node to seal.

export {
  checkFrames,
  encodeFrames,
  FRAME_RECORD_BYTES,
  FRAMES_SUFFIX,
  type FrameCheck,
  framesFileOf,
  hasFrames,
  writeVerifiedCopy,
} from "./frames";
export {
  decodeSpoolLine,
  encodeSpoolBatch,
  SPOOL_COLUMNS,
  SPOOL_TEXT_COLUMNS,
  type SpoolColumn,
  spoolLinePrefix,
} from "./line-format";
export { moveToQuarantine, QUARANTINE_DIR, quarantinedPathOf, segmentLineCount } from "./quarantine";
export { HEARTBEAT_MS, SEAL_POLL_MS, type SealResponderDeps, startSealResponder } from "./seal-responder";
export {
  cutTornTail,
  liveOwner,
  newSegmentName,
  recoverActiveSegments,
  removeSegment,
  Spool,
  type SpoolOptions,
  sealedSegmentFiles,
  segmentNameOf,
  spoolLineWith,
} from "./spool";
